import { jsonResponse } from '@stackspec/core';
import { createDeployTemplatesApi, type DeployTemplateStore } from '@stackspec/deploy-templates';
import {
  createExtraSpecsHandler,
  createMemoryFlavorStore,
  type ExtraSpecRegistry,
  type FlavorStore,
} from '@stackspec/extra-spec-validators';
import { createCapabilitiesHandler } from '@stackspec/heat-capabilities';
import { createPlacementHandler, createProviderStore, type ProviderStore } from '@stackspec/placement-query';
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
  /** The Placement state to serve; default empty. */
  placement?: ProviderStore;
  /** Flavors whose extra specs `/compute/v2.1/flavors/{id}/os-extra_specs` serves; default none. */
  flavors?: FlavorStore;
  /** The extra spec catalog and plugins `/compute` validates against (default: the newest built-in catalog). */
  extraSpecRegistry?: ExtraSpecRegistry;
  /** `none` (every request is an admin) or `trusted-headers` (roles from an authenticating proxy). */
  auth?: 'none' | 'trusted-headers';
  /** Where operational messages go (keys accepted in permissive mode…); default nowhere. */
  log?: (line: string) => void;
}

/** The combined handler and what it serves, for shutdown and health. */
export interface StackspecApp {
  (request: Request): Promise<Response>;
  readonly placement: ProviderStore;
  readonly deployTemplates: DeployTemplateStore;
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
  const placementStore = options.placement ?? createProviderStore();
  const placement = createPlacementHandler({ store: placementStore, prefix: SERVICE_PREFIXES.placement });
  const baremetal = createDeployTemplatesApi({
    store: options.deployTemplates,
    publicUrl: `${base}${SERVICE_PREFIXES.baremetal}`,
    auth: options.auth ?? 'none',
  });
  const orchestration = createCapabilitiesHandler();
  const compute = createExtraSpecsHandler({
    store: options.flavors ?? createMemoryFlavorStore({}),
    prefix: '/v2.1',
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
      checks.placement = 'ok';
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
  return Object.assign(app, { placement: placementStore, deployTemplates: options.deployTemplates });
}
