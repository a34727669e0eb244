import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const manifest = JSON.parse(readFileSync(join(import.meta.dirname, '..', 'package.json'), 'utf8')) as {
  exports: Record<string, unknown>;
  typesVersions: Record<string, Record<string, string[]>>;
};

/** An export entry with its file names replaced, to compare the layout of two subpaths. */
function layout(entry: unknown, name: string): string {
  return JSON.stringify(entry).replaceAll(name, '<name>');
}

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

  it('leaves the deprecated names of the main entry as the same values', async () => {
    const [main, sub] = await Promise.all([
      import('@stackspec/deploy-templates'),
      import('@stackspec/deploy-templates/cli'),
    ]);
    expect(main.runBaremetalCli).toBe(sub.runBaremetalCli);
    expect(main.CLIENT_FIELDS).toBe(sub.CLIENT_FIELDS);
    expect(main.readJsonArgument).toBe(sub.readJsonArgument);
    expect(main.parseKeyValue).toBe(sub.parseKeyValue);
  });

  it('is declared with the conditions of the other subpaths, for ESM, CommonJS and old TypeScript', () => {
    expect(layout(manifest.exports['./cli'], 'cli')).toBe(
      layout(manifest.exports['./postgres'], 'postgres').replace('adapters/<name>', '<name>'),
    );
    expect(manifest.exports['./cli']).toMatchObject({ '@stackspec/source': './src/cli.ts' });
    expect(manifest.typesVersions['*']?.cli).toEqual(['./dist/cli.d.ts']);
  });
});
