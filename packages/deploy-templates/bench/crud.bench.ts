// CRUD throughput and tail latency of the REST API under 32 concurrent
// clients on loopback, on PGlite (embedded) and on PostgreSQL, and — in the
// same run — Debian's Ironic 21.4 API (wsgiref, single thread, SQLite) as the
// reference point. Each client runs create → show → patch → list → delete.
import pg from 'pg';
import { benchName, report, type TaskFigures } from '../../../scripts/bench-kit.js';
import { dropSchema, ensurePostgres, POSTGRES_URL, schemaName } from '../../../test-support/postgres.js';
import { createPostgresStore } from '../src/adapters/postgres.js';
import { createPgliteStore, type DeployTemplateStore, serveDeployTemplates } from '../src/index.js';
import { startIronicOracle } from '../test/support/ironic-oracle.js';

const CLIENTS = 32;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 25);
const HEADERS = { 'X-OpenStack-Ironic-API-Version': '1.55', 'content-type': 'application/json' };
const STEP = {
  interface: 'raid',
  step: 'create_configuration',
  args: { logical_disks: [{ size_gb: 'MAX', raid_level: '1' }] },
  priority: 10,
};

type Op = 'create' | 'show' | 'patch' | 'list' | 'delete';

function percentile(sorted: number[], p: number): number {
  if (!sorted.length) return 0;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] as number;
}

async function drive(label: string, url: string): Promise<TaskFigures[]> {
  const samples: Record<Op, number[]> = { create: [], show: [], patch: [], list: [], delete: [] };
  let failures = 0;
  const timed = async (op: Op, fn: () => Promise<Response>, expected: number) => {
    const t0 = performance.now();
    const res = await fn();
    await res.arrayBuffer();
    samples[op].push(performance.now() - t0);
    if (res.status !== expected) failures += 1;
  };
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CLIENTS }, async (_, c) => {
      for (let r = 0; r < ROUNDS; r += 1) {
        const name = `CUSTOM_C${c}_R${r}`;
        const t = `${url}/v1/deploy_templates/${name}`;
        await timed(
          'create',
          () =>
            fetch(`${url}/v1/deploy_templates`, {
              method: 'POST',
              headers: HEADERS,
              body: JSON.stringify({ name, steps: [STEP] }),
            }),
          201,
        );
        await timed('show', () => fetch(t, { headers: HEADERS }), 200);
        await timed(
          'patch',
          () =>
            fetch(t, {
              method: 'PATCH',
              headers: HEADERS,
              body: JSON.stringify([{ op: 'add', path: '/extra/round', value: r }]),
            }),
          200,
        );
        await timed('list', () => fetch(`${url}/v1/deploy_templates?limit=50`, { headers: HEADERS }), 200);
        await timed('delete', () => fetch(t, { method: 'DELETE', headers: HEADERS }), 204);
      }
    }),
  );
  const wall = (performance.now() - started) / 1000;
  if (failures) throw new Error(`${label}: ${failures} requests failed`);
  const all = Object.values(samples)
    .flat()
    .sort((a, b) => a - b);
  const total: TaskFigures = {
    name: `${label} all requests (${CLIENTS} clients)`,
    opsPerSecond: all.length / wall,
    meanMs: all.reduce((s, x) => s + x, 0) / all.length,
    p99Ms: percentile(all, 99),
    samples: all.length,
  };
  return [
    total,
    ...(Object.keys(samples) as Op[]).map((op) => {
      const sorted = [...samples[op]].sort((a, b) => a - b);
      const mean = sorted.reduce((s, x) => s + x, 0) / sorted.length;
      return {
        name: `${label} ${op} (${CLIENTS} clients)`,
        opsPerSecond: sorted.length / wall,
        meanMs: mean,
        p99Ms: percentile(sorted, 99),
        samples: sorted.length,
      };
    }),
  ];
}

async function measure(label: string, store: DeployTemplateStore): Promise<TaskFigures[]> {
  const server = await serveDeployTemplates({ port: 0, store });
  try {
    await drive(`${label} warm-up`, server.url);
    return await drive(label, server.url);
  } finally {
    await server.close();
  }
}

const tasks: TaskFigures[] = [];
const extra: Record<string, unknown> = {
  clients: CLIENTS,
  roundsPerClient: ROUNDS,
  requestsPerRun: CLIENTS * ROUNDS * 5,
};
tasks.push(...(await measure('PGlite', createPgliteStore())));
if (await ensurePostgres(pg.Client)) {
  const schema = schemaName('dt_bench');
  try {
    tasks.push(
      ...(await measure(
        'PostgreSQL',
        createPostgresStore({ connectionString: POSTGRES_URL, schema, maxConnections: 16 }),
      )),
    );
  } finally {
    await dropSchema(pg.Client, schema);
  }
} else {
  extra.postgres = 'unavailable';
}
try {
  const oracle = await startIronicOracle('noauth');
  try {
    tasks.push(...(await drive('Ironic 21.4 (wsgiref, 1 thread, SQLite)', oracle.url)));
  } finally {
    await oracle.close();
  }
} catch (e) {
  extra.ironic = `unavailable: ${(e as Error).message.split('\n')[0]}`;
}
report(benchName(import.meta.url), tasks, extra);
