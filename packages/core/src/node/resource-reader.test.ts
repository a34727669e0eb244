import { spawnSync } from 'node:child_process';
import {
  mkdirSync,
  mkdtempSync,
  realpathSync,
  rmSync,
  symlinkSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNodeResourceReader } from './resource-reader.js';

describe('createNodeResourceReader', () => {
  let dir: string;
  const at = (...parts: string[]) => join(dir, ...parts);

  beforeAll(() => {
    dir = realpathSync(mkdtempSync(join(tmpdir(), 'stackspec-reader-')));
    for (const d of ['a/common', 'b/common', 'outside']) mkdirSync(at(d), { recursive: true });
    writeFileSync(at('a/common/setup.sh'), 'from a');
    writeFileSync(at('b/common/setup.sh'), 'from b');
    writeFileSync(at('a/common/empty.sh'), '');
    writeFileSync(at('b/common/empty.sh'), 'not empty in b');
    writeFileSync(at('outside/secret'), 'secret');
    symlinkSync(at('outside/secret'), at('a/common/link'));
    expect(spawnSync('mkfifo', [at('a/common/pipe')]).status).toBe(0);
    writeFileSync(at('b/common/pipe'), 'b has a file');
    writeFileSync(at('a/common/huge'), '');
    truncateSync(at('a/common/huge'), 2 * 1024 ** 3);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('reads the first root that has the file, named by its real path', () => {
    const reader = createNodeResourceReader({ roots: [at('a'), at('b')] });
    expect(reader.read('common/setup.sh')).toEqual({
      ok: true,
      text: 'from a',
      file: at('a/common/setup.sh'),
    });
    expect(reader.read('common\\setup.sh')).toMatchObject({ ok: true, text: 'from a' });
    expect(reader.roots).toEqual([at('a'), at('b')]);
  });

  it('passes over an empty file with skipEmpty, and over one it cannot read, to a later root', () => {
    const reader = createNodeResourceReader({ roots: [at('a'), at('b')] });
    expect(reader.read('common/empty.sh', { skipEmpty: true })).toMatchObject({ text: 'not empty in b' });
    expect(reader.read('common/empty.sh')).toMatchObject({ ok: true, text: '' });
    expect(reader.read('common/pipe')).toMatchObject({ ok: true, text: 'b has a file' });
  });

  it('says why a file cannot be read when no root has a readable one, without waiting on a FIFO', () => {
    const reader = createNodeResourceReader({ roots: [at('a')] });
    expect(reader.read('common/pipe')).toMatchObject({
      ok: false,
      reason: 'it is a named pipe (FIFO), not a regular file',
      diagnostic: { code: 'fs/unreadable', file: at('a/common/pipe') },
    });
    expect(reader.read('common')).toMatchObject({
      ok: false,
      reason: 'it is a directory, not a regular file',
    });
    expect(reader.read('common/nope')).toMatchObject({
      ok: false,
      missing: true,
      diagnostic: { code: 'fs/not-found' },
    });
  });

  it('stops at a file over the bound without reading it', () => {
    const reader = createNodeResourceReader({ roots: [at('a'), at('b')] });
    expect(reader.read('common/huge', { maxBytes: 1024 })).toMatchObject({
      ok: false,
      size: 2 * 1024 ** 3,
      diagnostic: { code: 'fs/too-large' },
    });
  });

  it('refuses, when confined, paths and symbolic links that leave the roots', () => {
    const reader = createNodeResourceReader({ roots: [at('a')] });
    for (const path of ['../outside/secret', at('outside/secret'), 'common/link', 'x/../../outside/secret']) {
      expect(reader.read(path), path).toMatchObject({
        ok: false,
        outside: true,
        diagnostic: { code: 'fs/outside-roots' },
      });
    }
  });

  it('follows .., absolute paths and links when not confined', () => {
    const reader = createNodeResourceReader({ roots: [at('a')], confine: false });
    expect(reader.read('../outside/secret')).toMatchObject({ ok: true, text: 'secret' });
    expect(reader.read(at('outside/secret'))).toMatchObject({ ok: true, text: 'secret' });
    expect(reader.read('common/link')).toMatchObject({ ok: true, text: 'secret' });
  });

  it('treats a root that does not exist as one without the file', () => {
    const reader = createNodeResourceReader({ roots: [at('missing-root'), at('b')] });
    expect(reader.read('common/setup.sh')).toMatchObject({ ok: true, text: 'from b' });
  });
});
