import { listResourceProviders } from '../../engine/providers.js';
import { renderProvider, renderProviderListBytes } from '../../engine/render.js';
import { atLeast } from '../../microversion.js';
import { parseResourceProvidersQuery } from '../../parse.js';
import { treeLocks } from '../../service/locks.js';
import {
  createProvider,
  findProvider,
  type NewProvider,
  type ProviderChanges,
  updateProvider,
} from '../../service/resource-providers.js';
import type { PlacementContext, PlacementRoute, ResponseParts } from '../context.js';
import { postProviderSchema, putProviderSchema } from '../schemas.js';

/** `GET /resource_providers`: the query engine's list, rendered straight into bytes. */
function list(ctx: PlacementContext): ResponseParts {
  const request = parseResourceProvidersQuery(ctx.url.searchParams, ctx.version);
  const providers = listResourceProviders(ctx.store, request);
  return {
    status: 200,
    cache: true,
    raw: renderProviderListBytes(providers, ctx.version, { prefix: ctx.prefix }),
  };
}

async function create(ctx: PlacementContext): Promise<ResponseParts> {
  const data = (await ctx.json(postProviderSchema(ctx.version.minor))) as NewProvider;
  return ctx.write({
    locks: (s) => ({ providers: treeLocks(s, data.parent_provider_uuid) }),
    decide: (s) => createProvider(s, data).uuid,
    answer: (s, uuid) => {
      const headers = { location: ctx.location(`/resource_providers/${uuid}`) };
      // From 1.20 the new provider comes back; before, only where it is.
      if (atLeast(ctx.version, 20)) {
        const body = renderProvider(s.requireProvider(uuid), ctx.version, ctx.prefix);
        return { status: 200, body, headers, cache: true };
      }
      return { status: 201, headers };
    },
  });
}

function show(ctx: PlacementContext): ResponseParts {
  const p = ctx.provider();
  return { status: 200, cache: true, body: renderProvider(p, ctx.version, ctx.prefix) };
}

async function update(ctx: PlacementContext): Promise<ResponseParts> {
  const { uuid } = ctx.provider();
  const data = (await ctx.json(putProviderSchema(ctx.version.minor))) as ProviderChanges;
  return ctx.write({
    locks: (s) => ({ providers: [...treeLocks(s, uuid), ...treeLocks(s, data.parent_provider_uuid)] }),
    decide: (s) => {
      updateProvider(s, findProvider(s, uuid), data, ctx.version);
    },
    answer: (s) => ({
      status: 200,
      cache: true,
      body: renderProvider(s.requireProvider(uuid), ctx.version, ctx.prefix),
    }),
  });
}

function remove(ctx: PlacementContext): Promise<ResponseParts> {
  const uuid = ctx.param('uuid');
  return ctx.write({
    locks: (s) => ({ providers: treeLocks(s, uuid) }),
    decide: (s) => s.deleteProvider(uuid),
    answer: () => ({ status: 204 }),
  });
}

/** Resource providers: list (with the query language), create, show, update, delete. */
export const RESOURCE_PROVIDER_ROUTES: readonly PlacementRoute[] = [
  { path: '/resource_providers', methods: { GET: list, POST: create } },
  { path: '/resource_providers/{uuid}', methods: { GET: show, DELETE: remove, PUT: update } },
];
