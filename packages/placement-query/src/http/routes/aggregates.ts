import { atLeast } from '../../microversion.js';
import type { Provider } from '../../model/store.js';
import { setAggregates } from '../../service/aggregates.js';
import { findProvider } from '../../service/resource-providers.js';
import { type PlacementContext, type PlacementRoute, type ResponseParts, since } from '../context.js';
import { PUT_AGGREGATES_1_1, PUT_AGGREGATES_1_19 } from '../schemas.js';

// From 1.19 the aggregates travel with the provider's generation.
const body = (ctx: PlacementContext, p: Provider, aggregates: string[]) => ({
  aggregates,
  ...(atLeast(ctx.version, 19) ? { resource_provider_generation: p.generation } : {}),
});

function show(ctx: PlacementContext): ResponseParts {
  const p = ctx.provider();
  return { status: 200, cache: true, body: body(ctx, p, [...p.aggregates]) };
}

async function replace(ctx: PlacementContext): Promise<ResponseParts> {
  const { uuid } = ctx.provider();
  let aggregates: string[];
  let generation: number | undefined;
  if (atLeast(ctx.version, 19)) {
    const data = (await ctx.json(PUT_AGGREGATES_1_19)) as {
      aggregates: string[];
      resource_provider_generation: number;
    };
    aggregates = data.aggregates;
    generation = data.resource_provider_generation;
  }
  // Before 1.19 the body is the list itself.
  else aggregates = (await ctx.json(PUT_AGGREGATES_1_1)) as string[];
  return ctx.write({
    locks: () => ({ providers: [uuid] }),
    decide: (s) => setAggregates(s, findProvider(s, uuid), aggregates, generation),
    answer: (s) => ({ status: 200, cache: true, body: body(ctx, s.requireProvider(uuid), aggregates) }),
  });
}

/** A provider's aggregates (from 1.1). */
export const AGGREGATE_ROUTES: readonly PlacementRoute[] = [
  {
    path: '/resource_providers/{uuid}/aggregates',
    methods: { GET: since('1.1', show), PUT: since('1.1', replace) },
  },
];
