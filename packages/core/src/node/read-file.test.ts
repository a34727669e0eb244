import { existsSync, symlinkSync, writeFileSync } from 'node:fs';
import { Readable } from 'node:stream';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createHostileFolder,
  type HostileFolder,
  withFedFifo,
} from '../../../../test-support/hostile-files.js';
import { isStackspecError } from '../errors.js';
import { readTextFile, readTextInput } from './read-file.js';

let files: HostileFolder;
const at = (name: string) => files.at(name);

beforeAll(() => {
  files = createHostileFolder('core-read-', '\ufeffname: é # ok\n');
  writeFileSync(at('latin1.yaml'), Buffer.from([0x61, 0x3a, 0x20, 0xe9, 0x0a]));
  writeFileSync(at('big.yaml'), 'y'.repeat(300 * 1024));
  symlinkSync('loop-b', at('loop-a'));
  symlinkSync('loop-a', at('loop-b'));
});

afterAll(() => files.remove());

describe('readTextFile', () => {
  it('reads a file as UTF-8, keeping a byte-order mark', () => {
    expect(readTextFile(at('ok.yaml'))).toEqual({ ok: true, text: '\ufeffname: é # ok\n' });
    expect(readTextFile(at('empty.yaml'))).toEqual({ ok: true, text: '' });
    // Larger than the shared buffer, read in several steps.
    expect(readTextFile(at('big.yaml'))).toEqual({ ok: true, text: 'y'.repeat(300 * 1024) });
    expect(readTextFile(at('latin1.yaml'))).toEqual({ ok: true, text: 'a: \ufffd\n' });
  });

  it('refuses a named pipe without waiting for a writer', () => {
    expect(readTextFile(at('fifo.yaml'), { file: 'fifo.yaml' })).toEqual({
      ok: false,
      reason: 'it is a named pipe (FIFO), not a regular file',
      diagnostic: expect.objectContaining({
        code: 'fs/unreadable',
        severity: 'error',
        file: 'fifo.yaml',
        message: 'The file cannot be read: it is a named pipe (FIFO), not a regular file.',
      }),
    });
  });

  it('refuses a named pipe that has a writer and data, without reading it', () => {
    withFedFifo(at('fed.yaml'), 'a: 1\n', () =>
      expect(readTextFile(at('fed.yaml'))).toMatchObject({
        ok: false,
        diagnostic: { code: 'fs/unreadable', message: expect.stringContaining('named pipe') },
      }),
    );
  });

  it('refuses a directory and a device', () => {
    expect(readTextFile(at('folder.yaml'))).toMatchObject({
      ok: false,
      diagnostic: {
        code: 'fs/unreadable',
        message: expect.stringContaining('a directory, not a regular file'),
      },
    });
    // Endless: read, it would fill any bound.
    expect(readTextFile('/dev/zero')).toMatchObject({
      ok: false,
      reason: 'it is a device, not a regular file',
      diagnostic: { code: 'fs/unreadable', file: '/dev/zero', message: expect.stringContaining('a device') },
    });
  });

  it('says when nothing is there, and when symbolic links loop', () => {
    expect(readTextFile(at('nowhere.yaml'), { file: 'nowhere.yaml' })).toEqual({
      ok: false,
      missing: true,
      reason: 'it does not exist',
      diagnostic: expect.objectContaining({
        code: 'fs/not-found',
        file: 'nowhere.yaml',
        message: 'The file does not exist.',
      }),
    });
    expect(readTextFile(at('loop-a'))).toMatchObject({
      ok: false,
      reason: 'its symbolic links form a loop',
      diagnostic: {
        code: 'fs/unreadable',
        message: 'The file cannot be read: its symbolic links form a loop.',
      },
    });
  });

  // Root reads whatever the mode bits say, so only another user can see this refusal.
  it.skipIf(process.getuid?.() === 0)('says when permission is denied', () => {
    writeFileSync(at('secret.yaml'), 'a: 1\n', { mode: 0o000 });
    expect(readTextFile(at('secret.yaml'))).toMatchObject({
      ok: false,
      diagnostic: { code: 'fs/unreadable', message: 'The file cannot be read: permission denied.' },
    });
  });

  it('refuses a file over the bound without reading it', () => {
    expect(readTextFile(at('huge.yaml'), { file: 'huge.yaml' })).toEqual({
      ok: false,
      diagnostic: expect.objectContaining({
        code: 'fs/too-large',
        file: 'huge.yaml',
        message: `The file holds ${2 ** 30} bytes, more than the limit of ${10 * 1024 * 1024} bytes; it is not read.`,
        hint: expect.stringContaining('maxBytes'),
      }),
      size: 2 ** 30,
      reason: `it holds ${2 ** 30} bytes, more than the limit of ${10 * 1024 * 1024} bytes`,
    });
  });

  it('reads a file of exactly the bound and refuses one byte more', () => {
    expect(readTextFile(at('limit.yaml'), { maxBytes: 64 })).toMatchObject({ ok: true });
    expect(readTextFile(at('limit.yaml'), { maxBytes: 63 })).toMatchObject({
      ok: false,
      size: 64,
      diagnostic: {
        code: 'fs/too-large',
        message: expect.stringContaining('64 bytes, more than the limit of 63'),
      },
    });
    expect(readTextFile(at('empty.yaml'), { maxBytes: 0 })).toEqual({ ok: true, text: '' });
    expect(readTextFile(at('big.yaml'), { maxBytes: Number.POSITIVE_INFINITY })).toMatchObject({ ok: true });
  });

  // A file in /proc says it holds 0 bytes and yet has text: the bound must hold while reading, not
  // only against the size found before (as for a file that grows between the two).
  it.skipIf(!existsSync('/proc/self/maps'))(
    'stops at the bound when a file holds more than its size says',
    () => {
      expect(readTextFile('/proc/self/maps', { maxBytes: 100 })).toMatchObject({
        ok: false,
        diagnostic: {
          code: 'fs/too-large',
          message: expect.stringContaining('more than the limit of 100 bytes'),
        },
        size: 101,
      });
      const whole = readTextFile('/proc/self/maps', { maxBytes: 1024 * 1024 });
      expect(whole.ok && whole.text.length).toBeGreaterThan(100);
    },
  );

  it('refuses a bound that is not a number of bytes', () => {
    for (const maxBytes of [Number.NaN, -1, '64' as unknown as number]) {
      try {
        readTextFile(at('ok.yaml'), { maxBytes });
        expect.unreachable();
      } catch (e) {
        expect(isStackspecError(e) && [e.kind, e.code]).toEqual(['spec', 'fs/bad-option']);
      }
    }
  });

  it('answers any path with text or one diagnostic, never a throw', () => {
    const names = [
      'ok.yaml',
      'empty.yaml',
      'folder.yaml',
      'fifo.yaml',
      'huge.yaml',
      'loop-a',
      'nowhere',
      '',
      '\0x',
    ];
    fc.assert(
      fc.property(fc.constantFrom(...names), fc.nat({ max: 100 }), (name, maxBytes) => {
        const r = readTextFile(name.startsWith('\0') ? name : at(name), { maxBytes });
        expect(r.ok ? typeof r.text : r.diagnostic.code).toMatch(
          /^(string|fs\/(not-found|unreadable|too-large))$/,
        );
      }),
    );
  });
});

describe('readTextInput', () => {
  it('reads text and bytes, chunk by chunk, as UTF-8', async () => {
    const r = await readTextInput(Readable.from([Buffer.from([0x61, 0xc3]), Buffer.from([0xa9]), 'b']));
    expect(r).toEqual({ ok: true, text: 'aéb' });
    expect(await readTextInput(Readable.from([]))).toEqual({ ok: true, text: '' });
    expect(await readTextInput(Readable.from([Buffer.from([0xff])]))).toEqual({ ok: true, text: '\ufffd' });
  });

  it('reads input of exactly the bound and refuses one byte more', async () => {
    expect(await readTextInput(Readable.from(['abcd']), { maxBytes: 4 })).toEqual({ ok: true, text: 'abcd' });
    // 'é' is two bytes: four characters, five bytes.
    expect(await readTextInput(Readable.from(['abcé']), { maxBytes: 4, file: '-' })).toEqual({
      ok: false,
      size: 5,
      reason: 'it holds more than the limit of 4 bytes',
      diagnostic: expect.objectContaining({
        code: 'fs/too-large',
        severity: 'error',
        file: '-',
        message: 'The input holds more than the limit of 4 bytes; it is not read.',
      }),
    });
  });

  it('stops taking endless input at the bound and releases the stream', async () => {
    let pulled = 0;
    const endless = new Readable({
      read() {
        pulled += 1;
        this.push(Buffer.alloc(64 * 1024));
      },
    });
    const r = await readTextInput(endless, { maxBytes: 1024 * 1024 });
    expect(r).toMatchObject({ ok: false, diagnostic: { code: 'fs/too-large', file: '<stdin>' } });
    expect(endless.destroyed).toBe(true);
    // Node reads a little ahead, but nowhere near what an unbounded read would take.
    expect(pulled).toBeLessThan(64);
  });

  it('says when the stream fails', async () => {
    const failing = new Readable({
      read() {
        this.destroy(Object.assign(new Error('EIO: i/o error, read'), { code: 'EIO' }));
      },
    });
    expect(await readTextInput(failing)).toMatchObject({
      ok: false,
      reason: 'EIO: i/o error, read',
      diagnostic: { code: 'fs/unreadable', message: 'The input cannot be read: EIO: i/o error, read.' },
    });
  });

  it('refuses a bound that is not a number of bytes', async () => {
    await expect(readTextInput(Readable.from(['x']), { maxBytes: -1 })).rejects.toMatchObject({
      code: 'fs/bad-option',
    });
  });

  it('answers any input with text or one diagnostic, never a throw', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.oneof(fc.string(), fc.uint8Array({ maxLength: 50 })), { maxLength: 8 }),
        fc.nat({ max: 100 }),
        async (chunks, maxBytes) => {
          const r = await readTextInput(Readable.from(chunks), { maxBytes });
          const total = chunks.reduce(
            (n, c) => n + (typeof c === 'string' ? Buffer.byteLength(c) : c.length),
            0,
          );
          expect(r.ok).toBe(total <= maxBytes);
        },
      ),
    );
  });
});
