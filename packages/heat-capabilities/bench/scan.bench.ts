// Capability scan of a template tree: the TripleO corpus and a synthetic tree
// ten times larger, against a Python scan with PyYAML's libyaml loader (what
// heatclient does), measured in the same run. Target: at least 10x faster.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import fg from 'fast-glob';
import { benchName, report, runTasks, seededRandom } from '../../../scripts/bench-kit.js';
import { findTemplates, summarizeCapabilities } from '../src/index.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const CORPUS = resolve(
  process.env.STACKSPEC_THT_CORPUS ?? resolve(HERE, '../../../../shared/corpus/tripleo-heat-templates'),
);

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
print(json.dumps({"files": files, "counts": counts, "labels": len(labels), "importSeconds": t1 - t0, "scanSeconds": t2 - t1}))
`;

function pythonScan(root: string): { wallSeconds: number; scanSeconds: number; files: number } | undefined {
  const start = process.hrtime.bigint();
  const r = spawnSync('/usr/bin/python3', ['-c', PYTHON_SCAN, root], {
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  const wall = Number(process.hrtime.bigint() - start) / 1e9;
  if (r.status !== 0) {
    console.log(
      `  (python scan unavailable: ${(r.stderr || r.error?.message || '').trim().split('\n').pop()})`,
    );
    return undefined;
  }
  const out = JSON.parse(r.stdout.trim().split('\n').pop() as string) as {
    files: number;
    scanSeconds: number;
  };
  return { wallSeconds: wall, scanSeconds: out.scanSeconds, files: out.files };
}

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
}

/** Ten copies of the corpus, a seeded fifth of their templates annotated with capabilities. */
function syntheticTree(): string {
  const dir = mkdtempSync(join(tmpdir(), 'heat-bench-'));
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

async function main() {
  if (!existsSync(CORPUS)) {
    console.log(`corpus missing at ${CORPUS}; nothing to measure`);
    return;
  }
  // Cold: the very first scan in this process, before the code is warm.
  const coldStart = process.hrtime.bigint();
  const first = await scanTree(CORPUS);
  const coldSeconds = Number(process.hrtime.bigint() - coldStart) / 1e9;

  const big = syntheticTree();
  mkdirSync(big, { recursive: true });
  try {
    const bigColdStart = process.hrtime.bigint();
    const bigFirst = await scanTree(big);
    const bigColdSeconds = Number(process.hrtime.bigint() - bigColdStart) / 1e9;

    const tasks = await runTasks(
      (bench) => {
        bench.add('scan + summarise the TripleO corpus (611 files)', async () => {
          await scanTree(CORPUS);
        });
        bench.add('scan + summarise the 10x synthetic tree', async () => {
          await scanTree(big);
        });
      },
      { time: 2000, warmupTime: 500 },
    );

    // Ratios come from medians of runs interleaved with the Python ones, so both
    // sides see the same load on a shared machine.
    const seconds = async (root: string) => {
      const start = process.hrtime.bigint();
      await scanTree(root);
      return Number(process.hrtime.bigint() - start) / 1e9;
    };
    const oursCorpus: number[] = [];
    const oursBig: number[] = [];
    const pyCorpus: { wallSeconds: number; scanSeconds: number; files: number }[] = [];
    const pyBig: { wallSeconds: number; scanSeconds: number; files: number }[] = [];
    for (let round = 0; round < 5; round += 1) {
      const p = pythonScan(CORPUS);
      if (p) pyCorpus.push(p);
      for (let i = 0; i < 3; i += 1) oursCorpus.push(await seconds(CORPUS));
      if (round < 3) {
        const q = pythonScan(big);
        if (q) pyBig.push(q);
        oursBig.push(await seconds(big));
      }
    }

    const ours = {
      corpusFiles: first.files,
      corpusColdSeconds: coldSeconds,
      corpusMedianSeconds: median(oursCorpus),
      corpusFilesPerSecond: Math.round(first.files / median(oursCorpus)),
      bigFiles: bigFirst.files,
      bigColdSeconds,
      bigMedianSeconds: median(oursBig),
      bigFilesPerSecond: Math.round(bigFirst.files / median(oursBig)),
      bigLabels: bigFirst.summary.labels,
      bigResourceTypes: Object.keys(bigFirst.summary.resourceTypes).length,
    };
    const extra: Record<string, unknown> = { ...ours };
    if (pyCorpus.length) {
      const wall = median(pyCorpus.map((p) => p.wallSeconds));
      const inside = median(pyCorpus.map((p) => p.scanSeconds));
      Object.assign(extra, {
        pythonCorpusMedianSeconds: wall,
        pythonCorpusScanOnlySeconds: inside,
        pythonCorpusFilesPerSecond: Math.round((pyCorpus[0]?.files ?? 0) / wall),
        speedupVsPythonProcess: Number((wall / ours.corpusMedianSeconds).toFixed(1)),
        speedupColdVsPythonProcess: Number((wall / coldSeconds).toFixed(1)),
        speedupVsPythonScanOnly: Number((inside / ours.corpusMedianSeconds).toFixed(1)),
      });
    }
    if (pyBig.length) {
      const wall = median(pyBig.map((p) => p.wallSeconds));
      Object.assign(extra, {
        pythonBigMedianSeconds: wall,
        pythonBigFilesPerSecond: Math.round((pyBig[0]?.files ?? 0) / wall),
        speedupBigVsPythonProcess: Number((wall / ours.bigMedianSeconds).toFixed(1)),
        speedupBigColdVsPythonProcess: Number((wall / bigColdSeconds).toFixed(1)),
      });
    }
    report(benchName(import.meta.url), tasks, extra);
  } finally {
    rmSync(big, { recursive: true, force: true });
  }
}

await main();
