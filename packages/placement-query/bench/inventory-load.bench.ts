// `pnpm bench inventory-load`: how long `validateInventory` takes to read a
// generated JSON inventory (the clouds of placement.bench.ts: two NUMA
// children per compute node, sharing disk providers, 50 aggregates, 30
// custom traits, some usages; fixed seed) and build the store, at 1k, 10k
// and 100k compute nodes. A JSON file is parsed on the fast path (JSON.parse
// and a scan for duplicate keys); the located parser runs only to place a
// problem. For comparison, the same text through core's located parser
// alone (what every load paid before the fast path) is timed up to 10k nodes.
//
// Each load is timed on the wall clock and in CPU time (this process's user
// and system time, which includes the garbage collector's helper threads):
// on a shared machine the CPU time is the steadier figure. After the timed
// loads, the heap is collected and measured with the last load's store held
// (and its resolved inventory dropped), and again before loading: the
// difference over the number of providers is the memory per provider.
//
// Target (printed PASS/FAIL): the 100,000-node inventory loads in 10 s or less.
// PLACEMENT_LOAD_NODES (default 1000,10000,100000) chooses the sizes.

import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { validateDocument } from '@stackspec/core';
import { benchName, report, type TaskFigures } from '../../../scripts/bench-kit.js';
import { validateInventory } from '../src/model/inventory-file.js';
import { generateInventory } from '../test/support/generate.js';
import { benchCloudShape } from './support/cloud-shape.js';

const SIZES = (process.env.PLACEMENT_LOAD_NODES ?? '1000,10000,100000').split(',').map(Number);
const SEED = 20261123;
const TARGET_MS = 10_000;

function textOf(nodes: number): string {
  const { file } = generateInventory(SEED + nodes, benchCloudShape(nodes));
  return JSON.stringify(file, null, 1);
}

function timeOnce(fn: () => void): number {
  const t0 = performance.now();
  fn();
  return performance.now() - t0;
}

function cpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

// A full collection on demand, without asking for --expose-gc on the command line.
setFlagsFromString('--expose-gc');
const collect = runInNewContext('gc') as () => void;

function heapAfterCollecting(): number {
  collect();
  collect();
  return process.memoryUsage().heapUsed;
}

const tasks: TaskFigures[] = [];
const rows: Record<string, unknown>[] = [];
const targets: { target: string; figure: string; result: string }[] = [];
for (const nodes of SIZES) {
  const text = textOf(nodes);
  const runs = nodes >= 100000 ? 1 : nodes >= 10000 ? 3 : 10;
  const samples: number[] = [];
  const cpuSamples: number[] = [];
  let providers = 0;
  let store: unknown;
  const heapBefore = heapAfterCollecting();
  for (let i = 0; i < runs; i += 1) {
    store = undefined;
    const cpu0 = cpuMs();
    samples.push(
      timeOnce(() => {
        const r = validateInventory(text, { filename: 'cloud.json', maxBytes: 2 ** 30 });
        if (!r.ok) throw new Error(JSON.stringify(r.diagnostics.slice(0, 3)));
        providers = r.store.providerCount;
        store = r.store;
      }),
    );
    cpuSamples.push(cpuMs() - cpu0);
  }
  const bytesPerProvider = (heapAfterCollecting() - heapBefore) / providers;
  if (!store) throw new Error('no store');
  store = undefined;
  samples.sort((a, b) => a - b);
  cpuSamples.sort((a, b) => a - b);
  const p50 = samples[Math.floor(samples.length / 2)] as number;
  const cpuP50 = cpuSamples[Math.floor(cpuSamples.length / 2)] as number;
  const located =
    nodes <= 10000
      ? timeOnce(() => {
          if (!validateDocument(text, { filename: 'cloud.json', maxBytes: 2 ** 30 }).ok)
            throw new Error('unreadable');
        })
      : undefined;
  tasks.push({
    name: `load ${nodes} nodes`,
    opsPerSecond: 1000 / p50,
    meanMs: samples.reduce((a, b) => a + b, 0) / samples.length,
    p50Ms: p50,
    p99Ms: samples.at(-1) as number,
    samples: samples.length,
  });
  rows.push({
    nodes,
    providers,
    MB: +(text.length / 2 ** 20).toFixed(1),
    'load p50 ms': Math.round(p50),
    'CPU p50 ms': Math.round(cpuP50),
    'heap B/provider': Math.round(bytesPerProvider),
    'located parse alone ms': located === undefined ? '-' : Math.round(located),
  });
  if (nodes >= 100000) {
    targets.push({
      target: `100,000-node inventory loads in ≤ ${TARGET_MS / 1000} s`,
      figure: `${(p50 / 1000).toFixed(1)} s (${(cpuP50 / 1000).toFixed(1)} s CPU) for ${nodes} nodes (${providers} providers)`,
      result: p50 <= TARGET_MS ? 'PASS' : 'FAIL',
    });
  }
}
console.table(rows);
if (targets.length) console.table(targets);
report(benchName(import.meta.url), tasks, { sizes: rows, targets });
