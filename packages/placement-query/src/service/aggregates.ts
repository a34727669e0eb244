import type { Provider, ProviderStore } from '../model/store.js';
import { generationConflict } from './refusals.js';

/**
 * Replaces the aggregates of `p`. From 1.19 the request names the
 * provider's `generation`, which must be current and then moves on; before
 * 1.19 (`generation` undefined) there is none, and the generation stays as
 * it was, as in Placement.
 */
export function setAggregates(
  store: ProviderStore,
  p: Provider,
  aggregates: readonly string[],
  generation?: unknown,
): void {
  if (generation === undefined) {
    const kept = p.generation;
    store.setAggregates(p.uuid, aggregates);
    p.generation = kept;
    return;
  }
  if (generation !== p.generation) {
    throw generationConflict(
      "Resource provider's generation already changed. Please update the generation and try again.",
    );
  }
  store.setAggregates(p.uuid, aggregates);
}
