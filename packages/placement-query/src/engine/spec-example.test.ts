import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseInventory } from '../model/inventory-file.js';
import type { ProviderStore } from '../model/store.js';
import { parseAllocationCandidatesQuery, parseResourceProvidersQuery } from '../parse.js';
import { findAllocationCandidates } from './candidates.js';
import { listResourceProviders } from './providers.js';

const AGG = {
  aggA: '0000000a-0000-4000-8000-00000000000a',
  aggB: '0000000b-0000-4000-8000-00000000000b',
  aggC: '0000000c-0000-4000-8000-00000000000c',
} as const;
const ALL = ['cn1', 'numa1_1', 'numa1_2', 'cn2', 'numa2_1', 'numa2_2', 'ss1', 'ss2'];

function load(): ProviderStore {
  return parseInventory(readFileSync(new URL('../fixtures/spec-example.yaml', import.meta.url), 'utf8'))
    .store;
}

function candidates(store: ProviderStore, query: string): string[][] {
  const { candidates } = findAllocationCandidates(store, parseAllocationCandidatesQuery(query, '1.39'));
  return candidates.map((c) => [...c.allocations.keys()].map((p) => p.name).sort()).sort();
}

/** Providers that can still serve some class under the filter; the rest are excluded. */
function excluded(store: ProviderStore, filter: (rc: string) => string): string[] {
  const seen = new Set<string>();
  for (const rc of ['VCPU', 'MEMORY_MB', 'DISK_GB']) {
    for (const c of candidates(store, filter(rc))) for (const n of c) seen.add(n);
  }
  return ALL.filter((n) => !seen.has(n));
}

describe('the spec example (negative aggregate membership over trees)', () => {
  const store = load();

  it.each([
    ['aggA', ['cn1', 'numa1_1', 'numa1_2']],
    ['aggB', ['cn2', 'numa2_1', 'numa2_2', 'ss1']],
    ['aggC', ['numa1_1', 'ss2']],
  ] as const)('unsuffixed member_of=!%s excludes %j (a root aggregate spans its tree)', (agg, expected) => {
    expect(excluded(store, (rc) => `resources=${rc}:1&member_of=!${AGG[agg]}`)).toEqual(expected);
  });

  it.each([
    ['aggA', ['cn1']],
    ['aggB', ['cn2', 'ss1']],
    ['aggC', ['numa1_1', 'ss2']],
  ] as const)('suffixed member_of1=!%s excludes only %j (own aggregates only)', (agg, expected) => {
    expect(excluded(store, (rc) => `resources1=${rc}:1&member_of1=!${AGG[agg]}`)).toEqual(expected);
  });

  it('with no filter every provider serves and sharing providers anchor the trees they share with', () => {
    expect(excluded(store, (rc) => `resources=${rc}:1`)).toEqual([]);
    expect(candidates(store, 'resources=VCPU:1,MEMORY_MB:1,DISK_GB:10')).toEqual([
      ['cn1', 'numa1_1', 'ss2'],
      ['cn1', 'numa1_2', 'ss2'],
      ['cn2', 'numa2_1', 'ss1'],
      ['cn2', 'numa2_2', 'ss1'],
    ]);
  });

  it('!aggA stops ss2 serving cn1 but ss2 may still anchor to itself', () => {
    expect(candidates(store, `resources=VCPU:1,MEMORY_MB:1,DISK_GB:10&member_of=!${AGG.aggA}`)).toEqual([
      ['cn2', 'numa2_1', 'ss1'],
      ['cn2', 'numa2_2', 'ss1'],
    ]);
    expect(candidates(store, `resources=DISK_GB:10&member_of=!${AGG.aggA}`)).toEqual([['ss1'], ['ss2']]);
  });

  it('!aggC keeps numa1_2 for CPU but cn1 loses its disk supplier ss2', () => {
    expect(candidates(store, `resources=VCPU:1&member_of=!${AGG.aggC}`)).toEqual([
      ['numa1_2'],
      ['numa2_1'],
      ['numa2_2'],
    ]);
    expect(candidates(store, `resources=VCPU:1,DISK_GB:10&member_of=!${AGG.aggC}`)).toEqual([
      ['numa2_1', 'ss1'],
      ['numa2_2', 'ss1'],
    ]);
  });

  it('a suffixed !aggA does not stop ss2 serving cn1', () => {
    expect(candidates(store, `resources=MEMORY_MB:1&resources1=DISK_GB:10&member_of1=!${AGG.aggA}`)).toEqual([
      ['cn1', 'ss2'],
      ['cn2', 'ss1'],
    ]);
  });

  it('GET /resource_providers uses direct membership only', () => {
    const names = (q: string) =>
      listResourceProviders(store, parseResourceProvidersQuery(q, '1.32')).map((p) => p.name);
    expect(names(`member_of=!${AGG.aggA}`)).toEqual(ALL.filter((n) => n !== 'cn1'));
    expect(names(`member_of=!in:${AGG.aggB},${AGG.aggC}`)).toEqual(['cn1', 'numa1_2', 'numa2_1', 'numa2_2']);
    expect(names(`member_of=in:${AGG.aggB},${AGG.aggC}&member_of=!${AGG.aggC}`)).toEqual(['cn2', 'ss1']);
  });

  it('positive member_of on the root covers children, but each provider must match every set', () => {
    expect(candidates(store, `resources=VCPU:1&member_of=${AGG.aggA}`)).toEqual([['numa1_1'], ['numa1_2']]);
    expect(candidates(store, `resources=VCPU:1&member_of=${AGG.aggA}&member_of=${AGG.aggC}`)).toEqual([]);
    expect(candidates(store, `resources1=VCPU:1&member_of1=${AGG.aggA}`)).toEqual([]);
  });
});
