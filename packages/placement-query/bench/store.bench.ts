// `pnpm bench store`: what durable storage costs a Placement server.
//
// 1. Read latency: the same generated cloud (1,000 compute nodes by default,
//    two NUMA children each, sharing disk, 50 aggregates, 30 custom traits,
//    some usages; fixed seed) served by `stackspec-placement serve
//    --ephemeral` (memory only) and by `serve --data-dir` (PGlite, the
//    default store; the file imported into it at start), each in its own
//    process. Every query is sent to the two servers in alternation over
//    keep-alive loopback connections and timed to the last byte of the body.
//    Reads are answered from the in-memory indexes either way, so the target
//    is a p50 within 10% of the in-memory server's.
// 2. Replica lag and write throughput: two servers over one PostgreSQL schema
//    under a write load (WRITERS clients creating providers through each
//    server for LOAD_SECONDS). Meanwhile a probe creates a provider through
//    one server and polls the other, every millisecond, until it shows it:
//    the time from the acknowledgement to the first read that answers 200,
//    alternating directions. Target: p99 under 100 ms on loopback.
//
// STORE_BENCH_NODES (default 1000; 1000,5000 for both of the sizes),
// STORE_BENCH_REQUESTS (per query and server, default 300),
// STORE_BENCH_LOAD_SECONDS (default 10) and STORE_BENCH_WRITERS (per server,
// default 4) choose the sizes. Part 2 is skipped when PostgreSQL cannot be
// reached (test-support/postgres.ts starts the local cluster when it is down).
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { benchName, report, type TaskFigures } from '../../../scripts/bench-kit.js';
import { dropSchema, ensurePostgres, POSTGRES_URL, schemaName } from '../../../test-support/postgres.js';
import { type GeneratedInventory, generateInventory } from '../test/support/generate.js';
import { type PlacementServer, startServer } from '../test/support/serve-process.js';

const SIZES = (process.env.STORE_BENCH_NODES ?? '1000').split(',').map(Number);
const REQUESTS = Number(process.env.STORE_BENCH_REQUESTS ?? 300);
const LOAD_SECONDS = Number(process.env.STORE_BENCH_LOAD_SECONDS ?? 10);
const WRITERS = Number(process.env.STORE_BENCH_WRITERS ?? 4);
const SEED = 20261127;
const HEADERS = { 'openstack-api-version': 'placement 1.39', 'content-type': 'application/json' };
const READ_TARGET = 1.1;
const LAG_TARGET_MS = 100;

interface Query {
  name: string;
  path: (g: GeneratedInventory) => string;
}

const QUERIES: Query[] = [
  {
    name: 'ac broad (limit=1000)',
    path: () => '/allocation_candidates?resources=VCPU:1,MEMORY_MB:512,DISK_GB:10&limit=1000',
  },
  {
    name: 'ac member_of=in: + required',
    path: (g) =>
      `/allocation_candidates?resources=VCPU:1,MEMORY_MB:512&member_of=in:${g.aggregates[0]},${g.aggregates[1]}&required=${g.customTraits[1]}`,
  },
  {
    name: 'rp member_of + traits',
    path: (g) =>
      `/resource_providers?member_of=in:${g.aggregates[7]},${g.aggregates[8]}&required=${g.customTraits[3]},!${g.customTraits[4]}`,
  },
  { name: 'rp by name', path: () => '/resource_providers?name=cn10' },
];

const shape = (nodes: number) => ({
  computeNodes: nodes,
  numaPerNode: 2,
  sharingProviders: 5,
  aggregates: 50,
  customTraits: 30,
  rich: false,
  usageRate: 0.2,
});

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? 0;
}

function figures(name: string, samples: number[]): TaskFigures {
  const sorted = [...samples].sort((a, b) => a - b);
  const mean = sorted.reduce((s, v) => s + v, 0) / Math.max(1, sorted.length);
  return {
    name,
    opsPerSecond: mean ? 1000 / mean : 0,
    meanMs: mean,
    p50Ms: percentile(sorted, 50),
    p99Ms: percentile(sorted, 99),
    samples: sorted.length,
  };
}

async function timedGet(url: string): Promise<number> {
  const t = performance.now();
  const r = await fetch(url, { headers: HEADERS });
  await r.arrayBuffer();
  if (r.status !== 200) throw new Error(`${url} answered ${r.status}`);
  return performance.now() - t;
}

const post = (url: string, body: unknown) =>
  fetch(`${url}/resource_providers`, { method: 'POST', headers: HEADERS, body: JSON.stringify(body) });

const dir = mkdtempSync(join(tmpdir(), 'placement-store-bench-'));
const servers: PlacementServer[] = [];
const tasks: TaskFigures[] = [];
const extra: Record<string, unknown> = {
  machine: 'see README',
  loadAverageAtStart: loadavg().map((n) => n.toFixed(1)),
};
const verdicts: string[] = [];

try {
  // -- 1. read latency, PGlite against memory --------------------------------
  const reads: Record<string, unknown>[] = [];
  for (const nodes of SIZES) {
    const gen = generateInventory(SEED, shape(nodes));
    const file = join(dir, `cloud-${nodes}.json`);
    writeFileSync(file, JSON.stringify(gen.file));
    const started = performance.now();
    const memory = await startServer(['-i', file, '--max-inventory-mb', '256', '--ephemeral'], dir);
    servers.push(memory);
    const memoryStart = performance.now() - started;
    const pgliteBegan = performance.now();
    const pglite = await startServer(
      ['-i', file, '--max-inventory-mb', '256', '--data-dir', join(dir, `data-${nodes}`)],
      dir,
    );
    servers.push(pglite);
    const pgliteStart = performance.now() - pgliteBegan;
    console.log(
      `${nodes} nodes: memory server up in ${memoryStart.toFixed(0)} ms, PGlite server (file imported) in ${pgliteStart.toFixed(0)} ms`,
    );
    for (const q of QUERIES) {
      const path = q.path(gen);
      const samples = { memory: [] as number[], pglite: [] as number[] };
      // Warm both up (JIT, connections), then alternate so both see the same load.
      for (let i = 0; i < 20; i += 1) {
        await timedGet(`${memory.url}${path}`);
        await timedGet(`${pglite.url}${path}`);
      }
      for (let i = 0; i < REQUESTS; i += 1) {
        const first = i % 2 ? 'memory' : 'pglite';
        const second = first === 'memory' ? 'pglite' : 'memory';
        const urlOf = (k: 'memory' | 'pglite') => (k === 'memory' ? memory.url : pglite.url);
        samples[first].push(await timedGet(`${urlOf(first)}${path}`));
        samples[second].push(await timedGet(`${urlOf(second)}${path}`));
      }
      const m = figures(`${nodes} nodes, ${q.name}, memory`, samples.memory);
      const p = figures(`${nodes} nodes, ${q.name}, PGlite`, samples.pglite);
      tasks.push(m, p);
      const ratio = p.p50Ms / m.p50Ms;
      reads.push({ nodes, query: q.name, memoryP50Ms: m.p50Ms, pgliteP50Ms: p.p50Ms, ratio });
      verdicts.push(
        `${ratio <= READ_TARGET ? 'PASS' : 'FAIL'} ${nodes} nodes ${q.name}: PGlite p50 ${p.p50Ms.toFixed(2)} ms vs memory ${m.p50Ms.toFixed(2)} ms (×${ratio.toFixed(2)}, target ≤ ×${READ_TARGET})`,
      );
    }
    await Promise.all([memory.stop(), pglite.stop()]);
    servers.splice(0);
  }
  extra.reads = reads;

  // -- 2. replica lag and write throughput over PostgreSQL -------------------
  if (await ensurePostgres(pg.Client)) {
    const schema = schemaName('pq_bench');
    try {
      const where = ['--database-url', POSTGRES_URL, '--schema', schema];
      const [a, b] = await Promise.all([startServer(where, dir), startServer(where, dir)]);
      servers.push(a, b);
      let stop = false;
      let writes = 0;
      let failures = 0;
      const writer = async (url: string, tag: string) => {
        for (let n = 0; !stop; n += 1) {
          const r = await post(url, { name: `${tag}-${n}` });
          await r.arrayBuffer();
          if (r.status === 200) writes += 1;
          else failures += 1;
        }
      };
      const lags: number[] = [];
      const probe = async () => {
        for (let i = 0; !stop; i += 1) {
          const [from, to] = i % 2 ? [a, b] : [b, a];
          const uuid = randomUUID();
          const r = await post(from.url, { name: `probe-${i}`, uuid });
          await r.arrayBuffer();
          const acked = performance.now();
          for (;;) {
            const seen = await fetch(`${to.url}/resource_providers/${uuid}`, { headers: HEADERS });
            await seen.arrayBuffer();
            if (seen.status === 200) break;
            await new Promise((done) => setTimeout(done, 1));
          }
          lags.push(performance.now() - acked);
          await new Promise((done) => setTimeout(done, 10));
        }
      };
      const began = performance.now();
      const load = [
        ...Array.from({ length: WRITERS }, (_, i) => writer(a.url, `a${i}`)),
        ...Array.from({ length: WRITERS }, (_, i) => writer(b.url, `b${i}`)),
        probe(),
      ];
      await new Promise((done) => setTimeout(done, LOAD_SECONDS * 1000));
      stop = true;
      await Promise.all(load);
      const seconds = (performance.now() - began) / 1000;
      const lag = figures(`replica lag under ${2 * WRITERS} writers (ack → other server's read)`, lags);
      tasks.push(lag);
      extra.replication = {
        writers: 2 * WRITERS,
        seconds: Number(seconds.toFixed(1)),
        writesPerSecond: Math.round(writes / seconds),
        failedWrites: failures,
        lagP50Ms: lag.p50Ms,
        lagP99Ms: lag.p99Ms,
        lagMaxMs: Math.max(...lags),
        probes: lags.length,
      };
      verdicts.push(
        `${lag.p99Ms < LAG_TARGET_MS ? 'PASS' : 'FAIL'} replica lag p99 ${lag.p99Ms.toFixed(1)} ms (p50 ${lag.p50Ms.toFixed(1)} ms, ${lags.length} probes) under ${Math.round(writes / seconds)} writes/s through two servers (target p99 < ${LAG_TARGET_MS} ms)`,
      );
      await Promise.all([a.stop(), b.stop()]);
      servers.splice(0);
    } finally {
      await dropSchema(pg.Client, schema).catch(() => undefined);
    }
  } else {
    console.log('  (PostgreSQL unavailable: replica lag not measured)');
  }
} finally {
  await Promise.all(servers.map((s) => s.kill9()));
  rmSync(dir, { recursive: true, force: true });
}

extra.verdicts = verdicts;
extra.loadAverageAtEnd = loadavg().map((n) => n.toFixed(1));
report(benchName(import.meta.url), tasks, extra);
for (const v of verdicts) console.log(v);
