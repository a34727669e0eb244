// Seeded generators of inventories and queries shared by the conformance
// suite and the benchmark.
import { mulberry32 } from '../../../../test-support/random.js';
import type { InventoryFile, InventoryProviderEntry } from '../../src/model/inventory-file.js';

export type Random = () => number;

/** mulberry32: the same inputs on every run. */
export const seeded: (seed: number) => Random = mulberry32;

export const pick = <T>(r: Random, items: readonly T[]): T => items[Math.floor(r() * items.length)] as T;
export const chance = (r: Random, p: number): boolean => r() < p;
export const int = (r: Random, min: number, max: number): number => min + Math.floor(r() * (max - min + 1));

function uuidOf(r: Random): string {
  const hex = () => Math.floor(r() * 16).toString(16);
  const part = (n: number) => Array.from({ length: n }, hex).join('');
  return `${part(8)}-${part(4)}-4${part(3)}-a${part(3)}-${part(12)}`;
}

export interface InventoryShape {
  computeNodes: number;
  /** NUMA children per compute node (fixed) or undefined for a random 0-2. */
  numaPerNode?: number;
  sharingProviders: number;
  aggregates: number;
  customTraits: number;
  /** Add SR-IOV PF grandchildren and odd inventory settings. */
  rich: boolean;
  usageRate: number;
}

export interface GeneratedInventory {
  file: InventoryFile;
  aggregates: string[];
  customTraits: string[];
  standardTraits: string[];
}

const STD_TRAITS = [
  'HW_CPU_X86_AVX',
  'HW_CPU_X86_AVX2',
  'HW_CPU_X86_SSE42',
  'STORAGE_DISK_SSD',
  'HW_NIC_SRIOV',
  'COMPUTE_VOLUME_MULTI_ATTACH',
];

/** A random cloud: compute nodes with NUMA children (and PFs), sharing disk providers, aggregates, traits, usages. */
export function generateInventory(seed: number, shape: InventoryShape): GeneratedInventory {
  const r = seeded(seed);
  const aggregates = Array.from({ length: shape.aggregates }, () => uuidOf(r));
  const customTraits = Array.from({ length: shape.customTraits }, (_, i) => `CUSTOM_T${i}`);
  const traitPool = [...STD_TRAITS, ...customTraits];
  const someTraits = (max: number) => [
    ...new Set(Array.from({ length: int(r, 0, max) }, () => pick(r, traitPool))),
  ];
  const someAggs = (max: number) => [
    ...new Set(Array.from({ length: int(r, 0, max) }, () => pick(r, aggregates))),
  ];
  const inv = (total: number) =>
    shape.rich && chance(r, 0.3)
      ? {
          total,
          reserved: chance(r, 0.5) ? int(r, 0, Math.floor(total / 4)) : 0,
          allocation_ratio: pick(r, [1.0, 1.5, 2.0, 16.0]),
          ...(chance(r, 0.2) ? { max_unit: Math.max(1, Math.floor(total / 2)) } : {}),
          ...(chance(r, 0.1) ? { step_size: 2 } : {}),
        }
      : total;
  const providers: InventoryProviderEntry[] = [];
  for (let i = 0; i < shape.computeNodes; i += 1) {
    const numa = shape.numaPerNode ?? int(r, 0, 2);
    const node: InventoryProviderEntry = {
      name: `cn${i}`,
      uuid: uuidOf(r),
      inventories: numa
        ? { MEMORY_MB: inv(pick(r, [4096, 8192, 16384])) }
        : { VCPU: inv(int(r, 2, 16)), MEMORY_MB: inv(pick(r, [4096, 8192])) },
      traits: someTraits(3),
      aggregates: someAggs(2),
    };
    if (chance(r, 0.6))
      (node.inventories as Record<string, unknown>).DISK_GB = inv(pick(r, [100, 500, 1000]));
    if (shape.rich && chance(r, 0.15))
      (node.inventories as Record<string, unknown>).CUSTOM_FPGA = inv(int(r, 1, 4));
    if (chance(r, shape.usageRate)) node.usages = { MEMORY_MB: 512 };
    const children: InventoryProviderEntry[] = [];
    for (let n = 0; n < numa; n += 1) {
      const child: InventoryProviderEntry = {
        name: `cn${i}_numa${n}`,
        uuid: uuidOf(r),
        inventories: { VCPU: inv(int(r, 2, 16)) },
        traits: someTraits(2),
        aggregates: shape.rich && chance(r, 0.2) ? someAggs(1) : [],
      };
      if (chance(r, shape.usageRate)) child.usages = { VCPU: 1 };
      if (shape.rich && chance(r, 0.4)) {
        child.children = [
          {
            name: `cn${i}_numa${n}_pf`,
            uuid: uuidOf(r),
            inventories: { SRIOV_NET_VF: inv(int(r, 2, 8)) },
            traits: ['HW_NIC_SRIOV', ...(chance(r, 0.5) ? [pick(r, customTraits)] : [])].filter(
              Boolean,
            ) as string[],
          },
        ];
      }
      children.push(child);
    }
    if (children.length) node.children = children;
    providers.push(node);
  }
  for (let s = 0; s < shape.sharingProviders; s += 1) {
    providers.push({
      name: `ss${s}`,
      uuid: uuidOf(r),
      inventories: { DISK_GB: inv(pick(r, [1000, 5000, 10000])) },
      traits: ['MISC_SHARES_VIA_AGGREGATE', ...(chance(r, 0.5) ? ['STORAGE_DISK_SSD'] : [])],
      aggregates: someAggs(2).length ? someAggs(2) : [pick(r, aggregates)],
    });
  }
  return {
    file: { traits: customTraits, resource_classes: ['CUSTOM_FPGA'], providers },
    aggregates,
    customTraits,
    standardTraits: STD_TRAITS,
  };
}

export interface GeneratedQuery {
  endpoint: 'resource_providers' | 'allocation_candidates';
  version: string;
  query: string;
}

const UNKNOWN_AGG = 'deadbeef-0000-4000-8000-000000000000';

/** Random queries over an inventory's vocabulary, valid and malformed, across microversions. */
export function generateQueries(seed: number, inv: GeneratedInventory, count: number): GeneratedQuery[] {
  const r = seeded(seed);
  const aggs = [...inv.aggregates, ...inv.aggregates, UNKNOWN_AGG];
  const traits = [...inv.standardTraits, ...inv.customTraits, 'HW_GPU_API_VULKAN'];
  let clean = true;
  let minor = 39;
  const agg = () => pick(r, aggs);
  const memberOf = (): string => {
    const k = r();
    if (!clean && k < 0.4) {
      return pick(r, [
        `in:${agg()},!${agg()}`,
        `${agg()},${agg()}`,
        'not-a-uuid',
        `!!${agg()}`,
        `in:${agg()},`,
        '',
      ]);
    }
    if (k < 0.25 || (clean && minor < 32 && k < 0.5)) return agg();
    if (k < 0.5 || (clean && minor < 32)) return `in:${agg()},${agg()}`;
    if (k < 0.75) return `!${agg()}`;
    return `!in:${agg()},${agg()}`;
  };
  const required = (): string => {
    const k = r();
    const t = () => pick(r, traits);
    if (!clean && k < 0.4)
      return pick(r, ['CUSTOM_UNKNOWN_TRAIT', `${t()},,${t()}`, `in:${t()},!${t()}`, '!', `in:${t()},`]);
    if (k < 0.35 || (clean && minor < 22)) return t();
    if (k < 0.6) return `!${t()}`;
    if (k < 0.75 || (clean && minor < 39)) return `${t()},!${t()}`;
    return `in:${t()},${t()}`;
  };
  const resources = (): string => {
    const classes = ['VCPU', 'VCPU', 'MEMORY_MB', 'DISK_GB', 'SRIOV_NET_VF', 'CUSTOM_FPGA'];
    const amount = (rc: string) =>
      rc === 'MEMORY_MB'
        ? pick(r, [256, 1024, 1024, 4096, 20000])
        : rc === 'DISK_GB'
          ? pick(r, [10, 10, 100, 2000])
          : pick(r, [1, 1, 1, 2, 4, 9]);
    if (!clean && chance(r, 0.4)) return pick(r, ['VCPU:0', 'VCPU', 'CUSTOM_NOPE:1', 'VCPU:x', '']);
    const n = int(r, 1, 2);
    const picked = [...new Set(Array.from({ length: n }, () => pick(r, classes)))];
    return picked.map((c) => `${c}:${amount(c)}`).join(',');
  };
  const out: GeneratedQuery[] = [];
  for (let i = 0; i < count; i += 1) {
    clean = chance(r, 0.8);
    const endpoint = chance(r, 0.35) ? 'resource_providers' : 'allocation_candidates';
    minor = clean
      ? pick(r, [10, 12, 16, 17, 18, 21, 22, 24, 25, 29, 31, 32, 33, 34, 35, 36, 37, 38, 39, 39, 39])
      : int(r, 0, 39);
    // In a clean query every key is one the microversion knows.
    const since = (first: number) => !clean || minor >= first;
    const parts: [string, string][] = [];
    if (endpoint === 'resource_providers') {
      const n = int(r, 1, 3);
      for (let j = 0; j < n; j += 1) {
        const k = r();
        if (k < 0.5) {
          if (since(24) || !parts.some(([key]) => key === 'member_of')) parts.push(['member_of', memberOf()]);
        } else if (k < 0.75) {
          if (since(18)) parts.push(['required', required()]);
        } else if (k < 0.92) parts.push(['resources', resources()]);
        else if (k < 0.96) parts.push(['name', `cn${int(r, 0, 3)}`]);
        else if (since(14)) parts.push(['in_tree', pick(r, inv.file.providers).uuid ?? UNKNOWN_AGG]);
      }
    } else {
      let groups = chance(r, 0.45)
        ? ['']
        : chance(r, 0.5)
          ? ['', '1']
          : chance(r, 0.5)
            ? ['', '_A', '_B']
            : ['_A', '_B'];
      if (clean && minor < 33) groups = groups.map((g) => (g === '_A' ? '1' : g === '_B' ? '2' : g));
      if (clean && minor < 25) groups = [''];
      for (const g of groups) {
        if (!chance(r, clean ? 0 : 0.1)) parts.push([`resources${g}`, resources()]);
        if (chance(r, 0.35) && since(21)) parts.push([`member_of${g}`, memberOf()]);
        if (chance(r, 0.1) && since(24)) parts.push([`member_of${g}`, memberOf()]);
        if (chance(r, 0.25) && since(17)) parts.push([`required${g}`, required()]);
        if (chance(r, 0.05) && since(31))
          parts.push([`in_tree${g}`, pick(r, inv.file.providers).uuid ?? UNKNOWN_AGG]);
      }
      // Resourceless groups tied by same_subtree (1.36+), e.g. "a NIC under the NUMA node that has the CPUs".
      if (minor >= 36 && chance(r, clean ? 0.3 : 0.1)) {
        const suffixed = groups.filter((g) => g);
        const tied = suffixed.length ? pick(r, suffixed) : undefined;
        const k = r();
        if (k < 0.5) parts.push(['required_R', pick(r, [...traits, 'HW_NIC_SRIOV'])]);
        else if (k < 0.8) parts.push(['member_of_R', memberOf()]);
        else parts.push(['required_R', `!${pick(r, traits)}`]);
        const withS = chance(r, 0.3);
        if (withS) parts.push(['resources_S', 'SRIOV_NET_VF:1']);
        parts.push(['same_subtree', ['_R', ...(tied ? [tied] : []), ...(withS ? ['_S'] : [])].join(',')]);
        parts.push(['group_policy', pick(r, ['none', 'isolate'])]);
      } else if ((groups.filter((g) => g).length > 1 || chance(r, 0.3)) && since(25)) {
        parts.push(['group_policy', pick(r, ['none', 'isolate', 'isolate'])]);
      }
      if (chance(r, 0.12) && since(16)) parts.push(['limit', String(int(r, 1, 5))]);
      if (chance(r, 0.1) && (!clean || minor >= 35)) {
        parts.push([
          'root_required',
          pick(r, ['HW_CPU_X86_AVX', '!HW_CPU_X86_AVX', `!${inv.customTraits[0] ?? 'CUSTOM_T0'}`]),
        ]);
      }
    }
    out.push({
      endpoint,
      version: `1.${minor}`,
      query: parts
        .map(
          ([k, v]) =>
            `${encodeURIComponent(k)}=${encodeURIComponent(v).replace(/%3A/g, ':').replace(/%2C/g, ',')}`,
        )
        .join('&'),
    });
  }
  return out;
}
