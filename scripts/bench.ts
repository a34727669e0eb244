// `pnpm bench [filter]`: runs every packages/*/bench/*.bench.ts (or those whose
// path contains the filter) one after another, each in its own process.
import { spawnSync } from 'node:child_process';
import { dirname, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import fg from 'fast-glob';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const filter = process.argv[2];
const files = (await fg('packages/*/bench/*.bench.ts', { cwd: root, absolute: true }))
  .sort()
  .filter((f) => !filter || f.includes(filter));
let failed = 0;
for (const file of files) {
  console.log(`\n▶ ${relative(root, file)}`);
  const r = spawnSync(process.execPath, ['--conditions=@stackspec/source', '--import', 'tsx', file], {
    stdio: 'inherit',
    cwd: root,
  });
  if (r.status !== 0) failed += 1;
}
console.log(`\n${files.length} benchmark file(s), ${failed} failed; results in bench-results/`);
process.exit(failed ? 1 : 0);
