import { atLeast } from '../../microversion.js';
import {
  type AllocationRequest,
  allocationsFrom,
  consumerUuid,
  deleteAllocations,
  replaceAllocations,
} from '../../service/allocations.js';
import { allocationLocks } from '../../service/locks.js';
import type { PlacementContext, PlacementRoute, ResponseParts } from '../context.js';
import { allocationSchema } from '../schemas.js';

function ofProvider(ctx: PlacementContext): ResponseParts {
  const p = ctx.provider(
    (u) => `Resource provider '${u}' not found: No resource provider with uuid ${u} found`,
  );
  const allocations: Record<string, { resources: Record<string, number>; consumer_generation?: number }> = {};
  for (const { consumer, resources } of allocationsFrom(ctx.store, p)) {
    allocations[consumer.uuid] = {
      resources: Object.fromEntries(resources),
      ...(atLeast(ctx.version, 28) ? { consumer_generation: consumer.generation } : {}),
    };
  }
  return { status: 200, cache: true, body: { allocations, resource_provider_generation: p.generation } };
}

function ofConsumer(ctx: PlacementContext): ResponseParts {
  const c = ctx.store.consumer(ctx.param('consumer_uuid'));
  if (!c) return { status: 200, cache: true, body: { allocations: {} } };
  const allocations: Record<string, { resources: Record<string, number>; generation: number }> = {};
  for (const [rpUuid, inner] of c.allocations) {
    allocations[rpUuid] = {
      resources: Object.fromEntries(inner),
      generation: ctx.store.provider(rpUuid)?.generation ?? 0,
    };
  }
  const out: Record<string, unknown> = { allocations };
  if (atLeast(ctx.version, 12)) {
    out.project_id = c.projectId;
    out.user_id = c.userId;
    if (atLeast(ctx.version, 28)) out.consumer_generation = c.generation;
    if (atLeast(ctx.version, 38)) out.consumer_type = c.consumerType;
  }
  return { status: 200, cache: true, body: out };
}

/** The allocations a body names, in the list shape before 1.12 and the mapping shape from it. */
function allocationsOf(data: Record<string, unknown>, minor: number): AllocationRequest['allocations'] {
  if (minor < 12) {
    const out: AllocationRequest['allocations'] = {};
    for (const a of data.allocations as {
      resource_provider: { uuid: string };
      resources: Record<string, number>;
    }[]) {
      out[a.resource_provider.uuid] = a.resources;
    }
    return out;
  }
  return Object.fromEntries(
    Object.entries(data.allocations as Record<string, { resources: Record<string, number> }>).map(
      ([k, v]) => [k, v.resources],
    ),
  );
}

async function replace(ctx: PlacementContext): Promise<ResponseParts> {
  const consumer = consumerUuid(ctx.param('consumer_uuid'));
  const minor = ctx.version.minor;
  const data = (await ctx.json(allocationSchema(minor))) as Record<string, unknown>;
  const request: AllocationRequest = {
    allocations: allocationsOf(data, minor),
    projectId: data.project_id as string | undefined,
    userId: data.user_id as string | undefined,
    consumerType: data.consumer_type as string | undefined,
    ...(minor >= 28 ? { consumerGeneration: data.consumer_generation as number | null } : {}),
  };
  return ctx.write({
    locks: (s) => allocationLocks(s, consumer, Object.keys(request.allocations)),
    decide: (s) => replaceAllocations(s, consumer, request),
    answer: () => ({ status: 204 }),
  });
}

function remove(ctx: PlacementContext): Promise<ResponseParts> {
  const consumer = ctx.param('consumer_uuid');
  return ctx.write({
    locks: (s) => allocationLocks(s, consumer, []),
    decide: (s) => deleteAllocations(s, consumer),
    answer: () => ({ status: 204 }),
  });
}

/** A provider's allocations, and a consumer's. */
export const ALLOCATION_ROUTES: readonly PlacementRoute[] = [
  { path: '/resource_providers/{uuid}/allocations', methods: { GET: ofProvider } },
  { path: '/allocations/{consumer_uuid}', methods: { GET: ofConsumer, PUT: replace, DELETE: remove } },
];
