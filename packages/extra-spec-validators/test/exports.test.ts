import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { exportLayout as layout, readPackageManifest } from '../../../test-support/package-manifest.js';

const manifest = readPackageManifest(join(import.meta.dirname, '..'));

describe('the ./cli subpath', () => {
  it('resolves by package name to the command-line runner', async () => {
    const sub = await import('@stackspec/extra-spec-validators/cli');
    expect(Object.keys(sub)).toEqual(['runExtraSpecsCli']);
    const out: string[] = [];
    const io = {
      stdout: { write: (s: string) => out.push(s) },
      stderr: { write: (s: string) => out.push(s) },
      cwd: process.cwd(),
      env: {},
    };
    expect(await sub.runExtraSpecsCli(['describe', 'hw:cpu_policy'], io as never)).toBe(0);
    expect(out.join('')).toContain('hw:cpu_policy');
  });

  it('is the only entry with the command-line runner (the main entry no longer has it)', async () => {
    const main: Record<string, unknown> = await import('@stackspec/extra-spec-validators');
    expect(main).not.toHaveProperty('runExtraSpecsCli');
    expect(typeof main.validateExtraSpecs).toBe('function');
  });

  it('is declared with the conditions of the main entry, for ESM, CommonJS and old TypeScript', () => {
    expect(layout(manifest.exports['./cli'], 'cli')).toBe(layout(manifest.exports['.'], 'index'));
    expect(manifest.exports['./cli']).toMatchObject({ '@stackspec/source': './src/cli.ts' });
    expect(manifest.typesVersions['*']?.cli).toEqual(['./dist/cli.d.ts']);
  });
});
