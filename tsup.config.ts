import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { defineConfig } from 'tsup';

interface ExportTarget {
  '@stackspec/source'?: string;
  import?: { default?: string };
}

interface PackageJson {
  exports?: Record<string, ExportTarget | string>;
  bin?: Record<string, string> | string;
}

/**
 * Derives tsup entries from the package's own `exports` and `bin`, so the
 * package.json stays the single place that lists what a package ships.
 * `./dist/cli.js` built from `./src/cli/index.ts` becomes the entry `cli`.
 */
function entriesOf(pkg: PackageJson): { all: Record<string, string>; library: Record<string, string> } {
  const entries: Record<string, string> = {};
  for (const target of Object.values(pkg.exports ?? {})) {
    if (typeof target === 'string') continue;
    const source = target['@stackspec/source'];
    const out = target.import?.default;
    if (!source || !out) continue;
    entries[out.replace(/^\.\/dist\//, '').replace(/\.js$/, '')] = source;
  }
  const library = { ...entries };
  const bins = typeof pkg.bin === 'string' ? { bin: pkg.bin } : (pkg.bin ?? {});
  for (const out of Object.values(bins)) {
    const name = out.replace(/^\.\/dist\//, '').replace(/\.js$/, '');
    entries[name] = `./src/${name}.ts`;
  }
  return { all: entries, library };
}

export default defineConfig(() => {
  const pkg = JSON.parse(readFileSync(join(process.cwd(), 'package.json'), 'utf8')) as PackageJson;
  const { all, library } = entriesOf(pkg);
  return {
    entry: all,
    format: ['esm', 'cjs'],
    // Declarations for library entries only (bins need none). Dependencies are
    // read from their built declarations, not their sources: `pnpm -r build`
    // builds them first, and re-checking every source per package is slow.
    dts: { entry: library, compilerOptions: { customConditions: [] } },
    sourcemap: true,
    clean: true,
    target: 'node20',
    platform: 'node',
    splitting: true,
    treeshake: true,
    shims: true,
  };
});
