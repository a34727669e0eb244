import { toMicroversion } from '../microversion.js';
import { type Provider, type ProviderStore, SHARING_TRAIT } from '../model/store.js';
import type { AllocationCandidatesRequest, PlacementQuery, ResourceProvidersRequest } from '../request.js';
import { serializePlacementQuery } from '../serialize.js';
import {
  anchorsOf,
  Budget,
  type Candidate,
  createSearchTrace,
  type FindCandidatesOptions,
  findAllocationCandidates,
  type GroupRequest,
  groupModeOf,
  ProductSpace,
  type SearchTrace,
  sameSubtreeOk,
  traceAllocationCandidates,
} from './candidates.js';
import {
  type AggregateNames,
  capacityReason,
  groupName,
  hasForbiddenTraits,
  inForbiddenAggregate,
  lacksAnyTrait,
  lacksTraits,
  notMember,
  rootReason,
} from './explain-reasons.js';
import type {
  AllocationCandidatesExplanation,
  EmptiedBy,
  ExplainExample,
  ExplainGroup,
  ExplainStage,
  PlacementExplanation,
  ResourceProvidersExplanation,
} from './explain-schema.js';
import { listResourceProviders } from './providers.js';
import {
  anchorRootsFor,
  type CompiledFilters,
  GroupFilter,
  PASSED,
  ProvidersFilter,
  type SharedFilters,
  type StageSpec,
} from './stages.js';

/** Options of {@link explainAllocationCandidates} and {@link explainResourceProviders}. */
export interface ExplainOptions {
  /** Providers named, with the reason, for the stage that left nothing (default 3). */
  examples?: number;
  /** Names of aggregates by uuid (an inventory's aliases), shown next to the uuids. */
  aggregateNames?: ReadonlyMap<string, string> | Readonly<Record<string, string>>;
  /**
   * Most combinations of providers examined (default `search.maxCombinations`,
   * else 5,000,000, as for `findAllocationCandidates`); beyond it the
   * explanation fails with the engine's 400 `placement-query/too-many-combinations`.
   */
  maxCombinations?: number;
  /**
   * The options the answer is found with (a server's
   * `max_allocation_candidates` and generation strategy), so that
   * `returned` is what a search run that way returns. The counts do not
   * depend on them.
   */
  search?: FindCandidatesOptions;
}

const DEFAULT_EXAMPLES = 3;

function namesOf(options: ExplainOptions): AggregateNames | undefined {
  const n = options.aggregateNames;
  if (!n) return undefined;
  return n instanceof Map ? n : new Map(Object.entries(n as Record<string, string>));
}

/** A funnel over units (providers or trees): the stage each unit stops at, and the words for it. */
interface Funnel {
  unit: 'providers' | 'trees';
  layout: readonly StageSpec[];
  /** Whether the stage at this index constrains anything (others are left out). */
  shown: readonly boolean[];
  labels: readonly string[];
  units: readonly Provider[];
  /** Per unit, the index of the stage it stops at, or PASSED. */
  stops: Int32Array;
  reason: (unit: Provider, index: number) => string;
}

interface Built {
  stages: ExplainStage[];
  kept: number;
  /** Fills in the examples of the stage at this position of `stages`. */
  examples: (position: number, max: number) => ExplainExample[];
}

function buildStages(f: Funnel): Built {
  const dropped = new Map<number, number>();
  let kept = f.units.length;
  for (const s of f.stops) {
    if (s === PASSED) continue;
    dropped.set(s, (dropped.get(s) ?? 0) + 1);
  }
  const stages: ExplainStage[] = [];
  const indexes: number[] = [];
  f.layout.forEach((spec, i) => {
    if (!f.shown[i]) return;
    const before = kept;
    kept -= dropped.get(i) ?? 0;
    stages.push({
      stage: spec.id,
      label: f.labels[i] as string,
      unit: f.unit,
      before,
      kept,
      ...(spec.resourceClass ? { resourceClass: spec.resourceClass } : {}),
      examples: [],
    });
    indexes.push(i);
  });
  return {
    stages,
    kept,
    examples: (position, max) => {
      const index = indexes[position] as number;
      const out: ExplainExample[] = [];
      for (let u = 0; u < f.units.length && out.length < max; u += 1) {
        if (f.stops[u] !== index) continue;
        const p = f.units[u] as Provider;
        out.push({ name: p.name, uuid: p.uuid, reason: f.reason(p, index) });
      }
      return out;
    },
  };
}

/**
 * The first stage that kept nothing, with examples filled in when it had
 * some units to turn away and `wanted` agrees; undefined when every stage
 * kept something.
 */
function firstEmptied(
  stages: readonly ExplainStage[],
  examples: Built['examples'],
  max: number,
  wanted: (s: ExplainStage) => boolean = () => true,
): EmptiedBy | undefined {
  const i = stages.findIndex((s) => s.kept === 0);
  if (i < 0) return undefined;
  const s = stages[i] as ExplainStage;
  if (s.before > 0 && wanted(s)) s.examples = examples(i, max);
  return { stage: s.stage, label: s.label };
}

function aggName(uuid: string, names: AggregateNames | undefined): string {
  return names?.get(uuid) ?? uuid;
}

function memberOfLabel(sets: readonly (readonly string[])[], names: AggregateNames | undefined): string {
  return `member_of ${sets
    .map((s) =>
      s.length === 1 ? aggName(s[0] as string, names) : `in:${s.map((a) => aggName(a, names)).join(',')}`,
    )
    .join(' and ')}`;
}

/** Labels of a group filter's (or the providers filter's) stages. */
function labelsOf(
  store: ProviderStore,
  layout: readonly StageSpec[],
  q: {
    classes: readonly string[];
    requiredSingles: readonly string[];
    anySets: readonly (readonly string[])[];
    forbiddenTraits: readonly string[];
    memberOf: readonly (readonly string[])[];
    forbiddenAggregates: readonly string[];
    inTree?: string | undefined;
    name?: string | undefined;
    uuid?: string | undefined;
    rootRequired?: { required: readonly string[]; forbidden: readonly string[] } | undefined;
  },
  names: AggregateNames | undefined,
): string[] {
  return layout.map((s) => {
    switch (s.id) {
      case 'resource-class':
        return `has ${q.classes.join(', ')}`;
      case 'capacity':
        return `room for ${s.resourceClass}:${s.amount}`;
      case 'required-traits':
        return `required ${q.requiredSingles.join(', ')}`;
      case 'forbidden-traits':
        return `forbidden ${q.forbiddenTraits.join(', ')}`;
      case 'any-traits':
        return `one of ${q.anySets.map((set) => `in:${set.join(',')}`).join(' and ')}`;
      case 'member-of':
        return memberOfLabel(q.memberOf, names);
      case 'forbidden-aggregates':
        return `not in ${q.forbiddenAggregates.map((a) => aggName(a, names)).join(', ')}`;
      case 'in-tree': {
        const p = q.inTree === undefined ? undefined : store.provider(q.inTree);
        return `in_tree ${p ? p.name : q.inTree}`;
      }
      case 'root-required': {
        const rr = q.rootRequired ?? { required: [], forbidden: [] };
        return `root_required ${[...rr.required, ...rr.forbidden.map((t) => `!${t}`)].join(',')}`;
      }
      case 'positive-filter':
        return 'required or member_of (a group without resources needs one)';
      case 'name':
        return `name=${q.name}`;
      case 'uuid':
        return `uuid=${q.uuid}`;
      default:
        return s.id;
    }
  });
}

interface GroupContext {
  store: ProviderStore;
  request: AllocationCandidatesRequest;
  anchorRoots: ReadonlySet<Provider> | undefined;
  sharing: ReadonlySet<Provider>;
  anchorCache: Map<Provider, Provider[]>;
  budget: Budget;
  names: AggregateNames | undefined;
}

/**
 * Which of a group's stages the explanation shows: the class and capacity
 * stages when `classes`, the positive-filter stage (one-provider mode) when
 * `positive`, and each filter the group's request uses.
 */
function shownStages(
  filter: GroupFilter,
  anchorRoots: GroupContext['anchorRoots'],
  classes: boolean,
  positive: boolean,
): boolean[] {
  const group = filter.group;
  return filter.stages.map((s, i) => {
    if (s.id === 'resource-class' || s.id === 'capacity') return classes;
    if (i === filter.requiredAt) return filter.requiredSingles.length > 0;
    if (i === filter.forbiddenAt) return group.forbiddenTraits.length > 0;
    if (i === filter.anyAt) return filter.anySets.length > 0;
    if (i === filter.memberAt) return group.memberOf.length > 0;
    if (i === filter.forbiddenAggregatesAt) return group.forbiddenAggregates.length > 0;
    if (i === filter.inTreeAt) return group.inTree !== undefined;
    if (i === filter.rootRequiredAt) return anchorRoots !== undefined;
    if (i === filter.positiveFilterAt) return positive;
    return false;
  });
}

function explainOneProviderGroup(filter: GroupFilter, ctx: GroupContext): Funnel {
  const { store, anchorRoots, sharing, names } = ctx;
  const group = filter.group;
  const rr = ctx.request.rootRequired;
  const layout = filter.stages;
  const needsPositive = !filter.classes.length && !filter.hasPositiveFilter;
  const shown = shownStages(filter, anchorRoots, filter.classes.length > 0, needsPositive);
  const units = [...store.providers()];
  const stops = new Int32Array(units.length);
  units.forEach((p, u) => {
    let s = filter.failsAt(p);
    if (s === PASSED && anchorRoots) {
      // The engine anchors a provider's request at its root, and a sharing
      // provider's at every tree it shares with too.
      let anchored = anchorRoots.has(p.root);
      if (!anchored && sharing.has(p))
        anchored = anchorsOf(store, p, ctx.anchorCache).some((a) => anchorRoots.has(a));
      if (!anchored) s = filter.rootRequiredAt;
    }
    if (s === PASSED && needsPositive) s = filter.positiveFilterAt;
    stops[u] = s;
  });
  const reason = (p: Provider, s: number): string => {
    if (s === filter.resourceClassAt) {
      const rc = filter.classes.find((c) => !p.inventories.has(c)) ?? '';
      return `no ${rc} inventory`;
    }
    if (s >= filter.capacityAt && s < filter.capacityAt + filter.classes.length) {
      const k = s - filter.capacityAt;
      return capacityReason(p, filter.classes[k] as string, filter.amounts[k] as number) ?? 'no room';
    }
    if (s === filter.requiredAt) return lacksTraits(p, filter.requiredSingles);
    if (s === filter.forbiddenAt) return hasForbiddenTraits(p, group.forbiddenTraits);
    if (s === filter.anyAt) return lacksAnyTrait(p, filter.anySets);
    if (s === filter.memberAt) return notMember(p, group.memberOf, names);
    if (s === filter.forbiddenAggregatesAt) return inForbiddenAggregate(p, group.forbiddenAggregates, names);
    if (s === filter.inTreeAt) return inTreeReason(filter, group.inTree);
    if (s === filter.rootRequiredAt) return rootReason(p.root, rr?.required ?? [], rr?.forbidden ?? []);
    return 'a group without resources matches nothing unless it has required traits or member_of';
  };
  return {
    unit: 'providers',
    layout,
    shown,
    labels: labelsOf(store, layout, { ...labelQuery(filter, group), rootRequired: rr }, names),
    units,
    stops,
    reason,
  };
}

/** What the labels of a filter's stages name: its compiled classes and trait sets, the rest as `q` states it. */
function labelQuery(filter: CompiledFilters, q: SharedFilters) {
  return {
    classes: filter.classes,
    requiredSingles: filter.requiredSingles,
    anySets: filter.anySets,
    forbiddenTraits: q.forbiddenTraits,
    memberOf: q.memberOf,
    forbiddenAggregates: q.forbiddenAggregates,
    inTree: q.inTree,
  };
}

function inTreeReason(filter: CompiledFilters, inTree: string | undefined): string {
  return filter.treeRoot
    ? `not in the tree of ${filter.treeRoot.name}`
    : `in_tree ${inTree} names no provider`;
}

/** A few providers with their reasons, the root's own without its name: `kvm-01-numa0 VCPU 4 free of 16 …; …`. */
function listed(root: Provider, items: readonly [Provider, string][]): string {
  const shown = items.slice(0, 2).map(([q, why]) => (q === root ? why : `${q.name} ${why}`));
  const more = items.length > 2 ? `; and ${items.length - 2} more` : '';
  return `${shown.join('; ')}${more}`;
}

function explainTreeGroup(filter: GroupFilter, ctx: GroupContext): Funnel {
  const { store, anchorRoots, sharing, names } = ctx;
  const group = filter.group;
  const rr = ctx.request.rootRequired;
  const layout = filter.stages;
  const n = filter.classes.length;
  const shown = shownStages(filter, anchorRoots, true, false);
  // The sharing providers each tree may borrow from.
  const lenders = new Map<Provider, Provider[]>();
  for (const s of sharing) {
    for (const a of anchorsOf(store, s, ctx.anchorCache)) {
      const list = lenders.get(a);
      if (list) list.push(s);
      else lenders.set(a, [s]);
    }
  }
  const units: Provider[] = [];
  for (const p of store.providers()) if (!p.parent) units.push(p);
  const stops = new Int32Array(units.length);
  const blame = new Int32Array(units.length);
  // The providers of a tree (own, then borrowed) that pass every per-provider stage for class k.
  const usable = (anchor: Provider, k: number): Provider[] => {
    const anchorIn = filter.isMember(anchor);
    const out: Provider[] = [];
    for (const q of store.treeOf(anchor))
      if (filter.classFailsAt(q, k, anchorIn, false) === PASSED && !out.includes(q)) out.push(q);
    for (const q of lenders.get(anchor) ?? [])
      if (filter.classFailsAt(q, k, anchorIn, true) === PASSED && !out.includes(q)) out.push(q);
    return out;
  };
  units.forEach((anchor, u) => {
    let stop = filter.anchorFailsAt(anchor, anchorRoots);
    const anchorIn = filter.isMember(anchor);
    const tree = store.treeOf(anchor);
    const lent = lenders.get(anchor) ?? [];
    for (let k = 0; k < n; k += 1) {
      // The furthest any provider gets as the source of class k.
      let best = -1;
      for (const q of tree) best = Math.max(best, filter.classFailsAt(q, k, anchorIn, false));
      for (const q of lent) best = Math.max(best, filter.classFailsAt(q, k, anchorIn, true));
      if (best < stop) {
        stop = best;
        blame[u] = k;
      }
    }
    if (stop === PASSED && group.requiredTraits.length) {
      const lists = filter.classes.map((_, k) => usable(anchor, k));
      const covered = (sets: readonly (readonly string[])[]) =>
        new ProductSpace(anchor, lists, filter.classes, filter.amounts, sets, false, ctx.budget).hasAny();
      if (filter.requiredSingles.length && !covered(filter.requiredSingles.map((t) => [t])))
        stop = filter.requiredAt;
      else if (filter.anySets.length && !covered(group.requiredTraits)) stop = filter.anyAt;
    }
    stops[u] = stop;
  });
  const reason = (anchor: Provider, s: number): string => {
    const k = blame[units.indexOf(anchor)] as number;
    const rc = filter.classes[k] as string;
    const amount = filter.amounts[k] as number;
    const anchorIn = filter.isMember(anchor);
    const candidates: [Provider, boolean][] = [
      ...store.treeOf(anchor).map((q): [Provider, boolean] => [q, false]),
      ...(lenders.get(anchor) ?? []).map((q): [Provider, boolean] => [q, true]),
    ];
    const at = (stage: number) =>
      candidates.filter(([q, lent]) => filter.classFailsAt(q, k, anchorIn, lent) === stage);
    if (s === filter.resourceClassAt) {
      const missing = filter.classes.find((c) => !candidates.some(([q]) => q.inventories.has(c)));
      return `no provider in the tree or shared with it has ${missing ?? rc}`;
    }
    if (s >= filter.capacityAt && s < filter.capacityAt + n)
      return listed(
        anchor,
        at(s).map(([q]) => [q, capacityReason(q, rc, amount) ?? 'no room']),
      );
    if (s === filter.forbiddenAt)
      return listed(
        anchor,
        at(s).map(([q]) => [q, hasForbiddenTraits(q, group.forbiddenTraits)]),
      );
    if (s === filter.memberAt)
      return `${notMember(anchor, group.memberOf, names)}, nor is any provider with room for ${rc}:${amount}`;
    if (s === filter.forbiddenAggregatesAt) {
      if (group.forbiddenAggregates.some((a) => anchor.aggregates.has(a)))
        return `${inForbiddenAggregate(anchor, group.forbiddenAggregates, names)}, which covers the whole tree`;
      return listed(
        anchor,
        at(s).map(([q]) => [q, inForbiddenAggregate(q, group.forbiddenAggregates, names)]),
      );
    }
    if (s === filter.inTreeAt)
      return filter.treeRoot
        ? `not the tree of ${filter.treeRoot.name}`
        : `in_tree ${group.inTree} names no provider`;
    if (s === filter.rootRequiredAt) return rootReason(anchor, rr?.required ?? [], rr?.forbidden ?? []);
    const lists = filter.classes.map((_, j) => usable(anchor, j));
    const pool = [...new Set(lists.flat())];
    if (s === filter.requiredAt) {
      const missing = filter.requiredSingles.filter((t) => !pool.some((q) => q.traits.has(t)));
      return missing.length
        ? `no provider with room has ${missing.join(', ')}`
        : `no one choice of providers with room has ${filter.requiredSingles.join(', ')} together`;
    }
    const set = filter.anySets.find((x) => !pool.some((q) => x.some((t) => q.traits.has(t))));
    return set
      ? `no provider with room has one of ${set.join(', ')}`
      : 'no one choice of providers with room has every required trait together';
  };
  return {
    unit: 'trees',
    layout,
    shown,
    labels: labelsOf(store, layout, { ...labelQuery(filter, group), rootRequired: rr }, names).map((l, i) =>
      i === filter.resourceClassAt ? `${l} (in the tree or shared)` : l,
    ),
    units,
    stops,
    reason,
  };
}

/**
 * Counts a group's requests in a trace. A tree group's combinations are
 * walked again, on a budget of their own, so that counting cannot exhaust
 * the one the search ran on.
 */
function engineCounts(
  spaces: SearchTrace['groups'][number]['spaces'],
  maxCombinations: number,
): { requests: number; anchors: number } {
  let requests = 0;
  let anchors = 0;
  const budget = new Budget(maxCombinations);
  for (const space of spaces) {
    const walk =
      space instanceof ProductSpace
        ? new ProductSpace(
            space.anchor,
            space.lists,
            space.classes,
            space.amounts,
            space.required,
            space.sharingEverywhere,
            budget,
          )
        : space;
    let here = 0;
    for (const r of walk.requests()) if (typeof r !== 'symbol') here += 1;
    requests += here;
    if (here) anchors += 1;
  }
  return { requests, anchors };
}

function partsByGroup(parts: readonly GroupRequest[], p: Provider): string[] {
  return parts
    .filter((r) => r.providers.includes(p))
    .map((r) => (r.suffix === '' ? '(unsuffixed)' : r.suffix));
}

function isolateReason(parts: readonly GroupRequest[]): string {
  for (let i = 0; i < parts.length; i += 1) {
    const a = parts[i] as GroupRequest;
    if (!a.sameProvider) continue;
    for (let j = 0; j < i; j += 1) {
      const b = parts[j] as GroupRequest;
      if (b.sameProvider && b.providers[0] === a.providers[0])
        return `${a.providers[0]?.name} would serve groups ${b.suffix} and ${a.suffix} (group_policy=isolate)`;
    }
  }
  return 'two groups would share a provider (group_policy=isolate)';
}

function summedReason(parts: readonly GroupRequest[]): string {
  const sums = new Map<Provider, Map<string, number>>();
  for (const r of parts) {
    r.picks.forEach((p, k) => {
      const rc = r.classes[k] as string;
      const inner = sums.get(p) ?? new Map<string, number>();
      inner.set(rc, (inner.get(rc) ?? 0) + (r.amounts[k] as number));
      sums.set(p, inner);
    });
  }
  for (const [p, inner] of sums) {
    for (const [rc, n] of inner) {
      const inv = p.inventories.get(rc);
      if (!inv) continue;
      const capacity = Math.trunc((inv.total - inv.reserved) * inv.allocation_ratio);
      if ((p.usages.get(rc) ?? 0) + n <= capacity && n <= inv.max_unit) continue;
      const groups = partsByGroup(parts, p).join(' and ');
      const why =
        n > inv.max_unit
          ? `${rc} max_unit ${inv.max_unit} < ${n} asked`
          : (capacityReason(p, rc, n) ?? `${rc}: ${n} asked`);
      return `${p.name} ${why} by groups ${groups} together`;
    }
  }
  return 'the groups together ask a provider for more than it has';
}

function subtreeReason(request: AllocationCandidatesRequest, parts: readonly GroupRequest[]): string {
  for (const subtree of request.sameSubtree) {
    const inSubtree = new Set<Provider>();
    for (const r of parts) if (subtree.includes(r.suffix)) for (const p of r.providers) inSubtree.add(p);
    if (sameSubtreeOk(inSubtree)) continue;
    const who = parts
      .filter((r) => subtree.includes(r.suffix))
      .map((r) => `${r.providers.map((p) => p.name).join(',')} (${r.suffix || 'unsuffixed'})`);
    return `${who.join(', ')} are not in one subtree (same_subtree=${subtree.join(',')})`;
  }
  return 'the groups of same_subtree are not in one subtree';
}

function onePerTreeReason(c: Candidate, minor: number): string {
  const byRoot = new Map<Provider, Provider[]>();
  for (const p of c.allocations.keys()) byRoot.set(p.root, [...(byRoot.get(p.root) ?? []), p]);
  const two = [...byRoot.values()].find((list) => list.length > 1) ?? [];
  return `takes from ${two.map((p) => p.name).join(' and ')}, two providers of one tree; microversion 1.${minor} takes one per tree (1.29 lifts this)`;
}

function requestStages(
  request: AllocationCandidatesRequest,
  trace: SearchTrace,
  store: ProviderStore,
  returned: number,
): { stages: ExplainStage[]; examples: (position: number, max: number) => ExplainExample[] } {
  const minor = toMicroversion(request.microversion).minor;
  const stages: ExplainStage[] = [];
  const fillers: ((max: number) => ExplainExample[])[] = [];
  const add = (stage: ExplainStage, fill: (max: number) => ExplainExample[] = () => []) => {
    stages.push(stage);
    fillers.push(fill);
  };
  const samples =
    (key: keyof SearchTrace['samples'], why: (parts: readonly GroupRequest[]) => string) => (max: number) =>
      trace.samples[key]
        .slice(0, max)
        .map((s) => ({ name: s.anchor.name, uuid: s.anchor.uuid, reason: why(s.parts) }));
  let kept = trace.examined;
  const step = (
    stage: ExplainStage['stage'],
    label: string,
    removed: number,
    fill?: (max: number) => ExplainExample[],
  ) => {
    const before = kept;
    kept -= removed;
    add({ stage, label, unit: 'candidates', before, kept, examples: [] }, fill);
  };
  if (trace.merged) {
    add(
      {
        stage: 'same-tree',
        label: 'every group in one tree',
        unit: 'trees',
        before: trace.anchorsAny,
        kept: trace.anchorsAll,
        examples: [],
      },
      (max) =>
        trace.incomplete.slice(0, max).map((x) => ({
          name: x.anchor.name,
          uuid: x.anchor.uuid,
          reason: `${x.missing.length === 1 ? groupName(x.missing[0] as string) : `groups ${x.missing.join(', ')}`} can be served nowhere in this tree`,
        })),
    );
    if (request.groupPolicy === 'isolate')
      step(
        'group-policy',
        'group_policy=isolate',
        trace.rejected['group-policy'],
        samples('group-policy', isolateReason),
      );
    step(
      'summed-capacity',
      "room for the groups' amounts together",
      trace.rejected['summed-capacity'],
      samples('summed-capacity', summedReason),
    );
    if (request.sameSubtree.length)
      step(
        'same-subtree',
        `same_subtree ${request.sameSubtree.map((s) => s.join(',')).join(' and ')}`,
        trace.rejected['same-subtree'],
        samples('same-subtree', (parts) => subtreeReason(request, parts)),
      );
  }
  if (store.withTrait(SHARING_TRAIT).size)
    step('sharing', 'each candidate once (sharing providers)', trace.rejected.sharing);
  if (minor < 29 && store.hasTrees) {
    add(
      {
        stage: 'one-per-tree',
        label: `one provider per tree (microversion 1.${minor})`,
        unit: 'candidates',
        before: trace.generated,
        kept: trace.afterOnePerTree,
        examples: [],
      },
      (max) =>
        trace.onePerTreeSamples
          .slice(0, max)
          .map((c) => ({ name: c.anchor.name, uuid: c.anchor.uuid, reason: onePerTreeReason(c, minor) })),
    );
  }
  if (request.limit !== undefined)
    add({
      stage: 'limit',
      label: `limit=${request.limit}`,
      unit: 'candidates',
      before: trace.afterOnePerTree,
      kept: returned,
      examples: [],
    });
  return { stages, examples: (position, max) => fillers[position]?.(max) ?? [] };
}

/**
 * Explains `GET /allocation_candidates` over `store`: per request group,
 * how many providers (or, for the unsuffixed group where trees or sharing
 * providers exist, trees) each constraint kept, in the order the engine
 * applies them (resource class, capacity per class, required, forbidden and
 * `in:` traits, member_of, forbidden aggregates, in_tree, root_required;
 * a tree group judges its traits on the providers picked together, last);
 * then the request-wide stages; and, for the first stage that kept nothing,
 * a few providers with the reason in words ("VCPU 6 free of 32 (reserved 2,
 * ratio 1.0), 8 asked").
 *
 * The counts come from the predicates the engine itself filters with, and
 * the request-wide ones from a run of the engine that counts as it goes:
 * `candidates` is what the engine returns before `limit`. The engine runs
 * twice (once as asked, for its 400s and `returned`; once in full), so this
 * costs more than the query and is bounded by `maxCombinations` the same
 * way. Counts are before `max_allocation_candidates`; `returned` is after
 * it when `search` gives one.
 *
 * @example
 * const why = explainAllocationCandidates(store, parseAllocationCandidatesQuery('resources=VCPU:8', '1.39'));
 * why.emptiedBy; // { group: '', stage: 'capacity', label: 'room for VCPU:8' }
 */
export function explainAllocationCandidates(
  store: ProviderStore,
  request: AllocationCandidatesRequest,
  options: ExplainOptions = {},
): AllocationCandidatesExplanation {
  const names = namesOf(options);
  const maxCombinations = options.maxCombinations ?? options.search?.maxCombinations ?? 5_000_000;
  const answer = findAllocationCandidates(store, request, { ...options.search, maxCombinations });
  const trace = createSearchTrace();
  traceAllocationCandidates(store, request, trace, { maxCombinations });
  const ctx: GroupContext = {
    store,
    request,
    anchorRoots: anchorRootsFor(store, request.rootRequired),
    sharing: store.withTrait(SHARING_TRAIT),
    anchorCache: new Map(),
    budget: new Budget(maxCombinations),
    names,
  };
  const built = request.groups.map((group, g) => {
    const filter = new GroupFilter(store, group, groupModeOf(store, group));
    const funnel =
      filter.mode === 'tree' ? explainTreeGroup(filter, ctx) : explainOneProviderGroup(filter, ctx);
    const b = buildStages(funnel);
    const traced = trace.groups[g];
    const counts = engineCounts(traced?.spaces ?? [], maxCombinations);
    const out: ExplainGroup = {
      suffix: group.suffix,
      mode: filter.mode,
      stages: b.stages,
      kept: b.kept,
      requests: counts.requests,
      anchors: counts.anchors,
      ...(traced?.error ? { error: traced.error } : {}),
    };
    return { out, b };
  });
  const req = requestStages(request, trace, store, answer.candidates.length);
  const max = options.examples ?? DEFAULT_EXAMPLES;
  let emptiedBy: EmptiedBy | undefined;
  for (const { out, b } of built) {
    const found = firstEmptied(out.stages, b.examples, max);
    if (!found) continue;
    emptiedBy = { group: out.suffix, ...found };
    break;
  }
  emptiedBy ??= firstEmptied(req.stages, req.examples, max);
  return {
    endpoint: 'allocation_candidates',
    microversion: request.microversion,
    query: serializePlacementQuery(request),
    groups: built.map((x) => x.out),
    request: req.stages,
    candidates: trace.afterOnePerTree,
    returned: answer.candidates.length,
    ...(emptiedBy ? { emptiedBy } : {}),
  };
}

/**
 * Explains `GET /resource_providers` over `store`: how many providers each
 * filter kept, in Placement's order (name, uuid, in_tree, required,
 * forbidden and `in:` traits, member_of, forbidden aggregates, inventory
 * and capacity per class), with named examples for the first filter that
 * kept none. Raises the query's 400s as `listResourceProviders` does.
 *
 * @example
 * explainResourceProviders(store, parseResourceProvidersQuery('required=CUSTOM_X', '1.39')).providers;
 */
export function explainResourceProviders(
  store: ProviderStore,
  request: ResourceProvidersRequest,
  options: ExplainOptions = {},
): ResourceProvidersExplanation {
  const names = namesOf(options);
  const answer = listResourceProviders(store, request);
  const filter = new ProvidersFilter(store, request);
  const layout = filter.stages;
  const units = [...store.providers()];
  const stops = new Int32Array(units.length);
  units.forEach((p, u) => {
    stops[u] = filter.failsAt(p);
  });
  const present = [
    request.name !== undefined,
    request.uuid !== undefined,
    request.inTree !== undefined,
    filter.requiredSingles.length > 0,
    request.forbiddenTraits.length > 0,
    filter.anySets.length > 0,
    request.memberOf.length > 0,
    request.forbiddenAggregates.length > 0,
  ];
  const shown = layout.map((_, i) =>
    i < present.length ? (present[i] as boolean) : filter.classes.length > 0,
  );
  const reason = (p: Provider, s: number): string => {
    switch (s) {
      case 0:
        return `is not named ${request.name}`;
      case 1:
        return `is not ${request.uuid}`;
      case 2:
        return inTreeReason(filter, request.inTree);
      case 3:
        return lacksTraits(p, filter.requiredSingles);
      case 4:
        return hasForbiddenTraits(p, request.forbiddenTraits);
      case 5:
        return lacksAnyTrait(p, filter.anySets);
      case 6:
        return notMember(p, request.memberOf, names);
      case 7:
        return inForbiddenAggregate(p, request.forbiddenAggregates, names);
      case 8:
        return `no ${filter.classes.find((c) => !p.inventories.has(c)) ?? ''} inventory`;
      default: {
        const k = s - 9;
        return capacityReason(p, filter.classes[k] as string, filter.amounts[k] as number) ?? 'no room';
      }
    }
  };
  const b = buildStages({
    unit: 'providers',
    layout,
    shown,
    labels: labelsOf(
      store,
      layout,
      { ...labelQuery(filter, request), name: request.name, uuid: request.uuid },
      names,
    ),
    units,
    stops,
    reason,
  });
  // A name or uuid nobody has needs no examples: every provider is "not it".
  const emptiedBy = firstEmptied(
    b.stages,
    b.examples,
    options.examples ?? DEFAULT_EXAMPLES,
    (s) => s.stage !== 'name' && s.stage !== 'uuid',
  );
  return {
    endpoint: 'resource_providers',
    microversion: request.microversion,
    query: serializePlacementQuery(request),
    stages: b.stages,
    providers: answer.length,
    ...(emptiedBy ? { emptiedBy } : {}),
  };
}

/** {@link explainAllocationCandidates} or {@link explainResourceProviders}, by the query's endpoint. */
export function explainPlacementQuery(
  store: ProviderStore,
  query: PlacementQuery,
  options: ExplainOptions = {},
): PlacementExplanation {
  return query.endpoint === 'allocation_candidates'
    ? explainAllocationCandidates(store, query, options)
    : explainResourceProviders(store, query, options);
}
