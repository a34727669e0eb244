import {
  bytesResponse,
  type CredentialsHook,
  createRequestId,
  createServiceHandler,
  credentialsHook,
  placementErrorBody,
  REQUEST_ID_HEADER,
  type ServiceCall,
  type ServiceHook,
  type ServiceRoute,
  type ServiceStep,
  webobErrorResponse,
} from '@stackspec/core';
import type { OversizedHead } from '@stackspec/core/node';
import {
  type FindCandidatesOptions,
  type GenerationStrategy,
  SERVER_MAX_ALLOCATION_CANDIDATES,
} from '../engine/candidates.js';
import { PLACEMENT_ERROR_CODES } from '../errors.js';
import { atLeast, negotiatePlacementVersion, versionText } from '../microversion.js';
import { createProviderStore, type ProviderStore } from '../model/store.js';
import { createMemoryPlacementStore } from '../store/memory-store.js';
import type { PlacementStore } from '../store/types.js';
import {
  PlacementContext,
  type PlacementHandlerFn,
  type PlacementRoute,
  type ResponseParts,
  requireJson,
} from './context.js';
import { explanationOf, jsonBytesResponse, PlacementHttpError, renderPlacementError } from './errors.js';
import { createPlacementPolicy, PLACEMENT_JSON_ROUTES, PLACEMENT_ROUTE_RULES } from './policy.js';
import { AGGREGATE_ROUTES } from './routes/aggregates.js';
import { ALLOCATION_CANDIDATE_ROUTES } from './routes/allocation-candidates.js';
import { ALLOCATION_ROUTES } from './routes/allocations.js';
import { INVENTORY_ROUTES } from './routes/inventories.js';
import { RESOURCE_CLASS_ROUTES } from './routes/resource-classes.js';
import { RESOURCE_PROVIDER_ROUTES } from './routes/resource-providers.js';
import { ROOT_ROUTES } from './routes/root.js';
import { TRAIT_ROUTES } from './routes/traits.js';
import { USAGE_ROUTES } from './routes/usages.js';

/** Options for {@link createPlacementHandler}. */
export interface PlacementServiceOptions {
  /** The state to serve, kept in memory only (default: a new empty store); ignored with `placement`. */
  store?: ProviderStore;
  /**
   * The state to serve with where it is kept (see `PlacementStore`): a
   * durable store from `@stackspec/placement-query/pglite` or `/postgres`,
   * opened. While it cannot vouch for its state (its database out of reach)
   * every request but `GET /` is answered with Placement's 503.
   */
  placement?: PlacementStore;
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
  /** Where the state is kept, and whether it is current (for `/healthz`). */
  readonly placement: PlacementStore;
  /** Placement's error body for a request head too large to read (for `startServer`). */
  readonly oversizedHead: (head: OversizedHead) => Response;
}

/** Every route of the API, one module per resource. */
const ROUTES: readonly PlacementRoute[] = [
  ...ROOT_ROUTES,
  ...RESOURCE_CLASS_ROUTES,
  ...RESOURCE_PROVIDER_ROUTES,
  ...INVENTORY_ROUTES,
  ...USAGE_ROUTES,
  ...AGGREGATE_ROUTES,
  ...ALLOCATION_ROUTES,
  ...ALLOCATION_CANDIDATE_ROUTES,
  ...TRAIT_ROUTES,
];

/**
 * The path Placement routes: the mount point taken off, then decoded as a
 * WSGI server hands it over (every `%XX` the byte it names, read as
 * Latin-1; a `%` not followed by two hex digits stays), so `%2F` splits a
 * segment and malformed escapes never fail (they end in a 404). The mount
 * point itself, with or without its slash, is the root.
 */
function routedPath(pathname: string, prefix: string): string {
  let path = pathname;
  if (prefix && (path === prefix || path.startsWith(`${prefix}/`))) path = path.slice(prefix.length);
  if (path === '') return '/';
  if (!path.includes('%')) return path;
  return path.replace(/%([0-9A-Fa-f]{2})/g, (_m, hex: string) =>
    String.fromCharCode(Number.parseInt(hex, 16)),
  );
}

/**
 * Placement's `noauth2`: every path but the root needs `X-Auth-Token`. The
 * check sits outside Placement's error formatting, so webob renders the 401
 * page itself, in the format the Accept header picks (Placement's request
 * logger first turns a missing or `*\/*` Accept into JSON).
 */
const noAuth2: ServiceHook = (call) => {
  if (call.path === '/' || call.request.headers.has('x-auth-token')) return undefined;
  const accept = call.request.headers.get('accept');
  const page = webobErrorResponse(
    401,
    explanationOf(401),
    !accept || accept === '*/*' ? 'application/json' : accept,
  );
  for (const [name, value] of Object.entries(call.responseHeaders())) page.headers.set(name, value);
  return page;
};

/**
 * Placement's policy at the point its handlers check it: after the route
 * and method are known, after the 415 of a route that takes JSON (`PUT
 * /resource_classes/{name}` takes none from 1.7). `GET /usages` is checked
 * against the project it asks about (the last `project_id`), every other
 * rule against the caller's own project.
 */
function policyCheck(who: CredentialsHook, enforceNewDefaults: boolean): ServiceHook {
  const policy = createPlacementPolicy({ enforceNewDefaults });
  return async (call) => {
    const key = `${call.method} ${call.route}`;
    const rule = PLACEMENT_ROUTE_RULES[key];
    if (!rule) return undefined;
    const version = call.version as NonNullable<ServiceCall['version']>;
    if (PLACEMENT_JSON_ROUTES.has(key) && !(key === 'PUT /resource_classes/{name}' && atLeast(version, 7))) {
      requireJson(call.request);
    }
    const credentials = await who(call.request);
    if (credentials === 'admin') return undefined;
    const target: { project_id: string | null } = {
      project_id:
        rule === 'placement:usages'
          ? (call.url.searchParams.getAll('project_id').at(-1) ?? null)
          : (credentials.projectId ?? null),
    };
    if (!policy(rule, credentials, target)) {
      throw new PlacementHttpError(403, `Policy does not allow ${rule} to be performed.`);
    }
    return undefined;
  };
}

/**
 * A Placement-compatible HTTP API as a fetch-style handler over a
 * {@link ProviderStore}: the two query endpoints and the API that builds,
 * reads and empties an inventory (providers, inventories, usages,
 * aggregates, traits, resource classes, allocations), with generations and
 * 409 on stale ones, `OpenStack-API-Version` negotiation (1.0–1.39), the
 * version document at `/`, and Placement's error bodies. The handler never
 * throws: unexpected failures become Placement-style 500s.
 *
 * Built on core's HTTP kit (`createServiceHandler`): one module per
 * resource under `routes/`, over the rules of `service/`.
 *
 * @example
 * const handler = createPlacementHandler({ store: parseInventory(text).store });
 * const server = await startServer(handler, { port: 8778 }); // from @stackspec/core/node
 */
export function createPlacementHandler(options: PlacementServiceOptions = {}): PlacementHandler {
  const placement = options.placement ?? createMemoryPlacementStore(options.store ?? createProviderStore());
  const store = placement.store;
  const prefix = (options.prefix ?? '').replace(/\/+$/, '');
  const requestId = options.requestId ?? createRequestId;
  const clock = options.clock ?? (() => new Date());
  const search: FindCandidatesOptions = {
    maxAllocationCandidates: options.maxAllocationCandidates ?? SERVER_MAX_ALLOCATION_CANDIDATES,
    allocationCandidatesGenerationStrategy: options.allocationCandidatesGenerationStrategy ?? 'depth-first',
    optimizeForWideProviderTrees: options.optimizeForWideProviderTrees ?? false,
  };

  // Placement's headers on a handler's answer, the cache headers from 1.15.
  const respond = (out: ResponseParts, call: ServiceCall, ctx: PlacementContext): Response => {
    const headers: Record<string, string> = { ...out.headers, ...call.responseHeaders() };
    if (out.cache && atLeast(ctx.version, 15) && out.status < 300) {
      headers['cache-control'] = 'no-cache';
      headers['last-modified'] = ctx.now.toUTCString();
    }
    if (out.raw !== undefined) {
      return bytesResponse(out.raw, {
        status: out.status,
        headers: { ...headers, 'content-type': 'application/json' },
      });
    }
    if (out.body === undefined) return new Response(null, { status: out.status, headers });
    return jsonBytesResponse(out.status, out.body, headers);
  };
  const state = { placement, prefix, search };
  const run =
    (handle: PlacementHandlerFn, path: string) =>
    async (call: ServiceCall): Promise<Response> => {
      // A server whose database is out of reach cannot vouch for what it would answer.
      if (path !== '/') placement.assertReadable();
      const ctx = new PlacementContext(call, state, clock());
      return respond(await handle(ctx), call, ctx);
    };
  const routes: ServiceRoute[] = ROUTES.map((route) => ({
    path: route.path,
    methods: Object.fromEntries(
      Object.entries(route.methods).map(([method, m]) => [
        method,
        typeof m === 'function'
          ? run(m, route.path)
          : {
              handle: run(m.handle, route.path),
              minVersion: m.minVersion,
              belowMinVersion: m.belowMinVersion ?? 404,
            },
      ]),
    ),
  }));

  const who =
    options.auth === 'trusted-headers' || typeof options.auth === 'function'
      ? credentialsHook(options.auth)
      : undefined;
  const pipeline: ServiceStep[] = [
    ...(options.auth === 'noauth2' ? [noAuth2] : []),
    'version',
    'route',
    'method',
    ...(who ? [policyCheck(who, options.enforceNewDefaults === true)] : []),
  ];
  const handler = createServiceHandler({
    routes,
    pipeline,
    routePath: (url) => routedPath(url.pathname, prefix),
    requestId: { header: REQUEST_ID_HEADER, create: requestId },
    microversion: {
      negotiate: (request) => negotiatePlacementVersion(request.headers),
      headers: (version) => ({
        'openstack-api-version': `placement ${versionText(version)}`,
        vary: 'openstack-api-version',
      }),
    },
    ...(options.maxBodyBytes === undefined ? {} : { maxBodyBytes: options.maxBodyBytes }),
    renderError: renderPlacementError,
  });
  // What the WSGI server in front of Placement answers, in Placement's error body.
  const oversizedHead = (head: OversizedHead) =>
    jsonBytesResponse(
      head.status,
      placementErrorBody(head.status, head.message, {
        withCode: true,
        code: PLACEMENT_ERROR_CODES.default,
        requestId: requestId(),
      }),
      {},
    );
  return Object.assign(handler, { store, placement, oversizedHead });
}
