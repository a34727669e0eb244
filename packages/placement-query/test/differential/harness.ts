// The differential harness: for each seed, a generated cloud is loaded
// through the REST API into OpenStack Placement 8.0 (Debian's
// python3-placement, in process with SQLite, a fresh database per seed) and
// into our server (createPlacementHandler behind core's startServer, over a
// real socket), then both get the same generated queries, a session of
// writes, and the queries again over the changed state. Every pair of answers
// goes through `judge`.
import { readFileSync } from 'node:fs';
import { startServer } from '@stackspec/core/node';
import { createPlacementHandler, type PlacementServiceOptions } from '../../src/http/service.js';
import { resolveInventory } from '../../src/model/inventory-file.js';
import { applyPlan, inventoryPlan } from '../../src/model/plan.js';
import { createProviderStore, SHARING_TRAIT } from '../../src/model/store.js';
import { messageOf, type Verdict } from '../support/compare.js';
import { httpSend, type SendResult, startOracle } from '../support/oracle.js';
import { generateCloud } from './cloud.js';
import { judge } from './judge.js';
import { type DifferentialQuery, generateDifferentialQueries } from './queries.js';
import { runWriteSession } from './writes.js';

/** The ids of every accepted difference: the conformance suite's and the differential suite's own. */
export function intendedDifferences(): Set<string> {
  const ids = new Set<string>();
  for (const file of ['../conformance-differences.json', './differences.json']) {
    const list = JSON.parse(readFileSync(new URL(file, import.meta.url), 'utf8')) as {
      differences: { id: string }[];
    };
    for (const d of list.differences) ids.add(d.id);
  }
  return ids;
}

/** One run's settings. */
export interface DifferentialOptions {
  seeds: readonly number[];
  /** Compute nodes per cloud. */
  nodes: number;
  /** Queries per seed before the writes (a fifth of them again after). */
  queries: number;
  /** Writes per seed. */
  writes: number;
  /** Intended differences (ids) that are accepted. */
  intended: ReadonlySet<string>;
  /** Options for our handler (e.g. a cap on candidates). */
  service?: PlacementServiceOptions;
  log?: (line: string) => void;
}

/** What one seed showed. */
export interface SeedReport {
  seed: number;
  providers: number;
  consumers: number;
  queries: number;
  writes: number;
  /** Verdict kinds and answer shapes, counted. */
  tally: Record<string, number>;
  unexplained: string[];
  seconds: { loadPlacement: number; loadOurs: number; queries: number };
}

function shapeOf(q: DifferentialQuery, r: SendResult): string {
  if (r.status !== 200) return `status ${r.status}`;
  if (q.endpoint === 'resource_providers')
    return (r.body as { resource_providers: unknown[] }).resource_providers.length
      ? 'providers'
      : 'no providers';
  return (r.body as { allocation_requests: unknown[] }).allocation_requests.length
    ? 'candidates'
    : 'no candidates';
}

/** Provider uuid → root uuid, as both sides list them. */
async function rootsOf(send: ReturnType<typeof httpSend>): Promise<Map<string, string>> {
  const list = (await send('GET', '/resource_providers')).body as {
    resource_providers: { uuid: string; root_provider_uuid: string }[];
  };
  return new Map(list.resource_providers.map((p) => [p.uuid, p.root_provider_uuid]));
}

async function runQueries(
  queries: readonly DifferentialQuery[],
  urls: { theirs: string; ours: string },
  report: SeedReport,
  intended: ReadonlySet<string>,
): Promise<void> {
  // Writes may have made other providers sharing: ask the current state.
  const sharingList = (await httpSend(urls.ours)('GET', `/resource_providers?required=${SHARING_TRAIT}`))
    .body as {
    resource_providers: { uuid: string }[];
  };
  const sharing = new Set(sharingList.resource_providers.map((p) => p.uuid));
  const roots = await rootsOf(httpSend(urls.ours));
  const count = (k: string) => {
    report.tally[k] = (report.tally[k] ?? 0) + 1;
  };
  for (const q of queries) {
    const path = `/${q.endpoint}?${q.query}`;
    const theirs = await httpSend(urls.theirs, q.version)('GET', path);
    const ours = await httpSend(urls.ours, q.version)('GET', path);
    const params = new URLSearchParams(q.query);
    let unlimited: { theirs: SendResult; ours: SendResult } | undefined;
    if (params.has('limit') && theirs.status === 200 && ours.status === 200) {
      params.delete('limit');
      const full = `/${q.endpoint}?${params}`;
      unlimited = {
        theirs: await httpSend(urls.theirs, q.version)('GET', full),
        ours: await httpSend(urls.ours, q.version)('GET', full),
      };
    }
    let verdict: Verdict;
    try {
      verdict = judge(theirs, ours, {
        endpoint: q.endpoint,
        query: q.query,
        sharing,
        roots,
        ...(unlimited ? { unlimited } : {}),
      });
    } catch (e) {
      verdict = { kind: 'unexplained', detail: `judge failed: ${(e as Error).message}` };
    }
    count(verdict.kind);
    count(shapeOf(q, theirs));
    report.queries += 1;
    if (verdict.kind === 'unexplained' || (verdict.kind !== 'same' && !intended.has(verdict.kind))) {
      report.unexplained.push(
        `seed ${report.seed}: ${q.version} GET ${path}\n  ${verdict.detail ?? verdict.kind}${
          theirs.status >= 400 ? `\n  (Placement: ${messageOf(theirs.body).message.slice(0, 200)})` : ''
        }`,
      );
    }
  }
}

/** Runs one seed: a fresh Placement, a fresh server of ours, the cloud, queries, writes, queries again. */
export async function runSeed(seed: number, options: DifferentialOptions): Promise<SeedReport> {
  const log = options.log ?? (() => {});
  const cloud = generateCloud(seed, { nodes: options.nodes });
  const resolved = resolveInventory(cloud.file, createProviderStore());
  if (!resolved.ok)
    throw new Error(
      `seed ${seed}: generated cloud is invalid: ${JSON.stringify(resolved.diagnostics.slice(0, 3))}`,
    );
  const inventory = resolved.inventory;
  const report: SeedReport = {
    seed,
    providers: inventory.providers.length,
    consumers: inventory.consumers.length,
    queries: 0,
    writes: 0,
    tally: {},
    unexplained: [],
    seconds: { loadPlacement: 0, loadOurs: 0, queries: 0 },
  };
  const oracle = await startOracle();
  const server = await startServer(createPlacementHandler(options.service ?? {}), { port: 0 });
  try {
    const urls = { theirs: oracle.url, ours: server.url };
    let t = performance.now();
    await applyPlan(httpSend(urls.theirs), inventoryPlan(inventory));
    report.seconds.loadPlacement = (performance.now() - t) / 1000;
    t = performance.now();
    await applyPlan(httpSend(urls.ours), inventoryPlan(inventory));
    report.seconds.loadOurs = (performance.now() - t) / 1000;
    log(
      `seed ${seed}: ${report.providers} providers (${inventory.providers.filter((p) => p.traits.includes(SHARING_TRAIT)).length} sharing), ${report.consumers} consumers; loaded in ${report.seconds.loadPlacement.toFixed(1)} s (Placement) and ${report.seconds.loadOurs.toFixed(1)} s (ours)`,
    );
    t = performance.now();
    const queries = generateDifferentialQueries(seed, cloud, options.queries);
    await runQueries(queries, urls, report, options.intended);
    const writes = await runWriteSession(
      seed,
      cloud,
      (v) => httpSend(urls.theirs, v),
      (v) => httpSend(urls.ours, v),
      options.writes,
    );
    report.writes = writes.length;
    if (process.env.DIFFERENTIAL_TRACE)
      for (const w of writes) log(`${w.same ? 'same' : 'DIFF'} ${w.request}`);
    for (const w of writes) {
      const k = w.same ? 'write same' : 'write unexplained';
      report.tally[k] = (report.tally[k] ?? 0) + 1;
      if (!w.same) report.unexplained.push(`seed ${seed}: ${w.request}\n  ${w.detail}`);
    }
    // The same queries' first fifth again, over the state the writes left.
    await runQueries(queries.slice(0, Math.ceil(queries.length / 5)), urls, report, options.intended);
    report.seconds.queries = (performance.now() - t) / 1000;
    log(
      `seed ${seed}: ${report.queries} queries and ${report.writes} writes in ${report.seconds.queries.toFixed(1)} s; ${report.unexplained.length} unexplained; ${JSON.stringify(report.tally)}`,
    );
  } finally {
    await server.close();
    await oracle.close();
  }
  return report;
}

/** Runs every seed in turn. */
export async function runDifferential(options: DifferentialOptions): Promise<SeedReport[]> {
  const out: SeedReport[] = [];
  for (const seed of options.seeds) out.push(await runSeed(seed, options));
  return out;
}
