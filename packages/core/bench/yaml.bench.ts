// Loading real-world YAML: every file of the TripleO and Sahara corpus, with
// source positions kept, against PyYAML's SafeLoader (libyaml-backed, as
// Heat uses it) on the same files in the same run.
import { existsSync, readFileSync } from 'node:fs';
import fg from 'fast-glob';
import { benchName, report, runPython, runTasks } from '../../../scripts/bench-kit.js';
import { sharedPath } from '../../../test-support/shared.js';
import { validateDocument } from '../src/index.js';

const corpus = sharedPath('corpus');
if (!existsSync(corpus)) {
  console.log(
    `  (skipped: no corpus at ${corpus}; put the shared folder beside the repository or set STACKSPEC_SHARED)`,
  );
  process.exit(0);
}
const files = (
  await fg(['tripleo-heat-templates/**/*.yaml', 'sahara/**/*.yaml'], { cwd: corpus, absolute: true })
)
  .filter((f) => !f.endsWith('.j2.yaml'))
  .sort();
const texts = files.map((f) => readFileSync(f, 'utf8'));
const bytes = texts.reduce((n, t) => n + new TextEncoder().encode(t).length, 0);

const tasks = await runTasks((bench) => {
  bench.add(`parse ${files.length} corpus files (YAML 1.1, positions kept)`, () => {
    for (const t of texts) validateDocument(t, { duplicateKeys: 'warn' });
  });
  bench.add('parse and locate one path per file', () => {
    for (const t of texts) {
      const r = validateDocument(t, { duplicateKeys: 'warn' });
      if (r.ok) r.document.locate('/resources');
    }
  });
});

const py = runPython(
  `
import json, sys, time, yaml
texts = json.loads(sys.stdin.read())
Loader = getattr(yaml, 'CSafeLoader', yaml.SafeLoader)
runs = []
for _ in range(5):
    t = time.perf_counter()
    for s in texts: yaml.load(s, Loader=Loader)
    runs.append(time.perf_counter() - t)
pure = []
for _ in range(2):
    t = time.perf_counter()
    for s in texts: yaml.load(s, Loader=yaml.SafeLoader)
    pure.append(time.perf_counter() - t)
runs.sort(); pure.sort()
print(json.dumps({'libyaml_ms': runs[len(runs)//2]*1000, 'pure_python_ms': pure[0]*1000}))
`,
  JSON.stringify(texts),
) as { libyaml_ms: number; pure_python_ms: number } | undefined;

const oursMs = tasks[0]?.meanMs ?? 0;
report(benchName(import.meta.url), tasks, {
  files: files.length,
  megabytes: +(bytes / 1e6).toFixed(2),
  ours_ms_per_corpus: +oursMs.toFixed(1),
  ...(py
    ? {
        pyyaml_libyaml_ms_per_corpus: +py.libyaml_ms.toFixed(1),
        pyyaml_pure_ms_per_corpus: +py.pure_python_ms.toFixed(1),
        speedup_vs_libyaml: +(py.libyaml_ms / oursMs).toFixed(2),
        speedup_vs_pure_python: +(py.pure_python_ms / oursMs).toFixed(2),
      }
    : {}),
});
