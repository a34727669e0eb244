// `pnpm bench placement-query`: GET /allocation_candidates and
// GET /resource_providers over generated clouds of 1k, 10k and 100k compute
// nodes (two NUMA children each, sharing disk providers, 50 aggregates, 30
// custom traits, some usages; fixed seed), through our fetch handler
// (parse + evaluate + render + JSON). OpenStack's Placement 8.0 answers the
// same queries on the same data in the same run at the sizes it can load
// (1k by default; PLACEMENT_BENCH_ORACLE_NODES=1000,5000 for more).
//
// Targets: ≥100x faster than Placement for /allocation_candidates at ≥1k
// nodes, cost growing no worse than linearly with providers, and
// /resource_providers with member_of and traits under 5 ms p50 at 100k.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { benchName, report, type TaskFigures } from '../../../scripts/bench-kit.js';
import { pythonHasModules } from '../../../test-support/python.js';
import type { PlacementHandler } from '../src/http/service.js';
import type { ResolvedInventory } from '../src/model/inventory-file.js';
import { type GeneratedInventory, generateInventory } from '../test/support/generate.js';
import { httpSend, startOracle } from '../test/support/oracle.js';

// Measure what ships: the built package when it is newer than every source
// file (run `pnpm build` first), the sources otherwise or with
// PLACEMENT_BENCH_SOURCE=1.
const root = fileURLToPath(new URL('..', import.meta.url));
function newestSource(dir: string): number {
  let newest = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    newest = Math.max(newest, e.isDirectory() ? newestSource(p) : statSync(p).mtimeMs);
  }
  return newest;
}
const dist = join(root, 'dist', 'index.js');
const useDist =
  !process.env.PLACEMENT_BENCH_SOURCE &&
  existsSync(dist) &&
  statSync(dist).mtimeMs >= newestSource(join(root, 'src'));
const lib = (
  useDist ? await import(dist) : await import('../src/index.js')
) as typeof import('../src/index.js');
const {
  applyInventory,
  applyPlan,
  createPlacementHandler,
  createProviderStore,
  inventoryPlan,
  resolveInventory,
} = lib;
console.log(
  `measuring ${useDist ? 'the built package (dist)' : 'the sources (run pnpm build for the shipped code)'}`,
);

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const SIZES = (process.env.PLACEMENT_BENCH_NODES ?? '1000,10000,100000').split(',').map(Number);
const ORACLE_SIZES = (process.env.PLACEMENT_BENCH_ORACLE_NODES ?? '1000')
  .split(',')
  .filter(Boolean)
  .map(Number);
const SEED = 20261123;

interface Query {
  name: string;
  path: (g: GeneratedInventory) => string;
}

const QUERIES: Query[] = [
  {
    name: 'ac broad (nova-like, limit=1000)',
    path: () => '/allocation_candidates?resources=VCPU:1,MEMORY_MB:512,DISK_GB:10&limit=1000',
  },
  {
    name: 'ac member_of=in: + required',
    path: (g) =>
      `/allocation_candidates?resources=VCPU:1,MEMORY_MB:512&member_of=in:${g.aggregates[0]},${g.aggregates[1]}&required=${g.customTraits[1]}`,
  },
  {
    name: 'ac !in: + forbidden trait (limit=1000)',
    path: (g) =>
      `/allocation_candidates?resources=VCPU:2,MEMORY_MB:1024&member_of=!in:${g.aggregates[2]},${g.aggregates[3]},${g.aggregates[4]}&required=!${g.customTraits[2]}&limit=1000`,
  },
  {
    name: 'ac granular isolate + !agg',
    path: (g) =>
      `/allocation_candidates?resources=MEMORY_MB:512,DISK_GB:10&resources_CPU=VCPU:2&member_of_CPU=!${g.aggregates[5]}&required_CPU=HW_CPU_X86_AVX2&member_of=${g.aggregates[6]}&group_policy=isolate`,
  },
  {
    name: 'rp member_of + traits',
    path: (g) =>
      `/resource_providers?member_of=in:${g.aggregates[7]},${g.aggregates[8]}&required=${g.customTraits[3]},!${g.customTraits[4]}`,
  },
  {
    name: 'rp !agg + trait + resources',
    path: (g) =>
      `/resource_providers?member_of=!${g.aggregates[9]}&required=${g.customTraits[5]}&resources=MEMORY_MB:2048`,
  },
];

function shape(nodes: number) {
  return {
    computeNodes: nodes,
    numaPerNode: 2,
    sharingProviders: 5 + Math.floor(nodes / 20000),
    aggregates: 50,
    customTraits: 30,
    rich: false,
    usageRate: 0.2,
  };
}

function build(nodes: number): { gen: GeneratedInventory; inventory: ResolvedInventory } {
  const gen = generateInventory(SEED + nodes, shape(nodes));
  const r = resolveInventory(gen.file, createProviderStore());
  if (!r.ok) throw new Error(JSON.stringify(r.diagnostics.slice(0, 3)));
  return { gen, inventory: r.inventory };
}

function quantile(sorted: number[], q: number): number {
  if (!sorted.length) return 0;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[i] as number;
}

async function time(fn: () => Promise<unknown>, budgetMs: number, minRuns: number, maxRuns: number) {
  const samples: number[] = [];
  await fn(); // warm-up
  const start = performance.now();
  while (samples.length < maxRuns && (samples.length < minRuns || performance.now() - start < budgetMs)) {
    const t0 = performance.now();
    await fn();
    samples.push(performance.now() - t0);
  }
  samples.sort((a, b) => a - b);
  const mean = samples.reduce((a, b) => a + b, 0) / samples.length;
  return { p50: quantile(samples, 0.5), p99: quantile(samples, 0.99), mean, samples: samples.length };
}

async function ours(handler: PlacementHandler, path: string): Promise<number> {
  const r = await handler(
    new Request(`http://bench${path}`, { headers: { 'openstack-api-version': 'placement 1.39' } }),
  );
  const text = await r.text();
  if (r.status !== 200) throw new Error(`${path}: ${r.status} ${text.slice(0, 300)}`);
  return text.length;
}

const tasks: TaskFigures[] = [];
const figures: Record<string, Record<string, unknown>> = {};

// The real Placement, same data and queries, same run; measured first, while
// the heap is small, so neither side pays for the large clouds built later.
const oracle: Record<string, unknown> = {};
const available = pythonHasModules(['placement.deploy']);
if (!available.ok || !ORACLE_SIZES.length) {
  console.log(`  (Placement comparison skipped: ${available.ok ? 'no sizes' : available.reason})`);
} else {
  for (const nodes of ORACLE_SIZES) {
    const placement = await startOracle();
    try {
      const { gen, inventory } = build(nodes);
      const t0 = performance.now();
      await applyPlan(httpSend(placement.url), inventoryPlan(inventory));
      const loadMs = performance.now() - t0;
      const store = createProviderStore();
      applyInventory(store, inventory);
      const handler = createPlacementHandler({ store });
      const perQuery: Record<string, unknown> = { loadViaApiMs: Math.round(loadMs) };
      for (const q of QUERIES) {
        const path = q.path(gen);
        const send = httpSend(placement.url);
        const theirs = await time(
          async () => {
            const r = await send('GET', path);
            if (r.status !== 200) throw new Error(`placement ${path}: ${r.status}`);
          },
          4000,
          3,
          30,
        );
        const mine = await time(() => ours(handler, path), 1500, 5, 500);
        perQuery[q.name] = {
          placementP50Ms: +theirs.p50.toFixed(2),
          oursP50Ms: +mine.p50.toFixed(3),
          speedup: `${Math.round(theirs.p50 / mine.p50)}x`,
        };
      }
      oracle[`${nodes} nodes`] = perQuery;
      console.log(`Placement at ${nodes} nodes: loaded via API in ${Math.round(loadMs / 1000)} s`);
    } finally {
      await placement.close();
    }
  }
}

// Builds the cloud and returns only the store and the query paths, so the
// generator's data can be collected before memory and timings are taken.
function buildStore(nodes: number) {
  const { gen, inventory } = build(nodes);
  const store = createProviderStore();
  applyInventory(store, inventory);
  return { store, paths: QUERIES.map((q) => q.path(gen)) };
}

for (const nodes of SIZES) {
  gc();
  const before = process.memoryUsage().heapUsed;
  const t0 = performance.now();
  const { store, paths } = buildStore(nodes);
  const loadMs = performance.now() - t0;
  gc();
  const heapMb = (process.memoryUsage().heapUsed - before) / 1024 / 1024;
  const handler = createPlacementHandler({ store });
  const perSize: Record<string, unknown> = {
    providers: store.providerCount,
    loadMs: Math.round(loadMs),
    heapMb: Math.round(heapMb),
  };
  for (const [i, q] of QUERIES.entries()) {
    const path = paths[i] as string;
    const bytes = await ours(handler, path);
    const t = await time(() => ours(handler, path), nodes >= 100000 ? 3000 : 1500, 5, 500);
    tasks.push({
      name: `${q.name} @${nodes}`,
      opsPerSecond: 1000 / t.mean,
      meanMs: t.mean,
      p99Ms: t.p99,
      samples: t.samples,
    });
    perSize[q.name] = { p50Ms: +t.p50.toFixed(3), p99Ms: +t.p99.toFixed(3), bodyBytes: bytes };
  }
  figures[`${nodes} nodes`] = perSize;
  console.log(
    `${nodes} nodes: ${store.providerCount} providers, loaded in ${Math.round(loadMs)} ms, ~${Math.round(heapMb)} MB heap for the store`,
  );
}

// Growth: p50 per provider, largest size against the smallest.
const growth: Record<string, string> = {};
if (SIZES.length > 1) {
  const small = figures[`${SIZES[0]} nodes`] as Record<string, { p50Ms: number }>;
  const big = figures[`${SIZES[SIZES.length - 1]} nodes`] as Record<string, { p50Ms: number }>;
  const factor = (SIZES[SIZES.length - 1] as number) / (SIZES[0] as number);
  for (const q of QUERIES) {
    const a = small[q.name]?.p50Ms ?? 0;
    const b = big[q.name]?.p50Ms ?? 0;
    growth[q.name] = `${(b / Math.max(a, 1e-6)).toFixed(1)}x time for ${factor}x nodes`;
  }
}

report(benchName(import.meta.url), tasks, {
  measured: useDist ? 'dist' : 'src',
  sizes: figures,
  growth,
  placement: oracle,
  seed: SEED,
});
