import { atLeast } from '../../microversion.js';
import { usagesQuerySchema } from '../../query-schemas.js';
import { providerUsages, totalUsages } from '../../service/usages.js';
import { type PlacementContext, type PlacementRoute, type ResponseParts, since } from '../context.js';

function ofProvider(ctx: PlacementContext): ResponseParts {
  const p = ctx.provider(
    (u) => `No resource provider with uuid ${u} found: No resource provider with uuid ${u} found`,
  );
  return {
    status: 200,
    cache: true,
    body: { resource_provider_generation: p.generation, usages: providerUsages(p) },
  };
}

/** `GET /usages` (1.9): a project's usages; from 1.38 grouped by consumer type. */
function ofProject(ctx: PlacementContext): ResponseParts {
  const q = ctx.query(usagesQuerySchema(ctx.version));
  const byType = atLeast(ctx.version, 38);
  const totals = totalUsages(ctx.store, {
    projectId: q.last('project_id') as string,
    userId: q.last('user_id'),
    consumerType: byType ? q.last('consumer_type') : undefined,
  });
  return { status: 200, cache: true, body: { usages: byType ? totals.byType : totals.total } };
}

/** A provider's usages and a project's. */
export const USAGE_ROUTES: readonly PlacementRoute[] = [
  { path: '/resource_providers/{uuid}/usages', methods: { GET: ofProvider } },
  { path: '/usages', methods: { GET: since('1.9', ofProject) } },
];
