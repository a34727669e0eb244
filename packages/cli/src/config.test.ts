import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isStackspecError } from '@stackspec/core';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeFifo, makeSparseFile } from '../../../test-support/hostile-files.js';
import { createConfigResolver, defaultConfig, loadConfig, loadConfigForFolder } from './config.js';

let root: string;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'stackspec-config-'));
  mkdirSync(join(root, 'proj/sub'), { recursive: true });
  writeFileSync(
    join(root, 'proj/stackspec.config.yaml'),
    'extraSpecs:\n  mode: permissive\nignore: ["ci/**"]\n',
  );
  writeFileSync(join(root, 'bad.yaml'), 'extraSpecs:\n  mode: loose\nignroe: []\n');
  writeFileSync(join(root, 'empty.yaml'), '# nothing\n');
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('loadConfig', () => {
  it('finds the config from a subfolder upwards', async () => {
    const loaded = await loadConfig(join(root, 'proj/sub'));
    expect(loaded.file).toBe(join(root, 'proj/stackspec.config.yaml'));
    expect(loaded.baseDir).toBe(join(root, 'proj'));
    expect(loaded.config.extraSpecs.mode).toBe('permissive');
    expect(loaded.config.ignore).toEqual(['ci/**']);
    expect(loaded.config.heat.enabled).toBe(true);
  });

  it('uses defaults when there is no config', async () => {
    const loaded = await loadConfig(root);
    expect(loaded.file).toBeUndefined();
    expect(loaded.config).toEqual(defaultConfig());
    expect(loaded.config.extraSpecs.mode).toBe('strict');
    expect(loaded.config.extraSpecs.discover).toBe(true);
    expect(loaded.config.schedule).toEqual({ defaultForbiddenMemberPrefixes: [], isolateAggregates: false });
  });

  it('reads any file as a config or rejects it with our error, never a foreign one', async () => {
    const file = join(root, 'fuzz.yaml');
    const text = fc.oneof(
      fc.string({ maxLength: 120 }),
      fc.json(),
      fc
        .dictionary(
          fc.constantFrom('ignore', 'extraSpecs', 'heat', 'schedule', 'imageSpecs', 'inventories', 'x'),
          fc.jsonValue({ maxDepth: 2 }),
        )
        .map((v) => JSON.stringify(v)),
    );
    await fc.assert(
      fc.asyncProperty(text, async (t) => {
        writeFileSync(file, t);
        try {
          const loaded = await loadConfig(root, 'fuzz.yaml');
          expect(loaded.file).toBe(file);
        } catch (e) {
          expect(isStackspecError(e)).toBe(true);
          expect((e as { code: string }).code).toBe('cli/bad-config');
        }
      }),
      { numRuns: 150 },
    );
  });

  it('accepts an empty config file', async () => {
    expect((await loadConfig(root, 'empty.yaml')).config).toEqual(defaultConfig());
  });

  it('rejects a malformed config with located, hinted diagnostics', async () => {
    await expect(loadConfig(root, 'bad.yaml')).rejects.toMatchObject({
      kind: 'spec',
      code: 'cli/bad-config',
    });
    try {
      await loadConfig(root, 'bad.yaml');
    } catch (e) {
      const ds = (e as { diagnostics: { code: string; line?: number; hint?: string }[] }).diagnostics;
      expect(ds).toContainEqual(expect.objectContaining({ code: 'stackspec/config/invalid-value', line: 2 }));
      expect(ds).toContainEqual(
        expect.objectContaining({
          code: 'stackspec/config/unknown-key',
          line: 3,
          hint: 'Did you mean ignore?',
        }),
      );
    }
  });

  it('reports a config file that does not exist', async () => {
    await expect(loadConfig(root, 'nope.yaml')).rejects.toMatchObject({ code: 'cli/config-not-found' });
  });

  it('refuses a config that is a FIFO or too large, found or named, without waiting or reading it', async () => {
    mkdirSync(join(root, 'piped/sub'), { recursive: true });
    makeFifo(join(root, 'piped/stackspec.config.yaml'));
    const found = loadConfig(join(root, 'piped/sub'));
    await expect(found).rejects.toMatchObject({
      kind: 'spec',
      code: 'cli/bad-config',
      diagnostics: [
        expect.objectContaining({
          code: 'fs/unreadable',
          file: join(root, 'piped/stackspec.config.yaml'),
          message: 'The file cannot be read: it is a named pipe (FIFO), not a regular file.',
        }),
      ],
    });
    makeSparseFile(join(root, 'huge.yaml'), 2 ** 30);
    await expect(loadConfig(root, 'huge.yaml')).rejects.toMatchObject({
      code: 'cli/bad-config',
      diagnostics: [
        expect.objectContaining({
          code: 'fs/too-large',
          message: `The file holds ${2 ** 30} bytes, more than the limit of 1048576 bytes; it is not read.`,
        }),
      ],
    });
  });

  it('does not take a folder named like a config for one', async () => {
    mkdirSync(join(root, 'foldered/stackspec.config.yaml'), { recursive: true });
    expect((await loadConfig(join(root, 'foldered'))).file).toBeUndefined();
  });
});

describe('createConfigResolver', () => {
  it('finds the nearest config above each file and caches it', async () => {
    const fallback = await loadConfig(root);
    const resolveConfig = createConfigResolver(fallback);
    const nested = await resolveConfig(join(root, 'proj/sub/flavor.yaml'));
    expect(nested.file).toBe(join(root, 'proj/stackspec.config.yaml'));
    expect(nested.config.extraSpecs.mode).toBe('permissive');
    expect(await resolveConfig(join(root, 'proj/sub/other.yaml'))).toBe(nested);
    expect((await resolveConfig(join(root, 'top.yaml'))).config).toEqual(defaultConfig());
  });

  it('surfaces a malformed nested config', async () => {
    mkdirSync(join(root, 'broken'), { recursive: true });
    writeFileSync(join(root, 'broken/stackspec.config.yaml'), 'ignore: 3\n');
    const resolveConfig = createConfigResolver(await loadConfig(root));
    await expect(resolveConfig(join(root, 'broken/x.yaml'))).rejects.toMatchObject({
      code: 'cli/bad-config',
    });
  });
});

describe('loadConfigForFolder', () => {
  it('takes the config nearest to the folder, or the one given', async () => {
    const near = await loadConfigForFolder(root, 'proj/sub');
    expect(near.file).toBe(join(root, 'proj/stackspec.config.yaml'));
    expect((await loadConfigForFolder(root, 'elsewhere')).file).toBeUndefined();
    expect((await loadConfigForFolder(root, 'proj', 'empty.yaml')).file).toBe(join(root, 'empty.yaml'));
  });
});
