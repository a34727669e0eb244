import type { Provider, ProviderStore } from '../model/store.js';
import type { ResourceProvidersRequest } from '../request.js';
import {
  byId,
  evaluationError,
  firstUnknown,
  providersInAggregates,
  providersInAnyAggregate,
  providersWithAnyTrait,
  providersWithCapacity,
  providersWithTraits,
} from './common.js';

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
 * trait, a resource class or a tree), not to the number of providers.
 *
 * @example
 * listResourceProviders(store, parseResourceProvidersQuery('member_of=!<agg>', '1.32'));
 */
export function listResourceProviders(store: ProviderStore, request: ResourceProvidersRequest): Provider[] {
  const predicates: ((p: Provider) => boolean)[] = [];
  const bases: Iterable<Provider>[] = [];
  const sizes: number[] = [];
  const addBase = (items: Iterable<Provider>, size: number) => {
    bases.push(items);
    sizes.push(size);
  };

  if (request.name) {
    const p = store.providerByName(request.name);
    addBase(p ? [p] : [], p ? 1 : 0);
  }
  if (request.uuid) {
    const p = store.provider(request.uuid);
    addBase(p ? [p] : [], p ? 1 : 0);
  }
  if (request.inTree !== undefined) {
    const anchor = store.provider(request.inTree);
    if (!anchor) return [];
    const root = anchor.root;
    predicates.push((p) => p.root === root);
  }
  if (request.requiredTraits.length) {
    const unknown = firstUnknown(request.requiredTraits.flat(), (t) => store.hasTrait(t));
    if (unknown) {
      throw evaluationError(
        `Invalid trait(s) in "required" parameter: No such trait(s): ${unknown}.`,
        'placement-query/unknown-trait',
        'required',
      );
    }
    const matching = providersWithTraits(store, request.requiredTraits);
    if (!matching.size) return [];
    addBase(matching, matching.size);
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
    const bad = providersWithAnyTrait(store, request.forbiddenTraits);
    if (bad.size) predicates.push((p) => !bad.has(p));
  }
  if (request.memberOf.length) {
    const members = providersInAggregates(store, request.memberOf);
    if (!members.size) return [];
    addBase(members, members.size);
  }
  if (request.forbiddenAggregates.length) {
    const bad = providersInAnyAggregate(store, request.forbiddenAggregates);
    if (bad.size) predicates.push((p) => !bad.has(p));
  }
  for (const [rc, amount] of Object.entries(request.resources ?? {})) {
    if (!store.hasResourceClass(rc)) {
      throw evaluationError(
        `Invalid resource class in resources parameter: No such resource class ${rc}.`,
        'placement-query/unknown-resource-class',
        'resources',
      );
    }
    const fit = new Set(providersWithCapacity(store, rc, amount));
    addBase(fit, fit.size);
  }

  let base: Iterable<Provider> = store.providers();
  let smallest = -1;
  for (let i = 0; i < sizes.length; i += 1) {
    if (smallest < 0 || (sizes[i] as number) < (sizes[smallest] as number)) smallest = i;
  }
  const others: Set<Provider>[] = [];
  bases.forEach((b, i) => {
    if (i === smallest) base = b;
    else others.push(b instanceof Set ? b : new Set(b));
  });
  const out: Provider[] = [];
  for (const p of base) {
    if (others.every((s) => s.has(p)) && predicates.every((f) => f(p))) out.push(p);
  }
  return smallest >= 0 ? out.sort(byId) : out;
}
