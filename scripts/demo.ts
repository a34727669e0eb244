// `pnpm demo`: the main job on embedded defaults, over the bundled examples.
// Until the `stackspec` command exists (issue 9), it loads every example file
// with @stackspec/core and reports problems the way the checker will.
import { readFileSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import { type Diagnostic, safeParseDocument } from '@stackspec/core';
import { formatDiagnostics, processIO, stderrColors } from '@stackspec/core/cli';
import fg from 'fast-glob';

const root = resolve(import.meta.dirname, '..');
const io = processIO();
const files = (
  await fg('examples/**/*.{yaml,yml,json}', { cwd: root, ignore: ['**/node_modules/**'] })
).sort();
const diagnostics: Diagnostic[] = [];
for (const file of files) {
  const r = safeParseDocument(readFileSync(resolve(root, file), 'utf8'), {
    filename: relative(root, resolve(root, file)),
  });
  diagnostics.push(...r.diagnostics);
}
io.stdout.write(
  `${formatDiagnostics(diagnostics, { colors: stderrColors(io), filesChecked: files.length })}\n`,
);
process.exitCode = diagnostics.some((d) => d.severity === 'error') ? 1 : 0;
