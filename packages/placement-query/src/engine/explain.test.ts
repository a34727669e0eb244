import { readFileSync } from 'node:fs';
import { isStackspecError } from '@stackspec/core';
import { describe, expect, it } from 'vitest';
import { parseInventory } from '../model/inventory-file.js';
import type { ProviderStore } from '../model/store.js';
import { parseAllocationCandidatesQuery, parseResourceProvidersQuery } from '../parse.js';
import { findAllocationCandidates } from './candidates.js';
import { explainAllocationCandidates, explainPlacementQuery, explainResourceProviders } from './explain.js';
import {
  AllocationCandidatesExplanationSchema,
  type ExplainStage,
  ResourceProvidersExplanationSchema,
} from './explain-schema.js';
import { formatExplanationText } from './explain-text.js';

const GOLD = '11111111-1111-4111-8111-111111111111';
const RESERVED = '22222222-2222-4222-8222-222222222222';

function cloud(yaml: string): ProviderStore {
  return parseInventory(yaml).store;
}

// Flat hosts, no trees and no sharing providers: every group judges providers one by one.
const flat = cloud(`
traits: [CUSTOM_BAD, CUSTOM_A, CUSTOM_B]
aggregates: {gold: ${GOLD}, reserved: ${RESERVED}}
providers:
  - name: kvm-01
    inventories: {VCPU: {total: 16, max_unit: 4}, MEMORY_MB: 8192}
    traits: [CUSTOM_A]
    aggregates: [gold]
  - name: kvm-02
    inventories: {VCPU: {total: 34, reserved: 2}, MEMORY_MB: 8192}
    usages: {VCPU: 26}
    traits: [CUSTOM_BAD]
    aggregates: [gold]
  - name: kvm-03
    inventories: {VCPU: 32, MEMORY_MB: {total: 8192, step_size: 2}}
    aggregates: [gold]
  - name: kvm-04
    inventories: {VCPU: 32, MEMORY_MB: {total: 8192, min_unit: 4}}
    traits: [CUSTOM_B]
    aggregates: [gold, reserved]
  - name: disk-only
    inventories: {DISK_GB: 100}
`);

// Trees: cn1 with NUMA children and PFs below them, cn2 flat; only cn1 is in gold.
const trees = cloud(readFileSync(new URL('../fixtures/numa-trees.yaml', import.meta.url), 'utf8'));

function explain(store: ProviderStore, query: string, version = '1.39', names?: Record<string, string>) {
  return explainAllocationCandidates(
    store,
    parseAllocationCandidatesQuery(query, version),
    names ? { aggregateNames: names } : {},
  );
}

/** `label kept/before` for each stage, to compare at a glance. */
function table(stages: readonly ExplainStage[]): string[] {
  return stages.map((s) => `${s.label} ${s.kept}/${s.before}`);
}

function emptied(stages: readonly ExplainStage[]): ExplainStage | undefined {
  return stages.find((s) => s.kept === 0);
}

function reasons(stage: ExplainStage | undefined): string[] {
  return (stage?.examples ?? []).map((x) => `${x.name}: ${x.reason}`);
}

/** The reasons of the first stage of the first group that kept nothing. */
function turnedAway(e: { groups: readonly { stages: readonly ExplainStage[] }[] }): string[] {
  return reasons(emptied(e.groups[0]?.stages ?? []));
}

describe('explainAllocationCandidates, one provider per group', () => {
  it('names the providers without room, with capacity, reserved and ratio, and max_unit', () => {
    const e = explain(flat, 'resources=VCPU:8&required=CUSTOM_A');
    const g = e.groups[0];
    expect(g?.mode).toBe('one-provider');
    expect(table(g?.stages ?? [])).toEqual(['has VCPU 4/5', 'room for VCPU:8 2/4', 'required CUSTOM_A 0/2']);
    expect(e.emptiedBy).toEqual({ group: '', stage: 'required-traits', label: 'required CUSTOM_A' });
    expect(reasons(g?.stages[2])).toEqual(['kvm-03: lacks trait CUSTOM_A', 'kvm-04: lacks trait CUSTOM_A']);

    const room = explain(
      cloud(`
providers:
  - name: kvm-01
    inventories: {VCPU: {total: 16, max_unit: 4}}
  - name: kvm-02
    inventories: {VCPU: {total: 34, reserved: 2}}
    usages: {VCPU: 26}
`),
      'resources=VCPU:8',
    );
    expect(turnedAway(room)).toEqual([
      'kvm-01: VCPU max_unit 4 < 8 asked',
      'kvm-02: VCPU 6 free of 32 (reserved 2, ratio 1.0), 8 asked',
    ]);
    expect(room.candidates).toBe(0);
  });

  it('says which of min_unit and step_size turned a provider away', () => {
    const e = explain(flat, 'resources=MEMORY_MB:3&member_of=!in:' + `${GOLD}`, '1.32');
    const capacity = e.groups[0]?.stages.find((s) => s.stage === 'capacity');
    expect(capacity).toMatchObject({ before: 4, kept: 2 });
    // Capacity comes before member_of: kvm-04, the only member, is gone already.
    const steps = explain(flat, `resources=MEMORY_MB:3&member_of=${RESERVED}`);
    expect(turnedAway(steps)).toEqual([
      `kvm-01: not in aggregate ${RESERVED}`,
      `kvm-02: not in aggregate ${RESERVED}`,
    ]);
    const odd = explain(
      cloud(`
providers:
  - name: kvm-03
    inventories: {MEMORY_MB: {total: 8192, step_size: 2}}
  - name: kvm-04
    inventories: {MEMORY_MB: {total: 8192, min_unit: 4}}
`),
      'resources=MEMORY_MB:3',
    );
    expect(turnedAway(odd)).toEqual([
      'kvm-03: MEMORY_MB step_size 2 does not divide 3',
      'kvm-04: MEMORY_MB min_unit 4 > 3 asked',
    ]);
  });

  it('applies the stages in order: forbidden traits, in: traits, member_of, forbidden aggregates', () => {
    const e = explain(
      flat,
      `resources=VCPU:1&required=!CUSTOM_BAD&required=in:CUSTOM_A,CUSTOM_B&member_of=${GOLD}&member_of=!${RESERVED}`,
    );
    expect(table(e.groups[0]?.stages ?? [])).toEqual([
      'has VCPU 4/5',
      'room for VCPU:1 4/4',
      'forbidden CUSTOM_BAD 3/4',
      'one of in:CUSTOM_A,CUSTOM_B 2/3',
      `member_of ${GOLD} 2/2`,
      `not in ${RESERVED} 1/2`,
    ]);
    expect(e.candidates).toBe(1);
    expect(e.emptiedBy).toBeUndefined();
    expect(e.groups[0]).toMatchObject({ kept: 1, requests: 1, anchors: 1 });
  });

  it('names a forbidden aggregate, with its name when the inventory gives one', () => {
    const q = `resources=VCPU:1&required=CUSTOM_B&member_of=!${RESERVED}`;
    expect(turnedAway(explain(flat, q))).toEqual([`kvm-04: in aggregate ${RESERVED} (forbidden)`]);
    const named = explain(flat, q, '1.39', { [RESERVED]: 'reserved' });
    expect(turnedAway(named)).toEqual([`kvm-04: in aggregate ${RESERVED} (reserved, forbidden)`]);
    expect(named.groups[0]?.stages.at(-1)?.label).toBe('not in reserved');
  });

  it('names the trait a provider has that the request forbids, and the in: set it misses', () => {
    const forbidden = explain(
      flat,
      `resources=VCPU:1&required=!CUSTOM_BAD&member_of=${RESERVED}&required=in:CUSTOM_A,CUSTOM_BAD`,
    );
    expect(forbidden.emptiedBy?.stage).toBe('member-of');
    const anyOf = explain(flat, 'resources=DISK_GB:1&required=in:CUSTOM_A,CUSTOM_B');
    expect(turnedAway(anyOf)).toEqual(['disk-only: has none of CUSTOM_A, CUSTOM_B']);
    const bad = explain(flat, 'resources=VCPU:1&required=!CUSTOM_BAD&member_of=' + `${GOLD}` + '&limit=1');
    expect(bad.groups[0]?.stages.find((s) => s.stage === 'forbidden-traits')).toMatchObject({
      before: 4,
      kept: 3,
    });
    const only = explain(
      cloud(`
traits: [CUSTOM_BAD]
providers:
  - name: kvm-02
    inventories: {VCPU: 4}
    traits: [CUSTOM_BAD]
`),
      'resources=VCPU:1&required=!CUSTOM_BAD',
    );
    expect(turnedAway(only)).toEqual(['kvm-02: has forbidden trait CUSTOM_BAD']);
  });

  it('counts in_tree, naming the tree, and says when its provider does not exist', () => {
    const kvm1 = flat.providerByName('kvm-01')?.uuid as string;
    const e = explain(flat, `resources=VCPU:1&in_tree=${kvm1}&required=CUSTOM_BAD`);
    expect(table(e.groups[0]?.stages ?? []).slice(2)).toEqual([
      'required CUSTOM_BAD 1/4',
      'in_tree kvm-01 0/1',
    ]);
    expect(turnedAway(e)).toEqual(['kvm-02: not in the tree of kvm-01']);
    const unknown = explain(flat, 'resources=VCPU:1&in_tree=deadbeef-0000-4000-8000-000000000000');
    expect(turnedAway(unknown)[0]).toBe(
      'kvm-01: in_tree deadbeef-0000-4000-8000-000000000000 names no provider',
    );
  });

  it("reports Placement's quirk: a group without resources and without a positive filter matches nothing", () => {
    const e = explain(trees, `resources=VCPU:1&member_of_X=!${GOLD}&same_subtree=_X`, '1.36');
    const x = e.groups.find((g) => g.suffix === '_X');
    expect(x?.stages.map((s) => s.stage)).toEqual(['forbidden-aggregates', 'positive-filter']);
    expect(e.emptiedBy).toMatchObject({ group: '_X', stage: 'positive-filter' });
  });
});

describe('explainAllocationCandidates, the unsuffixed group over trees', () => {
  it('counts trees and names, per tree, the providers without room', () => {
    const e = explain(trees, 'resources=VCPU:5,MEMORY_MB:10');
    const g = e.groups[0];
    expect(g?.mode).toBe('tree');
    expect(table(g?.stages ?? [])).toEqual([
      'has VCPU, MEMORY_MB (in the tree or shared) 2/2',
      'room for VCPU:5 0/2',
      'room for MEMORY_MB:10 0/0',
    ]);
    expect(reasons(g?.stages[1])).toEqual([
      'cn1: numa0 VCPU 4 free of 4 (reserved 0, ratio 1.0), 5 asked; numa1 VCPU 1 free of 1 (reserved 3, ratio 1.0), 5 asked',
      'cn2: VCPU 1 free of 2 (reserved 0, ratio 1.0), 5 asked',
    ]);
    expect(g?.stages[1]?.unit).toBe('trees');
  });

  it('judges required traits on the providers an allocation uses, after the other stages', () => {
    const e = explain(trees, 'resources=VCPU:1&required=HW_CPU_X86_AVX');
    expect(table(e.groups[0]?.stages ?? [])).toEqual([
      'has VCPU (in the tree or shared) 2/2',
      'room for VCPU:1 2/2',
      'required HW_CPU_X86_AVX 0/2',
    ]);
    expect(turnedAway(e)).toEqual([
      'cn1: no provider with room has HW_CPU_X86_AVX',
      'cn2: no provider with room has HW_CPU_X86_AVX',
    ]);
  });

  it("takes a root's forbidden aggregate for the whole tree", () => {
    const e = explain(trees, `resources=VCPU:1&member_of=!${GOLD}&required=CUSTOM_NUMA`);
    expect(table(e.groups[0]?.stages ?? [])).toEqual([
      'has VCPU (in the tree or shared) 2/2',
      'room for VCPU:1 2/2',
      `not in ${GOLD} 1/2`,
      'required CUSTOM_NUMA 0/1',
    ]);
    const only = explain(trees, `resources=SRIOV_NET_VF:1&member_of=!${GOLD}`);
    expect(turnedAway(only)).toEqual([`cn1: in aggregate ${GOLD} (forbidden), which covers the whole tree`]);
  });

  it('counts root_required among the group stages, where the engine applies it', () => {
    const e = explain(trees, 'resources=VCPU:1&root_required=!CUSTOM_ROOT,HW_CPU_X86_AVX');
    expect(e.groups[0]?.stages.at(-1)).toMatchObject({ stage: 'root-required', before: 2, kept: 0 });
    expect(reasons(e.groups[0]?.stages.at(-1))).toEqual([
      'cn1: root cn1 has forbidden trait CUSTOM_ROOT',
      'cn2: root cn2 lacks trait HW_CPU_X86_AVX',
    ]);
  });
});

describe('explainAllocationCandidates, request-wide stages', () => {
  it('counts the combinations group_policy=isolate drops, and names a provider two groups would share', () => {
    const q =
      'resources_A=SRIOV_NET_VF:1&resources_B=SRIOV_NET_VF:1&required_A=CUSTOM_PHYSNET1&required_B=CUSTOM_PHYSNET1&group_policy=isolate';
    const e = explain(trees, q);
    expect(table(e.request)).toEqual([
      'every group in one tree 1/1',
      'group_policy=isolate 2/4',
      "room for the groups' amounts together 2/2",
    ]);
    expect(e.candidates).toBe(2);
    const solo = explain(
      cloud('providers: [{name: solo, inventories: {VCPU: 8}}]'),
      'resources1=VCPU:1&resources2=VCPU:1&group_policy=isolate',
    );
    expect(solo.emptiedBy).toEqual({ stage: 'group-policy', label: 'group_policy=isolate' });
    expect(reasons(emptied(solo.request))).toEqual([
      'solo: solo would serve groups 1 and 2 (group_policy=isolate)',
    ]);
  });

  it('names the provider that two groups overfill together', () => {
    const e = explain(trees, 'resources1=VCPU:3&resources2=VCPU:2&group_policy=none');
    expect(e.emptiedBy?.stage).toBe('summed-capacity');
    expect(reasons(emptied(e.request))).toEqual([
      'cn1: numa0 VCPU 4 free of 4 (reserved 0, ratio 1.0), 5 asked by groups 1 and 2 together',
    ]);
  });

  it('counts same_subtree, and the trees where only some groups can be served', () => {
    const e = explain(
      trees,
      'resources_NIC=SRIOV_NET_VF:1&required_NUMA=CUSTOM_NUMA&same_subtree=_NIC,_NUMA&group_policy=none',
    );
    expect(table(e.request)).toEqual([
      'every group in one tree 1/1',
      "room for the groups' amounts together 2/2",
      'same_subtree _NIC,_NUMA 1/2',
    ]);
    const cn2 = trees.providerByName('cn2')?.uuid as string;
    const apart = explain(
      trees,
      `resources1=SRIOV_NET_VF:1&resources2=DISK_GB:5&in_tree2=${cn2}&group_policy=none`,
    );
    expect(apart.emptiedBy).toEqual({ stage: 'same-tree', label: 'every group in one tree' });
    expect(reasons(emptied(apart.request))).toEqual([
      'cn1: group 2 can be served nowhere in this tree',
      'cn2: group 1 can be served nowhere in this tree',
    ]);
  });

  it('counts the one-provider-per-tree rule of old microversions and the limit', () => {
    const old = explain(trees, 'resources=VCPU:1,MEMORY_MB:10', '1.28');
    expect(table(old.request)).toEqual(['one provider per tree (microversion 1.28) 1/3']);
    const limited = explain(trees, 'resources=VCPU:1&limit=1');
    expect(limited.request.at(-1)).toMatchObject({ stage: 'limit', before: 3, kept: 1 });
    expect(limited).toMatchObject({ candidates: 3, returned: 1 });
  });

  it('records the 400 of a group the search never reaches, and explains with the group that matches nothing', () => {
    const e = explain(
      trees,
      'resources1=SRIOV_NET_VF:100&resources2=VCPU:1&required2=CUSTOM_NOPE&group_policy=none',
    );
    expect(e.groups[1]?.error).toBe('No such trait(s): CUSTOM_NOPE.');
    expect(e.emptiedBy).toMatchObject({ group: '1', stage: 'capacity' });
  });

  it("raises the engine's own 400 for a query Placement refuses", () => {
    const run = () => explain(trees, 'resources=VCPU:1&required=CUSTOM_NOPE');
    expect(run).toThrow('No such trait(s): CUSTOM_NOPE.');
    try {
      run();
    } catch (e) {
      expect(isStackspecError(e) && e.status).toBe(400);
      expect(isStackspecError(e) && e.diagnostics[0]?.path).toBe('/required');
    }
  });

  it('ends where the engine does: its count before limit, and what it returns', () => {
    for (const q of [
      'resources=VCPU:1',
      'resources=VCPU:1&limit=2',
      'resources1=VCPU:1&resources2=MEMORY_MB:1&group_policy=none',
    ]) {
      const request = parseAllocationCandidatesQuery(q, '1.39');
      const e = explainAllocationCandidates(trees, request);
      expect(e.returned).toBe(findAllocationCandidates(trees, request).candidates.length);
      expect(e.candidates).toBe(
        findAllocationCandidates(trees, { ...request, limit: undefined }).candidates.length,
      );
    }
  });

  it("returns what a search with the caller's options returns, and counts the same", () => {
    const request = parseAllocationCandidatesQuery('resources=VCPU:1', '1.39');
    const all = explainAllocationCandidates(trees, request);
    const capped = explainAllocationCandidates(trees, request, { search: { maxAllocationCandidates: 1 } });
    expect(all.returned).toBeGreaterThan(1);
    expect(capped).toEqual({ ...all, returned: 1 });
  });

  it('is plain JSON its schema describes', () => {
    const e = explain(trees, 'resources=VCPU:5,MEMORY_MB:10');
    expect(AllocationCandidatesExplanationSchema.parse(JSON.parse(JSON.stringify(e)))).toEqual(e);
  });
});

describe('explainResourceProviders', () => {
  it("counts Placement's filters in order and names providers without room", () => {
    const e = explainResourceProviders(
      flat,
      parseResourceProvidersQuery(`member_of=${GOLD}&resources=VCPU:8`, '1.39'),
    );
    expect(table(e.stages)).toEqual([`member_of ${GOLD} 4/5`, 'has VCPU 4/4', 'room for VCPU:8 2/4']);
    expect(e.providers).toBe(2);
    const none = explainResourceProviders(
      flat,
      parseResourceProvidersQuery('required=CUSTOM_A&resources=VCPU:8', '1.39'),
    );
    expect(reasons(emptied(none.stages))).toEqual(['kvm-01: VCPU max_unit 4 < 8 asked']);
    expect(ResourceProvidersExplanationSchema.parse(JSON.parse(JSON.stringify(none)))).toEqual(none);
  });

  it('says a name nobody has without listing every provider', () => {
    const e = explainResourceProviders(flat, parseResourceProvidersQuery('name=nope', '1.39'));
    expect(e.emptiedBy).toEqual({ stage: 'name', label: 'name=nope' });
    expect(e.stages[0]?.examples).toEqual([]);
  });

  it('is reached through explainPlacementQuery by endpoint', () => {
    const e = explainPlacementQuery(flat, parseResourceProvidersQuery('required=CUSTOM_BAD', '1.39'));
    expect(e.endpoint).toBe('resource_providers');
  });
});

describe('formatExplanationText', () => {
  it('shows a table per group with kept/before, and the examples under the stage that kept none', () => {
    const text = formatExplanationText(explain(flat, 'resources=VCPU:8&required=CUSTOM_A'));
    expect(text.split('\n')).toEqual([
      'GET /allocation_candidates?resources=VCPU:8&required=CUSTOM_A',
      '✖ No candidates: required CUSTOM_A (unsuffixed group) kept none.',
      '',
      'unsuffixed group (one provider)',
      '  has VCPU           4/5 providers',
      '  room for VCPU:8    2/4 providers',
      '  required CUSTOM_A  0/2 providers  ✖',
      '      kvm-03: lacks trait CUSTOM_A',
      '      kvm-04: lacks trait CUSTOM_A',
    ]);
  });

  it('says how many candidates there are and how many the limit returns', () => {
    const text = formatExplanationText(explain(trees, 'resources=VCPU:1&limit=1'), { header: false });
    expect(text.split('\n')[0]).toBe('✔ 3 candidates, 1 returned (limit).');
    expect(text).toContain('  limit=1');
  });

  it('counts examples beyond those shown and indents for nesting', () => {
    const many = cloud(`
providers:
${[1, 2, 3, 4, 5].map((i) => `  - {name: h${i}, inventories: {VCPU: 2}}`).join('\n')}
`);
    const text = formatExplanationText(explain(many, 'resources=VCPU:4'), { indent: '> ' });
    expect(text).toContain('> ✖ No candidates: room for VCPU:4 (unsuffixed group) kept none.');
    expect(text).toContain('>       h3: VCPU 2 free of 2 (reserved 0, ratio 1.0), 4 asked');
    expect(text).toContain('>       … and 2 more');
  });
});
