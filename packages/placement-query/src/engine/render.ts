import type { Microversion } from '@stackspec/core';
import { atLeast, toMicroversion } from '../microversion.js';
import { capacityOf, type Provider } from '../model/store.js';
import type { CandidatesResult } from './candidates.js';

/** A link in Placement's provider representation. */
export interface ProviderLink {
  rel: string;
  href: string;
}

/** A provider as `GET /resource_providers` shows it at some microversion. */
export interface ProviderJson {
  uuid: string;
  name: string;
  generation: number;
  links: ProviderLink[];
  parent_provider_uuid?: string | null;
  root_provider_uuid?: string;
}

/** Placement's JSON for one provider; `prefix` is where the API is mounted (`/placement`). */
export function renderProvider(p: Provider, microversion: Microversion | string, prefix = ''): ProviderJson {
  const v = toMicroversion(microversion);
  const self = `${prefix}/resource_providers/${p.uuid}`;
  const rels = ['inventories', 'usages'];
  if (atLeast(v, 1)) rels.push('aggregates');
  if (atLeast(v, 6)) rels.push('traits');
  if (atLeast(v, 11)) rels.push('allocations');
  const out: ProviderJson = {
    uuid: p.uuid,
    name: p.name,
    generation: p.generation,
    links: [{ rel: 'self', href: self }, ...rels.map((rel) => ({ rel, href: `${self}/${rel}` }))],
  };
  if (atLeast(v, 14)) {
    out.parent_provider_uuid = p.parent ? p.parent.uuid : null;
    out.root_provider_uuid = p.root.uuid;
  }
  return out;
}

/** `{"resource_providers": [...]}` as Placement answers `GET /resource_providers`. */
export function renderProviderList(
  providers: readonly Provider[],
  microversion: Microversion | string,
  prefix = '',
): { resource_providers: ProviderJson[] } {
  return { resource_providers: providers.map((p) => renderProvider(p, microversion, prefix)) };
}

/** One provider summary of `GET /allocation_candidates`. */
export interface ProviderSummaryJson {
  resources: Record<string, { capacity: number; used: number }>;
  traits?: string[];
  parent_provider_uuid?: string | null;
  root_provider_uuid?: string;
}

/** An allocation request in the dict form (1.12+). */
export interface AllocationRequestJson {
  allocations: Record<string, { resources: Record<string, number> }>;
  mappings?: Record<string, string[]>;
}

/** An allocation request in the list form (1.10–1.11). */
export interface AllocationRequestListJson {
  allocations: { resource_provider: { uuid: string }; resources: Record<string, number> }[];
}

/** The body of `GET /allocation_candidates`. */
export interface AllocationCandidatesJson {
  allocation_requests: (AllocationRequestJson | AllocationRequestListJson)[];
  provider_summaries: Record<string, ProviderSummaryJson>;
}

/**
 * Renders candidates as Placement's body at a microversion: list-form
 * allocations below 1.12, `mappings` from 1.34; summaries show requested
 * classes only below 1.27, traits from 1.17, parent and root from 1.29.
 * Traits are sorted (Placement's order is whatever its database returns).
 */
export function renderCandidates(
  result: CandidatesResult,
  microversion: Microversion | string,
): AllocationCandidatesJson {
  const v = toMicroversion(microversion);
  const dict = atLeast(v, 12);
  const allocation_requests = result.candidates.map((c) => {
    if (!dict) {
      return {
        allocations: [...c.allocations].map(([p, inner]) => ({
          resource_provider: { uuid: p.uuid },
          resources: Object.fromEntries(inner),
        })),
      };
    }
    const out: AllocationRequestJson = {
      allocations: Object.fromEntries(
        [...c.allocations].map(([p, inner]) => [p.uuid, { resources: Object.fromEntries(inner) }]),
      ),
    };
    if (atLeast(v, 34)) {
      out.mappings = Object.fromEntries([...c.mappings].map(([s, set]) => [s, [...set].map((p) => p.uuid)]));
    }
    return out;
  });
  const provider_summaries: Record<string, ProviderSummaryJson> = {};
  const all = atLeast(v, 27);
  for (const p of result.summaries) {
    const resources: Record<string, { capacity: number; used: number }> = {};
    for (const [rc, inv] of p.inventories) {
      if (!all && !result.requestedClasses.has(rc)) continue;
      resources[rc] = { capacity: capacityOf(inv), used: p.usages.get(rc) ?? 0 };
    }
    const s: ProviderSummaryJson = { resources };
    if (atLeast(v, 17)) s.traits = [...p.traits].sort();
    if (atLeast(v, 29)) {
      s.parent_provider_uuid = p.parent ? p.parent.uuid : null;
      s.root_provider_uuid = p.root.uuid;
    }
    provider_summaries[p.uuid] = s;
  }
  return { allocation_requests, provider_summaries };
}
