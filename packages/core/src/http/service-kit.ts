// The HTTP kit's request pipeline. OpenStack services sit behind a WSGI
// pipeline whose order differs from one service to the next (Nova's size
// limit runs after its router has matched the path, Ironic's before
// anything; Placement negotiates the version before routing, Nova after), so
// a service lists its checks in its own order and the kit runs them: the
// checks are the same code everywhere, the order is the service's.
import { isStackspecError, SpecError } from '../errors.js';
import { compareMicroversions, type Microversion, validateMicroversion } from '../vocabulary/microversion.js';
import { DEFAULT_MAX_BODY_BYTES, declaredContentLength, readBodyBytes } from './body.js';
import { errorResponse } from './error-bodies.js';
import { parseJsonBytes, type ReadJsonBodyOptions } from './json.js';
import { createRouteTable, type PathMatch, type RouteDefinition, routeHandler } from './router.js';

/** Answers one request that passed every check of the pipeline. */
export type ServiceHandler = (call: ServiceCall) => Response | Promise<Response>;

/**
 * The status a route or method answers below its oldest microversion: a
 * number, or one per method (Ironic hides a resource from GET with 404 and
 * refuses writes with 405).
 */
export type BelowMinVersion = number | ((method: string) => number);

/** A method of a {@link ServiceRoute} with the oldest microversion it exists at. */
export interface ServiceMethod {
  readonly handle: ServiceHandler;
  /** Oldest microversion (`'1.10'`) that has the method; older ones get `belowMinVersion`. */
  readonly minVersion?: string;
  /** Status below `minVersion` (default 404, as a route that is not there yet). */
  readonly belowMinVersion?: BelowMinVersion;
}

/**
 * A route of a service: a path template (`/resource_providers/{uuid}`, see
 * `createRouteTable`), its methods in the order `Allow` lists them (`'*'`
 * for any method), and optionally the oldest microversion the whole route
 * exists at, checked before the method is.
 */
export interface ServiceRoute {
  readonly path: string;
  readonly methods: Readonly<Record<string, ServiceHandler | ServiceMethod>>;
  readonly minVersion?: string;
  readonly belowMinVersion?: BelowMinVersion;
}

/** What a version negotiation gives: the version, or the status and words of the refusal. */
export type VersionNegotiation =
  | { readonly ok: true; readonly version: Microversion }
  | {
      readonly ok: false;
      readonly status: number;
      readonly message: string;
      /** Headers the refusal carries (the supported range, the version asked for…). */
      readonly headers?: Readonly<Record<string, string>>;
    };

/**
 * A service's microversion rules: how it reads the version a request asks
 * for (each service has its own quirks: Python's `int()`, `latest` in any
 * case, legacy headers) and the headers that name the version in its
 * responses.
 */
export interface MicroversionGate {
  negotiate(request: Request): VersionNegotiation;
  headers(version: Microversion): Readonly<Record<string, string>>;
}

/** Why the kit refused a request, handed to the service's {@link ErrorRenderer}. */
export type ServiceFailure =
  | { readonly reason: 'not-found'; readonly status: 404 }
  | { readonly reason: 'method-not-allowed'; readonly status: 405; readonly allow: readonly string[] }
  | {
      readonly reason: 'version';
      readonly status: number;
      readonly message: string;
      readonly headers: Readonly<Record<string, string>>;
    }
  | { readonly reason: 'below-version'; readonly status: number; readonly minimum: Microversion }
  | {
      readonly reason: 'body-too-large';
      readonly status: 413;
      readonly limit: number;
      readonly declared: number;
    }
  | { readonly reason: 'error'; readonly status: number; readonly error: unknown };

/**
 * The per-service error-body hook: renders a refusal of the kit, or an error
 * a check or handler threw (`reason: 'error'`: core's errors keep their
 * status, anything else is a 500), in the service's own error format. It
 * should not throw; if it does, the kit answers a neutral 500.
 */
export type ErrorRenderer = (failure: ServiceFailure, call: ServiceCall) => Response | Promise<Response>;

/**
 * A check of the pipeline that is not built in: it answers the request by
 * returning a response, or lets it go on by returning nothing. It may throw
 * (the error goes to the {@link ErrorRenderer}).
 */
export type ServiceHook = (call: ServiceCall) => Response | undefined | Promise<Response | undefined>;

/**
 * One check of the pipeline, run in the order listed:
 * - `declared-size`: a `Content-Length` past `maxBodyBytes` is refused
 *   (`body-too-large`) before anything is read;
 * - `version`: the {@link MicroversionGate} picks the version (`version`
 *   failure when it refuses);
 * - `route`: a path no route has is a 404 (`not-found`);
 * - `method`: the route's own oldest version (`below-version`), then the
 *   method (405 `method-not-allowed`, with the route's methods for
 *   `Allow`), then the method's oldest version;
 * - a {@link ServiceHook} of the service's own.
 */
export type ServiceStep = 'declared-size' | 'version' | 'route' | 'method' | ServiceHook;

/** Options for {@link createServiceHandler}. */
export interface ServiceKitOptions {
  routes: readonly ServiceRoute[];
  /** The checks, in the service's order; must hold `route`, then `method`. */
  pipeline: readonly ServiceStep[];
  renderError: ErrorRenderer;
  /** The path to route, from the request (default: the URL's path as sent): strip a prefix, decode… */
  routePath?: (url: URL, request: Request) => string;
  /** The method to route (default: `request.method` as the platform normalised it). */
  method?: (request: Request) => string;
  /** Assigns each request an id, named in `header` of `responseHeaders()` (e.g. with `createRequestId`). */
  requestId?: { readonly header: string; readonly create: () => string };
  /** The version rules; needed when the pipeline holds `version`. */
  microversion?: MicroversionGate;
  /** Largest request body in bytes (default 1 MiB), for `declared-size` and `ServiceCall.bytes`. */
  maxBodyBytes?: number;
}

/** One request as it goes through the pipeline; what the checks found so far. */
export interface ServiceCall {
  readonly request: Request;
  readonly url: URL;
  /** The method as routed. */
  readonly method: string;
  /** The path as routed. */
  readonly path: string;
  /** The request's id, when the service assigns them. */
  readonly requestId: string | undefined;
  /** The template of the route the path matches (`/traits/{name}`), whether or not `route` ran yet. */
  readonly route: string | undefined;
  /** The `{name}` segments of the path, as sent (still percent-encoded). */
  readonly params: Readonly<Record<string, string>>;
  /** The negotiated microversion, once `version` ran. */
  readonly version: Microversion | undefined;
  /** Headers for a response: the request id and, once negotiated, the gate's version headers. */
  responseHeaders(): Record<string, string>;
  /**
   * The body, read once within `maxBodyBytes` whatever `Content-Length`
   * says: `HttpError` 413 (`http/body-too-large`) past it.
   */
  bytes(): Promise<Uint8Array>;
  /** The body as JSON, from {@link ServiceCall.bytes} (strict UTF-8, depth limit; see `parseJsonBytes`). */
  json(options?: Omit<ReadJsonBodyOptions, 'maxBytes'>): Promise<unknown>;
}

interface CompiledMethod {
  handle: ServiceHandler;
  minimum: Microversion | undefined;
  below: BelowMinVersion;
}

interface CompiledRoute {
  minimum: Microversion | undefined;
  below: BelowMinVersion;
}

function minimumOf(text: string | undefined, where: string): Microversion | undefined {
  if (text === undefined) return undefined;
  const parsed = validateMicroversion(text);
  if (!parsed.ok) {
    throw new SpecError(`The oldest version of ${where} must look like 1.10, but it is "${text}".`, {
      code: 'http/bad-route',
    });
  }
  return parsed.value;
}

class Call implements ServiceCall {
  requestId: string | undefined = undefined;
  version: Microversion | undefined = undefined;
  handler: CompiledMethod | undefined = undefined;
  #body: Promise<Uint8Array> | undefined;

  constructor(
    readonly request: Request,
    readonly url: URL,
    readonly method: string,
    readonly path: string,
    readonly found: PathMatch<CompiledMethod> | undefined,
    private readonly kit: {
      header: string | undefined;
      gate: MicroversionGate | undefined;
      maxBytes: number;
    },
  ) {}

  get route(): string | undefined {
    return this.found?.route.path;
  }

  get params(): Readonly<Record<string, string>> {
    return this.found?.params ?? {};
  }

  responseHeaders(): Record<string, string> {
    const headers: Record<string, string> = {};
    if (this.kit.header !== undefined && this.requestId !== undefined) {
      headers[this.kit.header] = this.requestId;
    }
    if (this.version && this.kit.gate) Object.assign(headers, this.kit.gate.headers(this.version));
    return headers;
  }

  bytes(): Promise<Uint8Array> {
    this.#body ??= readBodyBytes(this.request, { maxBytes: this.kit.maxBytes });
    return this.#body;
  }

  async json(options: Omit<ReadJsonBodyOptions, 'maxBytes'> = {}): Promise<unknown> {
    return parseJsonBytes(await this.bytes(), options);
  }
}

function belowStatus(below: BelowMinVersion, method: string): number {
  return typeof below === 'function' ? below(method) : below;
}

/**
 * A fetch-style handler for an OpenStack-style service, from its routes, the
 * order of its checks and its error-body hook. The kit routes the path
 * (hono's router, see `createRouteTable`), answers 404 and 405 (with the
 * route's methods for `Allow`), negotiates the microversion and refuses
 * routes and methods older than the version asked for, assigns request ids,
 * bounds the body (`declared-size`, `ServiceCall.bytes` and `json`, which
 * also decode UTF-8 strictly), and sends every refusal and every thrown
 * error through `renderError`: the handler never throws.
 *
 * Throws `SpecError` (`http/bad-route`, `http/bad-option`) for routes or a
 * pipeline it cannot serve: a route or method with an oldest version and no
 * `version` step before `method`, a `version` step without a gate, a
 * pipeline without `route` then `method`.
 *
 * @example
 * const handler = createServiceHandler({
 *   routes: [{ path: '/traits/{name}', methods: { GET: (call) => new Response(call.params.name) } }],
 *   pipeline: ['version', 'route', 'method'],
 *   microversion: gate,
 *   requestId: { header: REQUEST_ID_HEADER, create: createRequestId },
 *   renderError: (failure, call) => jsonResponse({ status: failure.status }, { status: failure.status, headers: call.responseHeaders() }),
 * });
 */
export function createServiceHandler(options: ServiceKitOptions): (request: Request) => Promise<Response> {
  const bad = (message: string) => new SpecError(message, { code: 'http/bad-option' });
  const pipeline = [...options.pipeline];
  const routeAt = pipeline.indexOf('route');
  const methodAt = pipeline.indexOf('method');
  const versionAt = pipeline.indexOf('version');
  if (routeAt < 0 || methodAt < routeAt) {
    throw bad('The pipeline must hold the steps "route" and then "method".');
  }
  if (versionAt >= 0 && !options.microversion) {
    throw bad('The pipeline has a "version" step but no microversion gate.');
  }
  const maxBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  if (typeof maxBytes !== 'number' || !(maxBytes >= 0)) {
    throw bad(`maxBodyBytes must be a number of bytes, 0 or more, but it is ${String(maxBytes)}.`);
  }
  const routeGates = new Map<string, CompiledRoute>();
  let gated = false;
  const definitions: RouteDefinition<CompiledMethod>[] = options.routes.map((route) => {
    const minimum = minimumOf(route.minVersion, route.path);
    if (minimum) routeGates.set(route.path, { minimum, below: route.belowMinVersion ?? 404 });
    const methods: Record<string, CompiledMethod> = {};
    for (const [name, m] of Object.entries(route.methods)) {
      const compiled: CompiledMethod =
        typeof m === 'function'
          ? { handle: m, minimum: undefined, below: 404 }
          : {
              handle: m.handle,
              minimum: minimumOf(m.minVersion, `${name} ${route.path}`),
              below: m.belowMinVersion ?? 404,
            };
      methods[name] = compiled;
      gated ||= compiled.minimum !== undefined;
    }
    gated ||= minimum !== undefined;
    return { path: route.path, methods };
  });
  if (gated && !(versionAt >= 0 && versionAt < methodAt)) {
    throw bad('Routes with an oldest version need a "version" step before "method".');
  }
  const table = createRouteTable(definitions);
  const kit = {
    header: options.requestId?.header,
    gate: options.microversion,
    maxBytes,
  };
  const routePath = options.routePath ?? ((url: URL) => url.pathname);
  const methodOf = options.method ?? ((request: Request) => request.method);
  const render = async (failure: ServiceFailure, call: Call): Promise<Response> => {
    try {
      return await options.renderError(failure, call);
    } catch {
      // A hook that fails on its own failure: a neutral 500 that leaks nothing.
      return errorResponse(undefined, { style: 'plain' });
    }
  };

  // Runs one built-in step: the refusal, or undefined to go on.
  const builtIn = (step: Exclude<ServiceStep, ServiceHook>, call: Call): ServiceFailure | undefined => {
    switch (step) {
      case 'declared-size': {
        const declared = declaredContentLength(call.request);
        if (declared !== undefined && declared > maxBytes) {
          return { reason: 'body-too-large', status: 413, limit: maxBytes, declared };
        }
        return undefined;
      }
      case 'version': {
        const negotiated = (kit.gate as MicroversionGate).negotiate(call.request);
        if (!negotiated.ok) {
          return {
            reason: 'version',
            status: negotiated.status,
            message: negotiated.message,
            headers: negotiated.headers ?? {},
          };
        }
        call.version = negotiated.version;
        return undefined;
      }
      case 'route':
        return call.found ? undefined : { reason: 'not-found', status: 404 };
      default: {
        const found = call.found as PathMatch<CompiledMethod>;
        const route = routeGates.get(found.route.path);
        const version = call.version as Microversion;
        if (route?.minimum && compareMicroversions(version, route.minimum) < 0) {
          return {
            reason: 'below-version',
            status: belowStatus(route.below, call.method),
            minimum: route.minimum,
          };
        }
        const method = routeHandler(found.route, call.method);
        if (!method) return { reason: 'method-not-allowed', status: 405, allow: found.route.allow };
        if (method.minimum && compareMicroversions(version, method.minimum) < 0) {
          return {
            reason: 'below-version',
            status: belowStatus(method.below, call.method),
            minimum: method.minimum,
          };
        }
        call.handler = method;
        return undefined;
      }
    }
  };

  return async (request: Request): Promise<Response> => {
    let call: Call | undefined;
    try {
      const url = new URL(request.url);
      const path = routePath(url, request);
      call = new Call(request, url, methodOf(request), path, table.find(path), kit);
      if (options.requestId) call.requestId = options.requestId.create();
      for (const step of pipeline) {
        if (typeof step === 'function') {
          const answer = await step(call);
          if (answer) return answer;
          continue;
        }
        const failure = builtIn(step, call);
        if (failure) return await render(failure, call);
      }
      return await (call.handler as CompiledMethod).handle(call);
    } catch (error) {
      const status = isStackspecError(error) ? error.status : 500;
      // Before the call exists (a URL that does not parse): a call that knows nothing.
      call ??= new Call(request, new URL('http://invalid/'), request.method, '', undefined, kit);
      return render({ reason: 'error', status, error }, call);
    }
  };
}
