import { schemaErrorMessage } from '@stackspec/core';
import { TRAITS_QUERY_SCHEMA } from '../../query-schemas.js';
import { findProvider } from '../../service/resource-providers.js';
import { deleteTrait, listTraits, requireTrait, setProviderTraits } from '../../service/traits.js';
import {
  type PlacementContext,
  type PlacementHandlerFn,
  type PlacementRoute,
  type ResponseParts,
  SCHEMA_OPTIONS,
  since,
} from '../context.js';
import { PlacementHttpError } from '../errors.js';
import { CUSTOM_TRAIT_SCHEMA, SET_TRAITS_SCHEMA } from '../schemas.js';

function list(ctx: PlacementContext): ResponseParts {
  const q = ctx.query(TRAITS_QUERY_SCHEMA);
  return {
    status: 200,
    cache: true,
    body: { traits: listTraits(ctx.store, { name: q.last('name'), associated: q.last('associated') }) },
  };
}

function show(ctx: PlacementContext): ResponseParts {
  requireTrait(ctx.store, ctx.param('name'));
  return { status: 204, cache: true };
}

function put(ctx: PlacementContext): Promise<ResponseParts> {
  const name = ctx.param('name');
  if (schemaErrorMessage(name, CUSTOM_TRAIT_SCHEMA, SCHEMA_OPTIONS)) {
    throw new PlacementHttpError(
      400,
      'The trait is invalid. A valid trait must be no longer than 255 characters, start with the prefix "CUSTOM_" and use following characters: "A"-"Z", "0"-"9" and "_"',
    );
  }
  return ctx.write({
    locks: () => ({ names: [`trait:${name}`] }),
    decide: (s) => s.createTrait(name),
    answer: (_s, created) => ({
      status: created ? 201 : 204,
      cache: true,
      headers: { location: ctx.location(`/traits/${name}`) },
    }),
  });
}

function remove(ctx: PlacementContext): Promise<ResponseParts> {
  const name = ctx.param('name');
  return ctx.write({
    locks: () => ({ names: [`trait:${name}`] }),
    decide: (s) => deleteTrait(s, name),
    answer: () => ({ status: 204 }),
  });
}

const NOT_FOUND = (u: string) =>
  `No resource provider with uuid ${u} found: No resource provider with uuid ${u} found`;

function ofProvider(ctx: PlacementContext): ResponseParts {
  const p = ctx.provider(NOT_FOUND);
  return {
    status: 200,
    cache: true,
    body: { traits: [...p.traits], resource_provider_generation: p.generation },
  };
}

async function replaceOfProvider(ctx: PlacementContext): Promise<ResponseParts> {
  // Placement reads the body before it looks the provider up.
  const data = (await ctx.json(SET_TRAITS_SCHEMA)) as {
    traits: string[];
    resource_provider_generation: number;
  };
  const { uuid } = ctx.provider();
  return ctx.write({
    locks: () => ({ providers: [uuid] }),
    decide: (s) =>
      setProviderTraits(s, findProvider(s, uuid), data.traits, data.resource_provider_generation),
    answer: (s) => {
      const p = s.requireProvider(uuid);
      return {
        status: 200,
        cache: true,
        body: { traits: [...p.traits], resource_provider_generation: p.generation },
      };
    },
  });
}

function clearOfProvider(ctx: PlacementContext): Promise<ResponseParts> {
  const { uuid } = ctx.provider();
  return ctx.write({
    locks: () => ({ providers: [uuid] }),
    decide: (s) => {
      s.setTraits(findProvider(s, uuid).uuid, []);
    },
    answer: () => ({ status: 204 }),
  });
}

// Traits came with 1.6.
const v16 = (handle: PlacementHandlerFn) => since('1.6', handle);

/** Traits, and the traits of a provider (from 1.6). */
export const TRAIT_ROUTES: readonly PlacementRoute[] = [
  { path: '/traits', methods: { GET: v16(list) } },
  { path: '/traits/{name}', methods: { GET: v16(show), PUT: v16(put), DELETE: v16(remove) } },
  {
    path: '/resource_providers/{uuid}/traits',
    methods: { GET: v16(ofProvider), PUT: v16(replaceOfProvider), DELETE: v16(clearOfProvider) },
  },
];
