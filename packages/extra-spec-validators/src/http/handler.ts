import {
  type AuthOption,
  ConflictError,
  compareMicroversions,
  createServiceHandler,
  credentialsHook,
  decodeUtf8Strict,
  formatMicroversion,
  HttpError,
  isStackspecError,
  type Microversion,
  negotiateMicroversion,
  novaErrorBody,
  PyNumber,
  type PyResult,
  type PyValue,
  pyCompare,
  pyJsonDumps,
  pyJsonLoads,
  pyRepr,
  pyStr,
  requestTooLargeMessage,
  type ServiceCall,
  type ServiceFailure,
  type ServiceHandler,
  type ServiceHook,
  SpecError,
  webobErrorResponse,
} from '@stackspec/core';
import type { OversizedHead } from '@stackspec/core/node';
import { optionsOf } from '../guards.js';
import type { ExtraSpecRegistry } from '../registry.js';
import { builtinRegistry, checkNovaExtraSpec, validateExtraSpecs } from '../validate.js';
import { createNovaExtraSpecsPolicy, type NovaExtraSpecsRule } from './policy.js';

/** Where flavors' extra specs live; an adapter over a database or Nova itself. */
export interface FlavorStore {
  /** The flavor's extra specs, or `undefined` when there is no such flavor. */
  getExtraSpecs(flavorId: string): Promise<Readonly<Record<string, string>> | undefined>;
  /** Merges `specs` into the flavor's extra specs. May throw core's `ConflictError` (409) or `NotFoundError` (404). */
  updateExtraSpecs(flavorId: string, specs: Readonly<Record<string, string>>): Promise<void>;
  /** Removes one key; returns false when the flavor has no such key. */
  deleteExtraSpec(flavorId: string, key: string): Promise<boolean>;
}

/** An in-memory {@link FlavorStore}, for tests and demos. */
export function createMemoryFlavorStore(
  initial: Readonly<Record<string, Readonly<Record<string, string>>>> = {},
): FlavorStore & { snapshot(): Record<string, Record<string, string>> } {
  initial = optionsOf(initial, 'createMemoryFlavorStore') as typeof initial;
  const flavors = new Map<string, Record<string, string>>(
    Object.entries(initial).map(([id, specs]) => [id, { ...specs }]),
  );
  return {
    async getExtraSpecs(id) {
      const f = flavors.get(id);
      return f ? { ...f } : undefined;
    },
    async updateExtraSpecs(id, specs) {
      const f = flavors.get(id);
      if (!f) throw new ConflictError(`Flavor ${id} disappeared while its extra specs were saved.`);
      Object.assign(f, specs);
    },
    async deleteExtraSpec(id, key) {
      const f = flavors.get(id);
      if (!f || !Object.hasOwn(f, key)) return false;
      delete f[key];
      return true;
    },
    snapshot: () => Object.fromEntries([...flavors].map(([id, s]) => [id, { ...s }])),
  };
}

/** Options for {@link createExtraSpecsHandler}. */
export interface ExtraSpecsHandlerOptions {
  store: FlavorStore;
  /** Catalog and plugins to validate against (default: the newest built-in catalog). */
  registry?: ExtraSpecRegistry;
  /**
   * `spec` (default): the design's API — from microversion 2.86 the
   * `validation` query parameter picks `strict` (default), `permissive` or
   * `off`, anything else is a 400. `nova`: exactly Nova, which never shipped
   * the parameter: query strings are ignored and validation is Nova's.
   */
  behaviour?: 'spec' | 'nova';
  /** Path before `/flavors` (default `''`; Nova serves `/v2.1`). */
  prefix?: string;
  /** Highest microversion announced (default `2.93`, Zed's). */
  maxVersion?: string;
  /** Called for each unknown key accepted in permissive mode (the spec says such requests are logged). */
  onPermissive?: (flavorId: string, key: string, message: string) => void;
  /**
   * Largest request body in bytes (default {@link NOVA_MAX_BODY_BYTES}, the
   * `max_request_body_size` of the oslo middleware in Nova's pipeline).
   */
  maxBodyBytes?: number;
  /**
   * Who is calling: `none` (default; every request is an admin),
   * `trusted-headers` (roles, scope and project from `X-Roles`,
   * `OpenStack-System-Scope` and `X-Project-Id`, as an authenticating proxy
   * sets them) or a hook. Credentials are checked against Nova 26's
   * default policy as it ships: writes (POST, PUT, DELETE) need the `admin`
   * role, in any scope; anyone may read (see `enforceNewDefaults`). A
   * refusal is Nova's 403
   * `Policy doesn't allow os_compute_api:os-flavor-extra-specs:<action> to be performed.`
   */
  auth?: AuthOption;
  /**
   * Nova's `[oslo_policy] enforce_new_defaults`: true drops the deprecated
   * read rule, so that reads need `reader` on the caller's project, or
   * `admin`; writes need `admin` either way. Default false, as Nova 26
   * ships it.
   */
  enforceNewDefaults?: boolean;
}

/** Nova's default largest request body: oslo.middleware's `max_request_body_size`, 112 KiB. */
export const NOVA_MAX_BODY_BYTES = 114_688;

const KEY_PATTERN_TEXT = '^[a-zA-Z0-9-_:. ]{1,255}$';
// Python's re.search: `$` also matches before a final newline.
const KEY_PATTERN = /^[a-zA-Z0-9\-_:. ]{1,255}\n?$/;
const MIN_VERSION = '2.1';
const VALIDATION_VERSION = '2.86';
const VALIDATION_VALUES = ['strict', 'permissive', 'off'] as const;
type ValidationParam = (typeof VALIDATION_VALUES)[number];

/**
 * A fault Nova answers with its status and message: core's `HttpError`,
 * rendered as Nova's fault body (which carries no code).
 */
const fault = (status: number, message: string) => new HttpError(status, message);

const bad = (message: string) => fault(400, message);

/** What Nova's fault wrapper answers for an exception it did not expect (a body nested too deep, say). */
const SERVER_ERROR = 'The server has either erred or is incapable of performing the requested operation.';

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof PyNumber);
}

/**
 * Nova's JSON schema for a mapping of extra specs (every microversion), with
 * jsonschema's first error and Nova's wording. `field` is the attribute
 * named in messages for problems with the mapping itself (`extra_specs` for
 * POST; the body itself for PUT, whose messages name no field).
 */
function checkSpecsSchema(specs: unknown, field: string | undefined, exactlyOne: boolean): void {
  const wrap = (at: string | undefined, instance: unknown, message: string) =>
    at === undefined
      ? message
      : `Invalid input for field/attribute ${at}. Value: ${pyStr(instance)}. ${message}`;
  if (!isObject(specs)) throw bad(wrap(field, specs, `${pyRepr(specs)} is not of type 'object'`));
  const extras: string[] = [];
  for (const [k, v] of Object.entries(specs)) {
    if (!KEY_PATTERN.test(k)) {
      extras.push(k);
      continue;
    }
    if (!(typeof v === 'string' || v instanceof PyNumber)) {
      throw bad(wrap(k, v, `${pyRepr(v)} is not of type 'string', 'number'`));
    }
    if (typeof v === 'string' && [...v].length > 255) throw bad(wrap(k, v, `${pyRepr(v)} is too long`));
  }
  if (extras.length) {
    extras.sort(pyCompare);
    const verb = extras.length === 1 ? 'does' : 'do';
    const message = `${extras.map(pyRepr).join(', ')} ${verb} not match any of the regexes: ${pyRepr(KEY_PATTERN_TEXT)}`;
    throw bad(wrap(field, specs, message));
  }
  if (exactlyOne) {
    const count = Object.keys(specs).length;
    if (count < 1) throw bad(`${pyRepr(specs)} does not have enough properties`);
    if (count > 1) throw bad(`${pyRepr(specs)} has too many properties`);
  }
}

function checkCreateSchema(body: unknown): Record<string, unknown> {
  if (!isObject(body)) throw bad(`${pyRepr(body)} is not of type 'object'`);
  if ('extra_specs' in body) checkSpecsSchema(body.extra_specs, 'extra_specs', false);
  else throw bad(`'extra_specs' is a required property`);
  const extra = Object.keys(body).filter((k) => k !== 'extra_specs');
  if (extra.length) {
    throw bad(
      `Additional properties are not allowed (${extra.map(pyRepr).join(', ')} ${extra.length === 1 ? 'was' : 'were'} unexpected)`,
    );
  }
  return body.extra_specs as Record<string, unknown>;
}

function versionHeaders(version: Microversion): Record<string, string> {
  const v = formatMicroversion(version);
  return {
    'OpenStack-API-Version': `compute ${v}`,
    'X-OpenStack-Nova-API-Version': v,
    Vary: 'OpenStack-API-Version, X-OpenStack-Nova-API-Version',
  };
}

/** Percent-decodes a path segment; a malformed escape is kept as written rather than failing the request. */
function decodePart(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

function reply(status: number, body: string, headers: Record<string, string>, error: boolean): Response {
  return new Response(body, {
    status,
    headers: { ...headers, 'Content-Type': error ? 'application/json; charset=UTF-8' : 'application/json' },
  });
}

function faultResponse(status: number, message: string, headers: Record<string, string>): Response {
  return reply(status, pyJsonDumps(novaErrorBody(status, message)), headers, true);
}

/** The answer of the extra specs handler, with Nova's fault body for a request head too large to read. */
export type ExtraSpecsHandler = ((request: Request) => Promise<Response>) & {
  readonly oversizedHead: (head: OversizedHead) => Response;
};

/**
 * A fetch-style handler for Nova's flavor extra specs API with the
 * validation this package provides: `POST /flavors/{id}/os-extra_specs`
 * (body `{"extra_specs": {…}}`), `PUT /flavors/{id}/os-extra_specs/{key}`
 * (body `{key: value}`), plus `GET` of both paths and `DELETE` of a key.
 *
 * It follows Nova's order of checks and its answers: microversion
 * negotiation (`OpenStack-API-Version: compute X` or
 * `X-OpenStack-Nova-API-Version`; 400 for a malformed version, 406 outside
 * 2.1–max), the JSON schema with jsonschema's messages, numbers turned into
 * strings the Python way, then — only from 2.86 — validation of each pair in
 * body order (the first failure is the 400), the PUT body/URI key check, the
 * flavor lookup (404) and the save (409). Errors use Nova's fault body
 * (`{"badRequest": {"code": 400, "message": …}}`); every response carries the
 * version headers. Below 2.86 nothing is validated, as in Nova.
 *
 * Bodies are bounded as in Nova's pipeline: a `Content-Length` over
 * `maxBodyBytes` is a 413 before anything else, and a body without one is
 * cut off at the limit (413 too), both with webob's error page in the
 * format the Accept header asks for. JSON nested deeper than Python's parser
 * reaches is Nova's 500 `computeFault`; bytes that are not UTF-8 are the 400
 * `Malformed request body` of Nova's body parser (Nova 26 itself answers
 * 500 there, because a debug log line decodes the body first and fails).
 *
 * With `auth`, Nova's default policy applies at the point Nova checks it:
 * writes after the JSON schema, before values are validated; reads and
 * deletes before the flavor is looked up.
 *
 * @example
 * const handler = createExtraSpecsHandler({ store: createMemoryFlavorStore({ f1: {} }) });
 * serve(handler); // e.g. with @stackspec/core/node's startServer
 */
export function createExtraSpecsHandler(options: ExtraSpecsHandlerOptions): ExtraSpecsHandler {
  options = optionsOf(options, 'createExtraSpecsHandler') as ExtraSpecsHandlerOptions;
  const store = options.store;
  if (!store || typeof store.getExtraSpecs !== 'function') {
    throw new SpecError(
      'createExtraSpecsHandler needs a store: a FlavorStore such as createMemoryFlavorStore().',
      {
        code: 'extra-specs/bad-option',
      },
    );
  }
  const registry = options.registry ?? builtinRegistry();
  const behaviour = options.behaviour ?? 'spec';
  const prefix = (options.prefix ?? '').replace(/\/$/, '');
  const maxVersion = options.maxVersion ?? '2.93';
  const maxBody = options.maxBodyBytes ?? NOVA_MAX_BODY_BYTES;
  if (typeof maxBody !== 'number' || !(maxBody >= 0)) {
    throw new SpecError(
      `createExtraSpecsHandler: maxBodyBytes must be a number of bytes, 0 or more, but it is ${String(maxBody)}.`,
      { code: 'extra-specs/bad-option' },
    );
  }
  const who = credentialsHook(options.auth);
  const policy = createNovaExtraSpecsPolicy({ enforceNewDefaults: options.enforceNewDefaults === true });

  const checkPairs = (flavorId: string, specs: Record<string, unknown>, version: Microversion, url: URL) => {
    const validating = compareMicroversions(version, VALIDATION_VERSION) >= 0;
    let mode = 'strict' as ValidationParam;
    if (validating && behaviour === 'spec') {
      const asked = url.searchParams.getAll('validation');
      if (asked.length) {
        const value = asked[asked.length - 1] as string;
        if (!(VALIDATION_VALUES as readonly string[]).includes(value)) {
          throw bad(
            `Invalid input for query parameters validation. Value: ${value}. ${pyRepr(value)} is not one of ${pyRepr([...VALIDATION_VALUES])}`,
          );
        }
        mode = value as ValidationParam;
      }
    }
    const strings: Record<string, string> = {};
    for (const [key, raw] of Object.entries(specs)) {
      let value: string;
      if (raw instanceof PyNumber) {
        value = raw.toString();
        if ([...value].length > 255) {
          throw bad(`extra_specs value has ${[...value].length} characters, more than 255.`);
        }
      } else value = raw as string;
      strings[key] = value;
      if (!validating) continue;
      if (behaviour === 'nova') {
        const message = checkNovaExtraSpec(key, value, registry);
        if (message !== undefined) throw bad(message);
        continue;
      }
      if (mode === 'off') continue;
      const r = validateExtraSpecs({ [key]: value }, { mode, registry });
      const error = r.diagnostics.find((d) => d.severity === 'error');
      if (error) throw bad(`${error.message}${error.hint ? ` ${error.hint}` : ''}`);
      for (const d of r.diagnostics) {
        if (d.code === 'extra-specs/unknown-key') options.onPermissive?.(flavorId, key, d.message);
      }
    }
    return strings;
  };

  const authorize = async (call: ServiceCall, action: 'index' | 'show' | 'create' | 'update' | 'delete') => {
    const credentials = await who(call.request);
    const rule: NovaExtraSpecsRule = `os_compute_api:os-flavor-extra-specs:${action}`;
    if (credentials !== 'admin' && !policy(rule, credentials)) {
      throw fault(403, `Policy doesn't allow ${rule} to be performed.`);
    }
  };
  const flavorOf = (call: ServiceCall) => decodePart(call.params.flavor_id as string);
  const keyOf = (call: ServiceCall) =>
    call.params.key === undefined ? undefined : decodePart(call.params.key);
  const specsOf = async (flavorId: string) => {
    const specs = await store.getExtraSpecs(flavorId);
    if (!specs) throw fault(404, `Flavor ${flavorId} could not be found.`);
    return specs;
  };
  const ok = (call: ServiceCall, body: string) => reply(200, body, call.responseHeaders(), false);

  // Nova reads every body once the version is known; a body sent without
  // a length is cut off at the limit while it is read.
  const readBody: ServiceHook = async (call) => {
    try {
      await call.bytes();
      return undefined;
    } catch (e) {
      if (!(isStackspecError(e) && e.code === 'http/body-too-large')) throw e;
      return webobErrorResponse(
        413,
        requestTooLargeMessage(maxBody, false),
        call.request.headers.get('accept'),
      );
    }
  };

  const read: ServiceHandler = async (call) => {
    const flavorId = flavorOf(call);
    const key = keyOf(call);
    await authorize(call, key === undefined ? 'index' : 'show');
    const specs = await specsOf(flavorId);
    if (key === undefined) return ok(call, pyJsonDumps({ extra_specs: specs }));
    if (!Object.hasOwn(specs, key))
      throw fault(404, `Flavor ${flavorId} has no extra specs with key ${key}.`);
    return ok(call, pyJsonDumps({ [key]: specs[key] }));
  };

  const remove: ServiceHandler = async (call) => {
    const flavorId = flavorOf(call);
    const key = keyOf(call) as string;
    await authorize(call, 'delete');
    await specsOf(flavorId);
    if (!(await store.deleteExtraSpec(flavorId, key))) {
      throw fault(404, `Flavor ${flavorId} has no extra specs with key ${key}.`);
    }
    return ok(call, '');
  };

  const write: ServiceHandler = async (call) => {
    const flavorId = flavorOf(call);
    const key = keyOf(call);
    const isCreate = key === undefined;
    const bytes = await call.bytes();
    let loaded: PyResult<PyValue> | undefined;
    try {
      loaded = bytes.length === 0 ? undefined : pyJsonLoads(decodeUtf8Strict(bytes));
    } catch (e) {
      if (isStackspecError(e) && e.code === 'http/invalid-utf8') throw bad('Malformed request body');
      if (e instanceof TypeError) throw bad('Malformed request body');
      throw e;
    }
    if (loaded && !loaded.ok) {
      // Python's json module overflows its stack on deep nesting, which
      // Nova's fault wrapper turns into a 500.
      if (loaded.exception === 'RecursionError') throw fault(500, SERVER_ERROR);
      throw bad('Malformed request body');
    }
    const body: unknown = loaded?.value;
    let specs: Record<string, unknown>;
    if (isCreate) specs = checkCreateSchema(body ?? null);
    else {
      checkSpecsSchema(body ?? null, undefined, true);
      specs = body as Record<string, unknown>;
    }
    await authorize(call, isCreate ? 'create' : 'update');
    const strings = checkPairs(flavorId, specs, call.version as Microversion, call.url);
    if (!isCreate && !Object.hasOwn(specs, key)) throw bad('Request body and URI mismatch');
    await specsOf(flavorId);
    await store.updateExtraSpecs(flavorId, strings);
    return ok(call, pyJsonDumps(body, { allowNan: true }));
  };

  const renderError = (failure: ServiceFailure, call: ServiceCall): Response => {
    switch (failure.reason) {
      case 'not-found':
        return faultResponse(404, 'The resource could not be found.', {});
      case 'body-too-large':
        // oslo's size limit sits in front of Nova's API, with webob's own error page.
        return webobErrorResponse(
          413,
          requestTooLargeMessage(failure.limit, true),
          call.request.headers.get('accept'),
        );
      case 'version':
        return faultResponse(failure.status, failure.message, { ...failure.headers });
      case 'method-not-allowed':
        return faultResponse(405, 'The method is not allowed for this resource.', call.responseHeaders());
      default: {
        const e = failure.reason === 'error' ? failure.error : undefined;
        if (isStackspecError(e)) return faultResponse(e.status, e.message, call.responseHeaders());
        return faultResponse(
          500,
          'Unexpected API Error. Please report this at http://bugs.launchpad.net/nova/ and attach the Nova API log if possible.',
          call.responseHeaders(),
        );
      }
    }
  };

  const handler = createServiceHandler({
    routes: [
      { path: '/flavors/{flavor_id}/os-extra_specs', methods: { GET: read, POST: write } },
      {
        path: '/flavors/{flavor_id}/os-extra_specs/{key}',
        methods: { GET: read, PUT: write, DELETE: remove },
      },
    ],
    // Nova's router matches the path first; oslo's size limit, the version and the method come after.
    pipeline: ['route', 'declared-size', 'version', 'method', readBody],
    // The prefix taken off (any other path is no route), and one trailing slash, which Nova's routes allow.
    routePath: (url) =>
      url.pathname.startsWith(`${prefix}/`) ? url.pathname.slice(prefix.length).replace(/\/$/, '') : '',
    microversion: {
      negotiate: (request) => {
        const negotiated = negotiateMicroversion(request.headers, {
          service: 'compute',
          legacyHeader: 'X-OpenStack-Nova-API-Version',
          min: MIN_VERSION,
          max: maxVersion,
        });
        if (negotiated.ok) return negotiated;
        if (negotiated.reason === 'invalid' || negotiated.requested.startsWith('0.')) {
          return {
            ok: false,
            status: 400,
            message: `API Version String ${negotiated.requested} is of invalid format. Must be of format MajorNum.MinorNum.`,
          };
        }
        return {
          ok: false,
          status: 406,
          message: `Version ${negotiated.requested} is not supported by the API. Minimum is ${MIN_VERSION} and maximum is ${maxVersion}.`,
          headers: versionHeaders(negotiated.version),
        };
      },
      headers: versionHeaders,
    },
    maxBodyBytes: maxBody,
    renderError,
  });
  // What the WSGI server in front of Nova answers, in Nova's fault body.
  const oversizedHead = (head: OversizedHead) => faultResponse(head.status, head.message, {});
  return Object.assign(handler, { oversizedHead });
}
