import { isUuidLike, normalizeUuid } from '@stackspec/core';
import { PLACEMENT_ERROR_CODES } from '../errors.js';
import type { Consumer, Provider, ProviderStore } from '../model/store.js';
import { refusal } from './refusals.js';

/** One consumer's allocations from one provider. */
export interface ProviderAllocation {
  consumer: Consumer;
  resources: ReadonlyMap<string, number>;
}

/** What every consumer holds of `p`, in the store's consumer order. */
export function allocationsFrom(store: ProviderStore, p: Provider): ProviderAllocation[] {
  const out: ProviderAllocation[] = [];
  for (const consumer of store.consumers()) {
    const resources = consumer.allocations.get(p.uuid);
    if (resources) out.push({ consumer, resources });
  }
  return out;
}

/** What `PUT /allocations/{consumer_uuid}` asks for, whichever microversion's body shape it came in. */
export interface AllocationRequest {
  /** Provider uuid → resource class → amount. */
  allocations: Record<string, Record<string, number>>;
  projectId?: string | undefined;
  userId?: string | undefined;
  consumerType?: string | undefined;
  /**
   * From 1.28: the consumer generation the client last saw (`null` for a
   * new consumer); `undefined` before 1.28, where none is checked.
   */
  consumerGeneration?: number | null | undefined;
}

/** Placement's 400 unless `consumer` looks like a uuid; its normal form otherwise. */
export function consumerUuid(consumer: string): string {
  if (!isUuidLike(consumer)) {
    throw refusal(400, `Malformed consumer_uuid: ${consumer}`, 'placement-query/bad-consumer-uuid');
  }
  return normalizeUuid(consumer) as string;
}

/**
 * Replaces a consumer's allocations: the consumer generation must match
 * (from 1.28), every provider must exist, and the store checks capacity.
 * A consumer keeps its project and user unless new ones are given
 * (`default` for a new consumer without them).
 */
export function replaceAllocations(store: ProviderStore, consumer: string, request: AllocationRequest): void {
  const existing = store.consumer(consumer);
  const given = request.consumerGeneration;
  if (given !== undefined) {
    if (existing && existing.generation !== given) {
      throw refusal(
        409,
        `consumer generation conflict - expected ${existing.generation} but got ${given === null ? 'None' : given}`,
        'placement-query/consumer-generation-conflict',
        PLACEMENT_ERROR_CODES.concurrentUpdate,
      );
    }
    if (!existing && given !== null) {
      throw refusal(
        409,
        `consumer generation conflict - expected null but got ${given}`,
        'placement-query/consumer-generation-conflict',
        PLACEMENT_ERROR_CODES.concurrentUpdate,
      );
    }
  }
  for (const rp of Object.keys(request.allocations)) {
    if (!store.provider(rp)) {
      throw refusal(
        400,
        `Allocation for resource provider '${rp}' that does not exist.`,
        'placement-query/provider-not-found',
      );
    }
  }
  store.setAllocations(consumer, request.allocations, {
    projectId: request.projectId ?? existing?.projectId ?? 'default',
    userId: request.userId ?? existing?.userId ?? 'default',
    ...(typeof request.consumerType === 'string' ? { consumerType: request.consumerType } : {}),
  });
}

/** Deletes a consumer's allocations, Placement's 404 when it has none. */
export function deleteAllocations(store: ProviderStore, consumer: string): void {
  if (!store.consumer(consumer)) {
    throw refusal(404, `No allocations for consumer '${consumer}'`, 'placement-query/consumer-not-found');
  }
  store.deleteAllocations(consumer);
}
