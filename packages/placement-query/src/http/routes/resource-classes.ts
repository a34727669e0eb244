import { atLeast } from '../../microversion.js';
import { renameLocks } from '../../service/locks.js';
import {
  createResourceClass,
  deleteResourceClass,
  renameResourceClass,
  requireResourceClass,
} from '../../service/resource-classes.js';
import {
  checkSchema,
  type PlacementContext,
  type PlacementRoute,
  type ResponseParts,
  since,
} from '../context.js';
import { RESOURCE_CLASS_SCHEMA } from '../schemas.js';

const classJson = (ctx: PlacementContext, name: string) => ({
  name,
  links: [{ rel: 'self', href: `${ctx.prefix}/resource_classes/${name}` }],
});

function list(ctx: PlacementContext): ResponseParts {
  return {
    status: 200,
    cache: true,
    body: { resource_classes: ctx.store.resourceClassNames().map((name) => classJson(ctx, name)) },
  };
}

function show(ctx: PlacementContext): ResponseParts {
  const name = ctx.param('name');
  requireResourceClass(ctx.store, name);
  return { status: 200, cache: true, body: classJson(ctx, name) };
}

async function create(ctx: PlacementContext): Promise<ResponseParts> {
  const { name } = (await ctx.json(RESOURCE_CLASS_SCHEMA)) as { name: string };
  return ctx.write({
    locks: () => ({ names: [`class:${name}`] }),
    decide: (s) => createResourceClass(s, name),
    answer: () => ({ status: 201, headers: { location: ctx.location(`/resource_classes/${name}`) } }),
  });
}

/** 1.2–1.6 rename a custom class (the body names the new name); from 1.7 PUT creates one if missing. */
async function put(ctx: PlacementContext): Promise<ResponseParts> {
  const name = ctx.param('name');
  if (!atLeast(ctx.version, 7)) {
    const data = (await ctx.json(RESOURCE_CLASS_SCHEMA)) as { name: string };
    return ctx.write({
      locks: (s) => renameLocks(s, name, data.name),
      decide: (s) => renameResourceClass(s, name, data.name),
      answer: () => ({ status: 200, body: classJson(ctx, data.name) }),
    });
  }
  checkSchema({ name }, RESOURCE_CLASS_SCHEMA, 'JSON does not validate');
  return ctx.write({
    locks: () => ({ names: [`class:${name}`] }),
    decide: (s) => s.createResourceClass(name),
    answer: (_s, created) => ({
      status: created ? 201 : 204,
      headers: { location: ctx.location(`/resource_classes/${name}`) },
    }),
  });
}

function remove(ctx: PlacementContext): Promise<ResponseParts> {
  const name = ctx.param('name');
  return ctx.write({
    locks: () => ({ names: [`class:${name}`] }),
    decide: (s) => deleteResourceClass(s, name),
    answer: () => ({ status: 204 }),
  });
}

/** Resource classes (from 1.2). */
export const RESOURCE_CLASS_ROUTES: readonly PlacementRoute[] = [
  { path: '/resource_classes', methods: { GET: since('1.2', list), POST: since('1.2', create) } },
  {
    path: '/resource_classes/{name}',
    methods: { GET: since('1.2', show), PUT: since('1.2', put), DELETE: since('1.2', remove) },
  },
];
