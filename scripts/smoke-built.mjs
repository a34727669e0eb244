// After `pnpm build`: every package entry point (and subpath export) must load
// both with require() and with import(), and expose the same names.
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const root = resolve(import.meta.dirname, '..');
const require = createRequire(import.meta.url);
let failures = 0;
for (const dir of readdirSync(join(root, 'packages'))) {
  const pkgDir = join(root, 'packages', dir);
  const pkg = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8'));
  for (const [subpath, target] of Object.entries(pkg.exports ?? {})) {
    if (typeof target !== 'object') continue;
    const name = `${pkg.name}${subpath.slice(1)}`;
    try {
      const cjs = require(join(pkgDir, target.require.default));
      const esm = await import(pathToFileURL(join(pkgDir, target.import.default)).href);
      const a = Object.keys(cjs).sort().join(',');
      const b = Object.keys(esm)
        .filter((k) => k !== 'default' && k !== 'module.exports')
        .sort()
        .join(',');
      if (!a || a !== b) throw new Error(`CJS and ESM exports differ:\n  cjs: ${a}\n  esm: ${b}`);
      console.log(`ok  ${name} (${Object.keys(cjs).length} exports, require and import)`);
    } catch (e) {
      failures += 1;
      console.error(`FAIL ${name}: ${e instanceof Error ? e.message : e}`);
    }
  }
}
process.exit(failures ? 1 : 0);
