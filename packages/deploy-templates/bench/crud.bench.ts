// CRUD throughput and tail latency of the REST API under 32 concurrent
// clients on loopback, on PGlite (embedded) and on PostgreSQL, and — in the
// same run — Debian's Ironic 21.4 API (wsgiref, single thread, SQLite) as the
// reference point. Each operation is its own phase: the 32 clients first
// create all their templates, then show them all, patch them all, list, and
// delete them all, so that each phase's ops/s is that operation's own
// throughput (requests of the phase / wall time of the phase) and its p99 is
// measured over that operation alone. Every target gets the same warm-up run
// first.
import pg from 'pg';
import { benchName, report, type TaskFigures } from '../../../scripts/bench-kit.js';
import { dropSchema, ensurePostgres, POSTGRES_URL, schemaName } from '../../../test-support/postgres.js';
import { createPgliteStore } from '../src/adapters/pglite.js';
import { createPostgresStore } from '../src/adapters/postgres.js';
import { type DeployTemplateStore, serveDeployTemplates } from '../src/index.js';
import { startIronicOracle } from '../test/support/ironic-oracle.js';

const CLIENTS = 32;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 25);
const WARMUP_ROUNDS = Math.max(1, Math.ceil(ROUNDS / 5));
const HEADERS = { 'X-OpenStack-Ironic-API-Version': '1.55', 'content-type': 'application/json' };
const STEP = {
  interface: 'raid',
  step: 'create_configuration',
  args: { logical_disks: [{ size_gb: 'MAX', raid_level: '1' }] },
  priority: 10,
};

interface Phase {
  op: 'create' | 'show' | 'patch' | 'list' | 'delete';
  expected: number;
  request: (url: string, name: string, round: number) => [string, RequestInit];
}

const PHASES: Phase[] = [
  {
    op: 'create',
    expected: 201,
    request: (url, name) => [
      `${url}/v1/deploy_templates`,
      { method: 'POST', headers: HEADERS, body: JSON.stringify({ name, steps: [STEP] }) },
    ],
  },
  {
    op: 'show',
    expected: 200,
    request: (url, name) => [`${url}/v1/deploy_templates/${name}`, { headers: HEADERS }],
  },
  {
    op: 'patch',
    expected: 200,
    request: (url, name, round) => [
      `${url}/v1/deploy_templates/${name}`,
      {
        method: 'PATCH',
        headers: HEADERS,
        body: JSON.stringify([{ op: 'add', path: '/extra/round', value: round }]),
      },
    ],
  },
  {
    op: 'list',
    expected: 200,
    request: (url) => [`${url}/v1/deploy_templates?limit=50`, { headers: HEADERS }],
  },
  {
    op: 'delete',
    expected: 204,
    request: (url, name) => [`${url}/v1/deploy_templates/${name}`, { method: 'DELETE', headers: HEADERS }],
  },
];

function percentile(sorted: number[], p: number): number {
  if (!sorted.length) return 0;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] as number;
}

/** Runs every phase in turn with CLIENTS concurrent clients doing `rounds` requests each. */
async function drive(label: string, url: string, rounds: number): Promise<TaskFigures[]> {
  const figures: TaskFigures[] = [];
  for (const phase of PHASES) {
    const samples: number[] = [];
    let failures = 0;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: CLIENTS }, async (_, c) => {
        for (let r = 0; r < rounds; r += 1) {
          const [target, init] = phase.request(url, `CUSTOM_C${c}_R${r}`, r);
          const t0 = performance.now();
          const res = await fetch(target, init);
          await res.arrayBuffer();
          samples.push(performance.now() - t0);
          if (res.status !== phase.expected) failures += 1;
        }
      }),
    );
    const wall = (performance.now() - started) / 1000;
    if (failures) throw new Error(`${label} ${phase.op}: ${failures} requests failed`);
    samples.sort((a, b) => a - b);
    figures.push({
      name: `${label} ${phase.op} (${CLIENTS} clients)`,
      opsPerSecond: samples.length / wall,
      meanMs: samples.reduce((s, x) => s + x, 0) / samples.length,
      p50Ms: percentile(samples, 50),
      p99Ms: percentile(samples, 99),
      samples: samples.length,
    });
  }
  return figures;
}

/** A warm-up run (discarded), then the measured one. */
async function warmThenDrive(label: string, url: string): Promise<TaskFigures[]> {
  await drive(`${label} warm-up`, url, WARMUP_ROUNDS);
  return drive(label, url, ROUNDS);
}

async function measure(label: string, store: DeployTemplateStore): Promise<TaskFigures[]> {
  const server = await serveDeployTemplates({ port: 0, store });
  try {
    return await warmThenDrive(label, server.url);
  } finally {
    await server.close();
  }
}

const tasks: TaskFigures[] = [];
const extra: Record<string, unknown> = {
  clients: CLIENTS,
  roundsPerClient: ROUNDS,
  warmupRoundsPerClient: WARMUP_ROUNDS,
  requestsPerPhase: CLIENTS * ROUNDS,
  method:
    'each operation is its own phase (create all, show all, patch all, list, delete all); ops/s = requests of the phase / wall time of the phase',
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
    tasks.push(...(await warmThenDrive('Ironic 21.4 (wsgiref, 1 thread, SQLite)', oracle.url)));
  } finally {
    await oracle.close();
  }
} catch (e) {
  extra.ironic = `unavailable: ${(e as Error).message.split('\n')[0]}`;
}
report(benchName(import.meta.url), tasks, extra);
