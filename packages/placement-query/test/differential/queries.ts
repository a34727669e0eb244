// Seeded queries over a generated cloud for the differential suite: every
// feature of both query endpoints at the microversions that have it, shaped
// like what Nova sends (NUMA groups, device groups, NIC affinity with
// same_subtree), plus malformed queries of every kind Placement rejects.
import { chance, int, pick, type Random, seeded } from '../support/generate.js';
import type { Cloud } from './cloud.js';

/** One generated GET. */
export interface DifferentialQuery {
  endpoint: 'resource_providers' | 'allocation_candidates';
  version: string;
  query: string;
}

const UNKNOWN_UUID = 'deadbeef-0000-4000-8000-000000000000';

function encode(parts: [string, string][]): string {
  return parts
    .map(
      ([k, v]) =>
        `${encodeURIComponent(k)}=${encodeURIComponent(v).replace(/%3A/g, ':').replace(/%2C/g, ',').replace(/%21/g, '!')}`,
    )
    .join('&');
}

class QueryMaker {
  constructor(
    readonly r: Random,
    readonly cloud: Cloud,
  ) {}

  agg(): string {
    return chance(this.r, 0.05) ? UNKNOWN_UUID : pick(this.r, this.cloud.aggregates);
  }

  trait(): string {
    const k = this.r();
    if (k < 0.03) return 'HW_GPU_API_VULKAN'; // a standard trait nobody has
    if (k < 0.1) return 'MISC_SHARES_VIA_AGGREGATE';
    return pick(this.r, this.cloud.traits);
  }

  uuidOf(kind?: string): string {
    const pool = kind ? this.cloud.providers.filter((p) => p.kind === kind) : this.cloud.providers;
    return pool.length ? pick(this.r, pool).uuid : UNKNOWN_UUID;
  }

  /** A member_of value allowed at `minor`. */
  memberOf(minor: number): string {
    const k = this.r();
    if (minor >= 32 && k < 0.25) return `!${this.agg()}`;
    if (minor >= 32 && k < 0.4) return `!in:${this.agg()},${this.agg()}`;
    if (k < 0.7) return `in:${this.agg()},${this.agg()}${chance(this.r, 0.3) ? `,${this.agg()}` : ''}`;
    return this.agg();
  }

  /** A required value allowed at `minor` (endpoint: the trait grammar is shared). */
  required(minor: number): string {
    const k = this.r();
    if (minor >= 39 && k < 0.2) return `in:${this.trait()},${this.trait()}`;
    if (minor >= 22 && k < 0.45) return `!${this.trait()}`;
    if (minor >= 22 && k < 0.6) return `${this.trait()},!${this.trait()}`;
    if (k < 0.8) return this.trait();
    return `${this.trait()},${this.trait()}`;
  }

  amount(rc: string): number {
    const r = this.r;
    switch (rc) {
      case 'VCPU':
        return pick(r, [1, 1, 2, 4, 8]);
      case 'PCPU':
        return pick(r, [1, 2, 2, 4]);
      case 'MEMORY_MB':
        return pick(r, [256, 512, 1024, 2048, 4096, 12288]);
      case 'DISK_GB':
        return pick(r, [10, 20, 100, 900, 1500]);
      case 'NET_BW_EGR_KILOBIT_PER_SEC':
        return pick(r, [1000, 100000]);
      default:
        return pick(r, [1, 1, 1, 2]);
    }
  }

  resources(classes: string[]): string {
    return classes.map((rc) => `${rc}:${this.amount(rc)}`).join(',');
  }
}

/** Suffixes for `n` groups at `minor`: numbers before 1.33, names (sometimes numbers) after. */
function suffixes(r: Random, minor: number, names: string[]): string[] {
  if (minor < 33 || chance(r, 0.3)) return names.map((_, i) => String(i + 1));
  return names;
}

function candidatesQuery(m: QueryMaker, minor: number): [string, string][] {
  const r = m.r;
  const parts: [string, string][] = [];
  const cloud = m.cloud;
  const groupFilters = (s: string, withTree: boolean) => {
    if (minor >= 21 && chance(r, 0.3)) parts.push([`member_of${s}`, m.memberOf(minor)]);
    if (minor >= 24 && chance(r, 0.08)) parts.push([`member_of${s}`, m.memberOf(minor)]);
    if (minor >= 17 && chance(r, 0.3)) parts.push([`required${s}`, m.required(minor)]);
    if (minor >= 39 && chance(r, 0.1)) parts.push([`required${s}`, m.required(minor)]);
    if (withTree && minor >= 31 && chance(r, 0.06))
      parts.push([`in_tree${s}`, chance(r, 0.7) ? m.uuidOf() : UNKNOWN_UUID]);
  };
  const shape = minor >= 25 ? r() : 0;
  let granular = 0;
  if (shape < 0.4) {
    // One unsuffixed group: a flavor without NUMA topology.
    const classes = ['VCPU', 'MEMORY_MB'];
    if (chance(r, 0.5)) classes.push('DISK_GB');
    if (chance(r, 0.1)) classes.push('IPV4_ADDRESS');
    if (chance(r, 0.1)) classes.push('PCPU');
    if (chance(r, 0.05)) classes.push('CUSTOM_UNUSED');
    parts.push(['resources', m.resources(chance(r, 0.15) ? [pick(r, classes)] : classes)]);
    groupFilters('', true);
  } else if (shape < 0.6) {
    // NUMA: one group per NUMA node, disk unsuffixed.
    const [a, b] = suffixes(r, minor, ['_NUMA0', '_NUMA1']) as [string, string];
    if (chance(r, 0.7)) parts.push(['resources', `DISK_GB:${m.amount('DISK_GB')}`]);
    parts.push([`resources${a}`, `VCPU:${m.amount('VCPU')},MEMORY_MB:${pick(r, [512, 1024, 2048])}`]);
    granular = 1;
    if (chance(r, 0.7)) {
      parts.push([`resources${b}`, `${pick(r, ['VCPU', 'PCPU'])}:${pick(r, [1, 2])},MEMORY_MB:512`]);
      granular = 2;
    }
    groupFilters(a, true);
    if (chance(r, 0.3)) groupFilters('', false);
  } else if (shape < 0.8) {
    // Devices from a wide tree, one per group.
    const n = int(r, 1, 3);
    const names = suffixes(r, minor, ['_GPU0', '_GPU1', '_GPU2'].slice(0, n));
    if (chance(r, 0.8)) parts.push(['resources', m.resources(['VCPU', 'MEMORY_MB'])]);
    for (const s of names) {
      parts.push([`resources${s}`, `${cloud.deviceClass}:${pick(r, [1, 1, 2])}`]);
      if (minor >= 17 && chance(r, 0.3))
        parts.push([`required${s}`, pick(r, ['CUSTOM_GPU_A100', 'CUSTOM_GPU_T4'])]);
      if (chance(r, 0.15)) groupFilters(s, true);
    }
    granular = n;
    if (chance(r, 0.2)) groupFilters('', true);
  } else if (minor >= 36 && shape < 0.92) {
    // A NIC on the NUMA node that gives the CPUs (same_subtree), maybe with a resourceless group.
    const cpu = minor >= 33 ? '_COMPUTE' : '1';
    const nic = minor >= 33 ? '_NIC' : '2';
    parts.push([`resources${cpu}`, `VCPU:${pick(r, [1, 2])}`]);
    parts.push([
      `resources${nic}`,
      pick(r, ['SRIOV_NET_VF:1', 'SRIOV_NET_VF:1,NET_BW_EGR_KILOBIT_PER_SEC:1000']),
    ]);
    if (chance(r, 0.6))
      parts.push([`required${nic}`, pick(r, ['CUSTOM_PHYSNET_A', 'CUSTOM_PHYSNET_B', 'HW_NIC_SRIOV'])]);
    granular = 2;
    const tied = [nic, cpu];
    if (chance(r, 0.4)) {
      // Resourceless: "a NUMA node" named only by traits or aggregates.
      if (chance(r, 0.6)) parts.push(['required_NUMA', m.required(minor)]);
      else parts.push(['member_of_NUMA', m.memberOf(minor)]);
      tied.push('_NUMA');
      granular += 1;
    }
    parts.push(['same_subtree', tied.slice(0, chance(r, 0.3) ? 2 : tied.length).join(',')]);
    if (chance(r, 0.5)) parts.push(['resources', `MEMORY_MB:${pick(r, [512, 1024])}`]);
  } else {
    // Anything: random groups and classes.
    const all = ['VCPU', 'MEMORY_MB', 'DISK_GB', 'PCPU', 'SRIOV_NET_VF', cloud.deviceClass, 'IPV4_ADDRESS'];
    const names = suffixes(r, minor, ['_A', '_B', '_C'].slice(0, int(r, 1, 3)));
    if (chance(r, 0.6)) parts.push(['resources', m.resources([pick(r, all)])]);
    for (const s of names) {
      parts.push([`resources${s}`, m.resources([...new Set([pick(r, all), pick(r, all)])])]);
      groupFilters(s, true);
    }
    granular = names.length;
  }
  if (minor >= 25 && (granular > 1 || chance(r, 0.2)))
    parts.push(['group_policy', pick(r, ['none', 'isolate'])]);
  if (minor >= 35 && chance(r, 0.12)) {
    parts.push(['root_required', pick(r, [m.trait(), `!${m.trait()}`, `${m.trait()},!${m.trait()}`])]);
  }
  if (minor >= 16 && chance(r, 0.2)) parts.push(['limit', String(pick(r, [1, 2, 3, 5, 20]))]);
  return parts;
}

function providersQuery(m: QueryMaker, minor: number): [string, string][] {
  const r = m.r;
  const parts: [string, string][] = [];
  for (let j = 0, n = int(r, 1, 3); j < n; j += 1) {
    const k = r();
    if (k < 0.35 && minor >= 3) {
      if (minor >= 24 || !parts.some(([key]) => key === 'member_of'))
        parts.push(['member_of', m.memberOf(minor)]);
    } else if (k < 0.55 && minor >= 18) parts.push(['required', m.required(minor)]);
    else if (k < 0.75 && minor >= 4)
      parts.push([
        'resources',
        m.resources([pick(r, ['VCPU', 'MEMORY_MB', 'DISK_GB', 'SRIOV_NET_VF', m.cloud.deviceClass])]),
      ]);
    else if (k < 0.82) parts.push(['name', pick(r, m.cloud.providers).name]);
    else if (k < 0.88) parts.push(['uuid', m.uuidOf()]);
    else if (minor >= 14) parts.push(['in_tree', chance(r, 0.8) ? m.uuidOf() : UNKNOWN_UUID]);
  }
  return parts;
}

/** Breaks a clean query in one of the ways Placement answers 400 (or 404). */
function malform(m: QueryMaker, endpoint: DifferentialQuery['endpoint'], parts: [string, string][]): void {
  const r = m.r;
  const k = int(r, 0, 19);
  const set = (key: string, value: string) => parts.push([key, value]);
  switch (k) {
    case 0:
      set('limit', pick(r, ['cow', '0', '-1', '', '1.5', ' 2']));
      break;
    case 1:
      set('group_policy', pick(r, ['bogus', '', 'ISOLATE']));
      break;
    case 2:
      set(pick(r, ['bogus', 'resource', 'membr_of', 'x1']), '1');
      break;
    case 3:
      set(
        'member_of',
        pick(r, [
          `in:${m.agg()},!${m.agg()}`,
          `${m.agg()},${m.agg()}`,
          'not-a-uuid',
          `!!${m.agg()}`,
          `in:${m.agg()},`,
          '',
        ]),
      );
      break;
    case 4:
      set(
        'required',
        pick(r, [
          'CUSTOM_NO_SUCH_TRAIT',
          `${m.trait()},,${m.trait()}`,
          `in:${m.trait()},!${m.trait()}`,
          '!',
          `in:${m.trait()},`,
          '',
        ]),
      );
      break;
    case 5:
      set('resources', pick(r, ['VCPU:0', 'VCPU', 'CUSTOM_NOPE:1', 'VCPU:x', '', 'VCPU:1:2', 'VCPU:-1']));
      break;
    case 6:
      set('in_tree', pick(r, ['not-a-uuid', '', UNKNOWN_UUID.toUpperCase()]));
      break;
    case 7:
      set('uuid', 'nope');
      break;
    case 8:
      set(
        'root_required',
        pick(r, [
          'HW_CPU_X86_AVX',
          'CUSTOM_NO_SUCH_TRAIT',
          'in:HW_CPU_X86_AVX',
          'HW_CPU_X86_AVX,!HW_CPU_X86_AVX',
        ]),
      );
      if (chance(r, 0.3)) set('root_required', 'HW_CPU_X86_AVX2');
      break;
    case 9:
      set('same_subtree', pick(r, ['_X', '_A,', ',_A', '_A,_NOPE']));
      break;
    case 10:
      set('resources1', 'VCPU:1');
      set('resources2', 'VCPU:1');
      break;
    case 11:
      set('required7', m.trait());
      break;
    case 12:
      set('member_of7', m.agg());
      break;
    case 13:
      set('in_tree7', m.uuidOf());
      break;
    case 14:
      set('resources01', 'VCPU:1');
      break;
    case 15:
      set(`resources_${'x'.repeat(65)}`, 'VCPU:1');
      break;
    case 16:
      set('required', `${m.trait()},!${m.trait()}`);
      set('required', 'CUSTOM_NO_SUCH_TRAIT');
      break;
    case 17:
      set('member_of', `!${m.agg()}`);
      set('member_of', `in:${m.agg()},${m.agg()}`);
      break;
    case 18:
      parts.length = 0;
      if (chance(r, 0.5)) set('limit', '1');
      break;
    default:
      set('name', 'x'.repeat(pick(r, [1, 201])));
      if (endpoint === 'allocation_candidates') set('resources', 'VCPU:1');
  }
}

/**
 * `count` queries over `cloud` from `seed`: about 70% for
 * `/allocation_candidates`, 15% malformed, microversions spread from 1.0
 * (providers) or 1.10 (candidates) to 1.39.
 */
export function generateDifferentialQueries(seed: number, cloud: Cloud, count: number): DifferentialQuery[] {
  const r = seeded(seed);
  const m = new QueryMaker(r, cloud);
  const out: DifferentialQuery[] = [];
  for (let i = 0; i < count; i += 1) {
    const endpoint = chance(r, 0.3) ? 'resource_providers' : 'allocation_candidates';
    const minor =
      endpoint === 'resource_providers'
        ? pick(r, [0, 3, 4, 14, 18, 22, 24, 31, 32, 39, 39])
        : pick(r, [10, 12, 16, 17, 21, 22, 24, 25, 27, 29, 31, 32, 33, 34, 35, 36, 38, 39, 39, 39, 39]);
    const parts = endpoint === 'resource_providers' ? providersQuery(m, minor) : candidatesQuery(m, minor);
    let version = `1.${minor}`;
    if (chance(r, 0.15)) {
      malform(m, endpoint, parts);
      if (chance(r, 0.2)) version = `1.${int(r, 0, 39)}`;
    }
    out.push({ endpoint, version, query: encode(parts) });
  }
  return out;
}
