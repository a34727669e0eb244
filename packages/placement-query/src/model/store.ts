import {
  ConflictError,
  createDiagnostic,
  isCustomTrait,
  isResourceClassName,
  isUuidLike,
  NotFoundError,
  STANDARD_RESOURCE_CLASSES,
  standardTraits,
  ValidationError,
} from '@stackspec/core';
import { PLACEMENT_ERROR_CODES, type PlacementErrorCode } from '../errors.js';
import type { ConsumerState, PlacementChange, ProviderState } from './changes.js';

/** Placement's largest integer for inventory fields (a signed 32-bit column). */
export const MAX_INT = 2147483647;
/** The trait that makes a provider share its inventory with every provider in its aggregates. */
export const SHARING_TRAIT = 'MISC_SHARES_VIA_AGGREGATE';
/** The os-traits release Debian 12's Placement 8.0 syncs (345 standard traits). */
export const DEBIAN_OS_TRAITS_RELEASE = '2.9.0';

/** One inventory record, with Placement's field names. */
export interface Inventory {
  total: number;
  reserved: number;
  min_unit: number;
  max_unit: number;
  step_size: number;
  allocation_ratio: number;
}

/** Placement's defaults for the optional inventory fields. */
export const INVENTORY_DEFAULTS: Readonly<Omit<Inventory, 'total'>> = {
  reserved: 0,
  min_unit: 1,
  max_unit: MAX_INT,
  step_size: 1,
  allocation_ratio: 1.0,
};

/** `int((total - reserved) * allocation_ratio)`: what Placement reports as capacity. */
export function capacityOf(inv: Inventory): number {
  return Math.trunc((inv.total - inv.reserved) * inv.allocation_ratio);
}

/** Whether a provider with this inventory and usage can give `amount` more (Placement's SQL filter). */
export function canAllocate(inv: Inventory, used: number, amount: number): boolean {
  return (
    used + amount <= (inv.total - inv.reserved) * inv.allocation_ratio &&
    inv.min_unit <= amount &&
    inv.max_unit >= amount &&
    amount % inv.step_size === 0
  );
}

/** A resource provider held by a {@link ProviderStore}; read it, change it only through the store. */
export interface Provider {
  /** Internal id, in creation order (what Placement's database would assign). */
  readonly id: number;
  readonly uuid: string;
  /** The uuid as a JSON string literal, for fast rendering. */
  readonly uuidJson: string;
  name: string;
  generation: number;
  parent: Provider | undefined;
  root: Provider;
  readonly children: Set<Provider>;
  readonly inventories: Map<string, Inventory>;
  /** Sum of allocations per resource class. */
  readonly usages: Map<string, number>;
  /** The provider's traits, in sorted order. */
  readonly traits: Set<string>;
  readonly aggregates: Set<string>;
  /** Inventory with usage per class, for fast capacity checks. */
  readonly capacity: Map<string, CapacityEntry>;
  /**
   * The same entries indexed by {@link ProviderStore.classIndexOf}, for the
   * hottest loops; shorter than the number of classes (check the length).
   */
  readonly capacityByIndex: (CapacityEntry | undefined)[];
  createdAt: Date;
  updatedAt: Date;
}

/**
 * One provider's inventory of one class with its current usage, kept in a
 * flat list per class so capacity scans touch no maps.
 */
export interface CapacityEntry {
  readonly provider: Provider;
  /** `(total - reserved) * allocation_ratio`. */
  limit: number;
  used: number;
  minUnit: number;
  maxUnit: number;
  stepSize: number;
}

/**
 * One resource class's capacity for every provider, by provider id, in flat
 * arrays: scans and probes touch a few contiguous arrays instead of
 * scattered objects. `limit` is NaN where the provider has no inventory of
 * the class.
 */
export interface CapacityColumns {
  limit: Float64Array;
  used: Float64Array;
  minUnit: Int32Array;
  maxUnit: Int32Array;
  stepSize: Int32Array;
}

/** Whether provider `id` can give `amount` more of the class (the same test as {@link entryFits}). */
export function columnFits(c: CapacityColumns | undefined, id: number, amount: number): boolean {
  if (c === undefined || id >= c.limit.length) return false;
  return (
    (c.used[id] as number) + amount <= (c.limit[id] as number) &&
    (c.minUnit[id] as number) <= amount &&
    (c.maxUnit[id] as number) >= amount &&
    amount % (c.stepSize[id] as number) === 0
  );
}

/** Whether an entry can give `amount` more (Placement's capacity filter). */
export function entryFits(e: CapacityEntry, amount: number): boolean {
  return (
    e.used + amount <= e.limit && e.minUnit <= amount && e.maxUnit >= amount && amount % e.stepSize === 0
  );
}

/** One consumer's allocations. */
export interface Consumer {
  readonly uuid: string;
  projectId: string;
  userId: string;
  consumerType: string;
  generation: number;
  /** Provider uuid → resource class → amount. */
  readonly allocations: Map<string, Map<string, number>>;
  createdAt: Date;
  updatedAt: Date;
}

/** Options for {@link createProviderStore}. */
export interface ProviderStoreOptions {
  /** os-traits release whose standard traits exist (default: the one Debian 12's Placement uses, 2.9.0). */
  osTraitsRelease?: string;
  /** Clock for created/updated times (default: `() => new Date()`). */
  clock?: () => Date;
}

function conflict(message: string, code: PlacementErrorCode, diagnostic: string): ConflictError {
  return new ConflictError(message, {
    code,
    diagnostics: [createDiagnostic({ code: diagnostic, message })],
  });
}

function badRequest(message: string, diagnostic: string, path = ''): ValidationError {
  return new ValidationError(message, {
    code: PLACEMENT_ERROR_CODES.default,
    diagnostics: [createDiagnostic({ code: diagnostic, message, path })],
  });
}

function notFound(message: string, diagnostic = 'placement-query/not-found'): NotFoundError {
  return new NotFoundError(message, {
    code: PLACEMENT_ERROR_CODES.default,
    diagnostics: [createDiagnostic({ code: diagnostic, message })],
  });
}

/**
 * The state of a Placement service held in memory: providers in trees,
 * their inventories, usages, traits and aggregates, consumers and their
 * allocations, and the trait and resource-class vocabularies. It keeps
 * indexes (providers per aggregate, trait and resource class) so queries
 * never scan every provider.
 *
 * Writes enforce Placement's rules and throw its errors (core
 * `ValidationError` 400, `NotFoundError` 404, `ConflictError` 409 with
 * Placement's error code and message): a stale generation, inventory in
 * use, a parent with children, over-capacity allocations.
 */
export class ProviderStore {
  readonly #clock: () => Date;
  readonly #byUuid = new Map<string, Provider>();
  readonly #byName = new Map<string, Provider>();
  readonly #aggregateIndex = new Map<string, Set<Provider>>();
  readonly #traitIndex = new Map<string, Set<Provider>>();
  readonly #classIndex = new Map<string, Set<Provider>>();
  readonly #entries = new Map<string, Map<Provider, CapacityEntry>>();
  readonly #entryLists = new Map<string, CapacityEntry[]>();
  readonly #classNumbers = new Map<string, number>();
  readonly #columns: (CapacityColumns | undefined)[] = [];
  readonly #consumers = new Map<string, Consumer>();
  readonly #traits = new Map<string, Date>();
  readonly #classes = new Map<string, Date>();
  readonly #standardTraits: ReadonlySet<string>;
  #nextId = 1;
  /** Providers by id (sparse), and the largest id held: keeps {@link providers} in id order. */
  readonly #ids: (Provider | undefined)[] = [];
  #lastId = 0;
  #nested = 0;
  /** While {@link stage} runs: the state of everything a write touches, before it did. */
  #recorder: Recorder | undefined;
  /** Each root's providers in preorder, built on demand; emptied when any tree changes. */
  readonly #trees = new Map<Provider, readonly Provider[]>();
  #revision = 0;

  constructor(options: ProviderStoreOptions = {}) {
    this.#clock = options.clock ?? (() => new Date());
    this.#standardTraits = standardTraits(options.osTraitsRelease ?? DEBIAN_OS_TRAITS_RELEASE);
    const now = this.#clock();
    for (const t of this.#standardTraits) this.#traits.set(t, now);
    for (const c of STANDARD_RESOURCE_CLASSES) this.#classes.set(c, now);
  }

  /** Increases on every write; lets callers cache derived data. */
  get revision(): number {
    return this.#revision;
  }

  /** Every provider, in id order. */
  providers(): IterableIterator<Provider> {
    return this.#byUuid.values();
  }

  /** How many providers exist. */
  get providerCount(): number {
    return this.#byUuid.size;
  }

  /** True when any provider has a parent (Placement then takes its tree-aware paths). */
  get hasTrees(): boolean {
    return this.#nested > 0;
  }

  /**
   * Every provider of the tree rooted at `root` (itself first), in preorder
   * with children in creation order. Cached until a provider is created,
   * deleted or moved (no copy; do not change it).
   */
  treeOf(root: Provider): readonly Provider[] {
    let members = this.#trees.get(root);
    if (!members) {
      const out: Provider[] = [];
      const stack: Provider[] = [root];
      // Iterative, so a chain of any depth cannot overflow the stack.
      while (stack.length) {
        const p = stack.pop() as Provider;
        out.push(p);
        if (p.children.size) stack.push(...[...p.children].reverse());
      }
      members = out;
      this.#trees.set(root, members);
    }
    return members;
  }

  /** The provider with this uuid (exact spelling), if any. */
  provider(uuid: string): Provider | undefined {
    return this.#byUuid.get(uuid);
  }

  /** The provider or a 404 with Placement's wording. */
  requireProvider(uuid: string): Provider {
    const p = this.#byUuid.get(uuid);
    if (!p)
      throw notFound(`No resource provider with uuid ${uuid} found`, 'placement-query/provider-not-found');
    return p;
  }

  /** The provider with this name, if any. */
  providerByName(name: string): Provider | undefined {
    return this.#byName.get(name);
  }

  /** Providers directly in an aggregate (no copy; do not change it). */
  inAggregate(aggregate: string): ReadonlySet<Provider> {
    return this.#aggregateIndex.get(aggregate) ?? EMPTY;
  }

  /** Providers with a trait (no copy). */
  withTrait(trait: string): ReadonlySet<Provider> {
    return this.#traitIndex.get(trait) ?? EMPTY;
  }

  /** Providers with inventory of a resource class (no copy). */
  withInventory(resourceClass: string): ReadonlySet<Provider> {
    return this.#classIndex.get(resourceClass) ?? EMPTY;
  }

  /** Every provider's inventory of a class with its usage, as a flat list (no copy; do not change it). */
  capacityEntries(resourceClass: string): readonly CapacityEntry[] {
    let list = this.#entryLists.get(resourceClass);
    if (!list) {
      list = [...(this.#entries.get(resourceClass)?.values() ?? [])].sort(
        (a, b) => a.provider.id - b.provider.id,
      );
      this.#entryLists.set(resourceClass, list);
    }
    return list;
  }

  /** A small stable number for a resource class name (assigned on first use). */
  classIndexOf(resourceClass: string): number {
    let n = this.#classNumbers.get(resourceClass);
    if (n === undefined) {
      n = this.#classNumbers.size;
      this.#classNumbers.set(resourceClass, n);
    }
    return n;
  }

  /** The capacity columns of a class (by {@link classIndexOf}), if any provider ever had it. */
  columnsOf(classIndex: number): CapacityColumns | undefined {
    return this.#columns[classIndex];
  }

  #column(classIndex: number, id: number): CapacityColumns {
    let c = this.#columns[classIndex];
    if (!c || id >= c.limit.length) {
      const size = Math.max(64, id + 1, (c?.limit.length ?? 0) * 2);
      const grow = <T extends Float64Array | Int32Array>(old: T | undefined, make: (n: number) => T): T => {
        const next = make(size);
        if (old) next.set(old);
        return next;
      };
      const limit = grow(c?.limit, (n) => new Float64Array(n));
      limit.fill(Number.NaN, c?.limit.length ?? 0);
      c = {
        limit,
        used: grow(c?.used, (n) => new Float64Array(n)),
        minUnit: grow(c?.minUnit, (n) => new Int32Array(n)),
        maxUnit: grow(c?.maxUnit, (n) => new Int32Array(n)),
        stepSize: grow(c?.stepSize, (n) => new Int32Array(n)),
      };
      while (this.#columns.length < classIndex) this.#columns.push(undefined);
      this.#columns[classIndex] = c;
    }
    return c;
  }

  #writeColumn(p: Provider, classIndex: number, e: CapacityEntry | undefined): void {
    if (!e) {
      const c = this.#columns[classIndex];
      if (c && p.id < c.limit.length) c.limit[p.id] = Number.NaN;
      return;
    }
    const c = this.#column(classIndex, p.id);
    c.limit[p.id] = e.limit;
    c.used[p.id] = e.used;
    c.minUnit[p.id] = e.minUnit;
    c.maxUnit[p.id] = e.maxUnit;
    c.stepSize[p.id] = e.stepSize;
  }

  #setEntry(p: Provider, rc: string, inv: Inventory | undefined): void {
    const index = this.classIndexOf(rc);
    let byProvider = this.#entries.get(rc);
    if (!inv) {
      p.capacity.delete(rc);
      if (index < p.capacityByIndex.length) p.capacityByIndex[index] = undefined;
      if (byProvider?.delete(p)) this.#entryLists.delete(rc);
      this.#writeColumn(p, index, undefined);
      return;
    }
    if (!byProvider) {
      byProvider = new Map();
      this.#entries.set(rc, byProvider);
    }
    const limit = (inv.total - inv.reserved) * inv.allocation_ratio;
    const used = p.usages.get(rc) ?? 0;
    let entry = byProvider.get(p);
    if (entry) {
      entry.limit = limit;
      entry.used = used;
      entry.minUnit = inv.min_unit;
      entry.maxUnit = inv.max_unit;
      entry.stepSize = inv.step_size;
    } else {
      // One literal of one shape: no temporary object per write (a bulk load makes hundreds of thousands).
      entry = {
        provider: p,
        limit,
        used,
        minUnit: inv.min_unit,
        maxUnit: inv.max_unit,
        stepSize: inv.step_size,
      };
      byProvider.set(p, entry);
      p.capacity.set(rc, entry);
      setDense(p.capacityByIndex, index, entry);
      this.#entryLists.delete(rc);
    }
    this.#writeColumn(p, index, entry);
  }

  #syncUsage(p: Provider): void {
    for (const rc of p.inventories.keys()) {
      const e = this.#entries.get(rc)?.get(p);
      if (!e) continue;
      e.used = p.usages.get(rc) ?? 0;
      this.#writeColumn(p, this.classIndexOf(rc), e);
    }
  }

  /** Every aggregate some provider is in. */
  aggregates(): IterableIterator<string> {
    return this.#aggregateIndex.keys();
  }

  /** Whether a trait exists (standard or created). */
  hasTrait(name: string): boolean {
    return this.#traits.has(name);
  }

  /** Whether a resource class exists (standard or created). */
  hasResourceClass(name: string): boolean {
    return this.#classes.has(name);
  }

  /** Whether a trait is one of the os-traits release's standard traits. */
  isStandardTrait(name: string): boolean {
    return this.#standardTraits.has(name);
  }

  /** Trait names, sorted. */
  traitNames(): string[] {
    return [...this.#traits.keys()].sort();
  }

  /** Resource class names: standard ones in os-resource-classes order, then custom ones sorted. */
  resourceClassNames(): string[] {
    const std = new Set<string>(STANDARD_RESOURCE_CLASSES);
    return [...STANDARD_RESOURCE_CLASSES, ...[...this.#classes.keys()].filter((c) => !std.has(c)).sort()];
  }

  /** A consumer with allocations, if any. */
  consumer(uuid: string): Consumer | undefined {
    return this.#consumers.get(uuid);
  }

  /** Every consumer with allocations. */
  consumers(): IterableIterator<Consumer> {
    return this.#consumers.values();
  }

  // -------------------------------------------------------------------------
  // Changes as data: staged writes, applied changes, states

  /** A provider's state as a change carries it (a copy). */
  providerState(p: Provider): ProviderState {
    const inventories: Record<string, Inventory> = {};
    for (const [rc, inv] of p.inventories) inventories[rc] = { ...inv };
    return {
      id: p.id,
      uuid: p.uuid,
      name: p.name,
      parentUuid: p.parent?.uuid ?? null,
      generation: p.generation,
      inventories,
      traits: [...p.traits],
      aggregates: [...p.aggregates],
      createdAt: p.createdAt.toISOString(),
      updatedAt: p.updatedAt.toISOString(),
    };
  }

  /** A consumer's state as a change carries it (a copy). */
  consumerState(c: Consumer): ConsumerState {
    const allocations: Record<string, Record<string, number>> = {};
    for (const [rp, inner] of c.allocations) allocations[rp] = Object.fromEntries(inner);
    return {
      uuid: c.uuid,
      projectId: c.projectId,
      userId: c.userId,
      consumerType: c.consumerType,
      generation: c.generation,
      allocations,
      createdAt: c.createdAt.toISOString(),
      updatedAt: c.updatedAt.toISOString(),
    };
  }

  /**
   * Runs `decide` (any sequence of this store's writes, which check
   * Placement's rules and throw its refusals) without keeping what it does:
   * returns its value and the changes it made, and leaves the store as it
   * was. All of it runs synchronously, so no reader ever sees the staged
   * state. What `decide` throws is rethrown, with the store put back.
   * A durable store writes the changes to its database and then hands them
   * to {@link applyChanges}. Not reentrant.
   */
  stage<T>(decide: (store: ProviderStore) => T): StagedWrite<T> {
    if (this.#recorder) throw new Error('ProviderStore.stage cannot run inside another stage');
    const rec: Recorder = {
      providers: new Map(),
      consumers: new Map(),
      traits: new Map(),
      classes: new Map(),
      renames: [],
    };
    this.#recorder = rec;
    let value: T | undefined;
    let failed = false;
    let failure: unknown;
    try {
      value = decide(this);
    } catch (e) {
      failed = true;
      failure = e;
    } finally {
      this.#recorder = undefined;
    }
    const before = beforeChanges(rec);
    const changes = failed ? [] : this.#afterChanges(rec);
    this.applyChanges(before);
    if (failed) throw failure;
    return { value: value as T, changes, before };
  }

  #afterChanges(rec: Recorder): PlacementChange[] {
    const out: PlacementChange[] = [];
    const renamed = new Set(rec.renames.flatMap((r) => [r.from, r.to]));
    for (const r of rec.renames) out.push({ type: 'rename-resource-class', from: r.from, to: r.to });
    for (const [name, was] of rec.traits) {
      const now = this.#traits.get(name)?.toISOString() ?? null;
      if (now !== was) out.push({ type: 'trait', name, createdAt: now });
    }
    for (const [name, was] of rec.classes) {
      if (renamed.has(name)) continue;
      const now = this.#classes.get(name)?.toISOString() ?? null;
      if (now !== was) out.push({ type: 'resource-class', name, createdAt: now });
    }
    for (const [uuid, was] of rec.providers) {
      const p = this.#byUuid.get(uuid);
      const state = p ? this.providerState(p) : null;
      if (!sameState(state, was)) out.push({ type: 'provider', uuid, state });
    }
    for (const [uuid, was] of rec.consumers) {
      const c = this.#consumers.get(uuid);
      const state = c ? this.consumerState(c) : null;
      if (!sameState(state, was)) out.push({ type: 'consumer', uuid, state });
    }
    return out;
  }

  #noteProvider(uuid: string): void {
    const rec = this.#recorder;
    if (!rec || rec.providers.has(uuid)) return;
    const p = this.#byUuid.get(uuid);
    rec.providers.set(uuid, p ? this.providerState(p) : null);
  }

  #noteConsumer(uuid: string): void {
    const rec = this.#recorder;
    if (!rec || rec.consumers.has(uuid)) return;
    const c = this.#consumers.get(uuid);
    rec.consumers.set(uuid, c ? this.consumerState(c) : null);
  }

  #noteTrait(name: string): void {
    const rec = this.#recorder;
    if (!rec || rec.traits.has(name)) return;
    rec.traits.set(name, this.#traits.get(name)?.toISOString() ?? null);
  }

  #noteClass(name: string): void {
    const rec = this.#recorder;
    if (!rec || rec.classes.has(name)) return;
    rec.classes.set(name, this.#classes.get(name)?.toISOString() ?? null);
  }

  /**
   * Applies changes (see `PlacementChange`) as one step: synchronously, so a
   * reader sees all of them or none. Each carries the whole state of what
   * it names, so applying a change twice does nothing more; within one call
   * their order does not matter (providers are created before parents are
   * linked, deletions come last). Writes through here are not checked
   * against Placement's rules: they are writes that were already checked
   * and committed. A `reload` change is not applied here (see `reset`).
   */
  applyChanges(changes: readonly PlacementChange[]): void {
    if (!changes.length) return;
    const providers: { uuid: string; state: ProviderState | null }[] = [];
    const consumers: { uuid: string; state: ConsumerState | null }[] = [];
    const goneTraits: string[] = [];
    const goneClasses: string[] = [];
    for (const c of changes) {
      switch (c.type) {
        case 'rename-resource-class': {
          const created = this.#classes.get(c.from);
          if (created !== undefined && !this.#classes.has(c.to)) {
            this.#classes.delete(c.from);
            this.#classes.set(c.to, created);
          }
          break;
        }
        case 'trait':
          if (c.createdAt === null) goneTraits.push(c.name);
          else this.#traits.set(c.name, new Date(c.createdAt));
          break;
        case 'resource-class':
          if (c.createdAt === null) goneClasses.push(c.name);
          else this.#classes.set(c.name, new Date(c.createdAt));
          break;
        case 'provider':
          providers.push(c);
          break;
        case 'consumer':
          consumers.push(c);
          break;
        case 'reload':
          break;
      }
    }
    const touched = new Set<Provider>();
    // Names first out, then in: two providers may swap names in one change.
    for (const c of providers) {
      const p = this.#byUuid.get(c.uuid);
      if (p && (!c.state || c.state.name !== p.name) && this.#byName.get(p.name) === p)
        this.#byName.delete(p.name);
    }
    const placed: [Provider, ProviderState][] = [];
    for (const c of providers) {
      if (!c.state) continue;
      const p =
        this.#byUuid.get(c.uuid) ??
        this.#newProvider({
          id: c.state.id,
          uuid: c.uuid,
          name: c.state.name,
          createdAt: new Date(c.state.createdAt),
          updatedAt: new Date(c.state.updatedAt),
        });
      this.#setFields(p, c.state);
      placed.push([p, c.state]);
      touched.add(p);
    }
    for (const [p, state] of placed) {
      this.#setParent(p, state.parentUuid === null ? undefined : this.#byUuid.get(state.parentUuid));
    }
    for (const c of consumers) this.#setConsumer(c.uuid, c.state, touched);
    for (const c of providers) {
      if (c.state) continue;
      const p = this.#byUuid.get(c.uuid);
      if (p) {
        this.#removeProvider(p);
        touched.delete(p);
      }
    }
    for (const t of goneTraits) if (!this.#standardTraits.has(t)) this.#traits.delete(t);
    const standard = new Set<string>(STANDARD_RESOURCE_CLASSES);
    for (const rc of goneClasses) if (!standard.has(rc)) this.#classes.delete(rc);
    for (const p of touched) {
      for (const [rc, n] of p.usages) if (n === 0) p.usages.delete(rc);
      this.#syncUsage(p);
    }
    this.#revision += 1;
  }

  /**
   * Empties the store (standard traits and resource classes only, as a new
   * store has), before the whole state is applied again; synchronous, like
   * {@link applyChanges}.
   */
  reset(): void {
    for (const m of [
      this.#byUuid,
      this.#byName,
      this.#aggregateIndex,
      this.#traitIndex,
      this.#classIndex,
      this.#entries,
      this.#entryLists,
      this.#consumers,
      this.#traits,
      this.#classes,
      this.#trees,
    ])
      m.clear();
    this.#columns.length = 0;
    this.#ids.length = 0;
    this.#lastId = 0;
    this.#nextId = 1;
    this.#nested = 0;
    const now = this.#clock();
    for (const t of this.#standardTraits) this.#traits.set(t, now);
    for (const c of STANDARD_RESOURCE_CLASSES) this.#classes.set(c, now);
    this.#revision += 1;
  }

  /** A provider with nothing yet, kept in id order (`id` 0: the next free one). */
  #newProvider(init: { id: number; uuid: string; name: string; createdAt: Date; updatedAt: Date }): Provider {
    const id = init.id > 0 ? init.id : Math.max(this.#nextId, this.#lastId + 1);
    this.#nextId = Math.max(this.#nextId, id + 1);
    const provider = {
      id,
      uuid: init.uuid,
      uuidJson: JSON.stringify(init.uuid),
      name: init.name,
      generation: 0,
      parent: undefined,
      root: undefined as unknown as Provider,
      children: new Set<Provider>(),
      inventories: new Map<string, Inventory>(),
      usages: new Map<string, number>(),
      traits: new Set<string>(),
      aggregates: new Set<string>(),
      capacity: new Map<string, CapacityEntry>(),
      capacityByIndex: [],
      createdAt: init.createdAt,
      updatedAt: init.updatedAt,
    } satisfies Provider as Provider;
    provider.root = provider;
    setDense(this.#ids, id, provider);
    if (id > this.#lastId) {
      this.#byUuid.set(init.uuid, provider);
      this.#lastId = id;
    } else {
      // Rare: a provider numbered below the newest (restored, or created by
      // another server meanwhile). Map order is insertion order: rebuild it.
      const all = [...this.#byUuid.values(), provider].sort((a, b) => a.id - b.id);
      this.#byUuid.clear();
      for (const p of all) this.#byUuid.set(p.uuid, p);
    }
    this.#forgetTrees();
    return provider;
  }

  /** Everything of a provider but its parent and usages, from a state. */
  #setFields(p: Provider, state: ProviderState): void {
    p.name = state.name;
    this.#byName.set(p.name, p);
    p.generation = state.generation;
    p.createdAt = new Date(state.createdAt);
    p.updatedAt = new Date(state.updatedAt);
    for (const rc of [...p.inventories.keys()]) {
      if (rc in state.inventories) continue;
      p.inventories.delete(rc);
      this.#unindex(this.#classIndex, rc, p);
      this.#setEntry(p, rc, undefined);
    }
    for (const [rc, inv] of Object.entries(state.inventories)) {
      const current = p.inventories.get(rc);
      if (current && sameInventory(current, inv)) continue;
      p.inventories.set(rc, copyInventory(inv));
      this.#index(this.#classIndex, rc, p);
      this.#setEntry(p, rc, inv);
    }
    if (!sameList([...p.traits], state.traits)) {
      const wanted = new Set(state.traits);
      for (const t of p.traits) if (!wanted.has(t)) this.#unindex(this.#traitIndex, t, p);
      for (const t of wanted) this.#index(this.#traitIndex, t, p);
      p.traits.clear();
      for (const t of [...wanted].sort()) p.traits.add(t);
    }
    if (!sameList([...p.aggregates], state.aggregates)) {
      const wanted = new Set(state.aggregates);
      for (const a of p.aggregates) if (!wanted.has(a)) this.#unindex(this.#aggregateIndex, a, p);
      for (const a of wanted) this.#index(this.#aggregateIndex, a, p);
      p.aggregates.clear();
      for (const a of wanted) p.aggregates.add(a);
    }
  }

  // Clearing a map gives it a new table even when it is empty: a bulk load would make one per provider.
  #forgetTrees(): void {
    if (this.#trees.size) this.#trees.clear();
  }

  /** Moves `p` (with its subtree) under `parent`, or makes it a root; children stay in id order. */
  #setParent(p: Provider, parent: Provider | undefined): void {
    if (p.parent === parent) return;
    this.#forgetTrees();
    if (p.parent) {
      p.parent.children.delete(p);
      this.#nested -= 1;
    }
    p.parent = parent;
    if (parent) {
      const last = [...parent.children].at(-1);
      if (!last || last.id < p.id) parent.children.add(p);
      else {
        const all = [...parent.children, p].sort((a, b) => a.id - b.id);
        parent.children.clear();
        for (const c of all) parent.children.add(c);
      }
      this.#nested += 1;
    }
    // The root from the parent links (a guard against a loop a bad change could make).
    let root = p;
    for (let i = 0; root.parent && i <= this.#byUuid.size; i += 1) root = root.parent;
    const stack = [p];
    while (stack.length) {
      const q = stack.pop() as Provider;
      q.root = root;
      stack.push(...q.children);
    }
  }

  /** A consumer's allocations from a state (or none), with the usages they make. */
  #setConsumer(uuid: string, state: ConsumerState | null, touched: Set<Provider>): void {
    const old = this.#consumers.get(uuid);
    if (old) {
      for (const [rp, inner] of old.allocations) {
        const p = this.#byUuid.get(rp);
        if (!p) continue;
        for (const [rc, n] of inner) p.usages.set(rc, (p.usages.get(rc) ?? 0) - n);
        touched.add(p);
      }
    }
    if (!state) {
      this.#consumers.delete(uuid);
      return;
    }
    const allocations = new Map<string, Map<string, number>>();
    for (const [rp, resources] of Object.entries(state.allocations)) {
      const inner = new Map(Object.entries(resources));
      allocations.set(rp, inner);
      const p = this.#byUuid.get(rp);
      if (!p) continue;
      for (const [rc, n] of inner) p.usages.set(rc, (p.usages.get(rc) ?? 0) + n);
      touched.add(p);
    }
    this.#consumers.set(uuid, {
      uuid,
      projectId: state.projectId,
      userId: state.userId,
      consumerType: state.consumerType,
      generation: state.generation,
      allocations,
      createdAt: new Date(state.createdAt),
      updatedAt: new Date(state.updatedAt),
    });
  }

  /** Takes a provider out of every index (its children, if any, become roots). */
  #removeProvider(p: Provider): void {
    for (const rc of p.inventories.keys()) {
      this.#unindex(this.#classIndex, rc, p);
      this.#setEntry(p, rc, undefined);
    }
    for (const t of p.traits) this.#unindex(this.#traitIndex, t, p);
    for (const a of p.aggregates) this.#unindex(this.#aggregateIndex, a, p);
    for (const child of [...p.children]) this.#setParent(child, undefined);
    if (p.parent) this.#setParent(p, undefined);
    this.#trees.clear();
    this.#byUuid.delete(p.uuid);
    if (this.#byName.get(p.name) === p) this.#byName.delete(p.name);
    if (this.#ids[p.id] === p) this.#ids[p.id] = undefined;
    while (this.#lastId > 0 && !this.#ids[this.#lastId]) this.#lastId -= 1;
  }

  // -------------------------------------------------------------------------
  // Vocabulary

  /** Creates a custom trait; returns false when it already existed. Throws 400 for a non-custom name. */
  createTrait(name: string): boolean {
    if (this.#traits.has(name)) return false;
    if (!isCustomTrait(name)) {
      throw badRequest(
        `The trait name ${name} is not a custom trait (CUSTOM_[A-Z0-9_]+).`,
        'placement-query/invalid-trait',
      );
    }
    this.#noteTrait(name);
    this.#traits.set(name, this.#clock());
    this.#revision += 1;
    return true;
  }

  /** Deletes a custom trait (404 unknown, 400 standard, 409 in use). */
  deleteTrait(name: string): void {
    if (!this.#traits.has(name))
      throw notFound(`No such trait(s): ${name}.`, 'placement-query/trait-not-found');
    if (this.#standardTraits.has(name)) {
      throw badRequest(`Cannot delete standard trait ${name}.`, 'placement-query/standard-trait');
    }
    if (this.withTrait(name).size) {
      throw conflict(
        `The trait ${name} is in use by a resource provider.`,
        PLACEMENT_ERROR_CODES.default,
        'placement-query/trait-in-use',
      );
    }
    this.#noteTrait(name);
    this.#traits.delete(name);
    this.#revision += 1;
  }

  /** Creates a custom resource class (`CUSTOM_[A-Z0-9_]+`); returns false when it already existed. */
  createResourceClass(name: string): boolean {
    if (this.#classes.has(name)) return false;
    if (!isResourceClassName(name)) {
      throw badRequest(
        `The resource class name ${JSON.stringify(name)} is not a custom resource class (CUSTOM_[A-Z0-9_]+).`,
        'placement-query/invalid-resource-class',
      );
    }
    this.#noteClass(name);
    this.#classes.set(name, this.#clock());
    this.#revision += 1;
    return true;
  }

  /** Renames a custom resource class everywhere it is used (400 standard, 409 taken). */
  renameResourceClass(from: string, to: string): void {
    if (!this.#classes.has(from))
      throw notFound(`No such resource class ${from}.`, 'placement-query/resource-class-not-found');
    if ((STANDARD_RESOURCE_CLASSES as readonly string[]).includes(from)) {
      throw badRequest(
        `Cannot update standard resource class ${from}`,
        'placement-query/standard-resource-class',
      );
    }
    if (from === to) return;
    if (!isResourceClassName(to)) {
      throw badRequest(
        `The resource class name ${JSON.stringify(to)} is not a custom resource class.`,
        'placement-query/invalid-resource-class',
      );
    }
    if (this.#classes.has(to)) {
      throw conflict(
        `Resource class already exists: ${to}`,
        PLACEMENT_ERROR_CODES.default,
        'placement-query/duplicate-resource-class',
      );
    }
    if (this.#recorder) {
      this.#noteClass(from);
      this.#noteClass(to);
      this.#recorder.renames.push({ from, to });
      for (const p of this.#byUuid.values()) {
        if (p.inventories.has(from) || p.usages.has(from)) this.#noteProvider(p.uuid);
      }
      for (const c of this.#consumers.values()) {
        for (const inner of c.allocations.values()) if (inner.has(from)) this.#noteConsumer(c.uuid);
      }
    }
    const rename = <V>(m: Map<string, V>) => {
      if (!m.has(from)) return;
      const v = m.get(from) as V;
      m.delete(from);
      m.set(to, v);
    };
    this.#classes.set(to, this.#classes.get(from) as Date);
    this.#classes.delete(from);
    rename(this.#classIndex);
    rename(this.#entries);
    this.#entryLists.clear();
    for (const p of this.#byUuid.values()) {
      const moved = p.capacity.get(from);
      this.#writeColumn(p, this.classIndexOf(from), undefined);
      if (moved) this.#writeColumn(p, this.classIndexOf(to), moved);
      rename(p.capacity);
      const e = p.capacity.get(to);
      const fromIndex = this.classIndexOf(from);
      if (fromIndex < p.capacityByIndex.length) p.capacityByIndex[fromIndex] = undefined;
      if (e) setDense(p.capacityByIndex, this.classIndexOf(to), e);
    }
    for (const p of this.#byUuid.values()) {
      rename(p.inventories);
      rename(p.usages);
    }
    for (const c of this.#consumers.values()) for (const inner of c.allocations.values()) rename(inner);
    this.#revision += 1;
  }

  /** Deletes a custom resource class (404 unknown, 400 standard, 409 in use). */
  deleteResourceClass(name: string): void {
    if (!this.#classes.has(name)) {
      throw notFound(`No such resource class ${name}.`, 'placement-query/resource-class-not-found');
    }
    if ((STANDARD_RESOURCE_CLASSES as readonly string[]).includes(name)) {
      throw badRequest(
        `Cannot delete standard resource class ${name}: Cannot delete standard resource class.`,
        'placement-query/standard-resource-class',
      );
    }
    if (this.withInventory(name).size) {
      throw conflict(
        `Unable to delete resource class ${name}: Cannot delete resource class ${name}. Class is in use in inventory.`,
        PLACEMENT_ERROR_CODES.default,
        'placement-query/resource-class-in-use',
      );
    }
    this.#noteClass(name);
    this.#classes.delete(name);
    this.#revision += 1;
  }

  // -------------------------------------------------------------------------
  // Providers

  /**
   * Creates a provider. `parentUuid` must name an existing provider; the new
   * one joins its tree. Throws 409 for a taken name or uuid.
   */
  createProvider(input: { name: string; uuid: string; parentUuid?: string | null }): Provider {
    const { name, uuid } = input;
    if (!HYPHENATED_UUID.test(uuid) && !isUuidLike(uuid)) {
      throw badRequest(
        `The provider uuid ${JSON.stringify(uuid)} is not a UUID.`,
        'placement-query/invalid-uuid',
        '/uuid',
      );
    }
    const dupes: string[] = [];
    if (this.#byUuid.has(uuid)) dupes.push(`uuid: ${uuid}`);
    if (this.#byName.has(name)) dupes.push(`name: ${name}`);
    if (dupes.length) {
      throw conflict(
        `Conflicting resource provider ${dupes.join(', ')} already exists.`,
        PLACEMENT_ERROR_CODES.duplicateName,
        'placement-query/duplicate-provider',
      );
    }
    let parent: Provider | undefined;
    if (input.parentUuid != null) {
      const reason =
        input.parentUuid === uuid
          ? 'parent provider UUID cannot be same as UUID. Please set parent provider UUID to None if there is no parent.'
          : this.#byUuid.has(input.parentUuid)
            ? undefined
            : 'parent provider UUID does not exist.';
      if (reason) {
        throw badRequest(
          `Unable to create resource provider "${name}", ${uuid}: Object action create failed because: ${reason}`,
          'placement-query/invalid-parent',
          '/parent_provider_uuid',
        );
      }
      parent = this.#byUuid.get(input.parentUuid);
    }
    this.#noteProvider(uuid);
    const now = this.#clock();
    const provider = this.#newProvider({ id: 0, uuid, name, createdAt: now, updatedAt: now });
    if (parent) this.#setParent(provider, parent);
    this.#byName.set(name, provider);
    this.#revision += 1;
    return provider;
  }

  /**
   * Renames and/or re-parents a provider. Re-parenting or un-parenting a
   * child needs `allowReparenting` (microversion 1.37); a loop is refused.
   */
  updateProvider(
    uuid: string,
    changes: { name?: string; parentUuid?: string | null },
    options: { allowReparenting?: boolean } = {},
  ): Provider {
    const p = this.requireProvider(uuid);
    if (changes.name !== undefined && changes.name !== p.name) {
      if (this.#byName.has(changes.name)) {
        throw conflict(
          `Conflicting resource provider ${changes.name} already exists.`,
          PLACEMENT_ERROR_CODES.duplicateName,
          'placement-query/duplicate-provider',
        );
      }
    }
    const fail = (action: string, reason: string) =>
      badRequest(
        `Unable to save resource provider ${uuid}: Object action ${action} failed because: ${reason}`,
        'placement-query/invalid-parent',
        '/parent_provider_uuid',
      );
    let newParent: Provider | undefined | null = null; // null: unchanged
    if (changes.parentUuid !== undefined) {
      if (changes.parentUuid !== null) {
        const target = this.#byUuid.get(changes.parentUuid);
        if (!target) throw fail('create', 'parent provider UUID does not exist.');
        if (p.parent && p.parent !== target && !options.allowReparenting) {
          throw fail('update', 're-parenting a provider is not currently allowed.');
        }
        if (target === p || this.#isDescendant(target, p)) {
          throw fail('update', 'creating loop in the provider tree is not allowed.');
        }
        if (target !== p.parent) newParent = target;
      } else if (p.parent) {
        if (!options.allowReparenting)
          throw fail('update', 'un-parenting a provider is not currently allowed.');
        newParent = undefined;
      }
    }
    this.#noteProvider(uuid);
    if (changes.name !== undefined && changes.name !== p.name) {
      this.#byName.delete(p.name);
      p.name = changes.name;
      this.#byName.set(p.name, p);
    }
    if (newParent !== null) this.#setParent(p, newParent);
    p.updatedAt = this.#clock();
    this.#revision += 1;
    return p;
  }

  #isDescendant(candidate: Provider, ancestor: Provider): boolean {
    for (let q = candidate.parent; q; q = q.parent) if (q === ancestor) return true;
    return false;
  }

  /** Deletes a provider (404 unknown, 409 with children or allocations). */
  deleteProvider(uuid: string): void {
    const p = this.#byUuid.get(uuid);
    if (!p) {
      throw notFound(
        `No resource provider with uuid ${uuid} found for delete`,
        'placement-query/provider-not-found',
      );
    }
    if (p.children.size) {
      throw conflict(
        `Unable to delete parent resource provider ${uuid}: It has child resource providers.`,
        PLACEMENT_ERROR_CODES.cannotDeleteParent,
        'placement-query/provider-has-children',
      );
    }
    for (const used of p.usages.values()) {
      if (used > 0) {
        throw conflict(
          `Unable to delete resource provider ${uuid}: Resource provider has allocations.`,
          PLACEMENT_ERROR_CODES.providerInUse,
          'placement-query/provider-in-use',
        );
      }
    }
    this.#noteProvider(uuid);
    this.#removeProvider(p);
    this.#revision += 1;
  }

  #unindex(index: Map<string, Set<Provider>>, key: string, p: Provider): void {
    const set = index.get(key);
    if (!set) return;
    set.delete(p);
    if (!set.size) index.delete(key);
  }

  #index(index: Map<string, Set<Provider>>, key: string, p: Provider): void {
    let set = index.get(key);
    if (!set) {
      set = new Set();
      index.set(key, set);
    }
    set.add(p);
  }

  /** Throws Placement's 409 when `generation` is given and stale. */
  checkGeneration(p: Provider, generation: number | undefined): void {
    if (generation !== undefined && generation !== p.generation) {
      throw conflict(
        'resource provider generation conflict',
        PLACEMENT_ERROR_CODES.concurrentUpdate,
        'placement-query/generation-conflict',
      );
    }
  }

  #touch(p: Provider): void {
    p.generation += 1;
    p.updatedAt = this.#clock();
    this.#revision += 1;
  }

  /**
   * Replaces a provider's whole inventory. Classes must exist; removing a
   * class with allocations is a 409 (`placement.inventory.inuse`).
   */
  setInventories(uuid: string, inventories: Record<string, Inventory>, generation?: number): Provider {
    const p = this.requireProvider(uuid);
    this.checkGeneration(p, generation);
    for (const rc of Object.keys(inventories)) {
      if (!this.#classes.has(rc)) {
        throw badRequest(
          `Unknown resource class in inventory for resource provider ${uuid}: No such resource class ${rc}.`,
          'placement-query/unknown-resource-class',
        );
      }
    }
    const removed = p.inventories.size ? [...p.inventories.keys()].filter((rc) => !(rc in inventories)) : [];
    const inUse = removed.filter((rc) => (p.usages.get(rc) ?? 0) > 0);
    if (inUse.length) {
      throw conflict(
        `update conflict: Inventory for '${inUse.join(', ')}' on resource provider '${uuid}' in use.`,
        PLACEMENT_ERROR_CODES.inventoryInUse,
        'placement-query/inventory-in-use',
      );
    }
    this.#noteProvider(uuid);
    for (const rc of removed) {
      p.inventories.delete(rc);
      this.#unindex(this.#classIndex, rc, p);
      this.#setEntry(p, rc, undefined);
    }
    for (const [rc, inv] of Object.entries(inventories)) {
      p.inventories.set(rc, copyInventory(inv));
      this.#index(this.#classIndex, rc, p);
      this.#setEntry(p, rc, inv);
    }
    this.#touch(p);
    return p;
  }

  /** Replaces a provider's traits; every trait must exist. */
  setTraits(uuid: string, traits: Iterable<string>, generation?: number): Provider {
    const p = this.requireProvider(uuid);
    this.checkGeneration(p, generation);
    const wanted = new Set(traits);
    const unknown: string[] = [];
    for (const t of wanted) if (!this.#traits.has(t)) unknown.push(t);
    if (unknown.length) {
      throw badRequest(`No such trait(s): ${unknown.join(', ')}.`, 'placement-query/unknown-trait');
    }
    this.#noteProvider(uuid);
    for (const t of p.traits) if (!wanted.has(t)) this.#unindex(this.#traitIndex, t, p);
    for (const t of wanted) this.#index(this.#traitIndex, t, p);
    p.traits.clear();
    // Kept in sorted order, the order every answer lists them in.
    for (const t of wanted.size > 1 ? [...wanted].sort() : wanted) p.traits.add(t);
    this.#touch(p);
    return p;
  }

  /** Replaces a provider's aggregates. */
  setAggregates(uuid: string, aggregates: Iterable<string>, generation?: number): Provider {
    const p = this.requireProvider(uuid);
    this.checkGeneration(p, generation);
    const wanted = new Set(aggregates);
    this.#noteProvider(uuid);
    for (const a of p.aggregates) if (!wanted.has(a)) this.#unindex(this.#aggregateIndex, a, p);
    for (const a of wanted) this.#index(this.#aggregateIndex, a, p);
    p.aggregates.clear();
    for (const a of wanted) p.aggregates.add(a);
    this.#touch(p);
    return p;
  }

  // -------------------------------------------------------------------------
  // Allocations

  /**
   * Replaces a consumer's allocations (an empty map deletes them). Every
   * amount must fit the provider's inventory constraints and capacity,
   * counting the consumer's own old allocations as freed. As in Placement,
   * each provider the new allocations name gets a new generation (for an
   * empty map, each provider of the old ones), unless `bumpGenerations` is
   * false (what `DELETE /allocations/{consumer}` does).
   */
  setAllocations(
    consumerUuid: string,
    allocations: Record<string, Record<string, number>>,
    owner: { projectId: string; userId: string; consumerType?: string },
    bumpGenerations = true,
  ): Consumer | undefined {
    const old = this.#consumers.get(consumerUuid);
    const providers = new Map<string, Provider>();
    for (const rpUuid of Object.keys(allocations)) {
      const p = this.#byUuid.get(rpUuid);
      if (!p) {
        throw badRequest(
          `Unable to allocate inventory: Resource provider '${rpUuid}' not found.`,
          'placement-query/provider-not-found',
        );
      }
      providers.set(rpUuid, p);
    }
    const freed = (rpUuid: string, rc: string) => old?.allocations.get(rpUuid)?.get(rc) ?? 0;
    // Placement first looks for providers with no inventory of any class the
    // request names, and reports every requested class (in its class-id order)
    // against them, before it checks amounts one by one.
    const requested = [...new Set(Object.values(allocations).flatMap((resources) => Object.keys(resources)))];
    const missing = [...providers.values()].filter((p) => !requested.some((rc) => p.inventories.has(rc)));
    if (missing.length) {
      const order = this.resourceClassNames();
      requested.sort((a, b) => order.indexOf(a) - order.indexOf(b));
      throw conflict(
        `Unable to allocate inventory: Inventory for '${requested.join(', ')}' on resource provider '${missing.map((p) => p.uuid).join(', ')}' invalid.`,
        PLACEMENT_ERROR_CODES.default,
        'placement-query/no-inventory',
      );
    }
    for (const [rpUuid, resources] of Object.entries(allocations)) {
      const p = providers.get(rpUuid) as Provider;
      for (const [rc, amount] of Object.entries(resources)) {
        if (amount === 0) continue;
        const inv = p.inventories.get(rc);
        if (!inv) {
          throw conflict(
            `Unable to allocate inventory: Inventory for '${rc}' on resource provider '${rpUuid}' invalid.`,
            PLACEMENT_ERROR_CODES.default,
            'placement-query/no-inventory',
          );
        }
        if (amount < inv.min_unit || amount > inv.max_unit || amount % inv.step_size !== 0) {
          throw conflict(
            `Unable to allocate inventory: Unable to create allocation for '${rc}' on resource provider '${rpUuid}'. The requested amount would violate inventory constraints.`,
            PLACEMENT_ERROR_CODES.default,
            'placement-query/allocation-constraints',
          );
        }
        const used = (p.usages.get(rc) ?? 0) - freed(rpUuid, rc);
        if ((inv.total - inv.reserved) * inv.allocation_ratio < used + amount) {
          throw conflict(
            `Unable to allocate inventory: Unable to create allocation for '${rc}' on resource provider '${rpUuid}'. The requested amount would exceed the capacity.`,
            PLACEMENT_ERROR_CODES.default,
            'placement-query/capacity-exceeded',
          );
        }
      }
    }
    this.#noteConsumer(consumerUuid);
    for (const rpUuid of [...(old?.allocations.keys() ?? []), ...providers.keys()])
      this.#noteProvider(rpUuid);
    // Placement bumps the generation of the providers the new allocations
    // name; an empty PUT names the old ones (with amount 0), and DELETE
    // /allocations/{consumer} bumps none.
    const touched = new Set<Provider>();
    const bumped = new Set<Provider>();
    const emptying = !Object.keys(allocations).length;
    if (old) {
      for (const [rpUuid, resources] of old.allocations) {
        const p = this.#byUuid.get(rpUuid);
        if (!p) continue;
        for (const [rc, amount] of resources) p.usages.set(rc, (p.usages.get(rc) ?? 0) - amount);
        touched.add(p);
        if (emptying && bumpGenerations) bumped.add(p);
      }
    }
    const now = this.#clock();
    const map = new Map<string, Map<string, number>>();
    for (const [rpUuid, resources] of Object.entries(allocations)) {
      const p = providers.get(rpUuid) as Provider;
      const inner = new Map<string, number>();
      for (const [rc, amount] of Object.entries(resources)) {
        if (amount === 0) continue;
        inner.set(rc, amount);
        p.usages.set(rc, (p.usages.get(rc) ?? 0) + amount);
      }
      if (inner.size) map.set(rpUuid, inner);
      touched.add(p);
      if (bumpGenerations) bumped.add(p);
    }
    for (const p of touched) {
      for (const [rc, n] of p.usages) if (n === 0) p.usages.delete(rc);
      this.#syncUsage(p);
      if (bumped.has(p)) this.#touch(p);
    }
    this.#revision += 1;
    if (!map.size) {
      this.#consumers.delete(consumerUuid);
      this.#revision += 1;
      return undefined;
    }
    const consumer: Consumer = {
      uuid: consumerUuid,
      projectId: owner.projectId,
      userId: owner.userId,
      consumerType: owner.consumerType ?? old?.consumerType ?? 'unknown',
      generation: old ? old.generation + 1 : 1,
      allocations: map,
      createdAt: old?.createdAt ?? now,
      updatedAt: now,
    };
    this.#consumers.set(consumerUuid, consumer);
    this.#revision += 1;
    return consumer;
  }

  /** Removes a consumer's allocations (404 when it has none). */
  deleteAllocations(consumerUuid: string): void {
    const c = this.#consumers.get(consumerUuid);
    if (!c) {
      throw notFound(`No allocations for consumer '${consumerUuid}'`, 'placement-query/consumer-not-found');
    }
    this.setAllocations(consumerUuid, {}, { projectId: c.projectId, userId: c.userId }, false);
  }
}

const EMPTY: ReadonlySet<Provider> = new Set();

/** The usual spelling of a UUID, which `isUuidLike` accepts: checked first, without its rewriting. */
const HYPHENATED_UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

/** What {@link ProviderStore.stage} gives back. */
export interface StagedWrite<T> {
  /** What the staged writes returned. */
  value: T;
  /** The state of everything they changed, after them; empty when nothing changed. */
  changes: PlacementChange[];
  /** The state of everything they touched, before them (applying it undoes `changes`). */
  before: PlacementChange[];
}

/** The state of what a staged write touched, before it did (null: it did not exist). */
interface Recorder {
  providers: Map<string, ProviderState | null>;
  consumers: Map<string, ConsumerState | null>;
  traits: Map<string, string | null>;
  classes: Map<string, string | null>;
  renames: { from: string; to: string }[];
}

function beforeChanges(rec: Recorder): PlacementChange[] {
  const out: PlacementChange[] = [];
  for (const r of [...rec.renames].reverse())
    out.push({ type: 'rename-resource-class', from: r.to, to: r.from });
  for (const [name, createdAt] of rec.traits) out.push({ type: 'trait', name, createdAt });
  for (const [name, createdAt] of rec.classes) out.push({ type: 'resource-class', name, createdAt });
  for (const [uuid, state] of rec.providers) out.push({ type: 'provider', uuid, state });
  for (const [uuid, state] of rec.consumers) out.push({ type: 'consumer', uuid, state });
  return out;
}

function sameState(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

function sameInventory(a: Inventory, b: Inventory): boolean {
  return (
    a.total === b.total &&
    a.reserved === b.reserved &&
    a.min_unit === b.min_unit &&
    a.max_unit === b.max_unit &&
    a.step_size === b.step_size &&
    a.allocation_ratio === b.allocation_ratio
  );
}

/**
 * A copy of an inventory record as one literal: every copy shares one shape
 * (a spread copies whatever shape its input had, and is several times
 * slower). Keys in the order a spread of {@link INVENTORY_DEFAULTS} with a
 * total gives, which is how loaded and requested inventories are built.
 */
function copyInventory(inv: Inventory): Inventory {
  return {
    reserved: inv.reserved,
    min_unit: inv.min_unit,
    max_unit: inv.max_unit,
    step_size: inv.step_size,
    allocation_ratio: inv.allocation_ratio,
    total: inv.total,
  };
}

// Filled without holes, so reads stay on V8's fast path (readers check the length).
function setDense<T>(list: (T | undefined)[], index: number, value: T): void {
  while (list.length < index) list.push(undefined);
  list[index] = value;
}

/**
 * An empty in-memory Placement: the standard traits of the chosen os-traits
 * release and the standard resource classes, no providers.
 *
 * @example
 * const store = createProviderStore();
 * const cn = store.createProvider({ name: 'cn1', uuid: randomUUID() });
 * store.setInventories(cn.uuid, { VCPU: { ...INVENTORY_DEFAULTS, total: 8 } });
 */
export function createProviderStore(options: ProviderStoreOptions = {}): ProviderStore {
  return new ProviderStore(options);
}
