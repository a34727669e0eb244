import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { readPackageVersion } from './version.js';

const root = mkdtempSync(join(tmpdir(), 'stackspec-version-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A package folder as npm installs it, with a module at `relative`. */
function installed(name: string, version: string, relative: string): string {
  const dir = mkdtempSync(join(root, 'pkg-'));
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name, version }));
  const file = join(dir, relative);
  mkdirSync(join(file, '..'), { recursive: true });
  writeFileSync(file, '');
  return pathToFileURL(file).href;
}

describe('readPackageVersion', () => {
  it("reads core's own version from its sources", () => {
    const manifest = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
    expect(readPackageVersion(import.meta.url, '@stackspec/core')).toBe(manifest.version);
  });

  it('finds the manifest from a bin, a chunk or a CommonJS file of a build', () => {
    expect(readPackageVersion(installed('@x/a', '1.2.3', 'dist/bin/a.js'), '@x/a')).toBe('1.2.3');
    expect(readPackageVersion(installed('@x/a', '1.2.4', 'dist/chunk-ABC.cjs'), '@x/a')).toBe('1.2.4');
    expect(readPackageVersion(installed('@x/a', '2.0.0-rc.1', 'src/cli/program.ts'), '@x/a')).toBe(
      '2.0.0-rc.1',
    );
  });

  it("skips manifests of other packages on the way up (a nested folder's, the workspace's)", () => {
    const url = installed('@x/outer', '3.0.0', 'node_modules/@x/inner/dist/bin/i.js');
    const inner = new URL('../../', url);
    writeFileSync(new URL('package.json', inner), JSON.stringify({ name: '@x/inner', version: '0.4.0' }));
    writeFileSync(new URL('dist/package.json', inner), JSON.stringify({ type: 'module' }));
    expect(readPackageVersion(url, '@x/inner')).toBe('0.4.0');
    expect(readPackageVersion(url, '@x/outer')).toBe('3.0.0');
  });

  it("says 'unknown' rather than throwing when there is no manifest to find", () => {
    expect(readPackageVersion(installed('@x/a', '1.0.0', 'dist/a.js'), '@x/missing')).toBe('unknown');
    expect(readPackageVersion('data:text/javascript,1', '@x/a')).toBe('unknown');
  });
});
