import { randomUUID } from 'node:crypto';
import {
  type CredentialsHook,
  credentialsHook,
  HTTP_STATUS_TEXT,
  isStackspecError,
  isUuidLike,
  type JsonSchemaObject,
  type Microversion,
  normalizeUuid,
  pyUnicodeDecodeErrorText,
  readJsonBody,
  schemaErrorMessage,
  webobErrorResponse,
} from '@stackspec/core';
import { bytesResponse, type OversizedHead } from '@stackspec/core/node';
import {
  type FindCandidatesOptions,
  findAllocationCandidatesAsync,
  type GenerationStrategy,
  SERVER_MAX_ALLOCATION_CANDIDATES,
} from '../engine/candidates.js';
import { listResourceProviders } from '../engine/providers.js';
import { renderCandidatesBytesAsync, renderProvider, renderProviderListBytes } from '../engine/render.js';
import { PLACEMENT_ERROR_CODES } from '../errors.js';
import { atLeast, MAX_MICROVERSION, MIN_MICROVERSION, negotiatePlacementVersion } from '../microversion.js';
import {
  createProviderStore,
  INVENTORY_DEFAULTS,
  type Inventory,
  type Provider,
  type ProviderStore,
} from '../model/store.js';
import { parseAllocationCandidatesQuery, parseResourceProvidersQuery } from '../parse.js';
import { QueryParams } from '../query-params.js';
import { queryInstance, TRAITS_QUERY_SCHEMA, usagesQuerySchema } from '../query-schemas.js';
import { findSchemaFailure, schemaFailureText } from '../schema-report.js';
import { createPlacementPolicy, PLACEMENT_JSON_ROUTES, PLACEMENT_ROUTE_RULES } from './policy.js';
import {
  allocationSchema,
  BASE_INVENTORY_SCHEMA,
  CUSTOM_TRAIT_SCHEMA,
  POST_INVENTORY_SCHEMA,
  PUT_AGGREGATES_1_1,
  PUT_AGGREGATES_1_19,
  PUT_INVENTORIES_SCHEMA,
  postProviderSchema,
  putProviderSchema,
  RESOURCE_CLASS_SCHEMA,
  SET_TRAITS_SCHEMA,
} from './schemas.js';

/** Options for {@link createPlacementHandler}. */
export interface PlacementServiceOptions {
  /** The state to serve (default: a new empty store). */
  store?: ProviderStore;
  /**
   * `none` (default) serves every request; `noauth2` behaves like
   * Placement's `auth_strategy = noauth2`: every path but `/` needs an
   * `X-Auth-Token` header (401 without one). `trusted-headers`: roles,
   * scope and project from `X-Roles`, `OpenStack-System-Scope` and
   * `X-Project-Id` (as an authenticating proxy sets them), checked against
   * Placement 8.0's default policy as it ships: writes need `admin` in any
   * scope; reads `admin` in any scope or `reader` with system scope
   * (`OpenStack-System-Scope: all`), `GET /usages` also a `reader` of the
   * project asked about (see `enforceNewDefaults`); a refusal is
   * Placement's 403. Or a hook returning credentials (or `'admin'` for no
   * check).
   */
  auth?: 'none' | 'noauth2' | 'trusted-headers' | CredentialsHook;
  /**
   * Placement's `[oslo_policy] enforce_new_defaults`: true drops the
   * deprecated `role:admin` (any scope), so that writes need `admin` with
   * system scope and reads `reader` with system scope. Default false, as
   * Placement 8.0 ships it; this is what lets Nova's service user, an
   * `admin` of the `service` project, write.
   */
  enforceNewDefaults?: boolean;
  /** Path the API is mounted under, such as `/placement` (default: none). */
  prefix?: string;
  /** Request-id factory (default: `req-<random uuid>`). */
  requestId?: () => string;
  /** Clock for `Last-Modified` headers. */
  clock?: () => Date;
  /** Largest request body in bytes (default 1 MiB). */
  maxBodyBytes?: number;
  /**
   * Placement's `[placement]max_allocation_candidates` (see
   * `FindCandidatesOptions`): most candidates generated per request, -1 for
   * no bound. Default {@link SERVER_MAX_ALLOCATION_CANDIDATES} (100,000),
   * where Placement's is -1: unbounded, one query can exhaust the memory of
   * a process that serves other APIs too.
   */
  maxAllocationCandidates?: number;
  /** Placement's `[placement]allocation_candidates_generation_strategy` (default `depth-first`). */
  allocationCandidatesGenerationStrategy?: GenerationStrategy;
  /** Placement's `[workarounds]optimize_for_wide_provider_trees` (default false). */
  optimizeForWideProviderTrees?: boolean;
}

/** A Placement-compatible fetch handler with the store it serves. */
export interface PlacementHandler {
  (request: Request): Promise<Response>;
  readonly store: ProviderStore;
  /** Placement's error body for a request head too large to read (for `startServer`). */
  readonly oversizedHead: (head: OversizedHead) => Response;
}

// webob's titles and explanations, as Placement renders them in `title` and `detail`.
const TITLE = (status: number): string => HTTP_STATUS_TEXT[status]?.title ?? `HTTP ${status}`;
const EXPLANATION = (status: number): string => HTTP_STATUS_TEXT[status]?.explanation ?? '';

/** An error a handler raises with Placement's status, message and code. */
class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly code: string = PLACEMENT_ERROR_CODES.default,
    readonly headers: Record<string, string> = {},
    /** Whether the detail uses a non-standard explanation (405, 406, 415). */
    readonly detailOverride?: string,
  ) {
    super(message);
  }
}

interface Ctx {
  request: Request;
  url: URL;
  version: Microversion;
  params: Record<string, string>;
  store: ProviderStore;
  prefix: string;
  now: Date;
}

type Handler = (ctx: Ctx) => Promise<Response | ResponseParts> | Response | ResponseParts;

interface ResponseParts {
  status: number;
  body?: unknown;
  /** A body already written as JSON. */
  raw?: Uint8Array;
  headers?: Record<string, string>;
  /** Add Cache-Control/Last-Modified from 1.15 (successful GETs and some writes). */
  cache?: boolean;
}

interface Route {
  /** The path as declared, `{uuid}` and all (policy rules are keyed by it). */
  path: string;
  pattern: RegExp;
  names: string[];
  methods: [string, Handler, { min?: number; max?: number; belowStatus?: number }?][];
}

function route(path: string, methods: Route['methods']): Route {
  const names: string[] = [];
  const source = path.replace(/\{(\w+)\}/g, (_m, name: string) => {
    names.push(name);
    return '([^/]+)';
  });
  return { path, pattern: new RegExp(`^${source}$`), names, methods };
}

function httpDate(d: Date): string {
  return d.toUTCString();
}

function requireJson(ctx: Ctx): void {
  const type = (ctx.request.headers.get('content-type') ?? '').split(';')[0]?.trim() ?? '';
  if (type !== 'application/json') {
    const shown = type || 'None';
    throw new ApiError(
      415,
      `The media type ${shown} is not supported, use application/json`,
      PLACEMENT_ERROR_CODES.default,
      {},
      `The request media type ${shown} is not supported by this server. \n\n The media type ${shown} is not supported, use application/json`,
    );
  }
}

// Placement checks `format: uuid` with oslo's is_uuid_like (registered in placement.util).
const SCHEMA_OPTIONS = { formats: { uuid: isUuidLike } };

async function readBody(ctx: Ctx, schema: JsonSchemaObject, maxBytes: number): Promise<unknown> {
  let data: unknown;
  try {
    // Placement decodes bodies strictly and quotes Python's UnicodeDecodeError.
    data = await readJsonBody(ctx.request, { maxBytes, describeInvalidUtf8: pyUnicodeDecodeErrorText });
  } catch (e) {
    if (!isStackspecError(e)) throw e;
    // Core's 413 carries its own code; Placement's body keeps the generic one.
    if (e.status === 413) throw new ApiError(413, e.message);
    throw new ApiError(400, `Malformed JSON: ${e.message}`);
  }
  const failure = findSchemaFailure(data, schema, SCHEMA_OPTIONS);
  if (failure) throw new ApiError(400, `JSON does not validate: ${schemaFailureText(failure)}`);
  return data;
}

function notFoundProvider(uuid: string): ApiError {
  return new ApiError(404, `No resource provider with uuid ${uuid} found`);
}

function getProvider(ctx: Ctx, message?: (uuid: string) => string): Provider {
  const uuid = ctx.params.uuid as string;
  const p = ctx.store.provider(uuid);
  if (!p) throw message ? new ApiError(404, message(uuid)) : notFoundProvider(uuid);
  return p;
}

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

function makeInventory(raw: Record<string, unknown>): Inventory {
  const inv = { ...INVENTORY_DEFAULTS } as Inventory;
  for (const k of ['total', 'reserved', 'min_unit', 'max_unit', 'step_size', 'allocation_ratio'] as const) {
    if (raw[k] !== undefined) inv[k] = raw[k] as number;
  }
  return inv;
}

function checkCapacity(version: Microversion, rc: string, rp: string, inv: Inventory, action: string): void {
  const capacity = (inv.total - inv.reserved) * inv.allocation_ratio;
  const canBeTotal = atLeast(version, 26);
  if (canBeTotal ? capacity < 0 : capacity <= 0) {
    throw new ApiError(
      400,
      `Unable to ${action} inventory for resource provider ${rp}: Invalid inventory for '${rc}' on resource provider '${rp}'. The reserved value is greater than ${canBeTotal ? '' : 'or equal to '}total.`,
    );
  }
}

function rethrowStore(e: unknown, map: (status: number, message: string) => ApiError | undefined): never {
  if (isStackspecError(e)) {
    const mapped = map(e.status, e.message);
    if (mapped) throw mapped;
    throw new ApiError(e.status, e.message, e.code);
  }
  throw e;
}

// ---------------------------------------------------------------------------
// Handlers

function home(_ctx: Ctx): ResponseParts {
  return {
    status: 200,
    cache: true,
    body: {
      versions: [
        {
          id: `v${MIN_MICROVERSION}`,
          max_version: MAX_MICROVERSION,
          min_version: MIN_MICROVERSION,
          status: 'CURRENT',
          links: [{ rel: 'self', href: '' }],
        },
      ],
    },
  };
}

function wrapQueryError(e: unknown): never {
  if (isStackspecError(e)) throw new ApiError(e.status, e.message, e.code);
  throw e;
}

function listProviders(ctx: Ctx): ResponseParts {
  let request: ReturnType<typeof parseResourceProvidersQuery>;
  try {
    request = parseResourceProvidersQuery(ctx.url.searchParams, ctx.version);
  } catch (e) {
    wrapQueryError(e);
  }
  let providers: Provider[];
  try {
    providers = listResourceProviders(ctx.store, request);
  } catch (e) {
    wrapQueryError(e);
  }
  return {
    status: 200,
    cache: true,
    raw: renderProviderListBytes(providers, ctx.version, { prefix: ctx.prefix }),
  };
}

/**
 * `GET /allocation_candidates`: the search returns to the event loop every
 * few milliseconds (so a long one does not hold up other requests) and
 * stops at `limit` or the configured maximum of candidates.
 */
const listCandidates =
  (search: FindCandidatesOptions) =>
  async (ctx: Ctx): Promise<ResponseParts> => {
    let request: ReturnType<typeof parseAllocationCandidatesQuery>;
    try {
      request = parseAllocationCandidatesQuery(ctx.url.searchParams, ctx.version);
    } catch (e) {
      wrapQueryError(e);
    }
    try {
      const result = await findAllocationCandidatesAsync(ctx.store, request, search);
      return {
        status: 200,
        cache: true,
        raw: await renderCandidatesBytesAsync(result, ctx.version),
      };
    } catch (e) {
      wrapQueryError(e);
    }
  };

/**
 * A Placement-compatible HTTP API as a fetch-style handler over a
 * {@link ProviderStore}: the two query endpoints and the API that builds,
 * reads and empties an inventory (providers, inventories, usages,
 * aggregates, traits, resource classes, allocations), with generations and
 * 409 on stale ones, `OpenStack-API-Version` negotiation (1.0–1.39), the
 * version document at `/`, and Placement's error bodies. The handler never
 * throws: unexpected failures become Placement-style 500s.
 *
 * @example
 * const handler = createPlacementHandler({ store: loadInventory(text).store });
 * const server = await startServer(handler, { port: 8778 }); // from @stackspec/core/node
 */
export function createPlacementHandler(options: PlacementServiceOptions = {}): PlacementHandler {
  const store = options.store ?? createProviderStore();
  const prefix = (options.prefix ?? '').replace(/\/+$/, '');
  const requestId = options.requestId ?? (() => `req-${randomUUID()}`);
  const clock = options.clock ?? (() => new Date());
  const maxBytes = options.maxBodyBytes ?? 1024 * 1024;
  const search: FindCandidatesOptions = {
    maxAllocationCandidates: options.maxAllocationCandidates ?? SERVER_MAX_ALLOCATION_CANDIDATES,
    allocationCandidatesGenerationStrategy: options.allocationCandidatesGenerationStrategy ?? 'depth-first',
    optimizeForWideProviderTrees: options.optimizeForWideProviderTrees ?? false,
  };
  const who: CredentialsHook | undefined =
    options.auth === 'trusted-headers' || typeof options.auth === 'function'
      ? credentialsHook(options.auth)
      : undefined;
  const policy = createPlacementPolicy({ enforceNewDefaults: options.enforceNewDefaults === true });
  const body = (ctx: Ctx, schema: JsonSchemaObject) => {
    requireJson(ctx);
    return readBody(ctx, schema, maxBytes);
  };
  const location = (ctx: Ctx, path: string) => `${ctx.url.origin}${prefix}${path}`;

  const createProvider: Handler = async (ctx) => {
    const data = (await body(ctx, postProviderSchema(ctx.version.minor))) as {
      name: string;
      uuid?: string;
      parent_provider_uuid?: string | null;
    };
    const uuid = data.uuid ? (normalizeUuid(data.uuid) as string) : randomUUID();
    let p: Provider;
    try {
      p = store.createProvider({ name: data.name, uuid, parentUuid: data.parent_provider_uuid ?? null });
    } catch (e) {
      rethrowStore(e, () => undefined);
    }
    const headers = { location: location(ctx, `/resource_providers/${p.uuid}`) };
    if (atLeast(ctx.version, 20)) {
      return { status: 200, body: renderProvider(p, ctx.version, prefix), headers, cache: true };
    }
    return { status: 201, headers };
  };

  const showProvider: Handler = (ctx) => ({
    status: 200,
    cache: true,
    body: renderProvider(getProvider(ctx), ctx.version, prefix),
  });

  const updateProvider: Handler = async (ctx) => {
    const p = getProvider(ctx);
    const data = (await body(ctx, putProviderSchema(ctx.version.minor))) as {
      name: string;
      parent_provider_uuid?: string | null;
    };
    try {
      store.updateProvider(
        p.uuid,
        {
          name: data.name,
          ...('parent_provider_uuid' in data
            ? { parentUuid: data.parent_provider_uuid ? (data.parent_provider_uuid as string) : null }
            : {}),
        },
        { allowReparenting: atLeast(ctx.version, 37) },
      );
    } catch (e) {
      rethrowStore(e, () => undefined);
    }
    return { status: 200, cache: true, body: renderProvider(p, ctx.version, prefix) };
  };

  const deleteProvider: Handler = (ctx) => {
    try {
      store.deleteProvider(ctx.params.uuid as string);
    } catch (e) {
      rethrowStore(e, () => undefined);
    }
    return { status: 204 };
  };

  const inventoriesBody = (p: Provider) => ({
    resource_provider_generation: p.generation,
    inventories: Object.fromEntries([...p.inventories].map(([rc, inv]) => [rc, inventoryJson(inv)])),
  });

  const getInventories: Handler = (ctx) => {
    const p = getProvider(
      ctx,
      (u) => `No resource provider with uuid ${u} found : No resource provider with uuid ${u} found`,
    );
    return { status: 200, cache: true, body: inventoriesBody(p) };
  };

  const setInventories: Handler = async (ctx) => {
    const p = getProvider(ctx);
    const data = (await body(ctx, PUT_INVENTORIES_SCHEMA)) as {
      resource_provider_generation: number;
      inventories: Record<string, Record<string, unknown>>;
    };
    if (data.resource_provider_generation !== p.generation) {
      throw new ApiError(
        409,
        'resource provider generation conflict',
        PLACEMENT_ERROR_CODES.concurrentUpdate,
      );
    }
    const inventories: Record<string, Inventory> = {};
    for (const [rc, raw] of Object.entries(data.inventories)) inventories[rc] = makeInventory(raw);
    for (const [rc, inv] of Object.entries(inventories))
      checkCapacity(ctx.version, rc, p.uuid, inv, 'update');
    try {
      store.setInventories(p.uuid, inventories);
    } catch (e) {
      rethrowStore(e, () => undefined);
    }
    return { status: 200, cache: true, body: inventoriesBody(p) };
  };

  const createInventory: Handler = async (ctx) => {
    const p = getProvider(ctx);
    const data = (await body(ctx, POST_INVENTORY_SCHEMA)) as Record<string, unknown> & {
      resource_class: string;
    };
    const rc = data.resource_class;
    const inv = makeInventory(data);
    checkCapacity(ctx.version, rc, p.uuid, inv, 'create');
    if (!store.hasResourceClass(rc)) {
      throw new ApiError(
        400,
        `Unable to create inventory for resource provider ${p.uuid}: No such resource class ${rc}.`,
      );
    }
    if (p.inventories.has(rc)) {
      throw new ApiError(
        409,
        `Update conflict: Inventory for '${rc}' on resource provider '${p.uuid}' already exists.`,
        PLACEMENT_ERROR_CODES.concurrentUpdate,
      );
    }
    const all = Object.fromEntries(p.inventories);
    all[rc] = inv;
    store.setInventories(p.uuid, all);
    return {
      status: 201,
      cache: true,
      headers: { location: location(ctx, `/resource_providers/${p.uuid}/inventories/${rc}`) },
      body: { ...inventoryJson(inv), resource_provider_generation: p.generation },
    };
  };

  const deleteInventories: Handler = (ctx) => {
    const p = getProvider(ctx);
    try {
      store.setInventories(p.uuid, {});
    } catch (e) {
      rethrowStore(e, (status, message) =>
        status === 409
          ? new ApiError(409, message.replace(/^update conflict: /, ''), PLACEMENT_ERROR_CODES.inventoryInUse)
          : undefined,
      );
    }
    return { status: 204 };
  };

  const getInventory: Handler = (ctx) => {
    const p = getProvider(
      ctx,
      (u) => `No resource provider with uuid ${u} found : No resource provider with uuid ${u} found`,
    );
    const rc = ctx.params.resource_class as string;
    const inv = p.inventories.get(rc);
    if (!inv) throw new ApiError(404, `No inventory of class ${rc} for ${p.uuid}`);
    return {
      status: 200,
      cache: true,
      body: { ...inventoryJson(inv), resource_provider_generation: p.generation },
    };
  };

  const updateInventory: Handler = async (ctx) => {
    const p = getProvider(ctx);
    const rc = ctx.params.resource_class as string;
    const data = (await body(ctx, BASE_INVENTORY_SCHEMA)) as Record<string, unknown>;
    if (data.resource_provider_generation !== p.generation) {
      throw new ApiError(
        409,
        'resource provider generation conflict',
        PLACEMENT_ERROR_CODES.concurrentUpdate,
      );
    }
    const inv = makeInventory(data);
    checkCapacity(ctx.version, rc, p.uuid, inv, 'update');
    if (!p.inventories.has(rc)) {
      throw new ApiError(
        400,
        `No inventory record with resource class for resource provider ${p.uuid}: No inventory of class ${rc} found.`,
      );
    }
    const all = Object.fromEntries(p.inventories);
    all[rc] = inv;
    store.setInventories(p.uuid, all);
    return {
      status: 200,
      cache: true,
      body: { ...inventoryJson(inv), resource_provider_generation: p.generation },
    };
  };

  const deleteInventory: Handler = (ctx) => {
    const p = getProvider(ctx);
    const rc = ctx.params.resource_class as string;
    if (!p.inventories.has(rc)) {
      throw new ApiError(
        404,
        `No inventory of class ${rc} found for delete: No inventory of class ${rc} found for delete`,
      );
    }
    if ((p.usages.get(rc) ?? 0) > 0) {
      throw new ApiError(
        409,
        `Unable to delete inventory of class ${rc}: Inventory for '${rc}' on resource provider '${p.uuid}' in use.`,
        PLACEMENT_ERROR_CODES.concurrentUpdate,
      );
    }
    const all = Object.fromEntries(p.inventories);
    delete all[rc];
    store.setInventories(p.uuid, all);
    return { status: 204 };
  };

  const providerUsages: Handler = (ctx) => {
    const p = getProvider(
      ctx,
      (u) => `No resource provider with uuid ${u} found: No resource provider with uuid ${u} found`,
    );
    const usages: Record<string, number> = {};
    for (const rc of p.inventories.keys()) usages[rc] = p.usages.get(rc) ?? 0;
    return { status: 200, cache: true, body: { resource_provider_generation: p.generation, usages } };
  };

  const aggregatesBody = (ctx: Ctx, p: Provider, list: string[]) => ({
    aggregates: list,
    ...(atLeast(ctx.version, 19) ? { resource_provider_generation: p.generation } : {}),
  });

  const getAggregates: Handler = (ctx) => {
    const p = getProvider(ctx);
    return { status: 200, cache: true, body: aggregatesBody(ctx, p, [...p.aggregates]) };
  };

  const setAggregates: Handler = async (ctx) => {
    const p = getProvider(ctx);
    const withGeneration = atLeast(ctx.version, 19);
    const data = await body(ctx, withGeneration ? PUT_AGGREGATES_1_19 : PUT_AGGREGATES_1_1);
    let list: string[];
    if (withGeneration) {
      const d = data as { aggregates: string[]; resource_provider_generation: number };
      if (d.resource_provider_generation !== p.generation) {
        throw new ApiError(
          409,
          "Resource provider's generation already changed. Please update the generation and try again.",
          PLACEMENT_ERROR_CODES.concurrentUpdate,
        );
      }
      list = d.aggregates;
    } else list = data as string[];
    if (withGeneration) store.setAggregates(p.uuid, list);
    else {
      const generation = p.generation;
      store.setAggregates(p.uuid, list);
      // Before 1.19 setting aggregates does not change the generation.
      p.generation = generation;
    }
    return { status: 200, cache: true, body: aggregatesBody(ctx, p, list) };
  };

  const getProviderTraits: Handler = (ctx) => {
    const p = getProvider(
      ctx,
      (u) => `No resource provider with uuid ${u} found: No resource provider with uuid ${u} found`,
    );
    return {
      status: 200,
      cache: true,
      body: { traits: [...p.traits], resource_provider_generation: p.generation },
    };
  };

  const setProviderTraits: Handler = async (ctx) => {
    const data = (await body(ctx, SET_TRAITS_SCHEMA)) as {
      traits: string[];
      resource_provider_generation: number;
    };
    const p = getProvider(ctx);
    if (data.resource_provider_generation !== p.generation) {
      throw new ApiError(
        409,
        "Resource provider's generation already changed. Please update the generation and try again.",
        PLACEMENT_ERROR_CODES.concurrentUpdate,
      );
    }
    const unknown = [...new Set(data.traits)].filter((t) => !store.hasTrait(t));
    if (unknown.length) throw new ApiError(400, `No such trait ${unknown.join(', ')}`);
    store.setTraits(p.uuid, data.traits);
    return {
      status: 200,
      cache: true,
      body: { traits: [...p.traits], resource_provider_generation: p.generation },
    };
  };

  const deleteProviderTraits: Handler = (ctx) => {
    const p = getProvider(ctx);
    store.setTraits(p.uuid, []);
    return { status: 204 };
  };

  const providerAllocations: Handler = (ctx) => {
    const p = getProvider(
      ctx,
      (u) => `Resource provider '${u}' not found: No resource provider with uuid ${u} found`,
    );
    const allocations: Record<string, { resources: Record<string, number>; consumer_generation?: number }> =
      {};
    for (const c of store.consumers()) {
      const inner = c.allocations.get(p.uuid);
      if (!inner) continue;
      allocations[c.uuid] = {
        resources: Object.fromEntries(inner),
        ...(atLeast(ctx.version, 28) ? { consumer_generation: c.generation } : {}),
      };
    }
    return { status: 200, cache: true, body: { allocations, resource_provider_generation: p.generation } };
  };

  const consumerAllocations: Handler = (ctx) => {
    const c = store.consumer(ctx.params.consumer_uuid as string);
    if (!c) return { status: 200, cache: true, body: { allocations: {} } };
    const allocations: Record<string, { resources: Record<string, number>; generation: number }> = {};
    for (const [rpUuid, inner] of c.allocations) {
      allocations[rpUuid] = {
        resources: Object.fromEntries(inner),
        generation: store.provider(rpUuid)?.generation ?? 0,
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
  };

  const putAllocations: Handler = async (ctx) => {
    let consumer = ctx.params.consumer_uuid as string;
    if (!isUuidLike(consumer)) throw new ApiError(400, `Malformed consumer_uuid: ${consumer}`);
    consumer = normalizeUuid(consumer) as string;
    const minor = ctx.version.minor;
    const data = (await body(ctx, allocationSchema(minor))) as Record<string, unknown>;
    let allocations: Record<string, Record<string, number>> = {};
    if (minor < 12) {
      for (const a of data.allocations as {
        resource_provider: { uuid: string };
        resources: Record<string, number>;
      }[]) {
        allocations[a.resource_provider.uuid] = a.resources;
      }
    } else {
      allocations = Object.fromEntries(
        Object.entries(data.allocations as Record<string, { resources: Record<string, number> }>).map(
          ([k, v]) => [k, v.resources],
        ),
      );
    }
    const existing = store.consumer(consumer);
    if (minor >= 28) {
      const given = data.consumer_generation as number | null;
      if (existing && existing.generation !== given) {
        throw new ApiError(
          409,
          `consumer generation conflict - expected ${existing.generation} but got ${given === null ? 'None' : given}`,
          PLACEMENT_ERROR_CODES.concurrentUpdate,
        );
      }
      if (!existing && given !== null) {
        throw new ApiError(
          409,
          `consumer generation conflict - expected null but got ${given}`,
          PLACEMENT_ERROR_CODES.concurrentUpdate,
        );
      }
    }
    for (const rp of Object.keys(allocations)) {
      if (!store.provider(rp))
        throw new ApiError(400, `Allocation for resource provider '${rp}' that does not exist.`);
    }
    try {
      store.setAllocations(consumer, allocations, {
        projectId: (data.project_id as string | undefined) ?? existing?.projectId ?? 'default',
        userId: (data.user_id as string | undefined) ?? existing?.userId ?? 'default',
        ...(typeof data.consumer_type === 'string' ? { consumerType: data.consumer_type } : {}),
      });
    } catch (e) {
      rethrowStore(e, () => undefined);
    }
    return { status: 204 };
  };

  const deleteAllocations: Handler = (ctx) => {
    const consumer = ctx.params.consumer_uuid as string;
    if (!store.consumer(consumer)) throw new ApiError(404, `No allocations for consumer '${consumer}'`);
    store.deleteAllocations(consumer);
    return { status: 204 };
  };

  const listTraits: Handler = (ctx) => {
    const q = new QueryParams([...ctx.url.searchParams]);
    const failure = findSchemaFailure(queryInstance(q.pairs), TRAITS_QUERY_SCHEMA, SCHEMA_OPTIONS);
    if (failure) throw new ApiError(400, `Invalid query string parameters: ${schemaFailureText(failure)}`);
    let names = store.traitNames();
    const name = q.last('name');
    if (name !== undefined) {
      const i = name.indexOf(':');
      if (i < 0) {
        throw new ApiError(
          400,
          `Badly formatted name parameter. Expected name query string parameter in form: ?name=[in|startswith]:[name1,name2|prefix]. Got: "${name}"`,
        );
      }
      const op = name.slice(0, i);
      const value = name.slice(i + 1);
      if (op === 'in') {
        const wanted = new Set(value.split(','));
        names = names.filter((n) => wanted.has(n));
      } else if (op === 'startswith') names = names.filter((n) => n.startsWith(value));
    }
    const associated = q.last('associated');
    if (associated !== undefined) {
      const a = associated.toLowerCase();
      if (a !== 'true' && a !== 'false') {
        throw new ApiError(400, 'The query parameter "associated" only accepts "true" or "false"');
      }
      names = names.filter((n) => store.withTrait(n).size > 0 === (a === 'true'));
    }
    return { status: 200, cache: true, body: { traits: names } };
  };

  const showTrait: Handler = (ctx) => {
    const name = ctx.params.name as string;
    if (!store.hasTrait(name)) throw new ApiError(404, `No such trait(s): ${name}.`);
    return { status: 204, cache: true };
  };

  const putTrait: Handler = (ctx) => {
    const name = ctx.params.name as string;
    if (schemaErrorMessage(name, CUSTOM_TRAIT_SCHEMA, SCHEMA_OPTIONS)) {
      throw new ApiError(
        400,
        'The trait is invalid. A valid trait must be no longer than 255 characters, start with the prefix "CUSTOM_" and use following characters: "A"-"Z", "0"-"9" and "_"',
      );
    }
    const created = store.createTrait(name);
    return {
      status: created ? 201 : 204,
      cache: true,
      headers: { location: location(ctx, `/traits/${name}`) },
    };
  };

  const deleteTrait: Handler = (ctx) => {
    const name = ctx.params.name as string;
    try {
      store.deleteTrait(name);
    } catch (e) {
      rethrowStore(e, (status) =>
        status === 400 ? new ApiError(400, `Cannot delete standard trait ${name}.`) : undefined,
      );
    }
    return { status: 204 };
  };

  const classJson = (name: string) => ({
    name,
    links: [{ rel: 'self', href: `${prefix}/resource_classes/${name}` }],
  });

  const listClasses: Handler = () => ({
    status: 200,
    cache: true,
    body: { resource_classes: store.resourceClassNames().map(classJson) },
  });

  const showClass: Handler = (ctx) => {
    const name = ctx.params.name as string;
    if (!store.hasResourceClass(name)) throw new ApiError(404, `No such resource class ${name}.`);
    return { status: 200, cache: true, body: classJson(name) };
  };

  const createClass: Handler = async (ctx) => {
    const data = (await body(ctx, RESOURCE_CLASS_SCHEMA)) as { name: string };
    if (!store.createResourceClass(data.name)) {
      throw new ApiError(409, `Conflicting resource class already exists: ${data.name}`);
    }
    return { status: 201, headers: { location: location(ctx, `/resource_classes/${data.name}`) } };
  };

  const putClass: Handler = async (ctx) => {
    const name = ctx.params.name as string;
    if (!atLeast(ctx.version, 7)) {
      // 1.2-1.6: rename a custom class.
      const data = (await body(ctx, RESOURCE_CLASS_SCHEMA)) as { name: string };
      if (!store.hasResourceClass(name)) throw new ApiError(404, `No such resource class ${name}.`);
      try {
        store.renameResourceClass(name, data.name);
      } catch (e) {
        rethrowStore(e, (status) =>
          status === 400
            ? new ApiError(400, `Cannot update standard resource class ${name}`)
            : status === 409
              ? new ApiError(409, `Resource class already exists: ${data.name}`)
              : undefined,
        );
      }
      return { status: 200, body: classJson(data.name) };
    }
    const failure = findSchemaFailure({ name }, RESOURCE_CLASS_SCHEMA, SCHEMA_OPTIONS);
    if (failure) throw new ApiError(400, `JSON does not validate: ${schemaFailureText(failure)}`);
    const created = store.createResourceClass(name);
    return { status: created ? 201 : 204, headers: { location: location(ctx, `/resource_classes/${name}`) } };
  };

  const deleteClass: Handler = (ctx) => {
    const name = ctx.params.name as string;
    try {
      store.deleteResourceClass(name);
    } catch (e) {
      rethrowStore(e, (status) =>
        status === 400
          ? new ApiError(
              400,
              `Error in delete resource class: Cannot delete standard resource class ${name}.`,
            )
          : status === 409
            ? new ApiError(
                409,
                `Error in delete resource class: Unable to delete resource class ${name}. Class is in use in inventory.`,
              )
            : undefined,
      );
    }
    return { status: 204 };
  };

  const totalUsages: Handler = (ctx) => {
    const q = new QueryParams([...ctx.url.searchParams]);
    const failure = findSchemaFailure(queryInstance(q.pairs), usagesQuerySchema(ctx.version), SCHEMA_OPTIONS);
    if (failure) throw new ApiError(400, `Invalid query string parameters: ${schemaFailureText(failure)}`);
    const project = q.last('project_id') as string;
    const user = q.last('user_id');
    const byType = atLeast(ctx.version, 38);
    const wantedType = byType ? q.last('consumer_type') : undefined;
    const flat: Record<string, number> = {};
    const grouped: Record<string, Record<string, number>> = {};
    const counted = new Map<string, Set<string>>();
    for (const c of store.consumers()) {
      if (c.projectId !== project || (user !== undefined && c.userId !== user)) continue;
      const type = wantedType === 'all' ? 'all' : c.consumerType;
      if (wantedType !== undefined && wantedType !== 'all' && type !== wantedType) continue;
      const bucket = grouped[type] ?? {};
      grouped[type] = bucket;
      const consumers = counted.get(type) ?? new Set<string>();
      counted.set(type, consumers);
      consumers.add(c.uuid);
      for (const inner of c.allocations.values()) {
        for (const [rc, n] of inner) {
          flat[rc] = (flat[rc] ?? 0) + n;
          bucket[rc] = (bucket[rc] ?? 0) + n;
        }
      }
      bucket.consumer_count = consumers.size;
    }
    return { status: 200, cache: true, body: { usages: byType ? grouped : flat } };
  };

  const routes: Route[] = [
    route('/', [['GET', home]]),
    route('', [['GET', home]]),
    route('/resource_classes', [
      ['GET', listClasses, { min: 2 }],
      ['POST', createClass, { min: 2 }],
    ]),
    route('/resource_classes/{name}', [
      ['GET', showClass, { min: 2 }],
      ['PUT', putClass, { min: 2 }],
      ['DELETE', deleteClass, { min: 2 }],
    ]),
    route('/resource_providers', [
      ['GET', listProviders],
      ['POST', createProvider],
    ]),
    route('/resource_providers/{uuid}', [
      ['GET', showProvider],
      ['DELETE', deleteProvider],
      ['PUT', updateProvider],
    ]),
    route('/resource_providers/{uuid}/inventories', [
      ['GET', getInventories],
      ['POST', createInventory],
      ['PUT', setInventories],
      ['DELETE', deleteInventories, { min: 5, belowStatus: 405 }],
    ]),
    route('/resource_providers/{uuid}/inventories/{resource_class}', [
      ['GET', getInventory],
      ['PUT', updateInventory],
      ['DELETE', deleteInventory],
    ]),
    route('/resource_providers/{uuid}/usages', [['GET', providerUsages]]),
    route('/resource_providers/{uuid}/aggregates', [
      ['GET', getAggregates, { min: 1 }],
      ['PUT', setAggregates, { min: 1 }],
    ]),
    route('/resource_providers/{uuid}/allocations', [['GET', providerAllocations]]),
    route('/allocations/{consumer_uuid}', [
      ['GET', consumerAllocations],
      ['PUT', putAllocations],
      ['DELETE', deleteAllocations],
    ]),
    route('/allocation_candidates', [['GET', listCandidates(search), { min: 10 }]]),
    route('/traits', [['GET', listTraits, { min: 6 }]]),
    route('/traits/{name}', [
      ['GET', showTrait, { min: 6 }],
      ['PUT', putTrait, { min: 6 }],
      ['DELETE', deleteTrait, { min: 6 }],
    ]),
    route('/resource_providers/{uuid}/traits', [
      ['GET', getProviderTraits, { min: 6 }],
      ['PUT', setProviderTraits, { min: 6 }],
      ['DELETE', deleteProviderTraits, { min: 6 }],
    ]),
    route('/usages', [['GET', totalUsages, { min: 9 }]]),
  ];

  const handler = async (request: Request): Promise<Response> => {
    try {
      return await handle(request);
    } catch {
      // Only a throwing option (requestId, clock) gets here; the routes map their own failures.
      return json(
        500,
        {
          errors: [
            {
              status: 500,
              title: TITLE(500),
              detail: `${EXPLANATION(500)}\n\n An unexpected error prevented the server from fulfilling your request.  `,
            },
          ],
        },
        {},
      );
    }
  };

  const handle = async (request: Request): Promise<Response> => {
    const url = new URL(request.url);
    const rid = requestId();
    let path = url.pathname;
    if (prefix && (path === prefix || path.startsWith(`${prefix}/`))) path = path.slice(prefix.length);
    const baseHeaders: Record<string, string> = { 'x-openstack-request-id': rid };
    const isRoot = path === '/' || path === '';

    if (options.auth === 'noauth2' && !isRoot && !request.headers.has('x-auth-token')) {
      // Placement's noauth2 middleware sits outside its error formatting, so
      // webob renders this page itself, in the format the Accept header picks;
      // Placement's request logger first turns a missing or `*/*` Accept into JSON.
      const accept = request.headers.get('accept');
      const page = webobErrorResponse(
        401,
        EXPLANATION(401),
        !accept || accept === '*/*' ? 'application/json' : accept,
      );
      for (const [name, value] of Object.entries(baseHeaders)) page.headers.set(name, value);
      return page;
    }

    const negotiated = negotiatePlacementVersion(request.headers);
    if (!negotiated.ok) {
      const error: Record<string, unknown> = {
        status: negotiated.status,
        title: TITLE(negotiated.status),
        detail:
          negotiated.status === 406
            ? `The resource could not be generated that was acceptable to your browser (content of type application/json. \n\n ${negotiated.message}`
            : `${EXPLANATION(400)}\n\n ${negotiated.message}  `,
        request_id: rid,
      };
      if (negotiated.status === 406) {
        error.max_version = MAX_MICROVERSION;
        error.min_version = MIN_MICROVERSION;
      }
      return json(negotiated.status, { errors: [error] }, baseHeaders);
    }
    const version = negotiated.version;
    const versionHeader = `placement 1.${version.minor}`;
    const errorResponse = (e: ApiError, vary: boolean) => {
      const error: Record<string, unknown> = {
        status: e.status,
        title: TITLE(e.status),
        detail: e.detailOverride ?? `${EXPLANATION(e.status)}\n\n ${e.message}  `,
      };
      if (atLeast(version, 23)) error.code = e.code;
      error.request_id = rid;
      return json(
        e.status,
        { errors: [error] },
        {
          ...baseHeaders,
          ...e.headers,
          'openstack-api-version': versionHeader,
          ...(vary ? { vary: 'openstack-api-version' } : {}),
        },
      );
    };

    // Routes match the decoded path, as under Placement's WSGI server.
    const decoded = wsgiPath(path);
    const found = routes.find((r) => r.pattern.test(decoded));
    if (!found) return errorResponse(new ApiError(404, ''), false);
    const match = found.pattern.exec(decoded) as RegExpExecArray;
    const params: Record<string, string> = {};
    found.names.forEach((n, i) => {
      params[n] = match[i + 1] as string;
    });
    const method = found.methods.find(([m]) => m === request.method);
    if (!method) {
      return errorResponse(
        new ApiError(
          405,
          'The method specified is not allowed for this resource.',
          PLACEMENT_ERROR_CODES.default,
          { allow: found.methods.map(([m]) => m).join(', ') },
          `The method ${request.method} is not allowed for this resource. \n\n The method specified is not allowed for this resource.`,
        ),
        true,
      );
    }
    const [, fn, gate] = method;
    const ctx: Ctx = { request, url, version, params, store, prefix, now: clock() };
    try {
      if (gate?.min !== undefined && version.minor < gate.min) {
        const status = gate.belowStatus ?? 404;
        throw new ApiError(
          status,
          status === 405 ? 'The method specified is not allowed for this resource.' : '',
          PLACEMENT_ERROR_CODES.default,
          {},
          status === 405
            ? `The method ${request.method} is not allowed for this resource. \n\n The method specified is not allowed for this resource.`
            : undefined,
        );
      }
      const rule = PLACEMENT_ROUTE_RULES[`${request.method} ${found.path}`];
      if (who && rule) {
        // Placement's handlers refuse a wrong media type, then check the policy.
        const key = `${request.method} ${found.path}`;
        if (
          PLACEMENT_JSON_ROUTES.has(key) &&
          !(key === 'PUT /resource_classes/{name}' && atLeast(version, 7))
        ) {
          requireJson(ctx);
        }
        const credentials = await who(request);
        // GET /usages is checked against the project it asks about (the last
        // project_id given), every other rule against the caller's own project.
        const target: { project_id: string | null } = { project_id: null };
        if (rule === 'placement:usages')
          target.project_id = url.searchParams.getAll('project_id').at(-1) ?? null;
        else if (credentials !== 'admin') target.project_id = credentials.projectId ?? null;
        if (credentials !== 'admin' && !policy(rule, credentials, target)) {
          throw new ApiError(403, `Policy does not allow ${rule} to be performed.`);
        }
      }
      const out = await fn(ctx);
      if (out instanceof Response) return out;
      const headers: Record<string, string> = {
        ...baseHeaders,
        ...out.headers,
        'openstack-api-version': versionHeader,
        vary: 'openstack-api-version',
      };
      if (out.cache && atLeast(version, 15) && out.status < 300) {
        headers['cache-control'] = 'no-cache';
        headers['last-modified'] = httpDate(ctx.now);
      }
      if (out.raw !== undefined) {
        return bytesResponse(out.raw, {
          status: out.status,
          headers: { ...headers, 'content-type': 'application/json' },
        });
      }
      if (out.body === undefined) return new Response(null, { status: out.status, headers });
      return json(out.status, out.body, headers);
    } catch (e) {
      if (e instanceof ApiError) return errorResponse(e, true);
      if (isStackspecError(e)) return errorResponse(new ApiError(e.status, e.message, e.code), true);
      return errorResponse(
        new ApiError(500, 'An unexpected error prevented the server from fulfilling your request.'),
        true,
      );
    }
  };
  // What the WSGI server in front of Placement answers, in Placement's error body.
  const oversizedHead = (head: OversizedHead) =>
    json(
      head.status,
      {
        errors: [
          {
            status: head.status,
            title: TITLE(head.status),
            detail: `${EXPLANATION(head.status)}\n\n ${head.message}  `,
            code: PLACEMENT_ERROR_CODES.default,
            request_id: requestId(),
          },
        ],
      },
      {},
    );
  return Object.assign(handler, { store, oversizedHead });
}

/**
 * A request path as a WSGI server hands it to Placement: every `%XX` becomes
 * the byte it names, read as Latin-1, and a `%` not followed by two hex
 * digits stays as it is. So `%2F` splits a segment, `%C3%A9` is two
 * characters, and malformed escapes never fail (Placement then answers 404).
 */
function wsgiPath(path: string): string {
  if (!path.includes('%')) return path;
  return path.replace(/%([0-9A-Fa-f]{2})/g, (_m, hex: string) =>
    String.fromCharCode(Number.parseInt(hex, 16)),
  );
}

function json(status: number, body: unknown, headers: Record<string, string>): Response {
  return bytesResponse(Buffer.from(JSON.stringify(body)), {
    status,
    headers: { ...headers, 'content-type': 'application/json' },
  });
}
