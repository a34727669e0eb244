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
import { type ResolvedInventory, resolveInventory, validateInventory } from '../src/model/inventory-file.js';
import { applyPlan, inventoryPlan, wipePlacement } from '../src/model/plan.js';
import { createProviderStore, SHARING_TRAIT } from '../src/model/store.js';
import { compare, messageOf, type Verdict } from './support/compare.js';
import { generateInventory, generateQueries, type InventoryShape } from './support/generate.js';
import { handlerSend, httpSend, type RunningOracle, type SendResult, startOracle } from './support/oracle.js';

const differences = JSON.parse(
  readFileSync(new URL('./conformance-differences.json', import.meta.url), 'utf8'),
) as {
  differences: { id: string; reason: string }[];
};
const INTENDED = new Set(differences.differences.map((d) => d.id));

function resolve(text: string): ResolvedInventory {
  const r = validateInventory(text);
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
        let unlimited: { theirs: SendResult; ours: SendResult } | undefined;
        if (params.has('limit') && theirs.status === 200) {
          params.delete('limit');
          const full = `/${q.endpoint}?${params}`;
          unlimited = {
            theirs: await httpSend(oracle.url, q.version)('GET', full),
            ours: await handlerSend(handler, q.version)('GET', full),
          };
        }
        const verdict = compare(theirs, ours, {
          endpoint: q.endpoint,
          query: q.query,
          sharing,
          ...(unlimited ? { unlimited } : {}),
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

    /** A write or read sent to both; a function body is built from our provider generations. */
    type Generation = (uuid: string) => number;
    type Step = [
      method: string,
      path: string,
      body?: unknown | ((generation: Generation) => unknown),
      version?: string,
    ];

    /**
     * Sends each step to both and lists every difference in status, error
     * code or message; successful GETs must have equal bodies. Returns
     * Placement's statuses too, so a test can check its success paths ran.
     */
    async function replay(handler: ReturnType<typeof createPlacementHandler>, steps: Step[]) {
      const differences: string[] = [];
      const statuses: number[] = [];
      const generation = (uuid: string) => handler.store.provider(uuid)?.generation ?? 0;
      for (const [method, path, rawBody, version] of steps) {
        const body = typeof rawBody === 'function' ? rawBody(generation) : rawBody;
        const t = await httpSend(oracle.url, version)(method, path, body);
        const o = await handlerSend(handler, version)(method, path, body);
        statuses.push(t.status);
        const tm = messageOf(t.body);
        const om = messageOf(o.body);
        const same =
          t.status === o.status &&
          tm.code === om.code &&
          (t.status < 400 ||
            tm.message === om.message ||
            tm.message.startsWith(`${om.message}  Failed validating`));
        // Placement's text for a duplicate inventory is its database driver's error.
        const databaseText =
          t.status === 409 &&
          o.status === 409 &&
          INTENDED.has('database-error-text') &&
          tm.message.startsWith('Update conflict: (sqlite3.IntegrityError) UNIQUE constraint failed') &&
          /^Update conflict: Inventory for '[A-Z0-9_]+' on resource provider '[0-9a-f-]+' already exists\.$/.test(
            om.message,
          );
        if (databaseText) tally.set('database-error-text', (tally.get('database-error-text') ?? 0) + 1);
        if (!same && !databaseText)
          differences.push(
            `${version ?? '1.39'} ${method} ${path}: ${t.status} ${tm.message.slice(0, 160)} | ours ${o.status} ${om.message}`,
          );
        if (t.status < 400 && method === 'GET') {
          // Trait and aggregate lists come in database order from Placement.
          const strip = (b: unknown) =>
            JSON.parse(JSON.stringify(b), (k, v) =>
              k === 'uuid' && path === '/resource_providers/'
                ? undefined
                : (k === 'traits' || k === 'aggregates') && Array.isArray(v)
                  ? [...v].sort()
                  : v,
            );
          expect(strip(o.body), `${method} ${path}`).toEqual(strip(t.body));
        }
      }
      return { differences, statuses };
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

    it('answers writes, bad bodies and stale generations like Placement', async () => {
      const theirs = httpSend(oracle.url);
      await wipePlacement(theirs);
      const handler = createPlacementHandler();
      const RP = '5a1e0000-0000-4000-8000-000000000001';
      const CHILD = '5a1e0000-0000-4000-8000-000000000002';
      const CONSUMER = '5a1e0000-0000-4000-8000-0000000000c1';
      const alloc = (generation: number | null, vcpu: number) => ({
        allocations: { [RP]: { resources: { VCPU: vcpu } } },
        project_id: 'p',
        user_id: 'u',
        consumer_generation: generation,
        consumer_type: 'INSTANCE',
      });
      const steps: Step[] = [
        ['POST', '/resource_providers', { name: 'rp', uuid: RP }],
        ['POST', '/resource_providers', { name: 'rp' }],
        ['POST', '/resource_providers', { name: 'rp2', uuid: RP }],
        ['POST', '/resource_providers', { name: 5, extra: 1 }],
        ['POST', '/resource_providers', { uuid: 'not-a-uuid', name: 'x' }],
        [
          'POST',
          '/resource_providers',
          { name: 'orphan', uuid: '5a1e0000-0000-4000-8000-000000000003', parent_provider_uuid: CHILD },
        ],
        ['POST', '/resource_providers', { name: 'child', uuid: CHILD, parent_provider_uuid: RP }],
        ['GET', `/resource_providers/${CHILD}`],
        [
          'PUT',
          `/resource_providers/${RP}/inventories`,
          { resource_provider_generation: 9, inventories: {} },
        ],
        [
          'PUT',
          `/resource_providers/${RP}/inventories`,
          { resource_provider_generation: 0, inventories: { VCPU: { total: 2, reserved: 3 } } },
        ],
        [
          'PUT',
          `/resource_providers/${RP}/inventories`,
          { resource_provider_generation: 0, inventories: { CUSTOM_NOPE: { total: 2 } } },
        ],
        [
          'PUT',
          `/resource_providers/${RP}/inventories`,
          { resource_provider_generation: 0, inventories: { VCPU: { total: 0 } } },
        ],
        [
          'PUT',
          `/resource_providers/${RP}/inventories`,
          { resource_provider_generation: 0, inventories: { VCPU: { total: 4, max_unit: 2 } } },
        ],
        ['GET', `/resource_providers/${RP}/inventories/VCPU`],
        ['GET', `/resource_providers/${RP}/inventories/DISK_GB`],
        ['PUT', `/allocations/${CONSUMER}`, alloc(null, 3)],
        ['PUT', `/allocations/${CONSUMER}`, alloc(null, 2)],
        ['PUT', `/allocations/${CONSUMER}`, alloc(null, 2)],
        ['PUT', `/allocations/${CONSUMER}`, alloc(7, 2)],
        ['GET', `/allocations/${CONSUMER}`],
        ['DELETE', `/resource_providers/${RP}`],
        ['DELETE', `/resource_providers/${RP}/inventories`],
        [
          'PUT',
          `/resource_providers/${RP}/traits`,
          { traits: ['CUSTOM_NOT_THERE'], resource_provider_generation: 2 },
        ],
        ['PUT', '/traits/CUSTOM_HERE'],
        ['PUT', '/traits/lowercase'],
        [
          'PUT',
          `/resource_providers/${RP}/traits`,
          { traits: ['CUSTOM_HERE'], resource_provider_generation: 1 },
        ],
        [
          'PUT',
          `/resource_providers/${RP}/traits`,
          { traits: ['CUSTOM_HERE'], resource_provider_generation: 2 },
        ],
        ['DELETE', '/traits/CUSTOM_HERE'],
        ['DELETE', '/traits/HW_CPU_X86_AVX'],
        [
          'PUT',
          `/resource_providers/${RP}/aggregates`,
          { aggregates: ['nope'], resource_provider_generation: 3 },
        ],
        [
          'PUT',
          `/resource_providers/${RP}/aggregates`,
          { aggregates: [CHILD, CHILD], resource_provider_generation: 3 },
        ],
        [
          'PUT',
          `/resource_providers/${RP}/aggregates`,
          { aggregates: [CHILD], resource_provider_generation: 1 },
        ],
        ['PUT', '/resource_classes/CUSTOM_GPU'],
        ['PUT', '/resource_classes/CUSTOM_GPU'],
        ['DELETE', '/resource_classes/VCPU'],
        ['DELETE', `/resource_providers/${RP}`],
        ['DELETE', `/allocations/${CONSUMER}`],
        ['DELETE', `/allocations/${CONSUMER}`],
        ['DELETE', `/resource_providers/${CHILD}`],
        ['DELETE', `/resource_providers/${RP}`],
        ['DELETE', `/resource_providers/${RP}`],
        ['GET', '/resource_providers?name=rp', undefined, '1.0'],
        ['PATCH', '/resource_providers'],
      ];
      const { differences } = await replay(handler, steps);
      expect(differences).toEqual([]);
    }, 120_000);

    it('answers per-class inventories, old body formats, re-parenting, usages and odd paths like Placement', async () => {
      await wipePlacement(httpSend(oracle.url));
      const handler = createPlacementHandler();
      const A = '5a1e0000-0000-4000-8000-0000000000a1';
      const B = '5a1e0000-0000-4000-8000-0000000000b1';
      const C = '5a1e0000-0000-4000-8000-0000000000c1';
      const C1 = '5a1e0000-0000-4000-8000-00000000cc01';
      const C2 = '5a1e0000-0000-4000-8000-00000000cc02';
      const inv = (rc: string, fields: Record<string, unknown>) => (g: Generation) => ({
        resource_class: rc,
        resource_provider_generation: g(A),
        ...fields,
      });
      const listForm = (vcpu: number, owner: boolean) => ({
        allocations: [{ resource_provider: { uuid: A }, resources: { VCPU: vcpu } }],
        ...(owner ? { project_id: 'p', user_id: 'u' } : {}),
      });
      const dictForm = (vcpu: number, extra: Record<string, unknown> = {}) => ({
        allocations: { [A]: { resources: { VCPU: vcpu } } },
        project_id: 'p',
        user_id: 'u',
        ...extra,
      });
      const steps: Step[] = [
        ['POST', '/resource_providers', { name: 'wa', uuid: A }],
        ['POST', '/resource_providers', { name: 'wb', uuid: B }],
        ['POST', '/resource_providers', { name: 'wc', uuid: C, parent_provider_uuid: A }],
        // Per-class inventory: POST, a duplicate, an unknown class, reserved above total.
        ['POST', `/resource_providers/${A}/inventories`, inv('VCPU', { total: 8 })],
        ['POST', `/resource_providers/${A}/inventories`, inv('VCPU', { total: 8 })],
        ['POST', `/resource_providers/${A}/inventories`, inv('CUSTOM_NOPE', { total: 1 })],
        ['POST', `/resource_providers/${A}/inventories`, inv('MEMORY_MB', { total: 10, reserved: 20 })],
        ['POST', `/resource_providers/${A}/inventories`, inv('MEMORY_MB', { total: 4096 })],
        ['POST', `/resource_providers/${A}/inventories`, { resource_class: 'DISK_GB', total: 1 }],
        [
          'PUT',
          `/resource_providers/${A}/inventories/VCPU`,
          (g: Generation) => ({ resource_provider_generation: g(A), total: 16, allocation_ratio: 2.0 }),
        ],
        ['PUT', `/resource_providers/${A}/inventories/VCPU`, { resource_provider_generation: 0, total: 16 }],
        [
          'PUT',
          `/resource_providers/${A}/inventories/DISK_GB`,
          (g: Generation) => ({ resource_provider_generation: g(A), total: 5 }),
        ],
        ['GET', `/resource_providers/${A}/inventories/VCPU`],
        ['DELETE', `/resource_providers/${A}/inventories/MEMORY_MB`],
        ['DELETE', `/resource_providers/${A}/inventories/MEMORY_MB`],
        ['GET', `/resource_providers/${A}/inventories`],
        // Resource classes: POST, duplicate, bad name, the 1.2-1.6 rename, PUT from 1.7, delete.
        ['POST', '/resource_classes', { name: 'CUSTOM_W1' }],
        ['POST', '/resource_classes', { name: 'CUSTOM_W1' }],
        ['POST', '/resource_classes', { name: 'lower' }],
        ['PUT', '/resource_classes/CUSTOM_W1', { name: 'CUSTOM_W2' }, '1.6'],
        ['GET', '/resource_classes/CUSTOM_W2', undefined, '1.6'],
        ['GET', '/resource_classes/CUSTOM_W1', undefined, '1.6'],
        ['PUT', '/resource_classes/VCPU', { name: 'CUSTOM_X' }, '1.6'],
        ['PUT', '/resource_classes/CUSTOM_W2', undefined, '1.7'],
        ['DELETE', '/resource_classes/CUSTOM_W2'],
        // Allocations in every body format: the list form (1.0, owner from 1.8), the dict
        // form without generations (1.12-1.27), consumer generations (1.28), types (1.38).
        ['PUT', `/allocations/${C1}`, listForm(1, false), '1.0'],
        ['GET', `/allocations/${C1}`, undefined, '1.0'],
        ['PUT', `/allocations/${C1}`, listForm(2, false), '1.8'],
        ['PUT', `/allocations/${C1}`, listForm(2, true), '1.8'],
        ['PUT', `/allocations/${C1}`, dictForm(3), '1.12'],
        ['GET', `/allocations/${C1}`, undefined, '1.12'],
        ['PUT', `/allocations/${C1}`, dictForm(2), '1.27'],
        ['PUT', `/allocations/${C1}`, dictForm(2), '1.28'],
        ['GET', `/allocations/${C1}`, undefined, '1.28'],
        [
          'PUT',
          `/allocations/${C2}`,
          dictForm(1, { consumer_generation: null, consumer_type: 'MIGRATION' }),
          '1.38',
        ],
        ['PUT', `/allocations/${C2}`, dictForm(1, { consumer_generation: null }), '1.38'],
        ['GET', `/allocations/${C2}`, undefined, '1.38'],
        ['GET', '/usages?project_id=p', undefined, '1.9'],
        ['GET', '/usages?project_id=p', undefined, '1.37'],
        ['GET', '/usages?project_id=p', undefined, '1.38'],
        ['GET', '/usages?project_id=p&consumer_type=MIGRATION', undefined, '1.38'],
        ['GET', '/usages?project_id=p&consumer_type=all', undefined, '1.38'],
        ['GET', '/usages?project_id=p&user_id=nobody', undefined, '1.38'],
        ['GET', '/usages', undefined, '1.9'],
        ['GET', '/usages?project_id=p', undefined, '1.8'],
        ['GET', `/resource_providers/${A}/allocations`],
        ['GET', `/resource_providers/${A}/usages`],
        // Re-parenting and un-parenting from 1.37, loops refused.
        ['PUT', `/resource_providers/${C}`, { name: 'wc', parent_provider_uuid: B }, '1.14'],
        ['PUT', `/resource_providers/${C}`, { name: 'wc', parent_provider_uuid: B }, '1.37'],
        ['GET', `/resource_providers/${C}`],
        ['PUT', `/resource_providers/${C}`, { name: 'wc', parent_provider_uuid: null }, '1.36'],
        ['PUT', `/resource_providers/${C}`, { name: 'wc', parent_provider_uuid: null }, '1.37'],
        ['PUT', `/resource_providers/${C}`, { name: 'wc', parent_provider_uuid: A }, '1.37'],
        ['PUT', `/resource_providers/${A}`, { name: 'wa', parent_provider_uuid: C }, '1.37'],
        ['PUT', `/resource_providers/${B}`, { name: 'wa' }],
        ['GET', `/resource_providers?in_tree=${A}`, undefined, '1.14'],
        // Provider traits: set, read, DELETE them all; the trait list.
        ['PUT', '/traits/CUSTOM_WT'],
        [
          'PUT',
          `/resource_providers/${B}/traits`,
          (g: Generation) => ({
            traits: ['CUSTOM_WT', 'HW_CPU_X86_AVX'],
            resource_provider_generation: g(B),
          }),
        ],
        ['GET', `/resource_providers/${B}/traits`],
        ['GET', '/traits?associated=true'],
        ['GET', '/traits?name=in:CUSTOM_WT,HW_CPU_X86_AVX,NOPE'],
        ['GET', '/traits?name=nocolon'],
        ['GET', '/traits?associated=maybe'],
        ['GET', '/traits?other=1'],
        ['DELETE', `/resource_providers/${B}/traits`],
        ['GET', `/resource_providers/${B}/traits`],
        ['DELETE', '/traits/CUSTOM_WT'],
        ['GET', '/traits'],
        // Paths a WSGI server decodes byte-wise: malformed escapes, %2F, Latin-1.
        ['GET', '/resource_providers/%E0%A4%A'],
        ['GET', '/traits/%ZZ'],
        ['GET', '/resource_providers/a%2Fb'],
        ['GET', '/resource_classes/%C3%A9'],
        ['GET', `/resource_providers/${A}/inventories/%56CPU`],
        ['DELETE', `/allocations/${C1}`],
        ['DELETE', `/allocations/${C2}`],
      ];
      const { differences, statuses } = await replay(handler, steps);
      expect(differences).toEqual([]);
      // The success paths ran on Placement too, not only its refusals.
      expect(statuses.filter((s) => s < 300).length).toBeGreaterThan(45);
    }, 180_000);

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
        for (const path of ['/resource_providers', '/traits', '/resource_classes']) {
          const t = await httpSend(oracle.url)('GET', path);
          const o = await handlerSend(handler)('GET', path);
          // Placement lists traits in database order; ours are sorted.
          for (const r of [t, o]) (r.body as { traits?: string[] }).traits?.sort();
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
        const handWritten = shape.rich
          ? [
              'resources_CPU=VCPU:1&required_NIC=HW_NIC_SRIOV&same_subtree=_CPU,_NIC&group_policy=none',
              'resources_CPU=VCPU:1&resources_NIC=SRIOV_NET_VF:1&same_subtree=_CPU,_NIC&group_policy=isolate',
              'resources=MEMORY_MB:256&resources_CPU=VCPU:1&resources_NIC=SRIOV_NET_VF:1&same_subtree=_CPU,_NIC&group_policy=none',
              'resources=MEMORY_MB:256,DISK_GB:10&resources_CPU=VCPU:2&required_NIC=HW_NIC_SRIOV&same_subtree=_NIC,_CPU&group_policy=isolate',
              `resources=VCPU:1&in_tree=${inventory.providers.find((p) => p.parentUuid)?.uuid}`,
              `resources_CPU=VCPU:1&in_tree_CPU=${inventory.providers.find((p) => p.parentUuid)?.uuid}&resources=MEMORY_MB:1&group_policy=none`,
              'resources=VCPU:1,MEMORY_MB:256&root_required=HW_CPU_X86_AVX,!CUSTOM_T0',
              'resources=VCPU:1&resources_NIC=SRIOV_NET_VF:1&required_NIC=in:CUSTOM_T1,CUSTOM_T2&group_policy=isolate',
            ].flatMap((query) =>
              ['1.36', '1.39'].map((version) => ({
                endpoint: 'allocation_candidates' as const,
                version,
                query,
              })),
            )
          : [];
        // Repeated limit and group_policy: Placement's schema checks the last value, its code uses the first.
        const repeated = [
          'resources=VCPU:1&limit=0&limit=1',
          'resources=VCPU:1&limit=2&limit=1',
          'resources1=VCPU:1&resources2=MEMORY_MB:1&group_policy=bogus&group_policy=none',
          'resources1=VCPU:1&resources2=MEMORY_MB:1&group_policy=isolate&group_policy=none',
          'resources=VCPU:1&limit=x&limit=1',
          'resources=VCPU:1&limit=-1&limit=1',
          // Disk from a sharing provider in the unsuffixed group, CPUs from the trees it serves.
          'resources=DISK_GB:10&resources1=VCPU:1&group_policy=none',
          'resources=DISK_GB:10&resources_C=VCPU:1&resources_M=MEMORY_MB:256&group_policy=none',
        ].map((query) => ({ endpoint: 'allocation_candidates' as const, version: '1.39', query }));
        const { unexplained, kinds } = await run(inventory, handler, [
          ...handWritten,
          ...repeated,
          ...generateQueries(seed * 7, gen, 250),
        ]);
        expect(unexplained).toEqual([]);
        expect(kinds.filter((k) => k === 'placement-500')).toHaveLength(1);
        expect(kinds.filter((k) => k === 'negative-limit')).toHaveLength(1);
      },
      300_000,
    );

    it('answers a request without a token as noauth2 does, in the format Accept picks', async () => {
      const ours = createPlacementHandler({ auth: 'noauth2' });
      for (const accept of [
        undefined,
        '',
        '*/*',
        'application/json',
        'text/html',
        'text/plain',
        'application/json;q=0.5, text/html;q=0.4',
      ]) {
        const headers: Record<string, string> = accept === undefined ? {} : { accept };
        const theirs = await fetch(`${oracle.url}/resource_providers`, { headers });
        const mine = await ours(new Request('http://placement.test/resource_providers', { headers }));
        const label = `Accept: ${accept ?? '(none)'}`;
        expect(mine.status, label).toBe(theirs.status);
        expect(mine.headers.get('content-type'), label).toBe(theirs.headers.get('content-type'));
        expect(await mine.text(), label).toBe(await theirs.text());
      }
    });

    // Runs last: each listed difference must have been met, or the list is stale.
    it('met every difference listed in conformance-differences.json', () => {
      for (const id of INTENDED) expect(tally.get(id) ?? 0, id).toBeGreaterThan(0);
    });
  },
);
