import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readTextFile } from './read-file.js';
import { MAX_SCAN_CHARS } from './scan.js';

let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'heat-read-'));
  writeFileSync(join(dir, 'ok.yaml'), '\ufeffheat_template_version: wallaby # é\n');
  writeFileSync(join(dir, 'empty.yaml'), '');
  mkdirSync(join(dir, 'folder.yaml'));
  execFileSync('mkfifo', [join(dir, 'fifo.yaml')]);
  // Sparse: takes no disk space; read whole, it would make a string too long for V8.
  writeFileSync(join(dir, 'huge.yaml'), '');
  truncateSync(join(dir, 'huge.yaml'), 2 ** 30);
  writeFileSync(join(dir, 'limit.yaml'), 'x'.repeat(64));
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('readTextFile', () => {
  it('reads a file as UTF-8, keeping a byte-order mark', () => {
    expect(readTextFile(join(dir, 'ok.yaml'), 'ok.yaml')).toEqual({
      ok: true,
      text: '\ufeffheat_template_version: wallaby # é\n',
    });
    expect(readTextFile(join(dir, 'empty.yaml'), 'empty.yaml')).toEqual({ ok: true, text: '' });
  });

  it('reports a named pipe without waiting for a writer', () => {
    expect(readTextFile(join(dir, 'fifo.yaml'), 'fifo.yaml')).toEqual({
      ok: false,
      diagnostic: expect.objectContaining({
        code: 'heat/find/unreadable',
        severity: 'warning',
        file: 'fifo.yaml',
        message: 'The file cannot be read: it is a named pipe (FIFO), not a regular file.',
      }),
    });
  });

  it('reports a directory and a missing file', () => {
    expect(readTextFile(join(dir, 'folder.yaml'), 'folder.yaml')).toMatchObject({
      ok: false,
      diagnostic: { code: 'heat/find/unreadable', message: expect.stringContaining('a directory') },
    });
    expect(readTextFile(join(dir, 'nowhere.yaml'), 'nowhere.yaml')).toMatchObject({
      ok: false,
      missing: true,
      diagnostic: { code: 'heat/find/unreadable', message: 'The file cannot be read: it does not exist.' },
    });
  });

  it('refuses a file over the bound after reading no more than the bound', () => {
    expect(readTextFile(join(dir, 'huge.yaml'), 'huge.yaml')).toEqual({
      ok: false,
      diagnostic: expect.objectContaining({
        code: 'heat/find/too-large',
        file: 'huge.yaml',
        message: `The file holds ${2 ** 30} bytes, more than the ${MAX_SCAN_CHARS} bytes a template tree file may hold; it is not read.`,
      }),
    });
  });

  it('reads a file of exactly the bound and refuses one byte more', () => {
    expect(readTextFile(join(dir, 'limit.yaml'), 'limit.yaml', 64)).toMatchObject({ ok: true });
    expect(readTextFile(join(dir, 'limit.yaml'), 'limit.yaml', 63)).toMatchObject({
      ok: false,
      diagnostic: { code: 'heat/find/too-large' },
    });
  });
});
