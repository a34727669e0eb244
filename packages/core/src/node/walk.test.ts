import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdir, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sharedAvailable, sharedPath } from '../../../../test-support/shared.js';
import { displayPath, mapWithConcurrency, type WalkFileSystem, walkFiles, walkFilesWith } from './walk.js';

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

describe('walkFiles: how found files are spelled', () => {
  it('keeps the path as given, trailing slashes dropped, absolute or relative', async () => {
    expect((await walkFiles(['tree/sub/'], { cwd: root })).files).toEqual(['tree/sub/c.yml']);
    expect((await walkFiles(['./tree/../other//'], { cwd: root })).files).toEqual(['other/e.yaml']);
    expect((await walkFiles([`${root}/other/`])).files).toEqual([`${root}/other/e.yaml`]);
  });

  it('keeps the leading slash of files found under the root directory', async () => {
    // A one-file tree at '/', served by a fake file system.
    const dirent = (name: string, file: boolean) =>
      ({ name, isFile: () => file, isDirectory: () => !file, isSymbolicLink: () => false }) as never;
    const fakeRoot: WalkFileSystem = {
      realpath: async (p) => p,
      stat: async () => ({ isDirectory: () => true, isFile: () => false }) as never,
      readdir(path, options, callback) {
        const done = (typeof options === 'function' ? options : callback) as (e: unknown, x: unknown) => void;
        done(null, path === '/' ? [dirent('etc', false)] : [dirent('a.yaml', true)]);
      },
    };
    for (const ignore of [undefined, ['**/*.txt']]) {
      const r = await walkFilesWith(fakeRoot, ['/'], { ...(ignore ? { ignore } : {}) });
      expect(r).toEqual({ files: ['/etc/a.yaml'], diagnostics: [] });
    }
  });
});

describe('walkFiles with and without ignore patterns', () => {
  // An ignore pattern that matches nothing sends the walk through fast-glob.
  const viaGlob = { ignore: ['**/*.never-there'] };

  it('finds the same files and problems either way, dot-files included or not', async () => {
    for (const dot of [false, true]) {
      const plain = await walkFiles(['tree', 'other'], { cwd: root, dot });
      const globbed = await walkFiles(['tree', 'other'], { cwd: root, dot, ...viaGlob });
      expect(globbed).toEqual(plain);
      expect(plain.files.includes('tree/.hidden/d.yaml')).toBe(dot);
    }
  });

  it.runIf(sharedAvailable('real-world YAML corpus', 'corpus'))(
    'finds the same files either way in a real template tree',
    async () => {
      const tree = sharedPath('corpus/tripleo-heat-templates');
      const plain = await walkFiles([tree]);
      expect(plain.files.length).toBeGreaterThan(600);
      expect(await walkFiles([tree], viaGlob)).toEqual(plain);
    },
  );

  it('loads fast-glob only when there are patterns to ignore', () => {
    // Loading it costs more than a whole walk of a large tree without it.
    const source = readFileSync(new URL('./walk.ts', import.meta.url), 'utf8');
    expect(source).not.toMatch(/^import (?!type )[^;]*'fast-glob'/m);
    expect(source).toContain("await import('fast-glob')");
  });
});

describe('walkFiles: links, special files and unreadable directories', () => {
  let base: string;

  beforeAll(() => {
    base = mkdtempSync(join(tmpdir(), 'stackspec-walk2-'));
    mkdirSync(join(base, 'top/mid/low'), { recursive: true });
    writeFileSync(join(base, 'top/a.yaml'), 'a: 1\n');
    writeFileSync(join(base, 'top/mid/b.yaml'), 'b: 1\n');
    writeFileSync(join(base, 'top/mid/low/c.yaml'), 'c: 1\n');
    // A link from deep inside up to an ancestor of the searched folder.
    symlinkSync(join(base, 'top'), join(base, 'top/mid/low/up'));
    // A link to itself: following it fails with ELOOP.
    symlinkSync('self.yaml', join(base, 'top/mid/self.yaml'));
    expect(spawnSync('mkfifo', [join(base, 'top/mid/pipe.yaml')]).status).toBe(0);
    // Endless when read: found through a link, it must be skipped like a FIFO.
    mkdirSync(join(base, 'dev'));
    symlinkSync('/dev/zero', join(base, 'dev/zero.yaml'));
  });

  afterAll(() => rmSync(base, { recursive: true, force: true }));

  it('skips a link up to an ancestor of the searched folder instead of listing the tree again', async () => {
    const { files, diagnostics } = await walkFiles(['top/mid'], { cwd: base });
    expect(files).toEqual(['top/mid/b.yaml', 'top/mid/low/c.yaml']);
    expect(diagnostics.map((d) => [d.code, d.file])).toContainEqual(['fs/symlink-loop', 'top/mid/low/up']);
  });

  it('reports a link that loops on itself as a loop, not as a broken link', async () => {
    const { diagnostics } = await walkFiles(['top/mid'], { cwd: base });
    expect(diagnostics.map((d) => [d.code, d.file])).toContainEqual(['fs/symlink-loop', 'top/mid/self.yaml']);
    expect(diagnostics.map((d) => d.code)).not.toContain('fs/broken-symlink');
    const named = await walkFiles(['top/mid/self.yaml'], { cwd: base });
    expect(named.diagnostics.map((d) => d.code)).toEqual(['fs/symlink-loop']);
  });

  it('never lists a FIFO or a device, named or found, since reading one can block', async () => {
    const found = await walkFiles(['top/mid'], { cwd: base });
    expect(found.files).not.toContain('top/mid/pipe.yaml');
    expect(found.diagnostics).toContainEqual(
      expect.objectContaining({ code: 'fs/unreadable', file: 'top/mid/pipe.yaml', severity: 'warning' }),
    );
    const named = await walkFiles(['top/mid/pipe.yaml', '/dev/null'], { cwd: base });
    expect(named.files).toEqual([]);
    expect(named.diagnostics.map((d) => [d.code, d.file])).toEqual([
      ['fs/unreadable', 'top/mid/pipe.yaml'],
      ['fs/unreadable', '/dev/null'],
    ]);
    expect(named.diagnostics[0]?.message).toBe(
      'This is a named pipe (FIFO), not a regular file; it is skipped, since reading it could block or never end.',
    );
    expect(named.diagnostics[1]?.message).toMatch(/^This is a device, not a regular file/);
  });

  it('skips a link to a device such as /dev/zero, found or named, saying what it is', async () => {
    const found = await walkFiles(['dev'], { cwd: base });
    expect(found.files).toEqual([]);
    expect(found.diagnostics).toEqual([
      expect.objectContaining({
        code: 'fs/unreadable',
        file: 'dev/zero.yaml',
        message: expect.stringMatching(/^This is a device, not a regular file/),
      }),
    ]);
    const globbed = await walkFiles(['dev'], { cwd: base, ignore: ['nothing/**'] });
    expect(globbed.files).toEqual([]);
    expect(globbed.diagnostics.map((d) => [d.code, d.file])).toEqual([['fs/unreadable', 'dev/zero.yaml']]);
    const named = await walkFiles(['dev/zero.yaml'], { cwd: base });
    expect(named.files).toEqual([]);
    expect(named.diagnostics.map((d) => d.message)).toEqual([expect.stringContaining('a device')]);
  });

  it('reports a directory it cannot read instead of quietly listing nothing under it', async () => {
    // Root reads any directory, so the refusal comes from a file system that says EACCES.
    const denying: WalkFileSystem = {
      realpath: (p) => import('node:fs/promises').then((f) => f.realpath(p)),
      stat: (p) => import('node:fs/promises').then((f) => f.stat(p)),
      readdir(path, options, callback) {
        const done = (typeof options === 'function' ? options : callback) as (e: unknown, x: unknown) => void;
        if (path.endsWith(`${join('mid', 'low')}`)) {
          const e = Object.assign(new Error(`EACCES: permission denied, scandir '${path}'`), {
            code: 'EACCES',
          });
          done(e, undefined);
        } else if (typeof options === 'function') readdir(path, options as never);
        else readdir(path, options as never, callback as never);
      },
    };
    const { files, diagnostics } = await walkFilesWith(denying, ['top/mid'], { cwd: base });
    expect(files).toEqual(['top/mid/b.yaml']);
    expect(diagnostics).toContainEqual(
      expect.objectContaining({
        code: 'fs/unreadable',
        file: 'top/mid/low',
        message: expect.stringContaining('EACCES'),
      }),
    );
    // The same for the folder that was named, and when fast-glob does the walk.
    const root = await walkFilesWith(denying, ['top/mid/low'], { cwd: base });
    expect(root.files).toEqual([]);
    expect(root.diagnostics.map((d) => [d.code, d.file])).toEqual([['fs/unreadable', 'top/mid/low']]);
    const globbed = await walkFilesWith(denying, ['top/mid'], { cwd: base, ignore: ['**/*.txt'] });
    expect(globbed.files).toEqual(['top/mid/b.yaml']);
    expect(globbed.diagnostics.map((d) => [d.code, d.file])).toContainEqual(['fs/unreadable', 'top/mid/low']);
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
