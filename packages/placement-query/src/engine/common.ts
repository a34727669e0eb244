import { createDiagnostic, pySortedSet, ValidationError } from '@stackspec/core';
import { PLACEMENT_ERROR_CODES } from '../errors.js';
import { entryFits, type Provider, type ProviderStore } from '../model/store.js';

/** A 400 raised while evaluating (an unknown trait or resource class), with Placement's message. */
export function evaluationError(message: string, diagnostic: string, parameter?: string): ValidationError {
  return new ValidationError(message, {
    code: PLACEMENT_ERROR_CODES.default,
    diagnostics: [createDiagnostic({ code: diagnostic, message, path: parameter ? `/${parameter}` : '' })],
  });
}

/** The first name the store does not know, looking at sets in order and at names sorted within a set. */
export function firstUnknown(names: Iterable<string>, known: (name: string) => boolean): string | undefined {
  for (const n of pySortedSet(names)) if (!known(n)) return n;
  return undefined;
}

/** Providers with room for `amount` of `rc`, optionally only in the tree rooted at `root`, in id order. */
export function providersWithCapacity(
  store: ProviderStore,
  rc: string,
  amount: number,
  root?: Provider,
): Provider[] {
  const out: Provider[] = [];
  for (const e of store.capacityEntries(rc)) {
    if (!entryFits(e, amount)) continue;
    if (root && e.provider.root !== root) continue;
    out.push(e.provider);
  }
  return out;
}

/** Providers directly in at least one aggregate of every set (Placement's positive member_of). */
export function providersInAggregates(
  store: ProviderStore,
  memberOf: readonly (readonly string[])[],
): Set<Provider> {
  if (!memberOf.length) return new Set();
  const sized = memberOf
    .map((set) => {
      const members = new Set<Provider>();
      for (const agg of set) for (const p of store.inAggregate(agg)) members.add(p);
      return members;
    })
    .sort((a, b) => a.size - b.size);
  const [smallest, ...rest] = sized as [Set<Provider>, ...Set<Provider>[]];
  const out = new Set<Provider>();
  for (const p of smallest) if (rest.every((s) => s.has(p))) out.add(p);
  return out;
}

/** Providers directly in any of the aggregates. */
export function providersInAnyAggregate(store: ProviderStore, aggregates: readonly string[]): Set<Provider> {
  const out = new Set<Provider>();
  for (const agg of aggregates) for (const p of store.inAggregate(agg)) out.add(p);
  return out;
}

/** Providers having at least one trait of every any-of set. */
export function providersWithTraits(
  store: ProviderStore,
  required: readonly (readonly string[])[],
): Set<Provider> {
  if (!required.length) return new Set();
  const sets = required
    .map((set) => {
      const members = new Set<Provider>();
      for (const t of set) for (const p of store.withTrait(t)) members.add(p);
      return members;
    })
    .sort((a, b) => a.size - b.size);
  const [smallest, ...rest] = sets as [Set<Provider>, ...Set<Provider>[]];
  const out = new Set<Provider>();
  for (const p of smallest) if (rest.every((s) => s.has(p))) out.add(p);
  return out;
}

/** Providers having any of the traits. */
export function providersWithAnyTrait(store: ProviderStore, traits: readonly string[]): Set<Provider> {
  const out = new Set<Provider>();
  for (const t of traits) for (const p of store.withTrait(t)) out.add(p);
  return out;
}

/** Whether a trait set satisfies every any-of set. */
export function satisfies(traits: ReadonlySet<string>, required: readonly (readonly string[])[]): boolean {
  return required.every((set) => set.some((t) => traits.has(t)));
}

/** Orders providers by internal id (creation order), Placement's natural database order. */
export function byId(a: Provider, b: Provider): number {
  return a.id - b.id;
}
