import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readTarArchive, tarArchive } from './tar.js';

describe('tarArchive', () => {
  it('builds archives that GNU tar extracts byte for byte', () => {
    const dir = mkdtempSync(join(tmpdir(), 'siv-tar-'));
    const long = `${'d'.repeat(120)}/${'f'.repeat(90)}`;
    const archive = tarArchive([
      { path: 'tmp/a.sh', content: '#!/bin/sh\necho ü\n', mode: 0o755 },
      { path: 'tmp/empty', content: '' },
      { path: long, content: new Uint8Array([0, 255, 10]) },
    ]);
    expect(archive.length % 512).toBe(0);
    const r = spawnSync('tar', ['-x', '-f', '-', '-C', dir], { input: archive });
    expect(r.status, r.stderr?.toString()).toBe(0);
    expect(readFileSync(join(dir, 'tmp/a.sh'), 'utf8')).toBe('#!/bin/sh\necho ü\n');
    expect(statSync(join(dir, 'tmp/a.sh')).mode & 0o777).toBe(0o755);
    expect(readFileSync(join(dir, 'tmp/empty'), 'utf8')).toBe('');
    expect([...readFileSync(join(dir, long))]).toEqual([0, 255, 10]);
  });

  it('round-trips any text content through a real tar', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ unit: 'grapheme' }), { minLength: 1, maxLength: 4 }), (contents) => {
        const dir = mkdtempSync(join(tmpdir(), 'siv-tar-'));
        const archive = tarArchive(contents.map((content, i) => ({ path: `f${i}`, content })));
        expect(spawnSync('tar', ['-x', '-f', '-', '-C', dir], { input: archive }).status).toBe(0);
        for (const [i, content] of contents.entries())
          expect(readFileSync(join(dir, `f${i}`), 'utf8')).toBe(content);
      }),
      { numRuns: 30 },
    );
  });

  it('reads back what it writes, long paths included', () => {
    const long = `${'d'.repeat(120)}/x`;
    const files = readTarArchive(
      tarArchive([
        { path: 'tmp/a', content: 'A' },
        { path: long, content: 'x'.repeat(600) },
      ]),
    );
    expect(files.map((f) => [f.path, new TextDecoder().decode(f.content).length])).toEqual([
      ['tmp/a', 1],
      [long, 600],
    ]);
    expect(readTarArchive(new Uint8Array(0))).toEqual([]);
  });

  it('refuses paths that leave the archive or do not fit', () => {
    expect(() => tarArchive([{ path: '/etc/passwd', content: '' }])).toThrow(RangeError);
    expect(() => tarArchive([{ path: 'a/../../b', content: '' }])).toThrow(RangeError);
    expect(() => tarArchive([{ path: 'x'.repeat(300), content: '' }])).toThrow(/too long/);
  });
});
