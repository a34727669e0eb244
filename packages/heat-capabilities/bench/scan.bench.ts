// Capability scan of a template tree, the TripleO corpus and a synthetic tree
// ten times larger, against a Python scan with PyYAML's libyaml loader (what
// heatclient does), measured in the same run. Target: the cold scan of the
// corpus at least ten times faster than the Python scan.
//
// What is measured, on each side, per run:
// - scan: walk the tree, read every file, classify it and read its
//   capabilities, then summarise. Ours is findTemplates + summarizeCapabilities
//   timed inside the process; Python's the loop below, timed inside its process
//   after `import yaml, heatclient` (so neither side counts start-up).
// - cold: our scan as the first thing a fresh `node` process does after
//   loading the package, before the JIT has warmed up; one process per run.
// - warm: the same scan repeated in this process (tinybench, and interleaved
//   medians for the ratio).
// - whole process: the wall time of the fresh process from spawn to exit
//   (node start + load + scan; python start + import + scan). Our side runs a
//   single-file bundle of the package built with esbuild, as a user runs the
//   built package, not through the TypeScript loader.
// Runs alternate between the two sides so both see the same machine load; the
// ratios are of medians. CPU-time ratios are printed too: on a shared machine
// they move less than wall times.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import fg from 'fast-glob';
import { build } from 'tsup';
import { benchName, report, runTasks, seededRandom } from '../../../scripts/bench-kit.js';
import { sharedAvailable, sharedPath } from '../../../test-support/shared.js';
import { findTemplates, summarizeCapabilities } from '../src/index.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const CORPUS = sharedPath('corpus', 'tripleo-heat-templates');

// The heatclient way: libyaml loader with Heat's string overrides, classify, read capabilities.
const PYTHON_SCAN = `
import json, os, sys, time
t0 = time.perf_counter()
import yaml
from heatclient.common import template_format
root = sys.argv[1]
counts = {"template": 0, "environment": 0, "other": 0, "invalid": 0}
labels = {}
env_keys = {"parameters", "resource_registry", "parameter_defaults", "encrypted_param_names", "event_sinks", "parameter_merge_strategies", "requires"}
t1 = time.perf_counter()
c1 = time.process_time()
files = 0
for d, _, names in os.walk(root):
    for n in names:
        if not n.endswith(".yaml") or n.endswith(".j2.yaml"):
            continue
        files += 1
        with open(os.path.join(d, n), encoding="utf-8") as f:
            text = f.read()
        try:
            doc = yaml.load(text, Loader=template_format.yaml_loader)
        except yaml.YAMLError:
            counts["invalid"] += 1
            continue
        if isinstance(doc, dict) and ("heat_template_version" in doc or "HeatTemplateFormatVersion" in doc or "AWSTemplateFormatVersion" in doc):
            counts["template"] += 1
            caps = doc.get("capabilities") or {}
            if isinstance(caps, dict):
                for k, v in caps.items():
                    labels.setdefault(k, set()).update(v if isinstance(v, list) else [v])
        elif doc is None or (isinstance(doc, dict) and set(doc) <= env_keys):
            counts["environment"] += 1
        else:
            counts["other"] += 1
t2 = time.perf_counter()
print(json.dumps({"files": files, "counts": counts, "labels": len(labels), "importSeconds": t1 - t0, "scanSeconds": t2 - t1, "scanCpuSeconds": time.process_time() - c1}))
`;

// Our side of a cold run: load the package, scan once, report. Bundled below.
const NODE_COLD = `
import { findTemplates, summarizeCapabilities } from ${JSON.stringify(resolve(HERE, '../src/index.ts'))};
const loaded = performance.now();
const cpu = process.cpuUsage();
const found = await findTemplates([process.argv[2]], { recursive: true });
summarizeCapabilities(found.templates);
const used = process.cpuUsage(cpu);
console.log(JSON.stringify({
  files: found.files.length,
  startSeconds: loaded / 1000,
  scanSeconds: (performance.now() - loaded) / 1000,
  scanCpuSeconds: (used.user + used.system) / 1e6,
}));
`;

interface Run {
  files: number;
  /** Wall time of the whole process, from spawn to exit. */
  wallSeconds: number;
  scanSeconds: number;
  scanCpuSeconds: number;
}

function spawnJson(command: string, args: string[]): Run | undefined {
  const start = process.hrtime.bigint();
  const r = spawnSync(command, args, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  const wallSeconds = Number(process.hrtime.bigint() - start) / 1e9;
  if (r.status !== 0) {
    console.log(
      `  (${command} run failed: ${(r.stderr || r.error?.message || '').trim().split('\n').pop()})`,
    );
    return undefined;
  }
  const out = JSON.parse(r.stdout.trim().split('\n').pop() as string) as Omit<Run, 'wallSeconds'>;
  return { ...out, wallSeconds };
}

const pythonRun = (root: string) => spawnJson('/usr/bin/python3', ['-c', PYTHON_SCAN, root]);

/** Builds the cold-run script and the package into one file that plain `node` runs. */
async function bundleColdRun(dir: string): Promise<string> {
  const entry = join(dir, 'cold.ts');
  writeFileSync(entry, NODE_COLD);
  await build({
    entry: { cold: entry },
    outDir: dir,
    format: ['esm'],
    platform: 'node',
    target: 'node20',
    // Every dependency inside the one file; CommonJS ones need a real require.
    noExternal: [/.*/],
    banner: {
      js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);",
    },
    esbuildOptions(options) {
      options.conditions = ['@stackspec/source'];
    },
    outExtension: () => ({ js: '.mjs' }),
    config: false,
    dts: false,
    sourcemap: false,
    silent: true,
  });
  return join(dir, 'cold.mjs');
}

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
}

const ratio = (a: number, b: number) => Number((a / b).toFixed(1));

/** Ten copies of the corpus, a seeded fifth of their templates annotated with capabilities. */
function syntheticTree(dir: string): string {
  const random = seededRandom(8);
  const templates = fg.sync('**/*.yaml', { cwd: CORPUS }).filter((f) => !f.endsWith('.j2.yaml'));
  for (let copy = 0; copy < 10; copy += 1) {
    const target = join(dir, `copy-${copy}`);
    cpSync(CORPUS, target, { recursive: true });
    for (const f of templates) {
      if (random() > 0.2) continue;
      const path = join(target, f);
      const text = readFileSync(path, 'utf8');
      if (!/^heat_template_version:/m.test(text)) continue;
      const tool = random() < 0.5 ? 'puppet' : 'ansible';
      writeFileSync(
        path,
        text.replace(
          /^(heat_template_version: \S+\n)/m,
          `$1capabilities:\n  deployment: ${tool}\n  resource_type: [OS::TripleO::Services::Bench${copy}]\n`,
        ),
      );
    }
  }
  return dir;
}

async function scanTree(root: string) {
  const found = await findTemplates([root], { recursive: true });
  const summary = summarizeCapabilities(found.templates);
  return { files: found.files.length, templates: found.templates.length, summary };
}

async function seconds(root: string): Promise<number> {
  const start = process.hrtime.bigint();
  await scanTree(root);
  return Number(process.hrtime.bigint() - start) / 1e9;
}

/** Cold node runs and Python runs, alternating, plus warm scans in this process. */
async function compare(root: string, rounds: number, bundle: string) {
  const cold: Run[] = [];
  const python: Run[] = [];
  const warm: number[] = [];
  for (let round = 0; round < rounds; round += 1) {
    const p = pythonRun(root);
    if (p) python.push(p);
    const c = spawnJson(process.execPath, [bundle, root]);
    if (c) cold.push(c);
    warm.push(await seconds(root));
  }
  if (!cold.length) throw new Error(`every cold run of ${root} failed`);
  return { cold, python, warm };
}

function figures(label: string, runs: Awaited<ReturnType<typeof compare>>) {
  const { cold, python, warm } = runs;
  const files = cold[0]?.files ?? 0;
  const out: Record<string, unknown> = {
    [`${label}Files`]: files,
    [`${label}ColdScanSeconds`]: median(cold.map((r) => r.scanSeconds)),
    [`${label}WarmScanSeconds`]: median(warm),
    [`${label}ColdFilesPerSecond`]: Math.round(files / median(cold.map((r) => r.scanSeconds))),
    [`${label}WarmFilesPerSecond`]: Math.round(files / median(warm)),
    [`${label}NodeProcessSeconds`]: median(cold.map((r) => r.wallSeconds)),
  };
  if (!python.length) return out;
  const pyScan = median(python.map((r) => r.scanSeconds));
  Object.assign(out, {
    [`${label}PythonFiles`]: python[0]?.files,
    [`${label}PythonScanSeconds`]: pyScan,
    [`${label}PythonFilesPerSecond`]: Math.round((python[0]?.files ?? 0) / pyScan),
    [`${label}PythonProcessSeconds`]: median(python.map((r) => r.wallSeconds)),
    [`${label}ColdSpeedup`]: ratio(pyScan, median(cold.map((r) => r.scanSeconds))),
    [`${label}ColdSpeedupCpu`]: ratio(
      median(python.map((r) => r.scanCpuSeconds)),
      median(cold.map((r) => r.scanCpuSeconds)),
    ),
    [`${label}WarmSpeedup`]: ratio(pyScan, median(warm)),
    [`${label}WholeProcessSpeedup`]: ratio(
      median(python.map((r) => r.wallSeconds)),
      median(cold.map((r) => r.wallSeconds)),
    ),
  });
  return out;
}

async function main() {
  if (!sharedAvailable('the TripleO corpus', 'corpus', 'tripleo-heat-templates')) return;
  const work = mkdtempSync(join(tmpdir(), 'heat-bench-'));
  try {
    const bundle = await bundleColdRun(work);
    const big = syntheticTree(join(work, 'big'));
    const corpusRuns = await compare(CORPUS, 7, bundle);
    const bigRuns = await compare(big, 3, bundle);
    const corpusFiles = corpusRuns.cold[0]?.files ?? 0;
    const bigFiles = bigRuns.cold[0]?.files ?? 0;
    const tasks = await runTasks(
      (bench) => {
        bench.add(`warm scan + summary, TripleO corpus (${corpusFiles} files)`, async () => {
          await scanTree(CORPUS);
        });
        bench.add(`warm scan + summary, 10x synthetic tree (${bigFiles} files)`, async () => {
          await scanTree(big);
        });
      },
      { time: 2000, warmupTime: 500 },
    );
    const bigSummary = (await scanTree(big)).summary;
    report(benchName(import.meta.url), tasks, {
      ...figures('corpus', corpusRuns),
      ...figures('big', bigRuns),
      bigLabels: bigSummary.labels,
      bigResourceTypes: Object.keys(bigSummary.resourceTypes).length,
      runs: { corpus: corpusRuns.cold.length, big: bigRuns.cold.length },
    });
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

await main();
