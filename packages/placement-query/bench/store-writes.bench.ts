// `pnpm bench store` (with store.bench.ts): write throughput of our durable
// Placement against OpenStack's Placement 8.0 on its own database, in the
// same run and under the same load.
//
// The load: CLIENTS concurrent clients, each repeating one cycle of three
// writes (after a one-second warm-up that is not counted):
//   POST /resource_providers                    (a new provider)
//   PUT  /resource_providers/{uuid}/inventories (VCPU and MEMORY_MB, at the generation the create returned)
//   PUT  /allocations/{consumer}                (a new consumer on that provider, consumer_generation null)
// each over loopback HTTP at microversion 1.39, timed to the last byte of the
// answer. Writes/s counts acknowledged writes (200 or 204); a cycle whose
// step fails moves on to the next cycle and the failure is counted.
//
// All the servers run at once, and take the load in one-second turns, the
// order rotated each round, LOAD_SECONDS turns each, so that the load other
// jobs put on the machine falls on all of them alike. The servers:
// - ours on PGlite: `stackspec-placement serve --data-dir` (the default store);
// - ours on PostgreSQL: `serve --database-url` on a schema of its own (skipped
//   when PostgreSQL cannot be reached);
// - Placement 8.0 (Debian's python3-placement) on SQLite, exactly as the
//   conformance suites run it (test/support/oracle.ts);
// - Placement 8.0 on PostgreSQL: the same launcher script
//   (test/support/run-placement.py), with the database connection replaced
//   by a fresh database of the local cluster before the app is built, and
//   that database dropped afterwards.
// Both Placement runs use the launcher's wsgiref server, which answers one
// request at a time (the others wait in the listen queue); a uwsgi
// deployment with several workers would serve some at once. Skipped when the
// module (or PostgreSQL) is missing.
//
// STORE_WRITES_SECONDS (turns per server, default 5) and STORE_WRITES_CLIENTS
// (default 4) choose the load.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { benchName, report, type TaskFigures } from '../../../scripts/bench-kit.js';
import { dropSchema, ensurePostgres, POSTGRES_URL, schemaName } from '../../../test-support/postgres.js';
import { runSql } from '../../../test-support/postgres-roles.js';
import { pythonHasModules } from '../../../test-support/python.js';
import { startOracle } from '../test/support/oracle.js';
import { startServer } from '../test/support/serve-process.js';

const LOAD_SECONDS = Number(process.env.STORE_WRITES_SECONDS ?? 5);
const CLIENTS = Number(process.env.STORE_WRITES_CLIENTS ?? 4);
const WARMUP_SECONDS = 1;
const HEADERS = {
  'openstack-api-version': 'placement 1.39',
  'content-type': 'application/json',
  'x-auth-token': 'admin',
};
const KINDS = ['create provider', 'set inventory', 'allocate'] as const;
type Kind = (typeof KINDS)[number];

interface Side {
  name: string;
  store: string;
  start(): Promise<{ url: string; stop(): Promise<unknown> }>;
}

interface LoadResult {
  seconds: number;
  cycles: number;
  latencies: number[];
  byKind: Record<Kind, number[]>;
  failures: Record<string, number>;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? 0;
}

const load = () => loadavg().map((n) => n.toFixed(1));
const round = (n: number) => +n.toFixed(n < 10 ? 2 : 1);

/** One write, timed to the end of its body; the status and parsed body come back with the time. */
async function write(
  url: string,
  method: 'POST' | 'PUT',
  path: string,
  body: unknown,
): Promise<{ ms: number; status: number; json: unknown }> {
  const t = performance.now();
  const r = await fetch(`${url}${path}`, { method, headers: HEADERS, body: JSON.stringify(body) });
  const text = await r.text();
  const ms = performance.now() - t;
  let json: unknown = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    json = text;
  }
  return { ms, status: r.status, json };
}

/** CLIENTS clients running the write cycle against `url` for `seconds`. */
async function writeLoad(url: string, seconds: number, tag: string): Promise<LoadResult> {
  const byKind: Record<Kind, number[]> = { 'create provider': [], 'set inventory': [], allocate: [] };
  const latencies: number[] = [];
  const failures: Record<string, number> = {};
  let cycles = 0;
  let stop = false;
  const fail = (kind: Kind, status: number) => {
    const key = `${kind} ${status}`;
    failures[key] = (failures[key] ?? 0) + 1;
  };
  const record = (kind: Kind, ms: number) => {
    byKind[kind].push(ms);
    latencies.push(ms);
  };
  const client = async (c: number) => {
    for (let n = 0; !stop; n += 1) {
      const rp = randomUUID();
      const created = await write(url, 'POST', '/resource_providers', { name: `${tag}-${c}-${n}`, uuid: rp });
      if (created.status !== 200) {
        fail('create provider', created.status);
        continue;
      }
      record('create provider', created.ms);
      const generation = (created.json as { generation?: number } | null)?.generation ?? 0;
      const inventory = await write(url, 'PUT', `/resource_providers/${rp}/inventories`, {
        resource_provider_generation: generation,
        inventories: { VCPU: { total: 16 }, MEMORY_MB: { total: 32768 } },
      });
      if (inventory.status !== 200) {
        fail('set inventory', inventory.status);
        continue;
      }
      record('set inventory', inventory.ms);
      const allocated = await write(url, 'PUT', `/allocations/${randomUUID()}`, {
        allocations: { [rp]: { resources: { VCPU: 2, MEMORY_MB: 2048 } } },
        project_id: 'bench-project',
        user_id: 'bench-user',
        consumer_generation: null,
        consumer_type: 'INSTANCE',
      });
      if (allocated.status !== 204) {
        fail('allocate', allocated.status);
        continue;
      }
      record('allocate', allocated.ms);
      cycles += 1;
    }
  };
  const began = performance.now();
  const running = Array.from({ length: CLIENTS }, (_, c) => client(c));
  await new Promise((done) => setTimeout(done, seconds * 1000));
  stop = true;
  await Promise.all(running);
  return { seconds: (performance.now() - began) / 1000, cycles, latencies, byKind, failures };
}

/** `POSTGRES_URL` pointed at another database, with `postgres:` spelled as SQLAlchemy wants it. */
function sqlalchemyUrl(database: string): string {
  const u = new URL(POSTGRES_URL);
  return `postgresql+psycopg2://${u.username}${u.password ? `:${u.password}` : ''}@${u.host}/${database}`;
}

const adminSql = (sql: string) => runSql(pg.Client, POSTGRES_URL, sql);

const dir = mkdtempSync(join(tmpdir(), 'placement-store-writes-'));
const schema = schemaName('pq_writes');
const placementDb = schemaName('placement_writes');
let placementDbCreated = false;
const sides: Side[] = [
  {
    name: 'ours',
    store: 'PGlite (--data-dir)',
    start: () => startServer(['--data-dir', join(dir, 'data')], dir),
  },
];
const skipped: string[] = [];
const postgresUp = await ensurePostgres(pg.Client);
if (postgresUp) {
  sides.push({
    name: 'ours',
    store: 'PostgreSQL 15 (--database-url, one server)',
    start: () => startServer(['--database-url', POSTGRES_URL, '--schema', schema], dir),
  });
} else skipped.push('ours on PostgreSQL: PostgreSQL unavailable');
const placement = pythonHasModules(['placement.deploy']);
if (placement.ok) {
  sides.push({
    name: 'Placement 8.0',
    store: 'SQLite (test/support/oracle.ts; wsgiref, one request at a time)',
    start: async () => {
      const o = await startOracle();
      return { url: o.url, stop: () => o.close() };
    },
  });
  if (postgresUp) {
    sides.push({
      name: 'Placement 8.0',
      store: 'PostgreSQL 15 (run-placement.py, own database; wsgiref, one request at a time)',
      start: async () => {
        await adminSql(`CREATE DATABASE ${placementDb}`);
        placementDbCreated = true;
        const o = await startOracle({ databaseUrl: sqlalchemyUrl(placementDb) });
        return { url: o.url, stop: () => o.close() };
      },
    });
  } else skipped.push('Placement 8.0 on PostgreSQL: PostgreSQL unavailable');
} else skipped.push(`Placement 8.0: ${placement.reason}`);

const tasks: TaskFigures[] = [];
const rows: Record<string, unknown>[] = [];
const running: { side: Side; server: { url: string; stop(): Promise<unknown> }; total: LoadResult }[] = [];
let loadAtStart: string[] = [];
try {
  for (const side of sides) {
    // A server that cannot start costs its row, not the others' figures.
    const server = await side.start().catch((e: unknown) => {
      skipped.push(`${side.name} on ${side.store}: ${e instanceof Error ? e.message : String(e)}`);
      return undefined;
    });
    if (!server) continue;
    running.push({
      side,
      server,
      total: {
        seconds: 0,
        cycles: 0,
        latencies: [],
        byKind: { 'create provider': [], 'set inventory': [], allocate: [] },
        failures: {},
      },
    });
    await writeLoad(server.url, WARMUP_SECONDS, 'warm');
  }
  // One-second turns, the order rotated each round, so that a change in the
  // machine's load falls on every server alike.
  loadAtStart = load();
  for (let turn = 0; turn < LOAD_SECONDS; turn += 1) {
    for (let i = 0; i < running.length; i += 1) {
      const one = running[(turn + i) % running.length];
      if (!one) continue;
      const r = await writeLoad(one.server.url, 1, `bench${turn}`);
      const t = one.total;
      t.seconds += r.seconds;
      t.cycles += r.cycles;
      t.latencies.push(...r.latencies);
      for (const k of KINDS) t.byKind[k].push(...r.byKind[k]);
      for (const [k, n] of Object.entries(r.failures)) t.failures[k] = (t.failures[k] ?? 0) + n;
    }
  }
  for (const { side, total: r } of running) {
    const sorted = [...r.latencies].sort((a, b) => a - b);
    const mean = sorted.reduce((s, v) => s + v, 0) / Math.max(1, sorted.length);
    const writesPerSecond = sorted.length / r.seconds;
    tasks.push({
      name: `writes, ${side.name}, ${side.store}`,
      opsPerSecond: writesPerSecond,
      meanMs: mean,
      p50Ms: percentile(sorted, 50),
      p99Ms: percentile(sorted, 99),
      samples: sorted.length,
    });
    rows.push({
      server: side.name,
      store: side.store,
      clients: CLIENTS,
      seconds: round(r.seconds),
      'writes/s': Math.round(writesPerSecond),
      'cycles/s': round(r.cycles / r.seconds),
      'p50 ms': round(percentile(sorted, 50)),
      'p99 ms': round(percentile(sorted, 99)),
      ...Object.fromEntries(
        KINDS.map((k) => {
          const s = [...r.byKind[k]].sort((a, b) => a - b);
          return [`${k} p50/p99 ms`, `${round(percentile(s, 50))} / ${round(percentile(s, 99))}`];
        }),
      ),
      failed: Object.values(r.failures).reduce((a, b) => a + b, 0),
      failures: r.failures,
    });
  }
} finally {
  await Promise.all(running.map((r) => r.server.stop()));
  if (postgresUp) await dropSchema(pg.Client, schema).catch(() => undefined);
  if (placementDbCreated)
    await adminSql(`DROP DATABASE IF EXISTS ${placementDb} WITH (FORCE)`).catch(() => undefined);
  rmSync(dir, { recursive: true, force: true });
}

console.log(
  `\nWrite throughput, ${CLIENTS} clients, ${LOAD_SECONDS} one-second turns per server in rotation, cycle = create provider + set inventory + allocate:`,
);
console.table(
  rows.map(({ failures: _failures, ...row }) => row),
  ['server', 'store', 'writes/s', 'cycles/s', 'p50 ms', 'p99 ms', 'failed'],
);
console.log(`load average ${loadAtStart.join(' ')} at the start, ${load().join(' ')} at the end (2 cores)`);
for (const s of skipped) console.log(`  (skipped ${s})`);

report(benchName(import.meta.url), tasks, {
  load: {
    clients: CLIENTS,
    seconds: LOAD_SECONDS,
    cycle:
      'POST /resource_providers, PUT /resource_providers/{uuid}/inventories, PUT /allocations/{consumer}',
    microversion: '1.39',
  },
  comparison: rows,
  skipped,
  cores: 2,
  loadAverageAtStart: loadAtStart,
  loadAverageAtEnd: load(),
});
