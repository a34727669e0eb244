// An explanation must end where the engine's answer does. Over seeded
// generated clouds (the differential suite's generators: trees, NUMA,
// devices, sharing providers, odd inventories, usages) and the queries the
// differential suite sends, explain's count equals the engine's count before
// limit, its `returned` the engine's answer, each group's funnel ends with
// the providers (or trees) the engine made requests for, and the stage it
// blames is the first that kept nothing. EXPLAIN_PROPERTY_RUNS sets how
// many clouds (default 60) for a longer run by hand.
import { isStackspecError } from '@stackspec/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  createSearchTrace,
  findAllocationCandidates,
  traceAllocationCandidates,
} from '../src/engine/candidates.js';
import { explainAllocationCandidates, explainResourceProviders } from '../src/engine/explain.js';
import type { ExplainStage } from '../src/engine/explain-schema.js';
import { listResourceProviders } from '../src/engine/providers.js';
import { applyInventory, resolveInventory } from '../src/model/inventory-file.js';
import { createProviderStore, type ProviderStore } from '../src/model/store.js';
import { parsePlacementQuery } from '../src/parse.js';
import type { PlacementQuery } from '../src/request.js';
import { generateCloud } from './differential/cloud.js';
import { generateDifferentialQueries } from './differential/queries.js';

function storeOf(seed: number): {
  store: ProviderStore;
  queries: ReturnType<typeof generateDifferentialQueries>;
} {
  const cloud = generateCloud(seed, { nodes: 3 + (seed % 14), maxWide: 3 });
  const store = createProviderStore();
  const r = resolveInventory(cloud.file, store);
  if (!r.ok) throw new Error(`seed ${seed}: ${r.diagnostics[0]?.message}`);
  applyInventory(store, r.inventory);
  return { store, queries: generateDifferentialQueries(seed, cloud, 14) };
}

function parsed(q: { endpoint: string; query: string; version: string }): PlacementQuery | undefined {
  try {
    return parsePlacementQuery(q.endpoint as PlacementQuery['endpoint'], q.query, q.version);
  } catch {
    return undefined;
  }
}

function failure(fn: () => unknown): string | undefined {
  try {
    fn();
    return undefined;
  } catch (e) {
    if (!isStackspecError(e)) throw e;
    return e.message;
  }
}

/** Each funnel only narrows, and each stage starts from what the one before kept (same unit). */
function expectFunnel(stages: readonly ExplainStage[], start?: number): void {
  let last: ExplainStage | undefined;
  for (const s of stages) {
    expect(s.kept).toBeLessThanOrEqual(s.before);
    if (last && last.unit === s.unit) expect(s.before).toBe(last.kept);
    else if (!last && start !== undefined) expect(s.before).toBe(start);
    last = s;
  }
}

function checkCandidates(
  store: ProviderStore,
  request: Extract<PlacementQuery, { endpoint: 'allocation_candidates' }>,
) {
  const refused = failure(() => findAllocationCandidates(store, request));
  if (refused) {
    expect(failure(() => explainAllocationCandidates(store, request))).toBe(refused);
    return;
  }
  const e = explainAllocationCandidates(store, request);
  const all = findAllocationCandidates(store, { ...request, limit: undefined });
  expect(e.candidates).toBe(all.candidates.length);
  expect(e.returned).toBe(findAllocationCandidates(store, request).candidates.length);

  // Every group's funnel ends with what the engine made requests from.
  const trace = createSearchTrace();
  traceAllocationCandidates(store, request, trace);
  e.groups.forEach((g, i) => {
    expectFunnel(g.stages, g.mode === 'tree' ? undefined : store.providerCount);
    if (g.error) return;
    const spaces = trace.groups[i]?.spaces ?? [];
    if (g.mode === 'tree') expect(g.kept).toBe(g.anchors);
    else {
      const providers = new Set<unknown>();
      for (const s of spaces)
        for (const r of s.requests()) if (typeof r !== 'symbol') providers.add(r.providers[0]);
      expect(g.kept).toBe(providers.size);
    }
  });
  expectFunnel(e.request);

  // The stage blamed is the first one that kept nothing, and there is one exactly when nothing fits.
  const flat = [
    ...e.groups.flatMap((g) => g.stages.map((s) => ({ group: g.suffix as string | undefined, s }))),
    ...e.request.map((s) => ({ group: undefined, s })),
  ];
  const first = flat.find((x) => x.s.kept === 0);
  if (e.candidates === 0) {
    expect(first).toBeDefined();
    expect(e.emptiedBy).toEqual({
      ...(first?.group !== undefined ? { group: first.group } : {}),
      stage: first?.s.stage,
      label: first?.s.label,
    });
    if ((first?.s.before ?? 0) > 0) expect(first?.s.examples.length).toBeGreaterThan(0);
  } else {
    expect(first?.s.stage ?? 'none').toBe('none');
    expect(e.emptiedBy).toBeUndefined();
  }
}

function checkProviders(
  store: ProviderStore,
  request: Extract<PlacementQuery, { endpoint: 'resource_providers' }>,
) {
  const refused = failure(() => listResourceProviders(store, request));
  if (refused) {
    expect(failure(() => explainResourceProviders(store, request))).toBe(refused);
    return;
  }
  const e = explainResourceProviders(store, request);
  const answer = listResourceProviders(store, request).length;
  expect(e.providers).toBe(answer);
  expectFunnel(e.stages, store.providerCount);
  expect(e.stages.at(-1)?.kept ?? store.providerCount).toBe(answer);
  const first = e.stages.find((s) => s.kept === 0);
  expect(e.emptiedBy?.stage).toBe(first?.stage);
}

const RUNS = Number(process.env.EXPLAIN_PROPERTY_RUNS ?? 60);

describe('explanations agree with the engine (property over generated clouds)', () => {
  it('counts what the engine returns and blames the first stage that kept nothing', {
    timeout: 120_000 * Math.max(1, RUNS / 60),
  }, () => {
    let explained = 0;
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1_000_000 }), (seed) => {
        const { store, queries } = storeOf(seed);
        for (const q of queries) {
          const request = parsed(q);
          if (!request) continue;
          explained += 1;
          if (request.endpoint === 'allocation_candidates') checkCandidates(store, request);
          else checkProviders(store, request);
        }
      }),
      { seed: 20_261_127, numRuns: RUNS },
    );
    // The generators must keep producing queries worth explaining.
    expect(explained).toBeGreaterThan(5 * RUNS);
  });
});
