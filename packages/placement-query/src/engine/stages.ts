// The filters of both query endpoints as named stages. The engine's fast
// paths (candidates.ts, providers.ts) ask these predicates whether a provider
// passes; explain.ts asks the same predicates where a provider stops, and
// counts. One predicate per stage, used by both, is what keeps an
// explanation true to the answer; test/explain.property.test.ts checks that
// the counts end where the engine's answer does.
import { z } from 'zod';
import { type CapacityColumns, columnFits, type Provider, type ProviderStore } from '../model/store.js';
import type { RequestGroup, ResourceProvidersRequest, RootRequired } from '../request.js';
import { evaluationError, firstUnknown, providersWithTraits } from './common.js';

/**
 * The stages an explanation reports, by name. Per group: `resource-class`
 * (has inventory of the class), `capacity` (room for the amount, one stage
 * per class), `required-traits`, `forbidden-traits`, `any-traits` (`in:`
 * sets), `member-of`, `forbidden-aggregates`, `in-tree`, `root-required`,
 * `positive-filter` (a group without resources matches nothing unless it
 * has required traits or member_of). Per request: `same-tree` (every group
 * served at one anchor), `group-policy`, `summed-capacity` (amounts of
 * several groups on one provider), `same-subtree`, `sharing` (the same
 * candidate reached through two anchors), `one-per-tree` (before 1.29) and
 * `limit`. `/resource_providers` adds `name` and `uuid`.
 */
export const StageIdSchema = z.enum([
  'name',
  'uuid',
  'resource-class',
  'capacity',
  'required-traits',
  'forbidden-traits',
  'any-traits',
  'member-of',
  'forbidden-aggregates',
  'in-tree',
  'root-required',
  'positive-filter',
  'same-tree',
  'group-policy',
  'summed-capacity',
  'same-subtree',
  'sharing',
  'one-per-tree',
  'limit',
]);
/** The name of a stage. */
export type StageId = z.infer<typeof StageIdSchema>;

/** One stage of a filter's layout; `resourceClass` and `amount` for capacity stages. */
export interface StageSpec {
  readonly id: StageId;
  readonly resourceClass?: string;
  readonly amount?: number;
}

/** What a stage predicate returns for a provider that passes every stage. */
export const PASSED = 0x7fff;

/** Whether provider `id` has inventory of the class at all (capacity or not). */
export function hasInventory(c: CapacityColumns | undefined, id: number): boolean {
  if (c === undefined || id >= c.limit.length) return false;
  const limit = c.limit[id] as number;
  return !Number.isNaN(limit); // NaN marks "no inventory"
}

/**
 * How a request group is judged: `one-provider` (a suffixed group, or the
 * unsuffixed one in a store without trees and sharing providers) keeps
 * providers; `tree` (the unsuffixed group where trees or sharing providers
 * exist) keeps anchors whose tree, with the sharing providers it may borrow
 * from, has a provider for every class.
 */
export type GroupMode = 'one-provider' | 'tree';

type Holders = readonly ReadonlySet<Provider>[];

/** Whether `p` is in one of the sets (an index lookup by identity, no string hashing). */
function inSome(sets: Holders, p: Provider): boolean {
  for (let i = 0; i < sets.length; i += 1) if ((sets[i] as ReadonlySet<Provider>).has(p)) return true;
  return false;
}

/** Whether `p` is in one set of every list. */
function inEvery(lists: readonly Holders[], p: Provider): boolean {
  for (let i = 0; i < lists.length; i += 1) if (!inSome(lists[i] as Holders, p)) return false;
  return true;
}

/** Whether `p` is in every set. */
function inAll(sets: Holders, p: Provider): boolean {
  for (let i = 0; i < sets.length; i += 1) if (!(sets[i] as ReadonlySet<Provider>).has(p)) return false;
  return true;
}

/**
 * The first capacity stage provider `id` fails (`capacityAt + k`), or the
 * resource class stage when it lacks some class altogether: every class is
 * looked for before any capacity is judged. -1 when every class fits.
 */
function capacityFailure(
  columns: readonly (CapacityColumns | undefined)[],
  amounts: readonly number[],
  id: number,
  resourceClassAt: number,
  capacityAt: number,
): number {
  const n = columns.length;
  for (let k = 0; k < n; k += 1) {
    if (columnFits(columns[k], id, amounts[k] as number)) continue;
    for (let j = 0; j < n; j += 1) if (!hasInventory(columns[j], id)) return resourceClassAt;
    return capacityAt + k;
  }
  return -1;
}

/** The filters both endpoints share, as a request group or a `GET /resource_providers` query states them. */
export type SharedFilters = Pick<
  ResourceProvidersRequest,
  'resources' | 'requiredTraits' | 'forbiddenTraits' | 'memberOf' | 'forbiddenAggregates' | 'inTree'
>;

/**
 * What {@link GroupFilter} and {@link ProvidersFilter} both judge, compiled
 * once per evaluation: the classes with their amounts and capacity columns,
 * and traits and aggregates as the store's index sets, so that each test is
 * a lookup by identity.
 */
export abstract class CompiledFilters {
  readonly classes: readonly string[];
  readonly amounts: readonly number[];
  readonly columns: readonly (CapacityColumns | undefined)[];
  /** Single-trait sets of `required` (all needed). */
  readonly requiredSingles: readonly string[];
  /** `in:` sets of `required` (one of each needed). */
  readonly anySets: readonly (readonly string[])[];
  /** The root of `in_tree`'s provider; `null` when `in_tree` names no provider. */
  readonly treeRoot: Provider | null | undefined;
  protected readonly required: Holders;
  protected readonly forbidden: Holders;
  protected readonly any: readonly Holders[];
  protected readonly memberOf: readonly Holders[];
  protected readonly forbiddenAggregates: Holders;

  constructor(store: ProviderStore, q: SharedFilters) {
    const resources = q.resources ?? {};
    this.classes = Object.keys(resources);
    this.amounts = this.classes.map((rc) => resources[rc] as number);
    this.columns = this.classes.map((rc) =>
      store.hasResourceClass(rc) ? store.columnsOf(store.classIndexOf(rc)) : undefined,
    );
    this.requiredSingles = q.requiredTraits.filter((s) => s.length === 1).map((s) => s[0] as string);
    this.anySets = q.requiredTraits.filter((s) => s.length > 1);
    this.required = this.requiredSingles.map((t) => store.withTrait(t));
    this.any = this.anySets.map((set) => set.map((t) => store.withTrait(t)));
    this.forbidden = q.forbiddenTraits.map((t) => store.withTrait(t));
    this.memberOf = q.memberOf.map((set) => set.map((a) => store.inAggregate(a)));
    this.forbiddenAggregates = q.forbiddenAggregates.map((a) => store.inAggregate(a));
    this.treeRoot = q.inTree === undefined ? undefined : (store.provider(q.inTree)?.root ?? null);
  }
}

/**
 * A request group's filters, compiled once per evaluation (traits and
 * aggregates become the store's index sets, so each test is a lookup by
 * identity). In `one-provider` mode {@link GroupFilter.failsAt} judges a
 * provider against every per-provider stage in the order of
 * {@link GroupFilter.stages}; in `tree` mode {@link GroupFilter.classFailsAt}
 * judges a provider as the source of one class of the group and
 * {@link GroupFilter.anchorFailsAt} the anchor, the traits being judged on
 * the providers picked together. Each returns the index of the first stage
 * failed, or {@link PASSED}.
 */
export class GroupFilter extends CompiledFilters {
  /** Whether the group has required traits or member_of (a resourceless group needs one). */
  readonly hasPositiveFilter: boolean;
  readonly resourceClassAt = 0;
  readonly capacityAt = 1;
  readonly requiredAt: number;
  readonly forbiddenAt: number;
  readonly anyAt: number;
  readonly memberAt: number;
  readonly forbiddenAggregatesAt: number;
  readonly inTreeAt: number;
  readonly rootRequiredAt: number;
  /** Only in `one-provider` mode (-1 otherwise). */
  readonly positiveFilterAt: number;
  /** Nothing but capacity to judge per provider in `tree` mode. */
  private readonly plain: boolean;

  constructor(
    store: ProviderStore,
    readonly group: RequestGroup,
    readonly mode: GroupMode,
  ) {
    super(store, group);
    this.hasPositiveFilter = group.requiredTraits.length > 0 || group.memberOf.length > 0;
    this.plain =
      !group.forbiddenTraits.length &&
      !group.memberOf.length &&
      !group.forbiddenAggregates.length &&
      this.treeRoot === undefined;
    // The layout of the stages (see `stages`), as offsets past the capacity stages.
    const n = this.classes.length;
    if (mode === 'one-provider') {
      this.requiredAt = n + 1;
      this.forbiddenAt = n + 2;
      this.anyAt = n + 3;
      this.memberAt = n + 4;
      this.forbiddenAggregatesAt = n + 5;
      this.inTreeAt = n + 6;
      this.rootRequiredAt = n + 7;
      this.positiveFilterAt = n + 8;
    } else {
      // Traits of a tree group are judged on the providers an allocation
      // uses together, after they are picked: those stages come last.
      this.forbiddenAt = n + 1;
      this.memberAt = n + 2;
      this.forbiddenAggregatesAt = n + 3;
      this.inTreeAt = n + 4;
      this.rootRequiredAt = n + 5;
      this.requiredAt = n + 6;
      this.anyAt = n + 7;
      this.positiveFilterAt = -1;
    }
  }

  /** The stages in the order they are applied: what the indexes the predicates return stand for. */
  get stages(): StageSpec[] {
    const stages: StageSpec[] = [{ id: 'resource-class' }];
    this.classes.forEach((rc, k) => {
      stages.push({ id: 'capacity', resourceClass: rc, amount: this.amounts[k] as number });
    });
    const at: [number, StageId][] = [
      [this.requiredAt, 'required-traits'],
      [this.forbiddenAt, 'forbidden-traits'],
      [this.anyAt, 'any-traits'],
      [this.memberAt, 'member-of'],
      [this.forbiddenAggregatesAt, 'forbidden-aggregates'],
      [this.inTreeAt, 'in-tree'],
      [this.rootRequiredAt, 'root-required'],
      [this.positiveFilterAt, 'positive-filter'],
    ];
    for (const [index, id] of at.filter(([i]) => i >= 0).sort((a, b) => a[0] - b[0])) stages[index] = { id };
    return stages;
  }

  /** `one-provider` mode: the index of the first stage `p` fails, or {@link PASSED}. */
  failsAt(p: Provider): number {
    if (this.columns.length) {
      const capacity = capacityFailure(this.columns, this.amounts, p.id, 0, 1);
      if (capacity >= 0) return capacity;
    }
    // Length tests first: most groups have few of these filters, and a call saved per provider counts.
    if (this.required.length && !inAll(this.required, p)) return this.requiredAt;
    if (this.forbidden.length && inSome(this.forbidden, p)) return this.forbiddenAt;
    if (this.any.length && !inEvery(this.any, p)) return this.anyAt;
    if (this.memberOf.length && !inEvery(this.memberOf, p)) return this.memberAt;
    if (this.forbiddenAggregates.length && inSome(this.forbiddenAggregates, p))
      return this.forbiddenAggregatesAt;
    // Placement applies in_tree to its lookups by resource class only: a
    // group without resources is not confined to the tree (an unknown
    // provider still matches nothing).
    const root = this.treeRoot;
    if (root === null) return this.inTreeAt;
    if (root !== undefined && this.columns.length > 0 && p.root !== root) return this.inTreeAt;
    return PASSED;
  }

  /**
   * `tree` mode: whether `q` can give class `k` to the tree anchored at a
   * root that is (`anchorIn`) or is not in the member_of aggregates; a root
   * in them covers its whole tree. `borrowed` is a sharing provider of
   * another tree, which must be in the aggregates itself and is never used
   * under in_tree.
   */
  classFailsAt(q: Provider, k: number, anchorIn: boolean, borrowed: boolean): number {
    const column = this.columns[k];
    const id = q.id;
    if (!columnFits(column, id, this.amounts[k] as number))
      return hasInventory(column, id) ? this.capacityAt + k : this.resourceClassAt;
    if (this.plain) return PASSED;
    if (this.forbidden.length && inSome(this.forbidden, q)) return this.forbiddenAt;
    if (this.memberOf.length && (borrowed || !anchorIn) && !inEvery(this.memberOf, q)) return this.memberAt;
    if (this.forbiddenAggregates.length && inSome(this.forbiddenAggregates, q))
      return this.forbiddenAggregatesAt;
    if (borrowed && this.treeRoot !== undefined) return this.inTreeAt;
    return PASSED;
  }

  /**
   * `tree` mode, the stages judged on the anchor itself: a root in a
   * forbidden aggregate (which covers the tree), `in_tree` and
   * root_required.
   */
  anchorFailsAt(anchor: Provider, anchorRoots: ReadonlySet<Provider> | undefined): number {
    if (inSome(this.forbiddenAggregates, anchor)) return this.forbiddenAggregatesAt;
    const root = this.treeRoot;
    if (root === null || (root !== undefined && anchor !== root)) return this.inTreeAt;
    if (anchorRoots && !anchorRoots.has(anchor)) return this.rootRequiredAt;
    return PASSED;
  }

  /** Whether `p` is in an aggregate of every member_of set (false without member_of). */
  isMember(p: Provider): boolean {
    return this.memberOf.length > 0 && inEvery(this.memberOf, p);
  }
}

/**
 * The roots candidates may be anchored at under root_required (undefined
 * without it), raising Placement's 400 for an unknown trait; an empty set
 * means nothing can match.
 */
export function anchorRootsFor(
  store: ProviderStore,
  rootRequired: RootRequired | undefined,
): Set<Provider> | undefined {
  if (!rootRequired || (!rootRequired.required.length && !rootRequired.forbidden.length)) return undefined;
  const { required, forbidden } = rootRequired;
  const unknown =
    firstUnknown(required, (t) => store.hasTrait(t)) ?? firstUnknown(forbidden, (t) => store.hasTrait(t));
  if (unknown)
    throw evaluationError(`No such trait(s): ${unknown}.`, 'placement-query/unknown-trait', 'root_required');
  const roots = new Set<Provider>();
  const base = required.length
    ? providersWithTraits(
        store,
        required.map((t) => [t]),
      )
    : store.providers();
  for (const p of base) if (rootPasses(p, rootRequired)) roots.add(p);
  return roots;
}

/** Whether `p` is a root with every required root trait and none of the forbidden ones. */
export function rootPasses(p: Provider, rootRequired: RootRequired): boolean {
  if (p.parent) return false;
  for (const t of rootRequired.required) if (!p.traits.has(t)) return false;
  for (const t of rootRequired.forbidden) if (p.traits.has(t)) return false;
  return true;
}

/**
 * The filters of `GET /resource_providers`, in Placement's order: name,
 * uuid, in_tree, required traits, forbidden traits, `in:` traits,
 * member_of, forbidden aggregates, then inventory and capacity per class.
 */
export class ProvidersFilter extends CompiledFilters {
  readonly resourceClassAt: number;
  /** Whether name, uuid or in_tree is given. */
  private readonly located: boolean;
  private readonly byName: Provider | null | undefined;
  private readonly byUuid: Provider | null | undefined;

  constructor(
    store: ProviderStore,
    readonly request: ResourceProvidersRequest,
  ) {
    super(store, request);
    this.byName = request.name === undefined ? undefined : (store.providerByName(request.name) ?? null);
    this.byUuid = request.uuid === undefined ? undefined : (store.provider(request.uuid) ?? null);
    this.resourceClassAt = 8;
    this.located = request.name !== undefined || request.uuid !== undefined || request.inTree !== undefined;
  }

  /** The stages in the order they are applied: what the indexes {@link failsAt} returns stand for. */
  get stages(): StageSpec[] {
    const ids: StageId[] = [
      'name',
      'uuid',
      'in-tree',
      'required-traits',
      'forbidden-traits',
      'any-traits',
      'member-of',
      'forbidden-aggregates',
      'resource-class',
    ];
    const stages: StageSpec[] = ids.map((id) => ({ id }));
    this.classes.forEach((rc, k) => {
      stages.push({ id: 'capacity', resourceClass: rc, amount: this.amounts[k] as number });
    });
    return stages;
  }

  /** The index of the first stage `p` fails, or {@link PASSED}. */
  failsAt(p: Provider): number {
    if (this.located) {
      if (this.byName !== undefined && p !== this.byName) return 0;
      if (this.byUuid !== undefined && p !== this.byUuid) return 1;
      const root = this.treeRoot;
      if (root === null || (root !== undefined && p.root !== root)) return 2;
    }
    if (this.required.length && !inAll(this.required, p)) return 3;
    if (this.forbidden.length && inSome(this.forbidden, p)) return 4;
    if (this.any.length && !inEvery(this.any, p)) return 5;
    if (this.memberOf.length && !inEvery(this.memberOf, p)) return 6;
    if (this.forbiddenAggregates.length && inSome(this.forbiddenAggregates, p)) return 7;
    if (!this.columns.length) return PASSED;
    const capacity = capacityFailure(
      this.columns,
      this.amounts,
      p.id,
      this.resourceClassAt,
      this.resourceClassAt + 1,
    );
    return capacity >= 0 ? capacity : PASSED;
  }
}
