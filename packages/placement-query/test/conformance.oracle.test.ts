// Conformance with OpenStack Placement 8.0 (Debian's python3-placement): the
// same generated inventories are loaded into both through the same REST
// calls, then the same queries (valid and malformed, across microversions)
// go to both. Any difference in status, error message, provider set or
// candidate multiset fails, except the intended ones listed with reasons in
// conformance-differences.json.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { oracleAvailable } from '../../../test-support/python.js';
import { createPlacementHandler } from '../src/http/service.js';
import { type ResolvedInventory, resolveInventory, safeLoadInventory } from '../src/model/inventory-file.js';
import { applyPlan, inventoryPlan, wipePlacement } from '../src/model/plan.js';
import { createProviderStore, SHARING_TRAIT } from '../src/model/store.js';
import { compare, messageOf, type Verdict } from './support/compare.js';
import { generateInventory, generateQueries, type InventoryShape } from './support/generate.js';
import { handlerSend, httpSend, type RunningOracle, startOracle } from './support/oracle.js';

const differences = JSON.parse(
  readFileSync(new URL('./conformance-differences.json', import.meta.url), 'utf8'),
) as {
  differences: { id: string; reason: string }[];
};
const INTENDED = new Set(differences.differences.map((d) => d.id));

function resolve(text: string): ResolvedInventory {
  const r = safeLoadInventory(text);
  if (!r.ok) throw new Error(JSON.stringify(r.diagnostics));
  return r.inventory;
}

function resolveGenerated(seed: number, shape: InventoryShape) {
  const gen = generateInventory(seed, shape);
  const r = resolveInventory(gen.file, createProviderStore());
  if (!r.ok) throw new Error(JSON.stringify(r.diagnostics));
  return { gen, inventory: r.inventory };
}

describe.runIf(oracleAvailable('placement', ['placement.deploy']))(
  'conformance with OpenStack Placement 8.0',
  () => {
    let oracle: RunningOracle;
    const tally = new Map<string, number>();

    beforeAll(async () => {
      oracle = await startOracle();
    }, 180_000);

    afterAll(async () => {
      await oracle?.close();
      console.log('conformance verdicts:', Object.fromEntries(tally));
    });

    async function loadBoth(inventory: ResolvedInventory) {
      const theirs = httpSend(oracle.url);
      await wipePlacement(theirs);
      await applyPlan(theirs, inventoryPlan(inventory));
      const handler = createPlacementHandler();
      await applyPlan(handlerSend(handler), inventoryPlan(inventory));
      return handler;
    }

    async function run(
      inventory: ResolvedInventory,
      handler: ReturnType<typeof createPlacementHandler>,
      queries: { endpoint: 'resource_providers' | 'allocation_candidates'; version: string; query: string }[],
    ) {
      const sharing = new Set(
        inventory.providers.filter((p) => p.traits.includes(SHARING_TRAIT)).map((p) => p.uuid),
      );
      const unexplained: string[] = [];
      const kinds: Verdict['kind'][] = [];
      for (const q of queries) {
        const path = `/${q.endpoint}?${q.query}`;
        const theirs = await httpSend(oracle.url, q.version)('GET', path);
        const ours = await handlerSend(handler, q.version)('GET', path);
        const params = new URLSearchParams(q.query);
        let oursUnlimited: Awaited<ReturnType<ReturnType<typeof handlerSend>>> | undefined;
        if (params.has('limit')) {
          params.delete('limit');
          oursUnlimited = await handlerSend(handler, q.version)('GET', `/${q.endpoint}?${params}`);
        }
        const verdict = compare(theirs, ours, {
          endpoint: q.endpoint,
          query: q.query,
          sharing,
          ...(oursUnlimited ? { oursUnlimited } : {}),
        });
        kinds.push(verdict.kind);
        tally.set(verdict.kind, (tally.get(verdict.kind) ?? 0) + 1);
        const shape =
          theirs.status !== 200
            ? `status ${theirs.status} ${messageOf(theirs.body).message.slice(0, 45)}`
            : q.endpoint === 'resource_providers'
              ? (theirs.body as { resource_providers: unknown[] }).resource_providers.length
                ? 'providers'
                : 'no providers'
              : (theirs.body as { allocation_requests: unknown[] }).allocation_requests.length
                ? 'candidates'
                : 'no candidates';
        tally.set(shape, (tally.get(shape) ?? 0) + 1);
        if (verdict.kind === 'unexplained' || (verdict.kind !== 'same' && !INTENDED.has(verdict.kind))) {
          unexplained.push(`${q.version} GET ${path}\n  ${verdict.detail ?? verdict.kind}`);
        }
      }
      return { unexplained, kinds };
    }

    it('loads the spec example identically and answers its queries the same', async () => {
      const inventory = resolve(
        readFileSync(new URL('../src/fixtures/spec-example.yaml', import.meta.url), 'utf8'),
      );
      const handler = await loadBoth(inventory);
      const [a, b] = ['0000000a-0000-4000-8000-00000000000a', '0000000b-0000-4000-8000-00000000000b'];
      const c = '0000000c-0000-4000-8000-00000000000c';
      const queries: {
        endpoint: 'resource_providers' | 'allocation_candidates';
        version: string;
        query: string;
      }[] = [];
      for (const agg of [a, b, c]) {
        for (const rc of ['VCPU:1', 'MEMORY_MB:1', 'DISK_GB:10', 'VCPU:1,MEMORY_MB:1,DISK_GB:10']) {
          queries.push({
            endpoint: 'allocation_candidates',
            version: '1.39',
            query: `resources=${rc}&member_of=!${agg}`,
          });
          queries.push({
            endpoint: 'allocation_candidates',
            version: '1.39',
            query: `resources1=${rc}&member_of1=!${agg}`,
          });
          queries.push({
            endpoint: 'allocation_candidates',
            version: '1.32',
            query: `resources=${rc}&member_of=in:${agg},${c}`,
          });
        }
        queries.push({ endpoint: 'resource_providers', version: '1.32', query: `member_of=!${agg}` });
        queries.push({ endpoint: 'resource_providers', version: '1.31', query: `member_of=!${agg}` });
        queries.push({
          endpoint: 'allocation_candidates',
          version: '1.32',
          query: `resources=VCPU:1&member_of=in:${a},!${agg}`,
        });
      }
      const { unexplained } = await run(inventory, handler, queries);
      expect(unexplained).toEqual([]);
    }, 120_000);

    const shapes: [string, number, InventoryShape][] = [
      [
        'flat hosts with sharing disk',
        11,
        {
          computeNodes: 8,
          numaPerNode: 0,
          sharingProviders: 2,
          aggregates: 4,
          customTraits: 3,
          rich: false,
          usageRate: 0.3,
        },
      ],
      [
        'NUMA trees',
        12,
        {
          computeNodes: 6,
          numaPerNode: 2,
          sharingProviders: 0,
          aggregates: 4,
          customTraits: 3,
          rich: false,
          usageRate: 0.3,
        },
      ],
      [
        'rich trees with PFs and sharing',
        13,
        { computeNodes: 6, sharingProviders: 2, aggregates: 5, customTraits: 4, rich: true, usageRate: 0.4 },
      ],
      [
        'rich trees, other seed',
        14,
        { computeNodes: 5, sharingProviders: 1, aggregates: 3, customTraits: 3, rich: true, usageRate: 0.5 },
      ],
    ];

    it.each(shapes)(
      'answers random queries on %s like Placement',
      async (_name, seed, shape) => {
        const { gen, inventory } = resolveGenerated(seed, shape);
        const handler = await loadBoth(inventory);
        // The loaded state reads back the same through the API.
        for (const path of ['/resource_providers', '/traits?name=startswith:CUSTOM_', '/resource_classes']) {
          const t = await httpSend(oracle.url)('GET', path);
          const o = await handlerSend(handler)('GET', path);
          expect(o, path).toEqual(t);
        }
        for (const p of inventory.providers.slice(0, 6)) {
          for (const sub of ['inventories', 'usages', 'aggregates', 'traits', 'allocations']) {
            const path = `/resource_providers/${p.uuid}/${sub}`;
            const t = (await httpSend(oracle.url)('GET', path)) as { body: Record<string, unknown> };
            const o = (await handlerSend(handler)('GET', path)) as { body: Record<string, unknown> };
            if (Array.isArray(t.body.traits)) (t.body.traits as string[]).sort();
            if (Array.isArray(o.body.traits)) (o.body.traits as string[]).sort();
            if (Array.isArray(t.body.aggregates)) (t.body.aggregates as string[]).sort();
            if (Array.isArray(o.body.aggregates)) (o.body.aggregates as string[]).sort();
            expect(o, path).toEqual(t);
          }
        }
        const { unexplained } = await run(inventory, handler, generateQueries(seed * 7, gen, 250));
        expect(unexplained).toEqual([]);
      },
      300_000,
    );
  },
);
