import {
  ANY_METHOD,
  type CredentialsHook,
  compareMicroversions,
  createRequestId,
  createServiceHandler,
  credentialsHook,
  findUtf8Problem,
  formatMicroversion,
  HTTP_STATUS_TEXT,
  ironicErrorBody,
  isStackspecError,
  type Microversion,
  parseJsonBytes,
  pyJsonDumps,
  requestTooLargeMessage,
  type ServiceCall,
  type ServiceFailure,
  type ServiceHandler,
  type ServiceHook,
  type ServiceRoute,
  SpecError,
  ValidationError,
} from '@stackspec/core';
import type { OversizedHead } from '@stackspec/core/node';
import { createDefaultStore } from './adapters/default-store.js';
import { createDeployTemplatePolicy, forbidden, type PolicyCheck } from './policy.js';
import { type IronicProfile, ironicProfile } from './profile.js';
import {
  type CallContext,
  createDeployTemplateService,
  type DeployTemplateService,
  type QueryParams,
  type TemplateNotification,
} from './service.js';
import type { DeployTemplateStore } from './store/types.js';
import {
  DEPLOY_TEMPLATES_VERSION,
  MAX_VERSION_HEADER,
  MIN_VERSION,
  MIN_VERSION_HEADER,
  negotiateVersion,
  stripsJsonSuffix,
  VERSION_HEADER,
} from './versions.js';

/**
 * Who is calling: credentials checked against the policy, or `'admin'` to
 * skip policy checks (Ironic's `noauth`).
 */
export type RequestContextHook = CredentialsHook;

/**
 * Default largest request body: 112 KiB, the `max_request_body_size` that
 * oslo.middleware's size limit (in front of Nova, among others) applies
 * unless configured. Ironic itself has no limit; a deployment's proxy sets
 * one, and a template whose steps and extra fit in Ironic's database
 * columns (64 KiB each on MySQL) fits in this.
 */
export const IRONIC_MAX_BODY_BYTES = 114_688;

/** Options for {@link createDeployTemplatesApi}. */
export interface DeployTemplatesApiOptions {
  /** Where templates live (default: a new in-memory PGlite store). Ignored when `service` is given. */
  store?: DeployTemplateStore;
  /** A ready service (its options win over `profile`, `maxLimit`, `notify`). */
  service?: DeployTemplateService;
  /** Release to imitate (default newest: API 1.1–1.115). */
  profile?: IronicProfile;
  /** Largest page (default 1000). */
  maxLimit?: number;
  /**
   * `none` (default): every request is an admin, like Ironic's `noauth`.
   * `trusted-headers`: roles and scope from `X-Roles`, `OpenStack-System-Scope`
   * and `X-Project-Id`, as an authenticating proxy sets them. Or a hook.
   */
  auth?: 'none' | 'trusted-headers' | RequestContextHook;
  /** Policy deciding what credentials may do (default: Ironic's defaults). */
  policy?: PolicyCheck;
  /** Public root URL for links (default: the request's origin). */
  publicUrl?: string;
  /** Receives create/update/delete notifications. */
  notify?: (notification: TemplateNotification) => void;
  /**
   * Largest request body in bytes (default {@link IRONIC_MAX_BODY_BYTES}):
   * a longer one is a 413, refused from its `Content-Length` before it is
   * read, or as soon as it passes the limit while read.
   */
  maxBodyBytes?: number;
  /** Largest list answer in bytes (default 4 MiB; ignored when `service` is given). */
  maxListBytes?: number;
}

/** A fetch-style handler with the store it serves, for shutdown. */
export interface DeployTemplatesApi {
  (request: Request): Promise<Response>;
  readonly service: DeployTemplateService;
  /** Ironic's answer to a request head too large to read (for `startServer`). */
  readonly oversizedHead: (head: OversizedHead) => Response;
}

// Ironic's answer to a method its controller lacks lists every method of the resource.
const ALLOW = 'DELETE, GET, PATCH, POST';
// The spec names the resource with a hyphen too.
const RESOURCES = ['deploy_templates', 'deploy-templates'];
const V1_DOCUMENT = '/v1';

function body(status: number, value: unknown, headers: Headers | Record<string, string>): Response {
  const h = new Headers(headers);
  if (value === undefined) return new Response(null, { status, headers: h });
  h.set('content-type', 'application/json');
  return new Response(pyJsonDumps(value), { status, headers: h });
}

// Errors of the layers in front of Ironic's controllers (size limit, router,
// version check) are webob's bodies and carry no version headers.
function early(status: number, description: string): Response {
  return body(status, ironicErrorBody(status, description, 'webob'), {});
}

/**
 * Percent-decodes a path segment or query the way Python's `unquote` does
 * before Ironic sees it: a malformed escape (`%ZZ`) stays as written, and
 * escapes that do not form UTF-8 make the whole request invalid
 * (`undefined`; Ironic's web framework answers those with a bare 400).
 */
function unquote(text: string): string | undefined {
  try {
    return decodeURIComponent(text.replace(/%(?![0-9A-Fa-f]{2})/g, '%25'));
  } catch {
    return undefined;
  }
}

function queryOf(url: URL): QueryParams {
  const out: Record<string, string | string[]> = {};
  for (const [k, v] of url.searchParams) {
    const prev = out[k];
    out[k] = prev === undefined ? v : Array.isArray(prev) ? [...prev, v] : [prev, v];
  }
  return out;
}

function rootDocument(base: string, profile: IronicProfile): Record<string, unknown> {
  const version = {
    id: 'v1',
    links: [{ href: `${base}/v1/`, rel: 'self' }],
    status: 'CURRENT',
    min_version: MIN_VERSION,
    version: profile.maxVersion,
  };
  return {
    name: 'OpenStack Ironic API',
    description:
      'Ironic is an OpenStack project which enables the provision and management of baremetal machines.',
    default_version: version,
    versions: [version],
  };
}

function versionOneDocument(
  base: string,
  profile: IronicProfile,
  version: Microversion,
): Record<string, unknown> {
  const doc: Record<string, unknown> = {
    id: 'v1',
    links: [
      { href: `${base}/v1/`, rel: 'self' },
      {
        href: 'https://docs.openstack.org//ironic/latest/contributor//webapi.html',
        rel: 'describedby',
        type: 'text/html',
      },
    ],
    media_types: { base: 'application/json', type: 'application/vnd.openstack.ironic.v1+json' },
    version: {
      id: 'v1',
      links: [{ href: `${base}/v1/`, rel: 'self' }],
      status: 'CURRENT',
      min_version: MIN_VERSION,
      version: profile.maxVersion,
    },
  };
  if (compareMicroversions(version, DEPLOY_TEMPLATES_VERSION) >= 0) {
    doc.deploy_templates = [
      { href: `${base}/v1/deploy_templates/`, rel: 'self' },
      { href: `${base}/deploy_templates/`, rel: 'bookmark' },
    ];
  }
  return doc;
}

/** Whether a request's body is JSON by its media type (Ironic decodes those before routing to a controller). */
function isJsonType(request: Request): boolean {
  const type = (request.headers.get('content-type') ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  return type === 'application/json' || type.endsWith('+json');
}

/**
 * The path Ironic routes: trailing slashes dropped, and a trailing `.json`
 * when its middleware strips one (before routing and negotiation; which
 * requests depends on the release). `/.json` is the root and
 * `/v1/deploy_templates/.json` the list, as the slash that is left says.
 */
function ironicPath(
  url: URL,
  request: Request,
  profile: IronicProfile,
): { path: string; jsonSuffix: boolean } {
  const path = url.pathname.replace(/\/+$/, '');
  if (path.endsWith('.json') && stripsJsonSuffix(request.headers, profile)) {
    return { path: path.slice(0, -5).replace(/\/+$/, ''), jsonSuffix: true };
  }
  return { path, jsonSuffix: false };
}

/**
 * Ironic's deploy template REST API as a fetch-style handler: `/`, `/v1`,
 * `/v1/deploy_templates[/{ident}]` (and the spec's `/v1/deploy-templates`),
 * microversion negotiation with Ironic's headers (templates need 1.55: below
 * it GET is 404 and writes 405), policy from a pluggable request-context
 * hook, and Ironic's status codes and error bodies. Built on core's HTTP kit
 * (`createServiceHandler`) over {@link DeployTemplateService}.
 *
 * @example
 * const api = createDeployTemplatesApi({ store: createPgliteStore() });
 * const res = await api(new Request('http://localhost/v1/deploy_templates',
 *   { headers: { 'X-OpenStack-Ironic-API-Version': '1.55' } }));
 */
export function createDeployTemplatesApi(options: DeployTemplatesApiOptions = {}): DeployTemplatesApi {
  const profile = options.profile ?? ironicProfile();
  const service =
    options.service ??
    createDeployTemplateService(options.store ?? createDefaultStore(), {
      profile,
      ...(options.maxLimit !== undefined ? { maxLimit: options.maxLimit } : {}),
      ...(options.maxListBytes !== undefined ? { maxListBytes: options.maxListBytes } : {}),
      ...(options.notify ? { notify: options.notify } : {}),
    });
  const hook = credentialsHook(options.auth);
  const policy = options.policy ?? createDeployTemplatePolicy();
  const maxBody = options.maxBodyBytes ?? IRONIC_MAX_BODY_BYTES;
  if (typeof maxBody !== 'number' || !(maxBody >= 0)) {
    throw new SpecError(`maxBodyBytes must be a number of bytes, 0 or more, not ${String(maxBody)}.`, {
      code: 'deploy-templates/bad-option',
    });
  }
  const baseOf = (url: URL) => (options.publicUrl ?? url.origin).replace(/\/+$/, '');
  const range = { [MIN_VERSION_HEADER]: MIN_VERSION, [MAX_VERSION_HEADER]: profile.maxVersion };

  // The body of a request that is not a GET, read within the limit: the
  // 413 to answer past it, and Ironic's web framework's bare 400 for a JSON
  // body that is not UTF-8 (it decodes those before any controller runs).
  const readWithinLimit = async (call: ServiceCall): Promise<Response | undefined> => {
    let bytes: Uint8Array;
    try {
      bytes = await call.bytes();
    } catch (e) {
      if (isStackspecError(e) && e.code === 'http/body-too-large') {
        return early(413, requestTooLargeMessage(maxBody, false));
      }
      throw e;
    }
    return isJsonType(call.request) && findUtf8Problem(bytes) !== undefined ? early(400, '') : undefined;
  };

  // Python's unquote runs on the path and query before Ironic sees them; escapes that are not UTF-8 fail the request.
  const unquotable: ServiceHook = (call) =>
    unquote(call.url.pathname) === undefined || unquote(call.url.search.replace(/\+/g, ' ')) === undefined
      ? early(400, '')
      : undefined;
  // Ironic's root answers every method with the version document, before any negotiation.
  const root: ServiceHook = async (call) => {
    if (call.path !== '') return undefined;
    if (call.method !== 'GET') {
      const refused = await readWithinLimit(call);
      if (refused) return refused;
    }
    return body(200, rootDocument(baseOf(call.url), profile), {});
  };
  const readBody: ServiceHook = (call) => (call.method === 'GET' ? undefined : readWithinLimit(call));

  // The /v1 document is served by a controller, so its errors are fault bodies, not the router's.
  const v1Document: ServiceHandler = (call) => {
    if (call.method !== 'GET') {
      return body(
        405,
        ironicErrorBody(
          405,
          'The server could not comply with the request since it is either malformed or otherwise incorrect.',
        ),
        call.responseHeaders(),
      );
    }
    return body(
      200,
      versionOneDocument(baseOf(call.url), profile, call.version as Microversion),
      call.responseHeaders(),
    );
  };

  const templates: ServiceHandler = async (call) => {
    const ident = call.params.ident === undefined ? undefined : (unquote(call.params.ident) as string);
    const query = queryOf(call.url);
    const who = await hook(call.request);
    const ctx: CallContext = {
      baseUrl: baseOf(call.url),
      jsonSuffix: ironicPath(call.url, call.request, profile).jsonSuffix,
      authorize: (rule) => {
        if (who !== 'admin' && !policy(rule, who)) throw forbidden(rule);
      },
    };
    const readJson = async () => {
      try {
        return parseJsonBytes(await call.bytes(), { emptyValue: {} });
      } catch (e) {
        // A body of another media type is decoded later, and its failure is a controller's 400.
        if (isStackspecError(e) && e.code === 'http/invalid-utf8') {
          throw new ValidationError(HTTP_STATUS_TEXT[400]?.explanation, { code: e.code });
        }
        throw e;
      }
    };
    const headers = call.responseHeaders();
    switch (call.method) {
      case 'GET':
        return body(
          200,
          ident === undefined ? await service.list(query, ctx) : await service.show(ident, query, ctx),
          headers,
        );
      case 'POST': {
        const created = await service.create(await readJson(), query, ctx);
        return body(201, created.body, { ...headers, location: created.location });
      }
      case 'PATCH':
        return body(
          200,
          await service.update(ident, ident === undefined ? undefined : await readJson(), query, ctx),
          headers,
        );
      default:
        await service.delete(ident, query, ctx);
        return body(204, undefined, headers);
    }
  };

  const renderError = (failure: ServiceFailure, call: ServiceCall): Response => {
    switch (failure.reason) {
      case 'body-too-large':
        return early(413, requestTooLargeMessage(failure.limit, true));
      case 'version':
        return body(
          406,
          ironicErrorBody(406, failure.message, call.route === V1_DOCUMENT ? 'fault' : 'webob'),
          failure.headers,
        );
      case 'not-found':
        return early(404, '');
      case 'below-version':
        return early(failure.status, 'The API version does not allow deploy templates');
      case 'method-not-allowed':
        return body(405, ironicErrorBody(405, '', 'webob'), { allow: ALLOW });
      default: {
        const e = failure.error;
        if (isStackspecError(e))
          return body(e.status, ironicErrorBody(e.status, e.message), call.responseHeaders());
        return body(
          500,
          ironicErrorBody(500, 'An unexpected error prevented the server from fulfilling your request.'),
          call.responseHeaders(),
        );
      }
    }
  };

  // Each resource path with and without /v1: Ironic's root hands a path that does not
  // start with /v1 to the v1 controller whole (the "bookmark" links point there).
  const gate = {
    minVersion: DEPLOY_TEMPLATES_VERSION,
    belowMinVersion: (m: string) => (m === 'GET' ? 404 : 405),
  };
  const routes: ServiceRoute[] = [{ path: V1_DOCUMENT, methods: { [ANY_METHOD]: v1Document } }];
  for (const resource of RESOURCES) {
    for (const base of [`/v1/${resource}`, `/${resource}`]) {
      routes.push({
        path: base,
        ...gate,
        methods: { GET: templates, POST: templates, PATCH: templates, DELETE: templates },
      });
      routes.push({
        path: `${base}/{ident}`,
        ...gate,
        methods: { GET: templates, PATCH: templates, DELETE: templates },
      });
    }
  }

  const handler = createServiceHandler({
    routes,
    // A size limit sits in front of everything, as a proxy's or oslo's would.
    pipeline: ['declared-size', unquotable, root, 'version', 'route', 'method', readBody],
    routePath: (url, request) => ironicPath(url, request, profile).path,
    method: (request) => request.method.toUpperCase(),
    requestId: { header: 'openstack-request-id', create: createRequestId },
    microversion: {
      negotiate: (request) => {
        const negotiated = negotiateVersion(request.headers, profile);
        if (negotiated.ok) return negotiated;
        return {
          ok: false,
          status: 406,
          message: negotiated.message,
          headers: negotiated.withRange ? range : {},
        };
      },
      headers: (version) => ({ ...range, [VERSION_HEADER]: formatMicroversion(version) }),
    },
    maxBodyBytes: maxBody,
    renderError,
  });
  const oversizedHead = (head: OversizedHead) => early(head.status, head.message);
  return Object.assign(handler, { service, oversizedHead });
}
