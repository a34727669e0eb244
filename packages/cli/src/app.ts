import {
  heatErrorBody,
  ironicErrorBody,
  jsonResponse,
  novaErrorBody,
  placementErrorBody,
  pyJsonDumps,
} from '@stackspec/core';
import type { OversizedHead } from '@stackspec/core/node';
import { createDeployTemplatesApi, type DeployTemplateStore } from '@stackspec/deploy-templates';
import {
  createExtraSpecsHandler,
  createMemoryFlavorStore,
  type ExtraSpecRegistry,
  type FlavorStore,
} from '@stackspec/extra-spec-validators';
import { createCapabilitiesHandler } from '@stackspec/heat-capabilities';
import {
  createPlacementHandler,
  createProviderStore,
  type PlacementServiceOptions,
  type PlacementStore,
  type ProviderStore,
} from '@stackspec/placement-query';
import { VERSION } from './version.js';

type Handler = (request: Request) => Promise<Response>;

/** Where each service lives in the combined server. */
export const SERVICE_PREFIXES = {
  compute: '/compute',
  placement: '/placement',
  baremetal: '/baremetal',
  orchestration: '/orchestration',
} as const;

/** Options for {@link createStackspecApp}. */
export interface StackspecAppOptions {
  /** Public root URL (`http://host:port`), for links in responses. */
  publicUrl: string;
  /** The deploy template store (the embedded PGlite store by default in `serve`). */
  deployTemplates: DeployTemplateStore;
  /** The Placement state to serve, kept in memory only; default empty. Ignored with `placementStore`. */
  placement?: ProviderStore;
  /**
   * A durable Placement (`@stackspec/placement-query/pglite` or `/postgres`),
   * already opened: its writes are kept in its database, and `/healthz`
   * reports whether it can vouch for its state.
   */
  placementStore?: PlacementStore;
  /** Placement's candidate generation settings (`max_allocation_candidates` and the others), passed through. */
  placementSearch?: Pick<
    PlacementServiceOptions,
    'maxAllocationCandidates' | 'allocationCandidatesGenerationStrategy' | 'optimizeForWideProviderTrees'
  >;
  /** Flavors whose extra specs `/compute/v2.1/flavors/{id}/os-extra_specs` serves; default none. */
  flavors?: FlavorStore;
  /** The extra spec catalog and plugins `/compute` validates against (default: the newest built-in catalog). */
  extraSpecRegistry?: ExtraSpecRegistry;
  /**
   * `none` (every request is an admin) or `trusted-headers`: roles, scope
   * and project from `X-Roles`, `OpenStack-System-Scope` and `X-Project-Id`
   * (set by an authenticating proxy), checked against each service's default
   * policy (see `AUTH_HELP`).
   */
  auth?: 'none' | 'trusted-headers';
  /**
   * `[oslo_policy] enforce_new_defaults` for `/compute` and `/placement`:
   * true checks their new default rules only (see
   * `ENFORCE_NEW_DEFAULTS_HELP`). Default false, as Nova 26 and
   * Placement 8.0 ship. `/baremetal` always checks Ironic's new defaults.
   */
  enforceNewDefaults?: boolean;
  /** Where operational messages go (keys accepted in permissive mode…); default nowhere. */
  log?: (line: string) => void;
}

/**
 * Who may do what under `--auth trusted-headers` by default, in one line for
 * `--help` (the guide says the same at length). Roles are taken from
 * `X-Roles` as listed: send implied roles too (`admin,member,reader`), as
 * Keystone does. `/compute` and `/placement` follow Nova 26 and Placement
 * 8.0 as shipped (`enforce_new_defaults = False`); `/baremetal` keeps
 * Ironic's new defaults, as it did before the other two were guarded.
 */
export const AUTH_HELP =
  "none: every request is an admin. trusted-headers: roles from X-Roles (as listed: send implied ones too, admin,member,reader), scope from OpenStack-System-Scope, project from X-Project-Id (set by an authenticating proxy), checked against each service's default policy. /compute and /placement as Nova 26 and Placement 8.0 ship it: /compute writes need admin in any scope, anyone may read; /placement writes need admin in any scope, reads admin or reader with system scope (OpenStack-System-Scope: all), GET /usages also a reader of that project. /baremetal always uses Ironic's new defaults: writes need admin with system scope, reads reader or service with system scope, or service in project service. /orchestration is read-only and open";

/**
 * What `--enforce-new-defaults` changes, in one line for `--help`: the new
 * default rules of Nova and Placement alone, as with their
 * `[oslo_policy] enforce_new_defaults = True`.
 */
export const ENFORCE_NEW_DEFAULTS_HELP =
  "with --auth trusted-headers, check only the new default rules of /compute and /placement (oslo.policy's enforce_new_defaults): /compute writes need admin, reads reader or admin; /placement writes need admin with system scope, reads reader with system scope, GET /usages also a reader of that project. /baremetal always uses Ironic's new defaults";

/** The combined handler and what it serves, for shutdown and health. */
export interface StackspecApp {
  (request: Request): Promise<Response>;
  readonly placement: ProviderStore;
  readonly deployTemplates: DeployTemplateStore;
  /** The answer to a request head too large to read: `oversizedHeadResponse`. */
  readonly oversizedHead: (head: OversizedHead) => Response;
}

function under(path: string | undefined, prefix: string): boolean {
  return path !== undefined && (path === prefix || path.startsWith(`${prefix}/`));
}

/**
 * The answer of the combined server to a request head too large to read
 * (414 for a request line, 400 for header fields, as OpenStack's WSGI
 * server answers): in the error body of the service the path belongs to
 * when the path could be read, else `{"error": {"status", "code", "message"}}`.
 */
export function oversizedHeadResponse(head: OversizedHead): Response {
  const json = (body: unknown, type = 'application/json', text = JSON.stringify(body)) =>
    new Response(text, { status: head.status, headers: { 'content-type': type } });
  if (under(head.path, SERVICE_PREFIXES.compute)) {
    return json(novaErrorBody(head.status, head.message), 'application/json; charset=UTF-8');
  }
  if (under(head.path, SERVICE_PREFIXES.placement)) {
    return json(placementErrorBody(head.status, head.message, { withCode: true }));
  }
  if (under(head.path, SERVICE_PREFIXES.baremetal)) {
    const body = ironicErrorBody(head.status, head.message, 'webob');
    return json(body, 'application/json', pyJsonDumps(body));
  }
  if (under(head.path, SERVICE_PREFIXES.orchestration)) {
    const type = head.status === 414 ? 'HTTPRequestURITooLong' : 'HTTPBadRequest';
    return json(heatErrorBody(head.status, type, head.message));
  }
  const code = head.status === 414 ? 'http/request-line-too-long' : 'http/headers-too-large';
  return json({ error: { status: head.status, code, message: head.message } });
}

function strip(request: Request, prefix: string): Request {
  const url = new URL(request.url);
  url.pathname = url.pathname.slice(prefix.length) || '/';
  return new Request(url, request);
}

/**
 * One fetch-style handler over every package's API, each under its own
 * prefix, as a cloud's service catalog would list them:
 * `/compute` (Nova's flavor extra spec API with validation),
 * `/placement` (Placement-compatible API over an in-memory inventory),
 * `/baremetal` (Ironic's deploy templates API), `/orchestration` (Heat
 * capability introspection and resolution), `/healthz`, and at `/` a
 * document listing the services.
 */
export function createStackspecApp(options: StackspecAppOptions): StackspecApp {
  const base = options.publicUrl.replace(/\/+$/, '');
  const placementStore = options.placementStore?.store ?? options.placement ?? createProviderStore();
  const auth = options.auth ?? 'none';
  const enforceNewDefaults = options.enforceNewDefaults === true;
  const placement = createPlacementHandler({
    ...(options.placementStore ? { placement: options.placementStore } : { store: placementStore }),
    prefix: SERVICE_PREFIXES.placement,
    auth,
    enforceNewDefaults,
    ...options.placementSearch,
  });
  const baremetal = createDeployTemplatesApi({
    store: options.deployTemplates,
    publicUrl: `${base}${SERVICE_PREFIXES.baremetal}`,
    auth,
  });
  const orchestration = createCapabilitiesHandler();
  const compute = createExtraSpecsHandler({
    store: options.flavors ?? createMemoryFlavorStore({}),
    prefix: '/v2.1',
    auth,
    enforceNewDefaults,
    ...(options.extraSpecRegistry ? { registry: options.extraSpecRegistry } : {}),
    // The spec asks that keys accepted in permissive mode be logged.
    ...(options.log
      ? {
          onPermissive: (flavor: string, key: string, message: string) =>
            options.log?.(`permissive: flavor ${flavor}: ${key}: ${message}`),
        }
      : {}),
  });
  const routes: [string, Handler, boolean][] = [
    [SERVICE_PREFIXES.compute, compute, true],
    // Placement knows its prefix; the others are served as if at their root.
    [SERVICE_PREFIXES.placement, placement, false],
    [SERVICE_PREFIXES.baremetal, baremetal, true],
    [SERVICE_PREFIXES.orchestration, orchestration, true],
  ];

  const app = async (request: Request): Promise<Response> => {
    const path = new URL(request.url).pathname;
    for (const [prefix, handler, stripPrefix] of routes) {
      if (path === prefix || path.startsWith(`${prefix}/`)) {
        return handler(stripPrefix ? strip(request, prefix) : request);
      }
    }
    if (path === '/healthz') {
      const checks: Record<string, string> = {};
      try {
        await options.deployTemplates.list({ limit: 1 });
        checks.baremetal = 'ok';
      } catch {
        checks.baremetal = 'unavailable';
      }
      checks.placement = options.placementStore?.health().status ?? 'ok';
      checks.compute = 'ok';
      checks.orchestration = 'ok';
      const ok = Object.values(checks).every((v) => v === 'ok');
      return jsonResponse(
        { status: ok ? 'ok' : 'degraded', version: VERSION, checks },
        { status: ok ? 200 : 503 },
      );
    }
    if (path === '/' || path === '') {
      return jsonResponse({
        name: 'stackspec',
        version: VERSION,
        services: Object.entries(SERVICE_PREFIXES).map(([type, prefix]) => ({
          type,
          url: `${base}${prefix}`,
        })),
        health: `${base}/healthz`,
      });
    }
    return jsonResponse(
      { error: { status: 404, message: `Nothing is served at ${path}.` } },
      { status: 404 },
    );
  };
  return Object.assign(app, {
    placement: placementStore,
    deployTemplates: options.deployTemplates,
    oversizedHead: oversizedHeadResponse,
  });
}
