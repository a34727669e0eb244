import { entryFits, type Provider, type ProviderStore } from '../model/store.js';
import type { ResourceProvidersRequest } from '../request.js';
import { byId, evaluationError, firstUnknown } from './common.js';
import { PASSED, ProvidersFilter } from './stages.js';

/** A candidate source: an index set (or list) plus a membership test. */
interface Source {
  size: number;
  /**
   * Calls `visit` with each candidate (once each) until it returns true;
   * true when it did. A callback rather than an iterator: no generator
   * step per candidate and nothing allocated to skip duplicates.
   */
  some: (visit: (p: Provider) => boolean) => boolean;
  has: (p: Provider) => boolean;
}

function unionSource(sets: readonly ReadonlySet<Provider>[]): Source {
  if (sets.length === 1) {
    const only = sets[0] as ReadonlySet<Provider>;
    return {
      size: only.size,
      some: (visit) => {
        for (const p of only) if (visit(p)) return true;
        return false;
      },
      has: (p) => only.has(p),
    };
  }
  // A provider in several of the sets is visited from the first one only.
  const seenEarlier = (p: Provider, before: number) => {
    for (let j = 0; j < before; j += 1) if ((sets[j] as ReadonlySet<Provider>).has(p)) return true;
    return false;
  };
  return {
    size: sets.reduce((n, s) => n + s.size, 0),
    some: (visit) => {
      for (let i = 0; i < sets.length; i += 1) {
        for (const p of sets[i] as ReadonlySet<Provider>) if (!seenEarlier(p, i) && visit(p)) return true;
      }
      return false;
    },
    has: (p) => sets.some((s) => s.has(p)),
  };
}

function anyMatches(sources: readonly Source[]): boolean {
  if (!sources.length) return true;
  const sorted = [...sources].sort((a, b) => a.size - b.size);
  const [first, ...rest] = sorted as [Source, ...Source[]];
  return first.some((p) => rest.every((s) => s.has(p)));
}

/**
 * Evaluates a parsed `GET /resource_providers` query: every filter looks at
 * the provider itself (no tree spanning, no sharing), in Placement's order
 * (name, uuid, in_tree, required traits, forbidden traits, member_of,
 * forbidden aggregates, resources). Like Placement, a filter that matches
 * nothing anywhere ends the search with `[]` before later filters can
 * raise their 400s (unknown trait or resource class). Results come in
 * creation order.
 *
 * Cost: proportional to the smallest candidate index (an aggregate, a
 * trait, a resource class or a tree), not to the number of providers;
 * negative filters are checked on each candidate, never materialised.
 *
 * @example
 * listResourceProviders(store, parseResourceProvidersQuery('member_of=!<agg>', '1.32'));
 */
export function listResourceProviders(store: ProviderStore, request: ResourceProvidersRequest): Provider[] {
  // Placement's early answers and 400s, in its order; the stages then decide
  // (each index below only finds candidates: the filter judges them).
  const sources: Source[] = [];
  const single = (p: Provider | undefined): Source => ({
    size: p ? 1 : 0,
    some: (visit) => p !== undefined && visit(p),
    has: (q) => q === p,
  });

  if (request.name) sources.push(single(store.providerByName(request.name)));
  if (request.uuid) sources.push(single(store.provider(request.uuid)));
  if (request.inTree !== undefined && !store.provider(request.inTree)) return [];
  if (request.requiredTraits.length) {
    const unknown = firstUnknown(request.requiredTraits.flat(), (t) => store.hasTrait(t));
    if (unknown) {
      throw evaluationError(
        `Invalid trait(s) in "required" parameter: No such trait(s): ${unknown}.`,
        'placement-query/unknown-trait',
        'required',
      );
    }
    const traitSources = request.requiredTraits.map((set) => unionSource(set.map((t) => store.withTrait(t))));
    if (!anyMatches(traitSources)) return [];
    sources.push(...traitSources);
  }
  if (request.forbiddenTraits.length) {
    const unknown = firstUnknown(request.forbiddenTraits, (t) => store.hasTrait(t));
    if (unknown) {
      throw evaluationError(
        `Invalid trait(s) in "required" parameter: No such trait(s): ${unknown}.`,
        'placement-query/unknown-trait',
        'required',
      );
    }
  }
  if (request.memberOf.length) {
    const aggSources = request.memberOf.map((set) => unionSource(set.map((a) => store.inAggregate(a))));
    if (!anyMatches(aggSources)) return [];
    sources.push(...aggSources);
  }
  for (const [rc, amount] of Object.entries(request.resources ?? {})) {
    if (!store.hasResourceClass(rc)) {
      throw evaluationError(
        `Invalid resource class in resources parameter: No such resource class ${rc}.`,
        'placement-query/unknown-resource-class',
        'resources',
      );
    }
    const entries = store.capacityEntries(rc);
    sources.push({
      size: entries.length,
      some: (visit) => {
        for (const e of entries) if (entryFits(e, amount) && visit(e.provider)) return true;
        return false;
      },
      has: () => true,
    });
  }

  const filter = new ProvidersFilter(store, request);
  const out: Provider[] = [];
  if (!sources.length) {
    for (const p of store.providers()) if (filter.failsAt(p) === PASSED) out.push(p);
    return out;
  }
  let base = sources[0] as Source;
  for (const s of sources) if (s.size < base.size) base = s;
  base.some((p) => {
    if (filter.failsAt(p) === PASSED) out.push(p);
    return false;
  });
  return out.sort(byId);
}
