import { randomUUID } from 'node:crypto';
import {
  type CredentialsHook,
  credentialsHook,
  findUtf8Problem,
  HTTP_STATUS_TEXT,
  ironicErrorBody,
  isStackspecError,
  parseJsonBytes,
  pyJsonDumps,
  readBodyBytes,
  SpecError,
  ValidationError,
} from '@stackspec/core';
import type { OversizedHead } from '@stackspec/core/node';
import { createPgliteStore } from './adapters/pglite.js';
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
  type ApiVersion,
  compareApiVersions,
  DEPLOY_TEMPLATES_VERSION,
  formatApiVersion,
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

const ALLOW = 'DELETE, GET, PATCH, POST';
const RESOURCES = new Set(['deploy_templates', 'deploy-templates']);

function body(status: number, value: unknown, headers: Headers): Response {
  if (value === undefined) return new Response(null, { status, headers });
  headers.set('content-type', 'application/json');
  return new Response(pyJsonDumps(value), { status, headers });
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
  version: ApiVersion,
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
  if (compareApiVersions(version, DEPLOY_TEMPLATES_VERSION) >= 0) {
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

/** The request's `Content-Length`, when it is a whole number. */
function contentLength(request: Request): number | undefined {
  const v = request.headers.get('content-length')?.trim();
  return v && /^\d+$/.test(v) ? Number(v) : undefined;
}

/**
 * Ironic's deploy template REST API as a fetch-style handler: `/`, `/v1`,
 * `/v1/deploy_templates[/{ident}]` (and the spec's `/v1/deploy-templates`),
 * microversion negotiation with Ironic's headers (templates need 1.55: below
 * it GET is 404 and writes 405), policy from a pluggable request-context
 * hook, and Ironic's status codes and error bodies.
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
    createDeployTemplateService(options.store ?? createPgliteStore(), {
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
  // Errors of the layers in front of Ironic's controllers carry no version headers.
  const early = (status: number, description: string) =>
    body(status, ironicErrorBody(status, description, 'webob'), new Headers());
  const tooLarge = (declared: boolean) =>
    early(
      413,
      declared
        ? `Request is too large. Larger than max_request_body_size (${maxBody}).`
        : `Request is too large. Larger than ${maxBody}.`,
    );
  // Reads a request's body within the limit: the bytes, or the 413 to answer.
  const readBytes = async (request: Request): Promise<Uint8Array | Response> => {
    try {
      return await readBodyBytes(request, { maxBytes: maxBody });
    } catch (e) {
      if (isStackspecError(e) && e.code === 'http/body-too-large') return tooLarge(false);
      throw e;
    }
  };
  // Ironic's web framework decodes a JSON body before any controller runs and
  // answers a bare 400 when it is not UTF-8 (whatever the method).
  const notUtf8 = (request: Request, bytes: Uint8Array) =>
    isJsonType(request) && findUtf8Problem(bytes) !== undefined;

  const handler = async (request: Request): Promise<Response> => {
    // A size limit sits in front of everything, as a proxy's or oslo's would.
    const declared = contentLength(request);
    if (declared !== undefined && declared > maxBody) return tooLarge(true);
    const url = new URL(request.url);
    const base = (options.publicUrl ?? url.origin).replace(/\/+$/, '');
    const method = request.method.toUpperCase();
    let path = url.pathname.replace(/\/+$/, '');
    if (unquote(url.pathname) === undefined || unquote(url.search.replace(/\+/g, ' ')) === undefined) {
      return body(400, ironicErrorBody(400, '', 'webob'), new Headers());
    }

    // Ironic drops a trailing ".json" in a middleware in front of everything else, so
    // before routing and negotiation; which requests it does so for depends on the release.
    let jsonSuffix = false;
    if (path.endsWith('.json') && stripsJsonSuffix(request.headers, profile)) {
      // `/.json` is the root and `/v1/deploy_templates/.json` the list, as the slash that is left says.
      path = path.slice(0, -5).replace(/\/+$/, '');
      jsonSuffix = true;
    }
    // Ironic's root answers every method with the version document.
    if (path === '') {
      if (method !== 'GET') {
        const bytes = await readBytes(request);
        if (bytes instanceof Response) return bytes;
        if (notUtf8(request, bytes)) return early(400, '');
      }
      return body(200, rootDocument(base, profile), new Headers());
    }
    const segments = path.split('/').slice(1);
    // Ironic's root hands a path that does not start with /v1 to the v1 controller whole:
    // /deploy_templates is /v1/deploy_templates (the "bookmark" links point there).
    const parts = segments[0] === 'v1' ? segments.slice(1) : segments;
    // The /v1 document is served by a controller, so its errors are fault bodies, not the router's.
    const v1Document = parts.length === 0;

    const negotiated = negotiateVersion(request.headers, profile);
    const range = (h: Headers) => {
      h.set(MIN_VERSION_HEADER, MIN_VERSION);
      h.set(MAX_VERSION_HEADER, profile.maxVersion);
      return h;
    };
    if (!negotiated.ok) {
      return body(
        406,
        ironicErrorBody(406, negotiated.message, v1Document ? 'fault' : 'webob'),
        negotiated.withRange ? range(new Headers()) : new Headers(),
      );
    }
    const version = negotiated.version;
    const headers = () => {
      const h = range(new Headers());
      h.set(VERSION_HEADER, formatApiVersion(version));
      h.set('openstack-request-id', `req-${randomUUID()}`);
      return h;
    };

    if (v1Document) {
      if (method !== 'GET') {
        const bytes = await readBytes(request);
        if (bytes instanceof Response) return bytes;
        if (notUtf8(request, bytes)) return early(400, '');
        return body(
          405,
          ironicErrorBody(
            405,
            'The server could not comply with the request since it is either malformed or otherwise incorrect.',
          ),
          headers(),
        );
      }
      return body(200, versionOneDocument(base, profile, version), headers());
    }
    const [resource, ident, ...rest] = parts;
    if (!resource || !RESOURCES.has(resource) || rest.length) {
      return body(404, ironicErrorBody(404, '', 'webob'), new Headers());
    }
    if (compareApiVersions(version, DEPLOY_TEMPLATES_VERSION) < 0) {
      const message = 'The API version does not allow deploy templates';
      return method === 'GET'
        ? body(404, ironicErrorBody(404, message, 'webob'), new Headers())
        : body(405, ironicErrorBody(405, message, 'webob'), new Headers());
    }
    const decoded = ident === undefined ? undefined : (unquote(ident) as string);
    const allowed = decoded === undefined ? ['GET', 'POST', 'PATCH', 'DELETE'] : ['GET', 'PATCH', 'DELETE'];
    if (!allowed.includes(method)) {
      return body(405, ironicErrorBody(405, '', 'webob'), new Headers({ allow: ALLOW }));
    }

    let bytes: Uint8Array = new Uint8Array(0);
    if (method !== 'GET') {
      const read = await readBytes(request);
      if (read instanceof Response) return read;
      if (notUtf8(request, read)) return early(400, '');
      bytes = read;
    }
    const query = queryOf(url);
    try {
      const who = await hook(request);
      const ctx: CallContext = {
        baseUrl: base,
        jsonSuffix,
        authorize: (rule) => {
          if (who !== 'admin' && !policy(rule, who)) throw forbidden(rule);
        },
      };
      const readBody = async () => {
        try {
          return parseJsonBytes(bytes, { emptyValue: {} });
        } catch (e) {
          // A body of another media type is decoded later, and its failure is a controller's 400.
          if (isStackspecError(e) && e.code === 'http/invalid-utf8') {
            throw new ValidationError(HTTP_STATUS_TEXT[400]?.explanation, { code: e.code });
          }
          throw e;
        }
      };
      switch (method) {
        case 'GET':
          return body(
            200,
            decoded === undefined ? await service.list(query, ctx) : await service.show(decoded, query, ctx),
            headers(),
          );
        case 'POST': {
          const created = await service.create(await readBody(), query, ctx);
          const h = headers();
          h.set('location', created.location);
          return body(201, created.body, h);
        }
        case 'PATCH':
          return body(
            200,
            await service.update(decoded, decoded === undefined ? undefined : await readBody(), query, ctx),
            headers(),
          );
        default:
          await service.delete(decoded, query, ctx);
          return body(204, undefined, headers());
      }
    } catch (e) {
      if (isStackspecError(e)) return body(e.status, ironicErrorBody(e.status, e.message), headers());
      return body(
        500,
        ironicErrorBody(500, 'An unexpected error prevented the server from fulfilling your request.'),
        headers(),
      );
    }
  };
  const oversizedHead = (head: OversizedHead) => early(head.status, head.message);
  return Object.assign(handler, { service, oversizedHead });
}
