import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { exportLayout as layout, readPackageManifest } from '../../../test-support/package-manifest.js';

const manifest = readPackageManifest(join(import.meta.dirname, '..'));

describe('the ./cli subpath', () => {
  it('resolves by package name to the command-line runner', async () => {
    const sub = await import('@stackspec/deploy-templates/cli');
    expect(Object.keys(sub).sort()).toEqual([
      'CLIENT_FIELDS',
      'parseKeyValue',
      'readJsonArgument',
      'runBaremetalCli',
    ]);
    expect(typeof sub.runBaremetalCli).toBe('function');
  });

  it('is the only entry with the command-line names (the main entry no longer has them)', async () => {
    const main: Record<string, unknown> = await import('@stackspec/deploy-templates');
    for (const name of ['runBaremetalCli', 'CLIENT_FIELDS', 'readJsonArgument', 'parseKeyValue']) {
      expect(main, name).not.toHaveProperty(name);
    }
  });

  it('is declared with the conditions of the other subpaths, for ESM, CommonJS and old TypeScript', () => {
    expect(layout(manifest.exports['./cli'], 'cli')).toBe(
      layout(manifest.exports['./postgres'], 'postgres').replace('adapters/<name>', '<name>'),
    );
    expect(manifest.exports['./cli']).toMatchObject({ '@stackspec/source': './src/cli.ts' });
    expect(manifest.typesVersions['*']?.cli).toEqual(['./dist/cli.d.ts']);
  });
});

describe('the ./pglite subpath', () => {
  it('resolves by package name to the PGlite adapter, which the main entry no longer exports', async () => {
    const sub = await import('@stackspec/deploy-templates/pglite');
    expect(Object.keys(sub)).toEqual(['createPgliteStore']);
    const main: Record<string, unknown> = await import('@stackspec/deploy-templates');
    expect(main).not.toHaveProperty('createPgliteStore');
    const store = sub.createPgliteStore();
    try {
      expect(await store.list()).toEqual([]);
    } finally {
      await store.close();
    }
  });

  it('is declared with the conditions of ./postgres, for ESM, CommonJS and old TypeScript', () => {
    expect(layout(manifest.exports['./pglite'], 'pglite')).toBe(
      layout(manifest.exports['./postgres'], 'postgres'),
    );
    expect(manifest.exports['./pglite']).toMatchObject({ '@stackspec/source': './src/adapters/pglite.ts' });
    expect(manifest.typesVersions['*']?.pglite).toEqual(['./dist/pglite.d.ts']);
  });
});
