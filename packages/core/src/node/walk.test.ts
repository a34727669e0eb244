import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { displayPath, mapWithConcurrency, walkFiles } from './walk.js';

let root: string;

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'stackspec-walk-'));
  const w = (p: string, text = 'a: 1\n') => {
    mkdirSync(join(root, p, '..'), { recursive: true });
    writeFileSync(join(root, p), text);
  };
  w('tree/a.yaml');
  w('tree/b.json');
  w('tree/notes.txt');
  w('tree/sub/c.yml');
  w('tree/ci/skip.yaml');
  w('tree/.hidden/d.yaml');
  w('other/e.yaml');
  symlinkSync(join(root, 'tree'), join(root, 'tree/sub/loop'));
  symlinkSync(join(root, 'other'), join(root, 'tree/linked-other'));
  symlinkSync(join(root, 'nowhere'), join(root, 'tree/broken.yaml'));
  symlinkSync(join(root, 'other/e.yaml'), join(root, 'tree/e-link.yaml'));
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('walkFiles', () => {
  it('lists matching files sorted, following links but never looping', async () => {
    const { files, diagnostics } = await walkFiles(['tree'], { cwd: root, ignore: ['ci/**'] });
    expect(files).toEqual([
      'tree/a.yaml',
      'tree/b.json',
      'tree/e-link.yaml',
      'tree/linked-other/e.yaml',
      'tree/sub/c.yml',
    ]);
    const codes = diagnostics.map((d) => [d.code, d.file]);
    expect(codes).toContainEqual(['fs/symlink-loop', 'tree/sub/loop']);
    expect(codes).toContainEqual(['fs/broken-symlink', 'tree/broken.yaml']);
    expect(diagnostics.every((d) => d.severity === 'warning')).toBe(true);
  });

  it('includes dot-directories on request and custom matchers', async () => {
    const { files } = await walkFiles(['tree'], { cwd: root, dot: true, match: (n) => n.endsWith('.yaml') });
    expect(files).toContain('tree/.hidden/d.yaml');
    expect(files).not.toContain('tree/b.json');
  });

  it('takes files named explicitly whatever their extension, once', async () => {
    const { files } = await walkFiles(['tree/notes.txt', 'tree', 'tree/sub'], { cwd: root });
    expect(files.filter((f) => f === 'tree/sub/c.yml')).toHaveLength(1);
    expect(files).toContain('tree/notes.txt');
  });

  it('reports missing paths and skipped directories without throwing', async () => {
    const r = await walkFiles(['missing', 'other'], { cwd: root, recursive: false });
    expect(r.files).toEqual([]);
    expect(r.diagnostics.map((d) => d.code)).toEqual(['fs/not-found', 'fs/not-recursive']);
  });
});

describe('helpers', () => {
  it('maps with bounded concurrency and keeps order', async () => {
    let inFlight = 0;
    let peak = 0;
    const out = await mapWithConcurrency([5, 1, 3, 2], 2, async (n) => {
      inFlight += 1;
      peak = Math.max(peak, inFlight);
      await new Promise((r) => setImmediate(r));
      inFlight -= 1;
      return n * 2;
    });
    expect(out).toEqual([10, 2, 6, 4]);
    expect(peak).toBe(2);
  });

  it('shows paths relative to a base', () => {
    expect(displayPath('/a/b/c.yaml', '/a')).toBe('b/c.yaml');
    expect(displayPath('/x/c.yaml', '/a')).toBe('/x/c.yaml');
  });
});
