import { createProviderStore, type ProviderStore } from '../model/store.js';
import type { PlacementStore, StoreHealth, WriteIntent } from './types.js';

/**
 * A Placement kept in memory only: writes apply to the {@link ProviderStore}
 * directly and are lost when the process ends. What `--ephemeral` serves,
 * and the state of `createPlacementHandler` when it is given no store.
 *
 * @example
 * const placement = createMemoryPlacementStore(parseInventory(text).store);
 */
export function createMemoryPlacementStore(store: ProviderStore = createProviderStore()): PlacementStore {
  const health: StoreHealth = {
    status: 'ok',
    kind: 'memory',
    description: 'memory only',
    position: 0,
  };
  return {
    store,
    async open() {},
    async write<T, R>(intent: WriteIntent<T, R>): Promise<R> {
      return intent.answer(store, intent.decide(store));
    },
    health: () => ({ ...health }),
    assertReadable() {},
    async close() {},
  };
}
