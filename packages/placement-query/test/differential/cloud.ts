// A seeded generator of realistic clouds for the differential suite: flat
// compute nodes, nodes with NUMA children (some with SR-IOV PF grandchildren),
// nodes with wide symmetric device children (GPUs, PCI devices), sharing
// providers (MISC_SHARES_VIA_AGGREGATE) for disk and IP addresses, inventories
// with reserved, min_unit, max_unit, step_size and allocation_ratio, usages up
// to capacity spread over several consumers, traits and aggregates on roots,
// children and sharing providers.
import type { InventoryFile, InventoryProviderEntry } from '../../src/model/inventory-file.js';
import type { Inventory } from '../../src/model/store.js';
import { chance, int, pick, type Random, seeded } from '../support/generate.js';

/** What kind of tree a root heads. */
export type RootKind = 'flat' | 'numa' | 'wide';

/** A generated provider, as the query generator needs to know it. */
export interface CloudProvider {
  uuid: string;
  name: string;
  root: string;
  parent: string | null;
  kind: RootKind | 'sharing' | 'numa-node' | 'pf' | 'device';
  classes: string[];
}

/** A generated cloud and the vocabulary queries over it draw from. */
export interface Cloud {
  file: InventoryFile;
  providers: CloudProvider[];
  aggregates: string[];
  customTraits: string[];
  /** Traits some provider has (standard and custom). */
  traits: string[];
  /** The device class of wide trees (`VGPU` or `CUSTOM_PCI_GPU`). */
  deviceClass: string;
}

/** Knobs of {@link generateCloud}. */
export interface CloudShape {
  /** Compute nodes (roots other than sharing providers). */
  nodes: number;
  /** Largest number of symmetric children under a wide root (default 6). */
  maxWide?: number;
}

const STD_TRAITS = [
  'HW_CPU_X86_AVX',
  'HW_CPU_X86_AVX2',
  'HW_CPU_X86_SSE42',
  'HW_CPU_X86_VMX',
  'STORAGE_DISK_SSD',
  'COMPUTE_VOLUME_MULTI_ATTACH',
  'HW_CPU_HYPERTHREADING',
];
const PHYSNETS = ['CUSTOM_PHYSNET_A', 'CUSTOM_PHYSNET_B'];
const GPU_TRAITS = ['CUSTOM_GPU_A100', 'CUSTOM_GPU_T4'];

/** A UUID from the seeded stream (version 4 layout, so Placement accepts it). */
export function uuidFrom(r: Random): string {
  const hex = () => Math.floor(r() * 16).toString(16);
  const part = (n: number) => Array.from({ length: n }, hex).join('');
  return `${part(8)}-${part(4)}-4${part(3)}-a${part(3)}-${part(12)}`;
}

const capacity = (i: Inventory) => Math.trunc((i.total - i.reserved) * i.allocation_ratio);

/**
 * A cloud from a seed: the same seed and shape give the same cloud on every
 * run. About 35% of nodes are flat, 45% have two NUMA children (a third of
 * those children with an SR-IOV PF below), 20% have 2 to `maxWide`
 * interchangeable device children; one sharing provider per 20 nodes (at
 * least two). A third of the providers carry usages, some up to capacity.
 */
export function generateCloud(seed: number, shape: CloudShape): Cloud {
  const r = seeded(seed);
  const maxWide = shape.maxWide ?? 6;
  const nAggs = Math.max(4, Math.ceil(shape.nodes / 8));
  const aggregates = Array.from({ length: nAggs }, () => uuidFrom(r));
  const customTraits = Array.from({ length: 8 }, (_, i) => `CUSTOM_T${i}`);
  const deviceClass = chance(r, 0.5) ? 'VGPU' : 'CUSTOM_PCI_GPU';
  const traitPool = [...STD_TRAITS, ...customTraits];
  const someTraits = (max: number) => [
    ...new Set(Array.from({ length: int(r, 0, max) }, () => pick(r, traitPool))),
  ];
  const someAggs = (max: number) => [
    ...new Set(Array.from({ length: int(r, 0, max) }, () => pick(r, aggregates))),
  ];
  const providers: CloudProvider[] = [];
  const invs = new Map<string, Record<string, Inventory>>();

  // An inventory with the odd settings real clouds have: reserved host
  // memory, overcommit, PCPU and memory pages in steps, max_unit caps.
  const inv = (rc: string, total: number): Inventory => {
    const i: Inventory = {
      total,
      reserved: 0,
      min_unit: 1,
      max_unit: total,
      step_size: 1,
      allocation_ratio: 1,
    };
    if (rc === 'VCPU') i.allocation_ratio = pick(r, [1, 4, 16, 16]);
    if (rc === 'MEMORY_MB') {
      i.reserved = pick(r, [0, 512, 512]);
      i.allocation_ratio = pick(r, [1, 1, 1.5]);
      if (chance(r, 0.2)) i.step_size = 256;
      if (chance(r, 0.2)) i.min_unit = 256;
    }
    if (rc === 'DISK_GB') {
      i.allocation_ratio = pick(r, [1, 1, 1.2]);
      if (chance(r, 0.2)) i.reserved = int(r, 1, Math.floor(total / 10));
    }
    if (rc === 'PCPU' && chance(r, 0.3)) i.step_size = 2;
    if (chance(r, 0.15)) i.max_unit = Math.max(1, Math.floor(total / 2));
    if (i.min_unit > i.max_unit) i.min_unit = 1;
    if (i.step_size > i.max_unit) i.step_size = 1;
    return i;
  };
  const entry = (
    name: string,
    kind: CloudProvider['kind'],
    root: string | undefined,
    parent: string | null,
    inventories: Record<string, Inventory>,
    traits: string[],
    aggs: string[],
  ): InventoryProviderEntry => {
    const uuid = uuidFrom(r);
    providers.push({ uuid, name, root: root ?? uuid, parent, kind, classes: Object.keys(inventories) });
    invs.set(uuid, inventories);
    const e: InventoryProviderEntry = { name, uuid };
    if (Object.keys(inventories).length) e.inventories = inventories;
    if (traits.length) e.traits = traits;
    if (aggs.length) e.aggregates = aggs;
    return e;
  };

  const roots: InventoryProviderEntry[] = [];
  for (let n = 0; n < shape.nodes; n += 1) {
    const k = r();
    const kind: RootKind = k < 0.35 ? 'flat' : k < 0.8 ? 'numa' : 'wide';
    const name = `cn${n}`;
    const rootInv: Record<string, Inventory> = {};
    if (kind !== 'numa') {
      rootInv.VCPU = inv('VCPU', pick(r, [4, 8, 16, 32]));
      rootInv.MEMORY_MB = inv('MEMORY_MB', pick(r, [4096, 8192, 16384]));
    }
    if (chance(r, 0.7)) rootInv.DISK_GB = inv('DISK_GB', pick(r, [100, 500, 1000]));
    if (kind === 'flat' && chance(r, 0.2)) rootInv.PCPU = inv('PCPU', pick(r, [4, 8]));
    const root = entry(name, kind, undefined, null, rootInv, someTraits(3), someAggs(2));
    const rootUuid = root.uuid as string;
    const children: InventoryProviderEntry[] = [];
    if (kind === 'numa') {
      for (let c = 0; c < 2; c += 1) {
        const numaInv: Record<string, Inventory> = {
          VCPU: inv('VCPU', pick(r, [4, 8, 16])),
          MEMORY_MB: inv('MEMORY_MB', pick(r, [4096, 8192])),
        };
        if (chance(r, 0.3)) numaInv.PCPU = inv('PCPU', pick(r, [2, 4, 8]));
        const numa = entry(
          `${name}_numa${c}`,
          'numa-node',
          rootUuid,
          rootUuid,
          numaInv,
          someTraits(2),
          chance(r, 0.15) ? someAggs(1) : [],
        );
        if (chance(r, 0.35)) {
          const pf = entry(
            `${name}_numa${c}_pf`,
            'pf',
            rootUuid,
            numa.uuid as string,
            {
              SRIOV_NET_VF: inv('SRIOV_NET_VF', pick(r, [4, 8])),
              NET_BW_EGR_KILOBIT_PER_SEC: inv('NET_BW_EGR_KILOBIT_PER_SEC', 10_000_000),
            },
            [pick(r, PHYSNETS), ...(chance(r, 0.3) ? ['HW_NIC_SRIOV'] : [])],
            [],
          );
          numa.children = [pf];
        }
        children.push(numa);
      }
    } else if (kind === 'wide') {
      const width = int(r, 2, maxWide);
      const gpuTrait = pick(r, GPU_TRAITS);
      const each = deviceClass === 'VGPU' ? pick(r, [2, 4]) : 1;
      for (let c = 0; c < width; c += 1) {
        children.push(
          entry(
            `${name}_dev${c}`,
            'device',
            rootUuid,
            rootUuid,
            { [deviceClass]: inv(deviceClass, each) },
            [gpuTrait],
            [],
          ),
        );
      }
    } else if (chance(r, 0.1)) {
      // A childless provider without inventory under a flat node (a placeholder some drivers create).
      children.push(entry(`${name}_empty`, 'device', rootUuid, rootUuid, {}, someTraits(1), []));
    }
    if (children.length) root.children = children;
    roots.push(root);
  }
  const nSharing = Math.max(2, Math.ceil(shape.nodes / 20));
  for (let s = 0; s < nSharing; s += 1) {
    const ip = chance(r, 0.3);
    const sInv: Record<string, Inventory> = ip
      ? { IPV4_ADDRESS: inv('IPV4_ADDRESS', pick(r, [16, 64])) }
      : { DISK_GB: inv('DISK_GB', pick(r, [2000, 10000])) };
    const aggs = someAggs(2);
    roots.push(
      entry(
        `ss${s}`,
        'sharing',
        undefined,
        null,
        sInv,
        ['MISC_SHARES_VIA_AGGREGATE', ...(!ip && chance(r, 0.5) ? ['STORAGE_DISK_SSD'] : [])],
        aggs.length ? aggs : [pick(r, aggregates)],
      ),
    );
  }

  // Usages: consumers take amounts that respect min_unit, max_unit and
  // step_size, some until the provider is (nearly) full.
  const used = new Map<string, number>();
  const consumers: NonNullable<InventoryFile['consumers']> = [];
  const take = (uuid: string, rc: string, want: number): number => {
    const i = invs.get(uuid)?.[rc];
    if (!i) return 0;
    const key = `${uuid} ${rc}`;
    const left = capacity(i) - (used.get(key) ?? 0);
    let n = Math.min(want, left, i.max_unit);
    n -= n % i.step_size;
    if (n < i.min_unit) return 0;
    used.set(key, (used.get(key) ?? 0) + n);
    return n;
  };
  const byRoot = new Map<string, CloudProvider[]>();
  for (const p of providers) {
    const list = byRoot.get(p.root);
    if (list) list.push(p);
    else byRoot.set(p.root, [p]);
  }
  let c = 0;
  for (const [, tree] of byRoot) {
    if (!chance(r, 0.35)) continue;
    const full = chance(r, 0.3);
    for (let k = 0, n = int(r, 1, 3); k < n; k += 1) {
      const allocations: Record<string, Record<string, number>> = {};
      for (const p of tree) {
        for (const rc of p.classes) {
          if (!chance(r, full ? 0.9 : 0.4)) continue;
          const i = invs.get(p.uuid)?.[rc] as Inventory;
          const want = full
            ? Math.ceil(capacity(i) / n) + 1
            : int(r, 1, Math.max(1, Math.floor(capacity(i) / 3)));
          const got = take(p.uuid, rc, want);
          if (got) allocations[p.uuid] = { ...allocations[p.uuid], [rc]: got };
        }
      }
      if (Object.keys(allocations).length) {
        consumers.push({ uuid: uuidFrom(r), allocations });
        c += 1;
      }
    }
  }
  const present = new Set<string>();
  const walk = (e: InventoryProviderEntry) => {
    for (const t of e.traits ?? []) present.add(t);
    for (const ch of e.children ?? []) walk(ch);
  };
  for (const root of roots) walk(root);
  return {
    file: {
      traits: [...customTraits, ...PHYSNETS, ...GPU_TRAITS],
      resource_classes: ['CUSTOM_PCI_GPU', 'CUSTOM_UNUSED'],
      providers: roots,
      ...(c ? { consumers } : {}),
    },
    providers,
    aggregates,
    customTraits,
    traits: [...present].sort(),
    deviceClass,
  };
}
