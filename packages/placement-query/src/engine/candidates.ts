import { isStackspecError } from '@stackspec/core';
import { atLeast, toMicroversion } from '../microversion.js';
import {
  type CapacityEntry,
  entryFits,
  type Provider,
  type ProviderStore,
  SHARING_TRAIT,
} from '../model/store.js';
import type { AllocationCandidatesRequest, RequestGroup } from '../request.js';
import { byId, evaluationError, firstUnknown, providersInAggregates } from './common.js';
import { anchorRootsFor, GroupFilter, type GroupMode, PASSED } from './stages.js';

/** One way to satisfy the request: amounts per provider and class, and which providers served each group. */
export interface Candidate {
  /** Provider → resource class → amount. */
  readonly allocations: ReadonlyMap<Provider, ReadonlyMap<string, number>>;
  /** Group suffix (`''` for the unsuffixed group) → providers that served it, resourceless groups included. */
  readonly mappings: ReadonlyMap<string, ReadonlySet<Provider>>;
  /** The root the candidate is anchored at (a sharing provider serves the trees it shares with). */
  readonly anchor: Provider;
}

/** The answer of `GET /allocation_candidates` before rendering. */
export interface CandidatesResult {
  candidates: Candidate[];
  /** Providers to summarise: every provider of each tree a candidate uses, tree by tree. */
  summaries: Provider[];
  /** Resource classes requested by any group (summaries below 1.27 show only these). */
  requestedClasses: Set<string>;
  /**
   * How many candidates were generated before `limit` cut them. Generation
   * stops at `limit` (from 1.29, or without trees) and at
   * `maxAllocationCandidates`, so this is at most the larger of the two.
   */
  total: number;
}

/** The values of Placement's `allocation_candidates_generation_strategy`, the default first. */
export const GENERATION_STRATEGIES = ['depth-first', 'breadth-first'] as const;

/** The order in which candidates are generated across anchors (Placement's `allocation_candidates_generation_strategy`). */
export type GenerationStrategy = (typeof GENERATION_STRATEGIES)[number];

/**
 * The HTTP service's default for `maxAllocationCandidates`. Placement's
 * default is -1 (no bound), which lets one query on a wide tree build
 * millions of candidates and run the process out of memory; a server of
 * ours serves other APIs too, so it ships bounded, at the value Placement's
 * own documentation suggests starting from. A bounded answer is still a
 * correct one: every candidate in it is valid, there are just fewer.
 */
export const SERVER_MAX_ALLOCATION_CANDIDATES = 100_000;

/** Options for {@link findAllocationCandidates}. */
export interface FindCandidatesOptions {
  /**
   * Placement's `[placement]max_allocation_candidates`: the most candidates
   * generated for one request, before `limit` applies; -1 (the default, as
   * in Placement) means no bound. Generation stops there, so time and
   * memory follow this number rather than the number of possible
   * candidates. The HTTP service sets its own, bounded, default.
   */
  maxAllocationCandidates?: number;
  /**
   * Placement's `[placement]allocation_candidates_generation_strategy`:
   * `depth-first` (default) makes every candidate of one anchor (root)
   * before the next; `breadth-first` takes one combination from each anchor
   * in turn, so that a bound spreads candidates over all viable roots.
   */
  allocationCandidatesGenerationStrategy?: GenerationStrategy;
  /**
   * Placement's `[workarounds]optimize_for_wide_provider_trees` (default
   * false): while combining request groups, drop a partial combination as
   * soon as it exceeds a provider's capacity instead of completing every
   * combination first. The answer is the same, found faster on trees with
   * many interchangeable children (unlike Placement's own pruning, ours
   * counts existing usage, so it never lets an over-capacity candidate through).
   */
  optimizeForWideProviderTrees?: boolean;
  /** @deprecated Use {@link FindCandidatesOptions.maxAllocationCandidates}; the smaller of the two applies. */
  hardCap?: number;
  /**
   * Most combinations examined before giving up with a 400 (default
   * 5,000,000): a tree with many interchangeable providers per class can
   * otherwise make the cartesian product run for hours, as it does in Placement.
   */
  maxCombinations?: number;
}

/** Options of {@link findAllocationCandidatesAsync}. */
export interface FindCandidatesAsyncOptions extends FindCandidatesOptions {
  /** Longest stretch of work between two returns to the event loop, in ms (default 20). */
  sliceMs?: number;
  /** Gives up (rejecting with the signal's reason) when aborted. */
  signal?: AbortSignal;
}

/**
 * One group's partial answer: a provider per class with the amount, anchored
 * at a root. With a single group and no cross-group rule it is a candidate
 * as it stands, so its maps are built only if someone asks for them (the
 * HTTP renderer reads the parts directly).
 */
export class GroupRequest implements Candidate {
  #providers: readonly Provider[] | undefined;
  #allocations: Map<Provider, Map<string, number>> | undefined;
  #mappings: Map<string, Set<Provider>> | undefined;

  constructor(
    readonly suffix: string,
    readonly anchor: Provider,
    /** The provider picked for each class, in the group's class order. */
    readonly picks: readonly Provider[],
    readonly classes: readonly string[],
    readonly amounts: readonly number[],
    readonly sameProvider: boolean,
    /** Every provider is a sharing provider, so the same request may exist at another anchor. */
    readonly sharingOnly: boolean,
    /** The providers serving the group; default: the distinct picks (a resourceless group names its one). */
    providers?: readonly Provider[],
  ) {
    this.#providers = providers;
  }

  /** The distinct providers serving the group, in pick order. */
  get providers(): readonly Provider[] {
    this.#providers ??= this.picks.filter((p, i) => this.picks.indexOf(p) === i);
    return this.#providers;
  }

  get allocations(): ReadonlyMap<Provider, ReadonlyMap<string, number>> {
    if (!this.#allocations) {
      const allocations = new Map<Provider, Map<string, number>>();
      const { picks, classes, amounts } = this;
      for (let k = 0; k < picks.length; k += 1) {
        const p = picks[k] as Provider;
        let inner = allocations.get(p);
        if (!inner) {
          inner = new Map();
          allocations.set(p, inner);
        }
        inner.set(classes[k] as string, amounts[k] as number);
      }
      this.#allocations = allocations;
    }
    return this.#allocations;
  }

  get mappings(): ReadonlyMap<string, ReadonlySet<Provider>> {
    this.#mappings ??= new Map([[this.suffix, new Set(this.providers)]]);
    return this.#mappings;
  }
}

const EMPTY_RESULT = (requested: Set<string>): CandidatesResult => ({
  candidates: [],
  summaries: [],
  requestedClasses: requested,
  total: 0,
});

class NoCandidates extends Error {}

/** Roots of every provider sharing an aggregate with `sharing` (itself included): the trees it can serve. */
export function anchorsOf(
  store: ProviderStore,
  sharing: Provider,
  cache: Map<Provider, Provider[]>,
): Provider[] {
  const hit = cache.get(sharing);
  if (hit) return hit;
  const roots = new Set<Provider>();
  for (const agg of sharing.aggregates) for (const p of store.inAggregate(agg)) roots.add(p.root);
  const out = [...roots].sort(byId);
  cache.set(sharing, out);
  return out;
}

/**
 * Evaluates a parsed `GET /allocation_candidates` query over the store with
 * Placement 8.0's semantics: the unsuffixed group may combine providers of
 * one tree and sharing providers (a root's aggregates, positive or
 * forbidden, cover its whole tree there); every suffixed group is served by
 * one provider judged by its own traits and aggregates; groups are merged
 * per anchor with `group_policy`, `same_subtree`, `root_required` and a
 * final capacity check; `limit` keeps the first candidates.
 *
 * Unknown traits and resource classes raise Placement's 400 in Placement's
 * order; a group that matches nothing ends the search with no candidates
 * before later groups are looked at, as Placement does.
 *
 * Differences from Placement 8.0 (documented in the README): amounts are
 * summed correctly when one provider serves a class in two groups, and a
 * sharing provider's request is kept for every anchor it can serve.
 *
 * @example
 * const req = parseAllocationCandidatesQuery('resources=VCPU:1&member_of=!in:<a>,<b>', '1.32');
 * const { candidates } = findAllocationCandidates(store, req);
 */
export function findAllocationCandidates(
  store: ProviderStore,
  request: AllocationCandidatesRequest,
  options: FindCandidatesOptions = {},
): CandidatesResult {
  const steps = evaluationSteps(store, request, options);
  let r = steps.next();
  while (!r.done) r = steps.next();
  return r.value;
}

/**
 * {@link findAllocationCandidates} that returns to the event loop after
 * every `sliceMs` (default 20 ms) of work, so that a long search does not
 * hold up a server's other requests. The answer reflects one state of the
 * store: if a write lands during a pause, the search starts over (after two
 * such restarts it runs to the end without pausing).
 */
export async function findAllocationCandidatesAsync(
  store: ProviderStore,
  request: AllocationCandidatesRequest,
  options: FindCandidatesAsyncOptions = {},
): Promise<CandidatesResult> {
  const slice = options.sliceMs ?? 20;
  for (let attempt = 0; ; attempt += 1) {
    if (attempt >= 2) return findAllocationCandidates(store, request, options);
    const revision = store.revision;
    const steps = evaluationSteps(store, request, options);
    let started = performance.now();
    let changed = false;
    for (;;) {
      const r = steps.next();
      if (r.done) return r.value;
      if (performance.now() - started >= slice) {
        await new Promise<void>((resolve) => setImmediate(resolve));
        options.signal?.throwIfAborted();
        if (store.revision !== revision) {
          changed = true;
          break;
        }
        started = performance.now();
      }
    }
    if (changed) steps.return(EMPTY_RESULT(new Set()));
  }
}

/**
 * What an explaining run of the search records (see explain.ts): the
 * spaces each group found, and at every request-wide stage how many
 * candidates (or anchors) went in and a few that were dropped. A search
 * with a trace makes every candidate: no `limit`, no bound, no shortcut
 * that skips a group or an anchor.
 */
export interface SearchTrace {
  /** Per group, in request order: its requests by anchor, or the 400 Placement would raise for it. */
  groups: { suffix: string; spaces: Space[]; error?: string }[];
  /** Whether candidates came from merging groups (several groups or same_subtree). */
  merged: boolean;
  /** Anchors where some group has requests, and where every group has (merged only). */
  anchorsAny: number;
  anchorsAll: number;
  /** A few anchors where some group has requests but not every one, with the suffixes missing. */
  incomplete: { anchor: Provider; missing: string[] }[];
  /** Combinations of group requests (or, unmerged, group requests) looked at. */
  examined: number;
  /** Dropped per request stage, with a few examples each. */
  rejected: Record<RejectStage, number>;
  samples: Record<RejectStage, { anchor: Provider; parts: GroupRequest[] }[]>;
  /** Candidates made, then those left by the one-provider-per-tree rule of microversions before 1.29. */
  generated: number;
  afterOnePerTree: number;
  /** A few candidates that rule dropped. */
  onePerTreeSamples: Candidate[];
}

/** The request stages a trace counts rejections for. */
export type RejectStage = 'group-policy' | 'summed-capacity' | 'same-subtree' | 'sharing';

const SAMPLES_KEPT = 10;

/** An empty {@link SearchTrace}. */
export function createSearchTrace(): SearchTrace {
  const none = () => ({ 'group-policy': 0, 'summed-capacity': 0, 'same-subtree': 0, sharing: 0 });
  return {
    groups: [],
    merged: false,
    anchorsAny: 0,
    anchorsAll: 0,
    incomplete: [],
    examined: 0,
    rejected: none(),
    samples: { 'group-policy': [], 'summed-capacity': [], 'same-subtree': [], sharing: [] },
    generated: 0,
    afterOnePerTree: 0,
    onePerTreeSamples: [],
  };
}

function reject(
  trace: SearchTrace,
  stage: RejectStage,
  anchor: Provider,
  parts: readonly GroupRequest[],
): void {
  trace.rejected[stage] += 1;
  const list = trace.samples[stage];
  if (list.length < SAMPLES_KEPT) list.push({ anchor, parts: parts.slice() });
}

/**
 * The whole search with a trace (see {@link SearchTrace}): every candidate,
 * before `limit`. Placement's 400s raise as in {@link findAllocationCandidates},
 * except those of a group the search would not have reached, which the
 * trace records instead.
 */
export function traceAllocationCandidates(
  store: ProviderStore,
  request: AllocationCandidatesRequest,
  trace: SearchTrace,
  options: Pick<FindCandidatesOptions, 'maxCombinations'> = {},
): CandidatesResult {
  const steps = evaluationSteps(store, request, options, trace);
  let r = steps.next();
  while (!r.done) r = steps.next();
  return r.value;
}

/** The search as a generator: it yields now and then (a chance to pause) and returns the result. */
function* evaluationSteps(
  store: ProviderStore,
  request: AllocationCandidatesRequest,
  options: FindCandidatesOptions,
  trace?: SearchTrace,
): Generator<typeof WORK, CandidatesResult, undefined> {
  const version = toMicroversion(request.microversion);
  const requested = new Set<string>();
  for (const g of request.groups) for (const rc of Object.keys(g.resources)) requested.add(rc);
  try {
    return yield* evaluate(store, request, version.minor, requested, options, trace);
  } catch (e) {
    if (e instanceof NoCandidates) return EMPTY_RESULT(requested);
    throw e;
  }
}

/** The bound on candidates generated: `maxAllocationCandidates`, `hardCap` and, when nothing is filtered afterwards, `limit`. */
function generationCap(
  store: ProviderStore,
  request: AllocationCandidatesRequest,
  minor: number,
  options: FindCandidatesOptions,
): number {
  let cap = Number.POSITIVE_INFINITY;
  const max = options.maxAllocationCandidates;
  if (max !== undefined && max >= 0) cap = max;
  if (options.hardCap !== undefined) cap = Math.min(cap, options.hardCap);
  // Below 1.29 a tree's candidates using two of its providers are dropped
  // after generation, so `limit` cannot stop generation there.
  if (request.limit !== undefined && (minor >= 29 || !store.hasTrees)) cap = Math.min(cap, request.limit);
  return cap;
}

/** How the engine judges a group in this store: the unsuffixed group spans trees where there are trees or sharing providers. */
export function groupModeOf(store: ProviderStore, group: RequestGroup): GroupMode {
  return group.suffix === '' && (store.hasTrees || store.withTrait(SHARING_TRAIT).size > 0)
    ? 'tree'
    : 'one-provider';
}

function* evaluate(
  store: ProviderStore,
  request: AllocationCandidatesRequest,
  minor: number,
  requested: Set<string>,
  options: FindCandidatesOptions,
  trace: SearchTrace | undefined,
): Generator<typeof WORK, CandidatesResult, undefined> {
  const v = { major: 1, minor };
  // root_required: the roots every candidate may be anchored at.
  const anchorRoots = anchorRootsFor(store, request.rootRequired);
  if (anchorRoots && !anchorRoots.size && !trace) throw new NoCandidates();
  const sharing = store.withTrait(SHARING_TRAIT);
  const anchorCache = new Map<Provider, Provider[]>();

  const budget = new Budget(options.maxCombinations ?? 5_000_000);
  const strategy = options.allocationCandidatesGenerationStrategy ?? 'depth-first';
  const cap = trace ? Number.POSITIVE_INFINITY : generationCap(store, request, minor, options);
  const single = request.groups.length === 1 && !request.sameSubtree.length;
  const groups: { suffix: string; spaces: Iterable<Space> }[] = [];
  // With a single group (depth-first) every group request is a candidate,
  // so its providers are looked at only until the cap is reached.
  const groupCap = single && strategy === 'depth-first' && Number.isFinite(cap) ? cap : undefined;
  // Candidates need every group at one anchor, so after the first group only
  // providers of the trees anchored so far can matter (sharing providers
  // aside); later groups skip the rest. Each group is still judged on the
  // whole store for Placement's "matches nothing anywhere" rule. A trace
  // looks at everything.
  let allowed: Set<Provider> | undefined;
  let emptyHere = false;
  for (const [g, group] of request.groups.entries()) {
    const filter = new GroupFilter(store, group, groupModeOf(store, group));
    const ctx = { anchorRoots, sharing, anchorCache, cap: groupCap, budget, allowed, filter };
    if (trace) {
      const spaces = traceGroup(store, group, ctx, trace);
      groups.push({ suffix: group.suffix, spaces: single ? spaces : spaces.filter((s) => s.hasAny()) });
      continue;
    }
    const found = evaluateGroup(store, group, ctx);
    if (found === NONE_AT_THESE_ANCHORS) {
      emptyHere = true;
      continue;
    }
    if (single) {
      // Built lazily as the generation asks for them.
      groups.push({ suffix: group.suffix, spaces: found });
      continue;
    }
    const spaces: Space[] = [];
    for (const s of found) if (s.hasAny()) spaces.push(s);
    if (!spaces.length) throw new NoCandidates();
    groups.push({ suffix: group.suffix, spaces });
    if (!emptyHere && g < request.groups.length - 1) {
      const anchors = new Set<Provider>();
      for (const s of spaces) if (!allowed || allowed.has(s.anchor)) anchors.add(s.anchor);
      allowed = anchors;
    }
  }
  if (emptyHere) return EMPTY_RESULT(requested);

  let candidates: Candidate[] = [];
  if (trace) trace.merged = !single;
  const generator = single
    ? singleGroupSteps(groups[0]?.spaces ?? [], strategy, trace)
    : mergeSteps(
        request,
        groups,
        strategy,
        !trace && options.optimizeForWideProviderTrees === true,
        budget,
        trace,
      );
  let work = 0;
  for (const step of generator) {
    if (step === WORK || step === REJECTED) {
      if (++work % 256 === 0) yield WORK;
      continue;
    }
    candidates.push(step);
    if (candidates.length >= cap) break;
    if (++work % 256 === 0) yield WORK;
  }
  if (trace) {
    trace.generated = candidates.length;
    trace.afterOnePerTree = candidates.length;
  }
  if (!candidates.length) return EMPTY_RESULT(requested);

  let summaryFilter: ((p: Provider) => boolean) | undefined;
  if (!atLeast(v, 29) && store.hasTrees) {
    // Older clients cannot take several providers of one tree.
    candidates = candidates.filter((c) => {
      const roots = new Set<Provider>();
      for (const p of c.allocations.keys()) roots.add(p.root);
      const ok = roots.size === c.allocations.size;
      if (!ok && trace && trace.onePerTreeSamples.length < SAMPLES_KEPT) trace.onePerTreeSamples.push(c);
      return ok;
    });
    if (trace) trace.afterOnePerTree = candidates.length;
    const used = new Set<Provider>();
    for (const c of candidates) for (const p of c.allocations.keys()) used.add(p);
    summaryFilter = (p) => used.has(p);
  }
  const total = candidates.length;
  if (request.limit !== undefined && request.limit < candidates.length) {
    candidates = candidates.slice(0, request.limit);
  }
  const roots = new Set<Provider>();
  // Most picks are in the anchor's tree, and one anchor's candidates come
  // together: skipping a repeat of the last root saves most set lookups.
  let last: Provider | undefined;
  for (const c of candidates) {
    for (const p of allocatedProviders(c)) {
      if (p.root === last) continue;
      last = p.root;
      roots.add(last);
    }
  }
  const summaries: Provider[] = [];
  for (const root of roots) {
    for (const p of store.treeOf(root)) if (!summaryFilter || summaryFilter(p)) summaries.push(p);
  }
  return { candidates, summaries, requestedClasses: requested, total };
}

/**
 * One group's spaces for a trace: all of them, over the whole store; a 400
 * the group would raise is recorded (the untraced search may stop at an
 * earlier group that matches nothing, before Placement looks at this one).
 */
function traceGroup(
  store: ProviderStore,
  group: RequestGroup,
  ctx: GroupContext,
  trace: SearchTrace,
): Space[] {
  try {
    const found = evaluateGroup(store, group, ctx);
    const spaces = [...found];
    trace.groups.push({ suffix: group.suffix, spaces });
    return spaces;
  } catch (e) {
    if (!isStackspecError(e) || e.status !== 400) throw e;
    if (e.diagnostics[0]?.code === 'placement-query/too-many-combinations') throw e;
    trace.groups.push({ suffix: group.suffix, spaces: [], error: e.message });
    return [];
  }
}

/** Counts combinations examined and stops a runaway product. */
export class Budget {
  #left: number;
  constructor(readonly max: number) {
    this.#left = max;
  }
  spend(n = 1): void {
    this.#left -= n;
    if (this.#left < 0) {
      throw evaluationError(
        `The query matches more than ${this.max} combinations of providers; add a limit or narrow it with member_of, in_tree or required traits.`,
        'placement-query/too-many-combinations',
      );
    }
  }
}

/** A group that has matches, but none at the anchors earlier groups allow. */
const NONE_AT_THESE_ANCHORS: Space[] = [];
/** {@link singleProvider}'s way to say the same. */
const NONE_AT_THESE_GROUP_REQUESTS: GroupRequest[] = [];
/** {@link matchingProviders}' way to say the same. */
const ELSEWHERE: Provider[] = [];

interface GroupContext {
  budget: Budget;
  /** The anchors earlier groups can serve; other trees' providers are skipped (undefined: no restriction). */
  allowed: ReadonlySet<Provider> | undefined;
  /** Stop after this many distinct group requests (single-group queries with a limit). */
  cap: number | undefined;
  anchorRoots: Set<Provider> | undefined;
  sharing: ReadonlySet<Provider>;
  anchorCache: Map<Provider, Provider[]>;
  /** The group's stages, compiled for its mode. */
  filter: GroupFilter;
}

function evaluateGroup(store: ProviderStore, group: RequestGroup, ctx: GroupContext): Iterable<Space> {
  const suffix = group.suffix;
  const resources = Object.entries(group.resources);
  // The lazy checks, in Placement's order.
  for (const [rc] of resources) {
    if (!store.hasResourceClass(rc)) {
      throw evaluationError(
        `Invalid resource class in resources parameter: No such resource class ${rc}.`,
        'placement-query/unknown-resource-class',
        `resources${suffix}`,
      );
    }
  }
  let inAggs = new Set<Provider>();
  if (group.memberOf.length) {
    inAggs = providersInAggregates(store, group.memberOf);
    if (!inAggs.size) return [];
  }
  for (const set of group.requiredTraits) {
    const unknown = firstUnknown(set, (t) => store.hasTrait(t));
    if (unknown)
      throw evaluationError(
        `No such trait(s): ${unknown}.`,
        'placement-query/unknown-trait',
        `required${suffix}`,
      );
  }
  const forbiddenUnknown = firstUnknown(group.forbiddenTraits, (t) => store.hasTrait(t));
  if (forbiddenUnknown) {
    throw evaluationError(
      `No such trait(s): ${forbiddenUnknown}.`,
      'placement-query/unknown-trait',
      `required${suffix}`,
    );
  }
  let treeRoot: Provider | undefined;
  if (group.inTree !== undefined) {
    const p = store.provider(group.inTree);
    if (!p) return [];
    treeRoot = p.root;
  }
  // Placement looks each class up over every provider before anything else:
  // a class nobody can give ends the whole search.
  for (const [rc, amount] of resources) {
    if (!anyFits(store, rc, amount, treeRoot)) return [];
  }

  if (ctx.filter.mode === 'tree') {
    // Placement first asks whether any provider at all has one of the traits.
    if (group.requiredTraits.length && !group.requiredTraits.flat().some((t) => store.withTrait(t).size)) {
      return [];
    }
    return multiProvider(store, group, ctx, inAggs, treeRoot);
  }
  const reqs = singleProvider(store, group, ctx, inAggs);
  return reqs === NONE_AT_THESE_GROUP_REQUESTS ? NONE_AT_THESE_ANCHORS : byAnchor(reqs);
}

/** Group requests bucketed by anchor, anchors in order of first appearance. */
function byAnchor(reqs: readonly GroupRequest[]): Space[] {
  const buckets = new Map<Provider, GroupRequest[]>();
  for (const r of reqs) {
    const list = buckets.get(r.anchor);
    if (list) list.push(r);
    else buckets.set(r.anchor, [r]);
  }
  return [...buckets].map(([anchor, list]) => new ListSpace(anchor, list));
}

function anyFits(store: ProviderStore, rc: string, amount: number, root: Provider | undefined): boolean {
  for (const e of store.capacityEntries(rc)) {
    if (entryFits(e, amount) && (!root || e.provider.root === root)) return true;
  }
  return false;
}

function* multiProvider(
  store: ProviderStore,
  group: RequestGroup,
  ctx: GroupContext,
  members: Set<Provider>,
  treeRoot: Provider | undefined,
): Generator<Space, void, undefined> {
  const filter = ctx.filter;
  const classes = filter.classes;
  const amounts = filter.amounts;
  const positive = group.memberOf.length > 0;
  const required = group.requiredTraits;
  const requiredHolders = required.map((set) => set.map((t) => store.withTrait(t)));
  const anchorRoots = ctx.anchorRoots;

  // Sharing providers each anchor may borrow from (none under in_tree).
  const sharingAt = new Map<Provider, Provider[]>();
  if (treeRoot === undefined) {
    for (const s of ctx.sharing) {
      // Positive member_of narrows sharing providers to those directly in the aggregates.
      if (positive && !members.has(s)) continue;
      for (const anchor of anchorsOf(store, s, ctx.anchorCache)) {
        const list = sharingAt.get(anchor);
        if (list) list.push(s);
        else sharingAt.set(anchor, [s]);
      }
    }
  }

  const nClasses = classes.length;
  // Reused from anchor to anchor (each space copies what it keeps): per
  // class, the providers with room and how many of them this visit found.
  const lists: Provider[][] = classes.map(() => []);
  const sizes = new Int32Array(nClasses);
  // Trees holding a sharing provider themselves (rare): elsewhere only borrowed providers share.
  const sharingRoots = new Set<Provider>();
  for (const p of ctx.sharing) sharingRoots.add(p.root);

  // One anchor: per class, the providers of its tree and the sharing providers
  // serving it that pass the group's stages; a root's aggregates cover its
  // whole tree, for positive and forbidden aggregates alike.
  const visit = (anchor: Provider): Space | undefined => {
    if (filter.anchorFailsAt(anchor, anchorRoots) !== PASSED) return undefined;
    const anchorIn = positive && members.has(anchor);
    const tree = store.treeOf(anchor);
    const treeSize = tree.length;
    const borrowed = sharingAt.get(anchor);
    const count = treeSize + (borrowed ? borrowed.length : 0);
    const treeShares = sharingRoots.has(anchor);
    // Whether every class has a sharing provider, so that a candidate may be made of them only.
    let sharingEverywhere = true;
    // A tree where no provider has a trait of some required set gives no
    // candidate: skip it before looking at capacities (index lookups only).
    for (const holders of requiredHolders) {
      let found = false;
      for (let j = 0; j < count && !found; j += 1) {
        const p = j < treeSize ? (tree[j] as Provider) : ((borrowed as Provider[])[j - treeSize] as Provider);
        for (const h of holders) {
          if (h.has(p)) {
            found = true;
            break;
          }
        }
      }
      if (!found) return undefined;
    }
    for (let k = 0; k < nClasses; k += 1) {
      const list = lists[k] as Provider[];
      let size = 0;
      let sharingHere = false;
      for (let j = 0; j < count; j += 1) {
        const lent = j >= treeSize;
        const p = lent ? ((borrowed as Provider[])[j - treeSize] as Provider) : (tree[j] as Provider);
        if (filter.classFailsAt(p, k, anchorIn, lent) !== PASSED) continue;
        // A sharing provider can be in the tree and borrowed by it.
        let again = false;
        for (let i = 0; i < size; i += 1) if (list[i] === p) again = true;
        if (again) continue;
        list[size++] = p;
        if (lent || (treeShares && ctx.sharing.has(p))) sharingHere = true;
      }
      if (!size) return undefined;
      if (!sharingHere) sharingEverywhere = false;
      sizes[k] = size;
    }
    return new ProductSpace(
      anchor,
      lists.map((list, k) => list.slice(0, sizes[k])),
      classes,
      amounts,
      required,
      sharingEverywhere,
      ctx.budget,
    );
  };

  if (treeRoot) {
    const space = visit(treeRoot);
    if (space) yield space;
    return;
  }
  const seen = new Set<Provider>();
  let last: Provider | undefined;
  const tryAnchor = (anchor: Provider): Space | undefined => {
    // A tree's providers come together in the indexes: most repeats are the last anchor.
    if (anchor === last || seen.has(anchor)) return undefined;
    last = anchor;
    seen.add(anchor);
    return visit(anchor);
  };
  // The other trees a sharing provider lends to (only sharing providers get
  // here, so the generator is not made once per provider).
  const lentTo = function* (p: Provider): Generator<Space, void, undefined> {
    for (const a of anchorsOf(store, p, ctx.anchorCache)) {
      const shared = tryAnchor(a);
      if (shared) yield shared;
    }
  };
  if (positive) {
    // A pair passes member_of only through a member provider (its own tree, or
    // the trees it shares with) or a member anchor, so members find every anchor.
    for (const p of members) {
      const space = tryAnchor(p.root);
      if (space) yield space;
      if (ctx.sharing.has(p)) yield* lentTo(p);
    }
    return;
  }
  // Otherwise every anchor with a request has a pair for the first class.
  const rc0 = classes[0] as string;
  const n0 = amounts[0] as number;
  for (const e of store.capacityEntries(rc0)) {
    if (!entryFits(e, n0)) continue;
    const p = e.provider;
    const space = tryAnchor(p.root);
    if (space) yield space;
    if (ctx.sharing.has(p)) yield* lentTo(p);
  }
}

/**
 * The providers that can serve a one-provider group, in id order: those
 * passing every stage of the group's filter, looked for in the smallest
 * index that holds them all (a required trait's holders, the member_of
 * aggregates' members, the inventories of a class, in_tree's tree). With
 * earlier groups' anchors given, only providers of those trees and sharing
 * providers are kept ({@link ELSEWHERE} when only others match).
 */
function matchingProviders(
  store: ProviderStore,
  group: RequestGroup,
  ctx: GroupContext,
  inAggs: Set<Provider>,
): Provider[] {
  const filter = ctx.filter;
  const classes = filter.classes;
  // A resourceless group with no positive filter matches nothing: a Placement quirk kept on purpose.
  if (!classes.length && !filter.hasPositiveFilter) return [];
  let source: Iterable<Provider> | undefined;
  let size = Number.POSITIVE_INFINITY;
  let entries: readonly CapacityEntry[] | undefined;
  const offer = (set: Iterable<Provider>, n: number) => {
    if (n < size) {
      source = set;
      size = n;
      entries = undefined;
    }
  };
  if (group.memberOf.length) offer(inAggs, inAggs.size);
  for (const t of filter.requiredSingles) {
    const holders = store.withTrait(t);
    offer(holders, holders.size);
  }
  if (filter.treeRoot && classes.length) {
    const tree = store.treeOf(filter.treeRoot);
    offer(tree, tree.length);
  }
  for (const rc of classes) {
    const list = store.capacityEntries(rc);
    if (list.length < size) {
      entries = list;
      size = list.length;
      source = undefined;
    }
  }
  if (!source && !entries) {
    // Only `in:` trait sets: their holders, each once.
    const holders = new Set<Provider>();
    for (const t of filter.anySets[0] ?? []) for (const p of store.withTrait(t)) holders.add(p);
    source = holders;
  }
  // Providers outside the allowed anchors only need to show that the group
  // matches something somewhere: one that passes is enough.
  const allowed = ctx.allowed;
  let elsewhere = false;
  const candidates: Provider[] = [];
  const consider = (p: Provider) => {
    const outside = allowed !== undefined && !allowed.has(p.root) && !p.traits.has(SHARING_TRAIT);
    if (outside && elsewhere) return;
    if (filter.failsAt(p) !== PASSED) return;
    if (outside) elsewhere = true;
    else candidates.push(p);
  };
  if (entries) for (const e of entries) consider(e.provider);
  else {
    for (const p of source as Iterable<Provider>) consider(p);
    candidates.sort(byId);
  }
  if (!candidates.length && elsewhere) return ELSEWHERE;
  return candidates;
}

/**
 * The same providers as {@link matchingProviders}, found by walking the trees
 * of the allowed anchors (and the sharing providers) instead of the store's
 * indexes, when those trees are far fewer than the indexed providers.
 * Undefined when that would not be cheaper; an empty answer says nothing
 * about the rest of the store.
 */
function atAllowedAnchors(
  store: ProviderStore,
  group: RequestGroup,
  ctx: GroupContext,
  inAggs: Set<Provider>,
): Provider[] | undefined {
  const allowed = ctx.allowed;
  const filter = ctx.filter;
  const classes = filter.classes;
  if (!allowed || !classes.length) return undefined;
  const indexed = group.requiredTraits.length
    ? Math.min(...group.requiredTraits.map((set) => set.reduce((n, t) => n + store.withTrait(t).size, 0)))
    : group.memberOf.length
      ? inAggs.size
      : store.capacityEntries(classes[0] as string).length;
  if (allowed.size * 4 >= indexed) return undefined;
  const found = new Set<Provider>();
  for (const anchor of allowed) {
    for (const p of store.treeOf(anchor)) if (filter.failsAt(p) === PASSED) found.add(p);
  }
  for (const p of ctx.sharing) if (filter.failsAt(p) === PASSED) found.add(p);
  return [...found].sort(byId);
}

function singleProvider(
  store: ProviderStore,
  group: RequestGroup,
  ctx: GroupContext,
  inAggs: Set<Provider>,
): GroupRequest[] {
  let candidates = atAllowedAnchors(store, group, ctx, inAggs);
  if (!candidates?.length) {
    const found = matchingProviders(store, group, ctx, inAggs);
    if (found === ELSEWHERE) return NONE_AT_THESE_GROUP_REQUESTS;
    candidates = found;
  }
  if (!candidates.length) return [];

  const out: GroupRequest[] = [];
  const groupClasses = Object.keys(group.resources);
  const groupAmounts = groupClasses.map((rc) => group.resources[rc] as number);
  const sameProvider = group.suffix !== '';
  let distinct = 0;
  for (const p of candidates) {
    if (ctx.cap !== undefined && distinct >= ctx.cap) break;
    const picks: Provider[] = new Array(groupClasses.length).fill(p);
    const sharingOnly = p.traits.has(SHARING_TRAIT);
    if (!ctx.anchorRoots || ctx.anchorRoots.has(p.root)) {
      // Only requests kept count towards the cap (root_required may drop this one).
      if (!sharingOnly) distinct += 1;
      out.push(
        new GroupRequest(group.suffix, p.root, picks, groupClasses, groupAmounts, sameProvider, sharingOnly, [
          p,
        ]),
      );
    }
    if (p.traits.has(SHARING_TRAIT)) {
      for (const anchor of anchorsOf(store, p, ctx.anchorCache)) {
        if (anchor === p.root) continue;
        if (ctx.anchorRoots && !ctx.anchorRoots.has(anchor)) continue;
        out.push(
          new GroupRequest(
            group.suffix,
            anchor,
            picks,
            groupClasses,
            groupAmounts,
            sameProvider,
            sharingOnly,
            [p],
          ),
        );
      }
    }
  }
  return out;
}

function ancestorsOrSelf(p: Provider): Set<Provider> {
  const out = new Set<Provider>();
  for (let q: Provider | undefined = p; q; q = q.parent) out.add(q);
  return out;
}

/** Whether one of the providers is an ancestor (or itself) of all the others: same_subtree's test. */
export function sameSubtreeOk(providers: Set<Provider>): boolean {
  if (providers.size <= 1) return true;
  let common: Set<Provider> | undefined;
  for (const p of providers) {
    const anc = ancestorsOrSelf(p);
    common = common ? new Set([...common].filter((q) => anc.has(q))) : anc;
  }
  for (const p of providers) if (common?.has(p)) return true;
  return false;
}

/** A unit of work done without a result: a chance for the caller to pause. */
const WORK: unique symbol = Symbol('work');
/** A combination examined and dropped (a turn, in breadth-first generation). */
const REJECTED: unique symbol = Symbol('rejected');
type Step = Candidate | typeof WORK | typeof REJECTED;

/** One group's requests at one anchor, enumerated on demand (each call to `requests` starts over). */
export interface Space {
  readonly anchor: Provider;
  requests(): Iterable<GroupRequest | typeof WORK>;
  /** Whether there is at least one request (may search for one). */
  hasAny(): boolean;
}

/** The requests of a one-provider group at an anchor, as a list. */
class ListSpace implements Space {
  constructor(
    readonly anchor: Provider,
    readonly list: readonly GroupRequest[],
  ) {}

  requests(): Iterable<GroupRequest> {
    return this.list;
  }

  hasAny(): boolean {
    return this.list.length > 0;
  }
}

/**
 * The unsuffixed group's requests at an anchor: one provider per class from
 * the lists of providers with room, every combination whose providers
 * together have the required traits. Combinations are made as they are
 * asked for, so a wide tree costs memory for its lists only.
 */
export class ProductSpace implements Space {
  #any: boolean | undefined;

  constructor(
    readonly anchor: Provider,
    readonly lists: readonly (readonly Provider[])[],
    readonly classes: readonly string[],
    readonly amounts: readonly number[],
    readonly required: readonly (readonly string[])[],
    readonly sharingEverywhere: boolean,
    readonly budget: Budget,
  ) {}

  *requests(): Generator<GroupRequest | typeof WORK, void, undefined> {
    const { lists, classes, amounts, required, anchor } = this;
    const n = lists.length;
    const idx = new Int32Array(n);
    const pick: Provider[] = new Array(n);
    // Every combination of one provider per class (an odometer over the lists).
    for (;;) {
      this.budget.spend();
      for (let k = 0; k < n; k += 1)
        pick[k] = (lists[k] as readonly Provider[])[idx[k] as number] as Provider;
      // Repeated picks change neither answer, so the picks stand in for the distinct providers.
      if (!required.length || coversTraits(pick, required)) {
        const sharingOnly = this.sharingEverywhere && needsKey(pick);
        yield new GroupRequest('', anchor, pick.slice(), classes, amounts, false, sharingOnly);
      } else yield WORK;
      let k = n - 1;
      while (k >= 0) {
        idx[k] = (idx[k] as number) + 1;
        if ((idx[k] as number) < (lists[k] as readonly Provider[]).length) break;
        idx[k] = 0;
        k -= 1;
      }
      if (k < 0) return;
    }
  }

  hasAny(): boolean {
    if (this.#any === undefined) {
      this.#any = !this.required.length;
      if (!this.#any) {
        for (const r of this.requests()) {
          if (r !== WORK) {
            this.#any = true;
            break;
          }
        }
      }
    }
    return this.#any;
  }
}

/**
 * Takes one step from each generator in turn (Placement's round robin),
 * dropping generators as they end; a WORK step does not count as a turn.
 */
function* roundRobin(generators: Iterator<Step>[]): Generator<Step, void, undefined> {
  let active = generators;
  while (active.length) {
    const next: Iterator<Step>[] = [];
    for (const g of active) {
      for (;;) {
        const r = g.next();
        if (r.done) break;
        yield r.value;
        if (r.value !== WORK) {
          next.push(g);
          break;
        }
      }
    }
    active = next;
  }
}

/** A single group's requests are the candidates; a sharing-only request repeated at another anchor is dropped. */
function* singleGroupSteps(
  spaces: Iterable<Space>,
  strategy: GenerationStrategy,
  trace?: SearchTrace,
): Generator<Step, void, undefined> {
  const seen = new Set<string>();
  function* at(space: Space): Generator<Step, void, undefined> {
    for (const r of space.requests()) {
      if (r === WORK) {
        yield r;
        continue;
      }
      if (trace) trace.examined += 1;
      if (r.sharingOnly) {
        const key = candidateKey(r);
        if (seen.has(key)) {
          if (trace) reject(trace, 'sharing', space.anchor, [r]);
          yield REJECTED;
          continue;
        }
        seen.add(key);
      }
      yield r;
    }
  }
  if (strategy === 'breadth-first') {
    yield* roundRobin([...spaces].map((s) => at(s)));
    return;
  }
  for (const space of spaces) yield* at(space);
}

/** Whether adding `r` to the picks before it overflows some provider's capacity or max_unit. */
function overflows(pick: readonly GroupRequest[], i: number): boolean {
  const r = pick[i] as GroupRequest;
  for (let k = 0; k < r.picks.length; k += 1) {
    const p = r.picks[k] as Provider;
    const rc = r.classes[k] as string;
    let n = 0;
    for (let j = 0; j <= i; j += 1) {
      const q = pick[j] as GroupRequest;
      for (let m = 0; m < q.picks.length; m += 1)
        if (q.picks[m] === p && q.classes[m] === rc) n += q.amounts[m] as number;
    }
    const inv = p.inventories.get(rc);
    if (!inv) return true;
    if (
      (p.usages.get(rc) ?? 0) + n > Math.trunc((inv.total - inv.reserved) * inv.allocation_ratio) ||
      n > inv.max_unit
    )
      return true;
  }
  return false;
}

/**
 * Candidates of several groups: per anchor where every group has requests,
 * every combination of one request per group (the last group varying
 * fastest), kept if it passes group_policy, same_subtree and the summed
 * capacity check; anchors in order of first appearance, visited one after
 * the other (depth-first) or a combination each in turn (breadth-first).
 */
function* mergeSteps(
  request: AllocationCandidatesRequest,
  groups: readonly { suffix: string; spaces: Iterable<Space> }[],
  strategy: GenerationStrategy,
  prune: boolean,
  budget: Budget,
  trace?: SearchTrace,
): Generator<Step, void, undefined> {
  const granular = groups.filter((g) => g.suffix !== '').length;
  const isolate = request.groupPolicy === 'isolate';
  const seen = new Set<string>();
  const byAnchor = new Map<Provider, (Space | undefined)[]>();
  groups.forEach((g, i) => {
    for (const space of g.spaces) {
      let row = byAnchor.get(space.anchor);
      if (!row) {
        row = new Array(groups.length);
        byAnchor.set(space.anchor, row);
      }
      row[i] = space;
    }
  });
  // One anchor's combinations: an odometer over the groups' requests (the
  // last group fastest), each level an iterator started over whenever the
  // level above moves.
  function* at(anchor: Provider, row: readonly Space[]): Generator<Step, void, undefined> {
    const n = row.length;
    const pick: GroupRequest[] = new Array(n);
    const its: Iterator<GroupRequest | typeof WORK>[] = new Array(n);
    its[0] = (row[0] as Space).requests()[Symbol.iterator]();
    let i = 0;
    while (i >= 0) {
      const r = (its[i] as Iterator<GroupRequest | typeof WORK>).next();
      if (r.done) {
        i -= 1;
        continue;
      }
      if (r.value === WORK) {
        yield WORK;
        continue;
      }
      pick[i] = r.value;
      if (prune && overflows(pick, i)) {
        budget.spend();
        yield WORK;
        continue;
      }
      if (i < n - 1) {
        i += 1;
        its[i] = (row[i] as Space).requests()[Symbol.iterator]();
        continue;
      }
      budget.spend();
      if (trace) trace.examined += 1;
      const c = combine(request, pick, isolate, granular, anchor);
      if (typeof c === 'string') {
        if (trace) reject(trace, c, anchor, pick);
        yield REJECTED;
        continue;
      }
      if (allSharing(c)) {
        const key = candidateKey(c);
        if (seen.has(key)) {
          if (trace) reject(trace, 'sharing', anchor, pick);
          yield REJECTED;
          continue;
        }
        seen.add(key);
      }
      yield c;
    }
  }
  const generators: Generator<Step, void, undefined>[] = [];
  for (const [anchor, row] of byAnchor) {
    let complete = true;
    for (let i = 0; i < groups.length; i += 1) if (!row[i]) complete = false;
    if (trace) {
      trace.anchorsAny += 1;
      if (complete) trace.anchorsAll += 1;
      else if (trace.incomplete.length < SAMPLES_KEPT)
        trace.incomplete.push({ anchor, missing: groups.filter((_, i) => !row[i]).map((g) => g.suffix) });
    }
    if (!complete) continue;
    generators.push(at(anchor, row as Space[]));
  }
  if (strategy === 'breadth-first') yield* roundRobin(generators);
  else for (const g of generators) yield* g;
}

/** Whether the providers together have a trait of every set. */
export function coversTraits(
  providers: readonly Provider[],
  required: readonly (readonly string[])[],
): boolean {
  for (const set of required) {
    let found = false;
    for (const t of set) {
      for (const p of providers) {
        if (p.traits.has(t)) {
          found = true;
          break;
        }
      }
      if (found) break;
    }
    if (!found) return false;
  }
  return true;
}

/** Whether every provider a candidate names (allocations and mappings) is a sharing provider. */
function allSharing(c: Candidate): boolean {
  for (const p of c.allocations.keys()) if (!p.traits.has(SHARING_TRAIT)) return false;
  for (const set of c.mappings.values()) for (const p of set) if (!p.traits.has(SHARING_TRAIT)) return false;
  return true;
}

// The same candidate can come out at two anchors only when every provider in
// it is a sharing provider (others are only ever anchored at their own root).
function needsKey(providers: readonly Provider[]): boolean {
  for (const p of providers) if (!p.traits.has(SHARING_TRAIT)) return false;
  return true;
}

/** The providers a candidate allocates from (not resourceless mappings). */
export function allocatedProviders(c: Candidate): Iterable<Provider> {
  if (c instanceof GroupRequest) return c.picks;
  if (c instanceof MergedCandidate) return c.providers;
  return c.allocations.keys();
}

/**
 * A candidate made of one request per group: the group requests it was
 * made from and the providers it allocates from. A search may make hundreds
 * of thousands of these, so they stay this small: the amounts are summed
 * again where needed ({@link MergedCandidate.sums}), and the maps of
 * {@link Candidate} are built only if someone asks for them.
 */
export class MergedCandidate implements Candidate {
  #allocations: Map<Provider, Map<string, number>> | undefined;
  #mappings: Map<string, Set<Provider>> | undefined;

  constructor(
    readonly anchor: Provider,
    /** One request per group, in group order. */
    readonly parts: readonly GroupRequest[],
    /** The providers allocated from, in order of first appearance. */
    readonly providers: readonly Provider[],
  ) {}

  /** The classes and summed amounts allocated from `p`, in order of first appearance. */
  sums(p: Provider): { classes: string[]; amounts: number[] } {
    const classes: string[] = [];
    const amounts: number[] = [];
    for (const r of this.parts) {
      for (let k = 0; k < r.picks.length; k += 1) {
        if (r.picks[k] !== p) continue;
        const rc = r.classes[k] as string;
        const m = classes.indexOf(rc);
        if (m < 0) {
          classes.push(rc);
          amounts.push(r.amounts[k] as number);
        } else amounts[m] = (amounts[m] as number) + (r.amounts[k] as number);
      }
    }
    return { classes, amounts };
  }

  get allocations(): ReadonlyMap<Provider, ReadonlyMap<string, number>> {
    if (!this.#allocations) {
      this.#allocations = new Map(
        this.providers.map((p) => {
          const { classes, amounts } = this.sums(p);
          return [p, new Map(classes.map((rc, m) => [rc, amounts[m] as number]))];
        }),
      );
    }
    return this.#allocations;
  }

  get mappings(): ReadonlyMap<string, ReadonlySet<Provider>> {
    if (!this.#mappings) {
      const out = new Map<string, Set<Provider>>();
      for (const r of this.parts) {
        let set = out.get(r.suffix);
        if (!set) {
          set = new Set();
          out.set(r.suffix, set);
        }
        for (const p of r.providers) set.add(p);
      }
      this.#mappings = out;
    }
    return this.#mappings;
  }
}

// Scratch space of combine(): the (provider, class) pairs of one combination
// and their summed amounts, reused from call to call.
const scratchProviders: Provider[] = [];
const scratchClasses: string[] = [];
const scratchAmounts: number[] = [];

/**
 * One combination of group requests as a candidate, or the request stage
 * that drops it: `group-policy` (isolate: two suffixed groups on one
 * provider), `summed-capacity` (the groups' amounts on one provider exceed
 * its capacity or max_unit), `same-subtree`.
 */
export function combine(
  request: AllocationCandidatesRequest,
  pick: readonly GroupRequest[],
  isolate: boolean,
  granular: number,
  anchor: Provider,
): Candidate | Exclude<RejectStage, 'sharing'> {
  if (isolate) {
    let distinct = 0;
    for (let i = 0; i < pick.length; i += 1) {
      const r = pick[i] as GroupRequest;
      if (!r.sameProvider) continue;
      const p = r.providers[0];
      let again = false;
      for (let j = 0; j < i; j += 1) {
        const q = pick[j] as GroupRequest;
        if (q.sameProvider && q.providers[0] === p) again = true;
      }
      if (again) return 'group-policy';
      distinct += 1;
    }
    if (distinct !== granular) return 'group-policy';
  }
  let pairs = 0;
  const providers: Provider[] = [];
  for (const r of pick) {
    for (let k = 0; k < r.picks.length; k += 1) {
      const p = r.picks[k] as Provider;
      const rc = r.classes[k] as string;
      let m = 0;
      while (m < pairs && (scratchProviders[m] !== p || scratchClasses[m] !== rc)) m += 1;
      if (m === pairs) {
        scratchProviders[m] = p;
        scratchClasses[m] = rc;
        scratchAmounts[m] = r.amounts[k] as number;
        pairs += 1;
        if (!providers.includes(p)) providers.push(p);
      } else scratchAmounts[m] = (scratchAmounts[m] as number) + (r.amounts[k] as number);
    }
  }
  for (let m = 0; m < pairs; m += 1) {
    const p = scratchProviders[m] as Provider;
    const rc = scratchClasses[m] as string;
    const n = scratchAmounts[m] as number;
    const inv = p.inventories.get(rc);
    if (!inv) return 'summed-capacity';
    const capacity = Math.trunc((inv.total - inv.reserved) * inv.allocation_ratio);
    if ((p.usages.get(rc) ?? 0) + n > capacity || n > inv.max_unit) return 'summed-capacity';
  }
  const c = new MergedCandidate(anchor, pick.slice(), providers);
  for (const subtree of request.sameSubtree) {
    const inSubtree = new Set<Provider>();
    for (const s of subtree) for (const p of c.mappings.get(s) ?? []) inSubtree.add(p);
    if (!sameSubtreeOk(inSubtree)) return 'same-subtree';
  }
  return c;
}

function candidateKey(c: Candidate): string {
  const parts: string[] = [];
  for (const [p, inner] of c.allocations) for (const [rc, n] of inner) parts.push(`${p.id}:${rc}:${n}`);
  parts.sort();
  const maps: string[] = [];
  for (const [s, set] of c.mappings)
    maps.push(
      `${s}=${[...set]
        .map((p) => p.id)
        .sort((a, b) => a - b)
        .join(',')}`,
    );
  maps.sort();
  return `${parts.join(';')}|${maps.join(';')}`;
}
