import type { ProviderStore } from '../model/store.js';
import type { WriteLocks } from '../store/types.js';

/**
 * A provider and the root of its tree: what a write that changes the shape
 * of a tree locks (a new child, a move, a delete), so that two such writes
 * on one tree never interleave. Nothing for a provider that does not exist.
 */
export function treeLocks(store: ProviderStore, uuid: string | null | undefined): string[] {
  if (!uuid) return [];
  const p = store.provider(uuid);
  return p ? [p.uuid, p.root.uuid] : [];
}

/**
 * What replacing a consumer's allocations locks: the consumer, the
 * providers the new allocations name and those its current ones use (their
 * usages and generations change).
 */
export function allocationLocks(
  store: ProviderStore,
  consumer: string,
  requested: Iterable<string>,
): WriteLocks {
  return {
    consumers: [consumer],
    providers: [...requested, ...(store.consumer(consumer)?.allocations.keys() ?? [])],
  };
}

/**
 * What renaming a resource class locks: both names, every provider with
 * inventory of it and every consumer with allocations of it (the rename
 * rewrites their state).
 */
export function renameLocks(store: ProviderStore, from: string, to: string): WriteLocks {
  const consumers: string[] = [];
  for (const c of store.consumers()) {
    for (const inner of c.allocations.values()) {
      if (inner.has(from)) {
        consumers.push(c.uuid);
        break;
      }
    }
  }
  return {
    names: [`class:${from}`, `class:${to}`],
    consumers,
    providers: [...store.withInventory(from)].map((p) => p.uuid),
  };
}
