import type { Inventory, Provider, ProviderStore } from '../../model/store.js';
import {
  addInventory,
  clearInventories,
  findInventory,
  inventoryFrom,
  removeInventory,
  replaceInventories,
  updateInventory,
} from '../../service/inventories.js';
import { findProvider } from '../../service/resource-providers.js';
import { type PlacementContext, type PlacementRoute, type ResponseParts, since } from '../context.js';
import { BASE_INVENTORY_SCHEMA, POST_INVENTORY_SCHEMA, PUT_INVENTORIES_SCHEMA } from '../schemas.js';

// The reads word a missing provider twice over, as Placement's handlers do.
const READ_NOT_FOUND = (u: string) =>
  `No resource provider with uuid ${u} found : No resource provider with uuid ${u} found`;

function inventoryJson(inv: Inventory): Inventory {
  return {
    total: inv.total,
    reserved: inv.reserved,
    min_unit: inv.min_unit,
    max_unit: inv.max_unit,
    step_size: inv.step_size,
    allocation_ratio: inv.allocation_ratio,
  };
}

const oneBody = (p: Provider, inv: Inventory) => ({
  ...inventoryJson(inv),
  resource_provider_generation: p.generation,
});

const allBody = (p: Provider) => ({
  resource_provider_generation: p.generation,
  inventories: Object.fromEntries([...p.inventories].map(([rc, inv]) => [rc, inventoryJson(inv)])),
});

function list(ctx: PlacementContext): ResponseParts {
  return {
    status: 200,
    cache: true,
    body: allBody(ctx.provider(READ_NOT_FOUND)),
  };
}

/** A write to the inventories of the provider the path names (its row locked). */
function onProvider(
  ctx: PlacementContext,
  uuid: string,
  decide: (s: ProviderStore, p: Provider) => void,
  answer: (p: Provider) => ResponseParts,
): Promise<ResponseParts> {
  return ctx.write({
    locks: () => ({ providers: [uuid] }),
    decide: (s) => decide(s, findProvider(s, uuid)),
    answer: (s) => answer(s.requireProvider(uuid)),
  });
}

async function replaceAll(ctx: PlacementContext): Promise<ResponseParts> {
  const { uuid } = ctx.provider();
  const data = (await ctx.json(PUT_INVENTORIES_SCHEMA)) as {
    resource_provider_generation: number;
    inventories: Record<string, Record<string, unknown>>;
  };
  return onProvider(
    ctx,
    uuid,
    (s, p) => replaceInventories(s, p, data.resource_provider_generation, data.inventories, ctx.version),
    (p) => ({ status: 200, cache: true, body: allBody(p) }),
  );
}

async function create(ctx: PlacementContext): Promise<ResponseParts> {
  const { uuid } = ctx.provider();
  const data = (await ctx.json(POST_INVENTORY_SCHEMA)) as Record<string, unknown> & {
    resource_class: string;
  };
  const rc = data.resource_class;
  const inv = inventoryFrom(data);
  return onProvider(
    ctx,
    uuid,
    (s, p) => addInventory(s, p, rc, inv, ctx.version),
    (p) => ({
      status: 201,
      cache: true,
      headers: { location: ctx.location(`/resource_providers/${p.uuid}/inventories/${rc}`) },
      body: oneBody(p, inv),
    }),
  );
}

function removeAll(ctx: PlacementContext): Promise<ResponseParts> {
  const { uuid } = ctx.provider();
  return onProvider(ctx, uuid, clearInventories, () => ({ status: 204 }));
}

function show(ctx: PlacementContext): ResponseParts {
  const p = ctx.provider(READ_NOT_FOUND);
  return { status: 200, cache: true, body: oneBody(p, findInventory(p, ctx.param('resource_class'))) };
}

async function update(ctx: PlacementContext): Promise<ResponseParts> {
  const { uuid } = ctx.provider();
  const rc = ctx.param('resource_class');
  const data = (await ctx.json(BASE_INVENTORY_SCHEMA)) as Record<string, unknown>;
  const inv = inventoryFrom(data);
  return onProvider(
    ctx,
    uuid,
    (s, p) => updateInventory(s, p, rc, data.resource_provider_generation, inv, ctx.version),
    (p) => ({ status: 200, cache: true, body: oneBody(p, inv) }),
  );
}

function remove(ctx: PlacementContext): Promise<ResponseParts> {
  const { uuid } = ctx.provider();
  const rc = ctx.param('resource_class');
  return onProvider(
    ctx,
    uuid,
    (s, p) => removeInventory(s, p, rc),
    () => ({ status: 204 }),
  );
}

/** A provider's inventories, all at once (deleting all of them from 1.5) and one class at a time. */
export const INVENTORY_ROUTES: readonly PlacementRoute[] = [
  {
    path: '/resource_providers/{uuid}/inventories',
    methods: {
      GET: list,
      POST: create,
      PUT: replaceAll,
      DELETE: { ...since('1.5', removeAll), belowMinVersion: 405 },
    },
  },
  {
    path: '/resource_providers/{uuid}/inventories/{resource_class}',
    methods: { GET: show, PUT: update, DELETE: remove },
  },
];
