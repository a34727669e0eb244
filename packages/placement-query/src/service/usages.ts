import type { Provider, ProviderStore } from '../model/store.js';

/** How much of each class `p` has inventory of is allocated (0 for none). */
export function providerUsages(p: Provider): Record<string, number> {
  const usages: Record<string, number> = {};
  for (const rc of p.inventories.keys()) usages[rc] = p.usages.get(rc) ?? 0;
  return usages;
}

/** Whose usages `GET /usages` sums. */
export interface UsageFilter {
  projectId: string;
  userId?: string | undefined;
  /**
   * From 1.38: one consumer type, or `all` to sum every consumer together;
   * `undefined` groups by type.
   */
  consumerType?: string | undefined;
}

/** The usages of a project (and user), in total and by consumer type with a count of consumers each. */
export interface UsageTotals {
  total: Record<string, number>;
  byType: Record<string, Record<string, number>>;
}

/**
 * Sums the allocations of a project's consumers (and a user's, when
 * given), in total and by consumer type (each with `consumer_count`), as
 * `GET /usages` reports them before and from 1.38.
 */
export function totalUsages(store: ProviderStore, filter: UsageFilter): UsageTotals {
  const wanted = filter.consumerType;
  const total: Record<string, number> = {};
  const byType: Record<string, Record<string, number>> = {};
  const counted = new Map<string, Set<string>>();
  for (const c of store.consumers()) {
    if (c.projectId !== filter.projectId || (filter.userId !== undefined && c.userId !== filter.userId))
      continue;
    const type = wanted === 'all' ? 'all' : c.consumerType;
    if (wanted !== undefined && wanted !== 'all' && type !== wanted) continue;
    const bucket = byType[type] ?? {};
    byType[type] = bucket;
    const consumers = counted.get(type) ?? new Set<string>();
    counted.set(type, consumers);
    consumers.add(c.uuid);
    for (const inner of c.allocations.values()) {
      for (const [rc, n] of inner) {
        total[rc] = (total[rc] ?? 0) + n;
        bucket[rc] = (bucket[rc] ?? 0) + n;
      }
    }
    bucket.consumer_count = consumers.size;
  }
  return { total, byType };
}
