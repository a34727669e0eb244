import { readFileSync } from 'node:fs';
import { isStackspecError, pyJsonDumps } from '@stackspec/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { generateInventory } from '../../test/support/generate.js';
import { applyInventory, parseInventory, resolveInventory } from '../model/inventory-file.js';
import { createProviderStore, INVENTORY_DEFAULTS } from '../model/store.js';
import { parseAllocationCandidatesQuery, parseResourceProvidersQuery } from '../parse.js';
import { type Candidate, findAllocationCandidates, findAllocationCandidatesAsync } from './candidates.js';
import { listResourceProviders } from './providers.js';
import {
  renderCandidates,
  renderCandidatesBytes,
  renderCandidatesJson,
  renderProvider,
  renderProviderList,
  renderProviderListBytes,
  renderProviderListJson,
} from './render.js';

// The NUMA trees of the fixture: cn1 with children and PFs below them, cn2 flat.
const { store } = parseInventory(
  readFileSync(new URL('../fixtures/numa-trees.yaml', import.meta.url), 'utf8'),
);

function names(query: string, version = '1.39'): string[][] {
  return findAllocationCandidates(store, parseAllocationCandidatesQuery(query, version))
    .candidates.map((c) => [...c.allocations.keys()].map((p) => p.name).sort())
    .sort();
}

function mapped(query: string): Record<string, string[]>[] {
  return findAllocationCandidates(store, parseAllocationCandidatesQuery(query, '1.39')).candidates.map((c) =>
    Object.fromEntries([...c.mappings].map(([s, set]) => [s, [...set].map((p) => p.name).sort()])),
  );
}

describe('findAllocationCandidates', () => {
  it('spreads the unsuffixed group over a tree and checks capacity with reservations and usage', () => {
    expect(names('resources=VCPU:1,MEMORY_MB:10')).toEqual([['cn1', 'numa0'], ['cn1', 'numa1'], ['cn2']]);
    expect(names('resources=VCPU:2,MEMORY_MB:10')).toEqual([['cn1', 'numa0']]);
  });

  it('judges unsuffixed traits over the providers that give resources', () => {
    expect(names('resources=VCPU:1&required=CUSTOM_NUMA')).toEqual([['numa0']]);
    expect(names('resources=VCPU:1,MEMORY_MB:1&required=HW_CPU_X86_AVX')).toEqual([
      ['cn1', 'numa0'],
      ['cn1', 'numa1'],
    ]);
    expect(names('resources=VCPU:1&required=HW_CPU_X86_AVX')).toEqual([]);
    expect(names('resources=VCPU:1,MEMORY_MB:1&required=!CUSTOM_NUMA')).toEqual([['cn1', 'numa1'], ['cn2']]);
  });

  it('applies group_policy isolate only between suffixed groups', () => {
    const q =
      'resources_A=SRIOV_NET_VF:1&resources_B=SRIOV_NET_VF:1&required_A=CUSTOM_PHYSNET1&required_B=CUSTOM_PHYSNET1';
    expect(names(`${q}&group_policy=isolate`)).toEqual([
      ['pf0', 'pf1'],
      ['pf0', 'pf1'],
    ]);
    expect(names(`${q}&group_policy=none`)).toEqual([['pf0'], ['pf0', 'pf1'], ['pf0', 'pf1'], ['pf1']]);
  });

  it('sums amounts when groups share a provider and re-checks capacity', () => {
    const c = findAllocationCandidates(
      store,
      parseAllocationCandidatesQuery('resources1=VCPU:2&resources2=VCPU:2&group_policy=none', '1.39'),
    ).candidates;
    expect(c).toHaveLength(1);
    expect([...(c[0]?.allocations.values() ?? [])].map((m) => m.get('VCPU'))).toEqual([4]);
    expect(names('resources1=VCPU:3&resources2=VCPU:2&group_policy=none')).toEqual([]);
  });

  it('keeps only candidates whose same_subtree groups hang under one provider', () => {
    const q =
      'resources_NIC=SRIOV_NET_VF:1&required_NUMA=CUSTOM_NUMA&same_subtree=_NIC,_NUMA&group_policy=none';
    expect(mapped(q)).toEqual([{ _NIC: ['pf0'], _NUMA: ['numa0'] }]);
  });

  it('filters anchors by root_required', () => {
    expect(names('resources=VCPU:1&root_required=CUSTOM_ROOT')).toEqual([['numa0'], ['numa1']]);
    expect(names('resources=VCPU:1&root_required=!CUSTOM_ROOT')).toEqual([['cn2']]);
    expect(names('resources=VCPU:1&root_required=!CUSTOM_NUMA')).toHaveLength(3);
  });

  it('counts only kept requests towards limit when root_required drops some (differential seed 12)', () => {
    // numa0 comes first but its root is excluded; the limit must still find cn2.
    expect(names('resources1=VCPU:1&root_required=!CUSTOM_ROOT&limit=1')).toEqual([['cn2']]);
  });

  it('matches nothing for a resourceless group without a positive filter (Placement quirk)', () => {
    expect(
      names('resources=VCPU:1&member_of_X=!11111111-1111-4111-8111-111111111111&same_subtree=_X', '1.36'),
    ).toEqual([]);
  });

  it('limits candidates and trims summaries to the trees still used', () => {
    const r = findAllocationCandidates(
      store,
      parseAllocationCandidatesQuery('resources=VCPU:1&limit=1', '1.39'),
    );
    // Generation stops at the limit: only what is returned is built.
    expect(r.total).toBe(1);
    expect(r.candidates).toHaveLength(1);
    expect(
      findAllocationCandidates(store, parseAllocationCandidatesQuery('resources=VCPU:1', '1.39')).total,
    ).toBe(3);
    expect(r.summaries.map((p) => p.name)).toEqual(['cn1', 'numa0', 'pf0', 'numa1', 'pf1']);
  });

  it('drops multi-provider trees below 1.29', () => {
    expect(names('resources=VCPU:1,MEMORY_MB:10', '1.28')).toEqual([['cn2']]);
  });

  it('raises unknown classes and traits lazily, in group order', () => {
    const err = (q: string) => {
      try {
        findAllocationCandidates(store, parseAllocationCandidatesQuery(q, '1.39'));
        return undefined;
      } catch (e) {
        return isStackspecError(e) ? e.message : String(e);
      }
    };
    expect(err('resources=CUSTOM_NOPE:1')).toBe(
      'Invalid resource class in resources parameter: No such resource class CUSTOM_NOPE.',
    );
    expect(err('resources=VCPU:1&required=CUSTOM_NOPE')).toBe('No such trait(s): CUSTOM_NOPE.');
    expect(err('resources=VCPU:100&resources1=CUSTOM_NOPE:1&group_policy=none')).toBeUndefined();
    expect(err('resources=VCPU:1&root_required=CUSTOM_NOPE')).toBe('No such trait(s): CUSTOM_NOPE.');
  });

  it('skips trees earlier groups cannot serve without changing which errors are raised', () => {
    const cn2 = store.providerByName('cn2')?.uuid as string;
    const find = (q: string) => findAllocationCandidates(store, parseAllocationCandidatesQuery(q, '1.39'));
    // Group 1 is served only under cn1, group 2 only by cn2: no candidate, but both
    // groups match something, so group 3 is still looked at and its unknown trait raised.
    const base = `resources1=SRIOV_NET_VF:1&resources2=DISK_GB:5&in_tree2=${cn2}&group_policy=none`;
    expect(find(base).candidates).toEqual([]);
    expect(() => find(`${base}&resources3=VCPU:1&required3=CUSTOM_NOPE`)).toThrow(
      'No such trait(s): CUSTOM_NOPE.',
    );
    // A group that matches nothing anywhere still ends the search first.
    expect(
      find(`resources1=SRIOV_NET_VF:100&resources2=VCPU:1&required2=CUSTOM_NOPE&group_policy=none`)
        .candidates,
    ).toEqual([]);
    // Restricted later groups still find what the anchors offer.
    const both = find('resources1=SRIOV_NET_VF:1&resources2=VCPU:1&group_policy=none');
    expect(both.candidates.length).toBeGreaterThan(0);
    for (const c of both.candidates) expect(c.anchor.name).toBe('cn1');
  });
});

describe('later groups limited to the anchors of earlier ones', () => {
  it('finds the same candidates whichever group comes first (property over a generated cloud)', () => {
    const gen = generateInventory(7, {
      computeNodes: 160,
      numaPerNode: 2,
      sharingProviders: 3,
      aggregates: 12,
      customTraits: 4,
      rich: false,
      usageRate: 0.3,
    });
    const r = resolveInventory(gen.file, createProviderStore());
    if (!r.ok) throw new Error(JSON.stringify(r.diagnostics));
    const s = createProviderStore();
    applyInventory(s, r.inventory);
    const key = (c: Candidate) =>
      [...c.allocations]
        .map(
          ([p, inner]) =>
            `${p.uuid}:${[...inner]
              .map(([rc, n]) => `${rc}=${n}`)
              .sort()
              .join(',')}`,
        )
        .sort()
        .join(';');
    const groups = fc.constantFrom(
      `resources_A=MEMORY_MB:512&member_of_A=${gen.aggregates[0]}`,
      `resources_A=VCPU:1&required_A=${gen.customTraits[0]}`,
      `resources_A=VCPU:1&member_of_A=in:${gen.aggregates[2]},${gen.aggregates[3]}`,
      `resources_A=DISK_GB:10&member_of_A=!${gen.aggregates[1]}`,
      'resources_A=VCPU:2&required_A=!HW_CPU_X86_AVX',
    );
    fc.assert(
      fc.property(groups, groups, fc.constantFrom('none', 'isolate'), (a, b, policy) => {
        const second = b.replace(/(resources|required|member_of)_A=/g, '$1_B=');
        const run = (q: string) =>
          findAllocationCandidates(s, parseAllocationCandidatesQuery(`${q}&group_policy=${policy}`, '1.39'))
            .candidates.map(key)
            .sort();
        expect(run(`${a}&${second}`)).toEqual(run(`${second}&${a}`));
      }),
      { numRuns: 150 },
    );
  });
});

describe('bad requests built by hand', () => {
  it('reject a bad microversion with our error', () => {
    const request = { ...parseAllocationCandidatesQuery('resources=VCPU:1', '1.39'), microversion: '2.1' };
    expect(() => findAllocationCandidates(store, request)).toThrow(
      expect.objectContaining({ code: 'placement-query/invalid-microversion', status: 400 }),
    );
  });
});

describe('runaway products', () => {
  it('gives up with a 400 instead of running for hours', () => {
    const children = Array.from(
      { length: 30 },
      (_, i) => `      - {name: c${i}, inventories: {VCPU: 4, MEMORY_MB: 64, DISK_GB: 10}}`,
    );
    const wide = parseInventory(`providers:\n  - name: root\n    children:\n${children.join('\n')}\n`).store;
    const req = parseAllocationCandidatesQuery('resources=VCPU:1,MEMORY_MB:1,DISK_GB:1', '1.39');
    expect(findAllocationCandidates(wide, req).candidates).toHaveLength(27000);
    try {
      findAllocationCandidates(wide, req, { maxCombinations: 1000 });
      expect.unreachable();
    } catch (e) {
      expect(isStackspecError(e) && [e.status, e.diagnostics[0]?.code]).toEqual([
        400,
        'placement-query/too-many-combinations',
      ]);
    }
  });
});

describe('render', () => {
  it('renders candidates per microversion', () => {
    const r = findAllocationCandidates(store, parseAllocationCandidatesQuery('resources=DISK_GB:5', '1.39'));
    const cn2 = store.providerByName('cn2')?.uuid as string;
    const v39 = renderCandidates(r, '1.39');
    expect(v39.allocation_requests).toContainEqual({
      allocations: { [cn2]: { resources: { DISK_GB: 5 } } },
      mappings: { '': [cn2] },
    });
    expect(v39.provider_summaries[cn2]).toEqual({
      resources: {
        VCPU: { capacity: 2, used: 1 },
        MEMORY_MB: { capacity: 1024, used: 0 },
        DISK_GB: { capacity: 10, used: 0 },
      },
      traits: [],
      parent_provider_uuid: null,
      root_provider_uuid: cn2,
    });
    const v10 = renderCandidates(r, '1.10');
    expect(v10.allocation_requests).toContainEqual({
      allocations: [{ resource_provider: { uuid: cn2 }, resources: { DISK_GB: 5 } }],
    });
    expect(v10.provider_summaries[cn2]).toEqual({ resources: { DISK_GB: { capacity: 10, used: 0 } } });
  });

  it('renders providers with the links of the microversion', () => {
    const list = listResourceProviders(store, parseResourceProvidersQuery('name=cn2', '1.0'));
    const p = list[0];
    expect(renderProviderList(list, '1.0').resource_providers[0]?.links.map((l) => l.rel)).toEqual([
      'self',
      'inventories',
      'usages',
    ]);
    expect(renderProviderList(list, '1.14', '/placement').resource_providers[0]).toMatchObject({
      parent_provider_uuid: null,
      root_provider_uuid: p?.uuid,
      links: expect.arrayContaining([{ rel: 'self', href: `/placement/resource_providers/${p?.uuid}` }]),
    });
  });

  it('renders one provider per microversion: aggregates 1.1, traits 1.6, allocations 1.11, tree 1.14', () => {
    const numa0 = store.providerByName('numa0');
    if (!numa0) throw new Error('fixture');
    const rels = (v: string) => renderProvider(numa0, v).links.map((l) => l.rel);
    expect(rels('1.0')).toEqual(['self', 'inventories', 'usages']);
    expect(rels('1.1')).toContain('aggregates');
    expect(rels('1.6')).toContain('traits');
    expect(rels('1.11')).toContain('allocations');
    expect(renderProvider(numa0, '1.13')).not.toHaveProperty('parent_provider_uuid');
    expect(renderProvider(numa0, { major: 1, minor: 14 }, '/p')).toMatchObject({
      name: 'numa0',
      generation: numa0.generation,
      parent_provider_uuid: store.providerByName('cn1')?.uuid,
      root_provider_uuid: store.providerByName('cn1')?.uuid,
      links: expect.arrayContaining([{ rel: 'usages', href: `/p/resource_providers/${numa0.uuid}/usages` }]),
    });
    expect(() => renderProvider(numa0, '1.40')).toThrow(
      expect.objectContaining({ code: 'placement-query/invalid-microversion' }),
    );
  });

  it('writes the same bodies as bytes and as text, spaced as Python spaces JSON', () => {
    for (const q of [
      'resources=DISK_GB:5',
      'resources=VCPU:1,MEMORY_MB:10&limit=2',
      'resources_A=SRIOV_NET_VF:1&resources_B=SRIOV_NET_VF:1&group_policy=none',
    ]) {
      for (const v of ['1.10', '1.12', '1.17', '1.27', '1.29', '1.34', '1.39']) {
        if ((q.includes('_A') && v !== '1.39') || (q.includes('limit') && v < '1.16')) continue;
        const r = findAllocationCandidates(store, parseAllocationCandidatesQuery(q, v));
        const text = Buffer.from(renderCandidatesBytes(r, v)).toString('utf8');
        expect(JSON.parse(text)).toEqual(renderCandidates(r, v));
        expect(renderCandidatesJson(r, v)).toBe(text);
        // Byte for byte what Placement's json.dumps writes for the same values.
        expect(text).toBe(pyJsonDumps(JSON.parse(text)));
      }
    }
    // A hand-built request may carry a suffix no query could: the bytes stay valid UTF-8.
    const odd = parseAllocationCandidatesQuery('resources_X=VCPU:1', '1.39');
    odd.groups[0] = { ...(odd.groups[0] as (typeof odd.groups)[number]), suffix: '_é"' };
    const r = findAllocationCandidates(store, odd);
    expect(JSON.parse(Buffer.from(renderCandidatesBytes(r, '1.39')).toString('utf8'))).toEqual(
      renderCandidates(r, '1.39'),
    );
    const list = listResourceProviders(store, parseResourceProvidersQuery('', '1.39'));
    for (const v of ['1.0', '1.14', '1.39']) {
      const text = renderProviderListJson(list, v, { prefix: '/p' });
      expect(JSON.parse(text)).toEqual(renderProviderList(list, v, '/p'));
      expect(text).toBe(pyJsonDumps(JSON.parse(text)));
      expect(Buffer.from(renderProviderListBytes(list, v, { prefix: '/p' })).toString()).toBe(text);
    }
  });

  it('renders what the store holds now: nothing is kept from an earlier body', () => {
    const { store: s } = parseInventory(
      'providers:\n  - name: cn\n    traits: [CUSTOM_Z, CUSTOM_A]\n    inventories: {VCPU: 8}\n',
    );
    const req = parseAllocationCandidatesQuery('resources=VCPU:2', '1.39');
    const summary = () => {
      const body = JSON.parse(renderCandidatesJson(findAllocationCandidates(s, req), '1.39'));
      return Object.values(body.provider_summaries)[0];
    };
    // Traits come out sorted whatever order they were set in.
    expect(summary()).toMatchObject({
      resources: { VCPU: { capacity: 8, used: 0 } },
      traits: ['CUSTOM_A', 'CUSTOM_Z'],
    });
    const cn = s.providerByName('cn');
    if (!cn) throw new Error('fixture');
    s.createTrait('CUSTOM_B');
    s.setTraits(cn.uuid, ['CUSTOM_Z', 'HW_CPU_X86_AVX2', 'CUSTOM_B']);
    s.setInventories(cn.uuid, { VCPU: { ...INVENTORY_DEFAULTS, total: 16 } });
    expect(summary()).toMatchObject({
      resources: { VCPU: { capacity: 16, used: 0 } },
      traits: ['CUSTOM_B', 'CUSTOM_Z', 'HW_CPU_X86_AVX2'],
    });
    const names = JSON.parse(renderProviderListJson([cn], '1.39')).resource_providers.map(
      (p: { name: string }) => p.name,
    );
    s.updateProvider(cn.uuid, { name: 'renamed' });
    expect(names).toEqual(['cn']);
    expect(JSON.parse(renderProviderListJson([cn], '1.39')).resource_providers[0].name).toBe('renamed');
  });

  it('writes provider lists as UTF-8 bytes, non-ASCII names and empty lists included', () => {
    const { store: s } = parseInventory('providers:\n  - name: ünïcødé 节点\n  - name: plain\n');
    const all = listResourceProviders(s, parseResourceProvidersQuery('', '1.39'));
    const text = Buffer.from(renderProviderListBytes(all, '1.39')).toString();
    expect(JSON.parse(text)).toEqual(renderProviderList(all, '1.39'));
    expect(Buffer.from(renderProviderListBytes([], '1.39')).toString()).toBe('{"resource_providers": []}');
  });
});

describe('bounded generation (Placement 2025.1 settings)', () => {
  // Two roots, each with three interchangeable children of 4 VCPU.
  const wide = parseInventory(`
providers:
  - name: a
    children:
      - {name: a0, inventories: {VCPU: 4}}
      - {name: a1, inventories: {VCPU: 4}}
      - {name: a2, inventories: {VCPU: 4}}
  - name: b
    children:
      - {name: b0, inventories: {VCPU: 4}}
      - {name: b1, inventories: {VCPU: 4}}
      - {name: b2, inventories: {VCPU: 4}}
`).store;
  const two = (extra = '') =>
    parseAllocationCandidatesQuery(
      `resources1=VCPU:1&resources2=VCPU:1&group_policy=isolate${extra}`,
      '1.39',
    );
  const roots = (cs: readonly Candidate[]) => cs.map((c) => c.anchor.name);

  it('stops at maxAllocationCandidates before limit applies', () => {
    const all = findAllocationCandidates(wide, two());
    expect(all.candidates).toHaveLength(12);
    const capped = findAllocationCandidates(wide, two(), { maxAllocationCandidates: 5 });
    expect(capped.candidates).toHaveLength(5);
    expect(
      findAllocationCandidates(wide, two('&limit=3'), { maxAllocationCandidates: 5 }).candidates,
    ).toHaveLength(3);
    expect(findAllocationCandidates(wide, two(), { maxAllocationCandidates: -1 }).candidates).toHaveLength(
      12,
    );
  });

  it('fills one root first depth-first, and takes turns breadth-first', () => {
    const depth = findAllocationCandidates(wide, two(), { maxAllocationCandidates: 4 });
    expect(roots(depth.candidates)).toEqual(['a', 'a', 'a', 'a']);
    expect(depth.summaries.map((p) => p.name)).toEqual(['a', 'a0', 'a1', 'a2']);
    const breadth = findAllocationCandidates(wide, two(), {
      maxAllocationCandidates: 4,
      allocationCandidatesGenerationStrategy: 'breadth-first',
    });
    // Each root's first combination (a0+a0) breaks isolate: a turn spent, no candidate.
    expect(roots(breadth.candidates)).toEqual(['a', 'b', 'a', 'b']);
    const all = findAllocationCandidates(wide, two(), {
      allocationCandidatesGenerationStrategy: 'breadth-first',
    });
    expect(all.candidates).toHaveLength(12);
  });

  it('gives the same candidates with or without pruning, usage counted', () => {
    const used = parseInventory(`
providers:
  - name: r
    children:
      - {name: c0, inventories: {VCPU: 2}, usages: {VCPU: 1}}
      - {name: c1, inventories: {VCPU: 2}}
`).store;
    const q = parseAllocationCandidatesQuery(
      'resources1=VCPU:1&resources2=VCPU:1&resources3=VCPU:1&group_policy=none',
      '1.39',
    );
    const keys = (cs: readonly Candidate[]) =>
      cs.map((c) => [...c.allocations].map(([p, m]) => `${p.name}:${[...m.values()]}`).join(' ')).sort();
    const plain = findAllocationCandidates(used, q);
    const pruned = findAllocationCandidates(used, q, { optimizeForWideProviderTrees: true });
    expect(keys(pruned.candidates)).toEqual(keys(plain.candidates));
    // c0 has one VCPU left: exactly one group goes there, the other two to c1.
    expect(keys(plain.candidates)).toEqual(['c0:1 c1:2', 'c1:2 c0:1', 'c1:2 c0:1']);
  });

  it('answers the same asynchronously, and starts over when a write lands between slices', async () => {
    const sync = findAllocationCandidates(wide, two());
    const async = await findAllocationCandidatesAsync(wide, two(), { sliceMs: 0 });
    expect(roots(async.candidates)).toEqual(roots(sync.candidates));
    const children = Array.from(
      { length: 12 },
      (_, i) => `      - {name: c${i}, inventories: {VCPU: 8}}`,
    ).join('\n');
    const store = parseInventory(`providers:\n  - name: r\n    children:\n${children}\n`).store;
    const q = parseAllocationCandidatesQuery(
      'resources1=VCPU:1&resources2=VCPU:1&resources3=VCPU:1&group_policy=none',
      '1.39',
    );
    const pending = findAllocationCandidatesAsync(store, q, { sliceMs: 0 });
    // Fill c0 while the search pauses: the answer must reflect the new state.
    const c0 = [...store.providers()].find((p) => p.name === 'c0');
    store.setAllocations(
      '11111111-1111-4111-8111-111111111111',
      { [c0?.uuid as string]: { VCPU: 8 } },
      { projectId: 'p', userId: 'u' },
    );
    const r = await pending;
    expect(r.candidates).toHaveLength(11 ** 3);
    expect(r.candidates.every((c) => !c.allocations.has(c0 as never))).toBe(true);
  });

  it('makes only what it returns: limit=1 on 2.56 million possible candidates', () => {
    const children = Array.from(
      { length: 40 },
      (_, i) => `      - {name: c${i}, inventories: {VCPU: 64}}`,
    ).join('\n');
    const big = parseInventory(`providers:\n  - name: r\n    children:\n${children}\n`).store;
    const q = parseAllocationCandidatesQuery(
      'group_policy=none&resources1=VCPU:1&resources2=VCPU:1&resources3=VCPU:1&resources4=VCPU:1&limit=1',
      '1.39',
    );
    // A budget far below the product proves nothing beyond the first candidate was examined.
    const r = findAllocationCandidates(big, q, { maxCombinations: 10 });
    expect(r.candidates).toHaveLength(1);
    expect(r.total).toBe(1);
  });
});
