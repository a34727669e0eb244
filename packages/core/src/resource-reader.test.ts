import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createMemoryResourceReader, normalizeResourcePath } from './resource-reader.js';

describe('normalizeResourcePath', () => {
  it.each([
    ['a/./b//c', 'a/b/c'],
    ['a\\b', 'a/b'],
    ['a/../b', 'b'],
    ['../a', '../a'],
    ['a/../../b', '../b'],
    ['/a/../../b', '/b'],
    ['.', ''],
    ['', ''],
  ])('normalises %j to %j', (path, expected) => {
    expect(normalizeResourcePath(path)).toBe(expected);
  });
});

describe('createMemoryResourceReader', () => {
  const files = { 'a/setup.sh': 'one', 'b/setup.sh': 'two', 'b/empty.sh': '', 'a/empty.sh': '' };

  it('looks a relative path up under each root in order', () => {
    const reader = createMemoryResourceReader(files, { roots: ['b', 'a'] });
    expect(reader.read('setup.sh')).toEqual({ ok: true, text: 'two', file: 'b/setup.sh' });
    expect(reader.roots).toEqual(['b', 'a']);
  });

  it('passes over an empty file with skipEmpty, and returns it without', () => {
    const reader = createMemoryResourceReader(
      { ...files, 'a/only-a.sh': 'x', 'b/only-a.sh': '' },
      { roots: ['b', 'a'] },
    );
    expect(reader.read('only-a.sh', { skipEmpty: true })).toMatchObject({ ok: true, text: 'x' });
    expect(reader.read('only-a.sh')).toMatchObject({ ok: true, text: '' });
    expect(reader.read('empty.sh', { skipEmpty: true })).toMatchObject({ ok: false, missing: true });
  });

  it('says a missing file does not exist', () => {
    expect(createMemoryResourceReader(files).read('nope.sh')).toMatchObject({
      ok: false,
      missing: true,
      reason: 'it does not exist',
      diagnostic: { code: 'fs/not-found' },
    });
  });

  it('refuses paths that leave the roots when confined, and follows them when not', () => {
    const confined = createMemoryResourceReader(files, { roots: ['a'] });
    for (const path of ['../b/setup.sh', '/a/setup.sh', 'x/../../b/setup.sh', 'a\u0000b']) {
      expect(confined.read(path), path).toMatchObject({
        ok: false,
        outside: true,
        diagnostic: { code: 'fs/outside-roots' },
      });
    }
    const open = createMemoryResourceReader({ ...files, '/etc/x': 'abs' }, { roots: ['a'], confine: false });
    expect(open.read('../b/setup.sh')).toMatchObject({ ok: true, text: 'two' });
    expect(open.read('/etc/x')).toMatchObject({ ok: true, text: 'abs' });
  });

  it('bounds a file by its size in UTF-8 bytes', () => {
    const reader = createMemoryResourceReader({ 'e.txt': 'é'.repeat(6) });
    expect(reader.read('e.txt', { maxBytes: 12 })).toMatchObject({ ok: true });
    expect(reader.read('e.txt', { maxBytes: 11 })).toMatchObject({
      ok: false,
      size: 12,
      reason: 'it holds 12 bytes, more than the limit of 11 bytes',
      diagnostic: { code: 'fs/too-large' },
    });
  });

  it('never throws, whatever the path', () => {
    const reader = createMemoryResourceReader(files, { roots: ['a', ''] });
    fc.assert(
      fc.property(fc.string(), fc.boolean(), (path, skipEmpty) => {
        const r = reader.read(path, { skipEmpty });
        if (!r.ok) expect(r.reason).not.toBe('');
      }),
    );
  });
});
