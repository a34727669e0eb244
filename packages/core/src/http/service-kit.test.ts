// One describe per concern of the HTTP kit, each against a small service
// built with it: the route table's 404, 405 and Allow; the microversion gate
// and its headers; request ids; the error-body hook; body limits; strict
// UTF-8. The four services (Placement, Ironic, Nova, Heat) are built the
// same way and have their own suites.
import { describe, expect, it } from 'vitest';
import { ConflictError, isStackspecError } from '../errors.js';
import { formatMicroversion, type Microversion, validateMicroversion } from '../vocabulary/microversion.js';
import { jsonResponse } from './json.js';
import { createRequestId, REQUEST_ID_HEADER } from './request-id.js';
import {
  createServiceHandler,
  type MicroversionGate,
  type ServiceFailure,
  type ServiceKitOptions,
  type ServiceStep,
} from './service-kit.js';

const gate: MicroversionGate = {
  negotiate(request) {
    const asked = request.headers.get('x-version');
    if (asked === null) return { ok: true, version: { major: 1, minor: 0 } };
    const parsed = validateMicroversion(asked);
    if (!parsed.ok) return { ok: false, status: 400, message: `Bad version ${asked}.` };
    const version = parsed.value;
    if (version.major !== 1 || version.minor > 9) {
      return { ok: false, status: 406, message: `Unsupported ${asked}.`, headers: { 'x-max': '1.9' } };
    }
    return { ok: true, version };
  },
  headers: (v: Microversion) => ({ 'x-version': formatMicroversion(v), vary: 'x-version' }),
};

// The error hook of the test service: the failure as JSON, with the call's headers.
const failures: ServiceFailure[] = [];
const renderError: ServiceKitOptions['renderError'] = (failure, call) => {
  failures.push(failure);
  const headers: Record<string, string> = { ...call.responseHeaders() };
  if (failure.reason === 'method-not-allowed') headers.allow = failure.allow.join(', ');
  if (failure.reason === 'version') Object.assign(headers, failure.headers);
  const message =
    failure.reason === 'error'
      ? isStackspecError(failure.error)
        ? failure.error.message
        : 'hidden'
      : failure.reason;
  return jsonResponse(
    { reason: failure.reason, status: failure.status, message },
    { status: failure.status, headers },
  );
};

function service(overrides: Partial<ServiceKitOptions> = {}) {
  let n = 0;
  return createServiceHandler({
    routes: [
      {
        path: '/things',
        methods: {
          GET: (call) => jsonResponse({ version: call.version }, { headers: call.responseHeaders() }),
          POST: async (call) => jsonResponse(await call.json(), { status: 201 }),
        },
      },
      {
        path: '/things/{id}',
        methods: {
          GET: (call) => jsonResponse({ id: call.params.id }),
          PUT: { handle: () => new Response(null, { status: 204 }), minVersion: '1.5' },
          DELETE: {
            handle: () => new Response(null, { status: 204 }),
            minVersion: '1.5',
            belowMinVersion: 405,
          },
          PATCH: () => {
            throw new ConflictError('Thing changed meanwhile.');
          },
          COPY: () => {
            throw new Error('password=hunter2');
          },
        },
      },
      {
        path: '/new',
        minVersion: '1.7',
        belowMinVersion: (method) => (method === 'GET' ? 404 : 405),
        methods: { GET: () => new Response('new') },
      },
      { path: '/size', methods: { POST: async (call) => new Response(String((await call.bytes()).length)) } },
    ],
    pipeline: ['declared-size', 'version', 'route', 'method'],
    microversion: gate,
    requestId: { header: REQUEST_ID_HEADER, create: () => `req-${++n}` },
    maxBodyBytes: 8,
    renderError,
    ...overrides,
  });
}

// The same service without versions, for pipelines that have no version step.
function plain(overrides: Partial<ServiceKitOptions> = {}) {
  return service({
    routes: [
      { path: '/things', methods: { GET: () => new Response('things') } },
      { path: '/size', methods: { POST: async (call) => new Response(String((await call.bytes()).length)) } },
    ],
    pipeline: ['route', 'method'],
    microversion: undefined,
    ...overrides,
  });
}

const call = (
  handler: (r: Request) => Promise<Response>,
  method: string,
  path: string,
  init: RequestInit = {},
) => handler(new Request(`http://svc.test${path}`, { method, ...init }));

describe('the route table: 404, 405 and Allow', () => {
  it('answers a path no route has with the hook’s 404', async () => {
    const r = await call(service(), 'GET', '/nothing');
    expect(r.status).toBe(404);
    expect(await r.json()).toEqual({ reason: 'not-found', status: 404, message: 'not-found' });
  });

  it('answers a method the route lacks with 405 and hands the hook the route’s methods for Allow', async () => {
    const r = await call(service(), 'POST', '/things/7');
    expect(r.status).toBe(405);
    expect(r.headers.get('allow')).toBe('GET, PUT, DELETE, PATCH, COPY');
  });

  it('runs the handler of a matched method with the route’s parameters', async () => {
    expect(await (await call(service(), 'GET', '/things/a%20b')).json()).toEqual({ id: 'a%20b' });
  });

  it('routes the path the service gives and the method it names', async () => {
    const h = service({
      routePath: (url) => url.pathname.replace(/^\/api/, ''),
      method: (request) => request.method.toUpperCase(),
    });
    expect((await call(h, 'GET', '/api/things/1')).status).toBe(200);
    expect((await call(h, 'patch', '/api/things/1')).status).toBe(409);
  });
});

describe('the microversion gate and headers', () => {
  it('puts the negotiated version on the call and its headers on the response', async () => {
    const r = await call(service(), 'GET', '/things', { headers: { 'x-version': '1.3' } });
    expect(await r.json()).toEqual({ version: { major: 1, minor: 3 } });
    expect(r.headers.get('x-version')).toBe('1.3');
    expect(r.headers.get('vary')).toBe('x-version');
  });

  it('hands a refused version to the hook with its status, words and headers', async () => {
    const bad = await call(service(), 'GET', '/things', { headers: { 'x-version': 'one' } });
    expect(bad.status).toBe(400);
    const high = await call(service(), 'GET', '/things', { headers: { 'x-version': '1.10' } });
    expect(high.status).toBe(406);
    expect(high.headers.get('x-max')).toBe('1.9');
    // Refused before the version is known: no version header.
    expect(high.headers.get('x-version')).toBeNull();
  });

  it('refuses a method older than its version with 404 by default, or the status it names', async () => {
    const v = (minor: number) => ({ headers: { 'x-version': `1.${minor}` } });
    expect((await call(service(), 'PUT', '/things/1', v(4))).status).toBe(404);
    expect((await call(service(), 'PUT', '/things/1', v(5))).status).toBe(204);
    expect((await call(service(), 'DELETE', '/things/1', v(4))).status).toBe(405);
    failures.length = 0;
    await call(service(), 'PUT', '/things/1', v(1));
    expect(failures[0]).toEqual({ reason: 'below-version', status: 404, minimum: { major: 1, minor: 5 } });
  });

  it('checks a route’s own version before its methods, with a status per method', async () => {
    const v6 = { headers: { 'x-version': '1.6' } };
    expect((await call(service(), 'GET', '/new', v6)).status).toBe(404);
    // Below the route's version a missing method is refused for the version, not with 405.
    expect((await call(service(), 'POST', '/new', v6)).status).toBe(405);
    expect((await call(service(), 'POST', '/new', v6)).headers.get('allow')).toBeNull();
    expect(
      (await call(service(), 'POST', '/new', { headers: { 'x-version': '1.7' } })).headers.get('allow'),
    ).toBe('GET');
  });

  it('refuses a version before routing or after it, as the pipeline orders them', async () => {
    const bad = { headers: { 'x-version': 'x' } };
    expect((await call(service(), 'GET', '/nothing', bad)).status).toBe(400);
    const routeFirst = service({ pipeline: ['route', 'version', 'method'] });
    expect((await call(routeFirst, 'GET', '/nothing', bad)).status).toBe(404);
  });
});

describe('request ids', () => {
  it('gives every request an id, named in the header on every answer', async () => {
    const h = service();
    const first = await call(h, 'GET', '/things');
    const second = await call(h, 'GET', '/nothing');
    expect(first.headers.get(REQUEST_ID_HEADER)).toBe('req-1');
    expect(second.headers.get(REQUEST_ID_HEADER)).toBe('req-2');
  });

  it('makes OpenStack-style ids from the web crypto API, a new one each time', () => {
    const ids = new Set(Array.from({ length: 50 }, createRequestId));
    expect(ids.size).toBe(50);
    for (const id of ids)
      expect(id).toMatch(/^req-[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  it('sends no id header for a service that assigns none', async () => {
    const r = await call(service({ requestId: undefined }), 'GET', '/things');
    expect([...r.headers.keys()]).not.toContain(REQUEST_ID_HEADER);
  });
});

describe('the error-body hook', () => {
  it('renders a core error a handler throws with its status and message', async () => {
    const r = await call(service(), 'PATCH', '/things/1');
    expect(r.status).toBe(409);
    expect(await r.json()).toMatchObject({ reason: 'error', message: 'Thing changed meanwhile.' });
  });

  it('hands any other thrown value over as a 500', async () => {
    const r = await call(service(), 'COPY', '/things/1');
    expect(r.status).toBe(500);
    expect(await r.text()).not.toContain('hunter2');
  });

  it('renders what a step of the service throws, and lets a step answer by itself', async () => {
    const steps: ServiceStep[] = [
      (c) => (c.request.headers.has('x-stop') ? new Response('stopped', { status: 401 }) : undefined),
      async (c) => {
        if (c.request.headers.has('x-deny')) throw new ConflictError('Denied.');
        return undefined;
      },
      'route',
      'method',
    ];
    const h = plain({ pipeline: steps });
    expect(await (await call(h, 'GET', '/things', { headers: { 'x-stop': '1' } })).text()).toBe('stopped');
    expect((await call(h, 'GET', '/things', { headers: { 'x-deny': '1' } })).status).toBe(409);
  });

  it('answers a neutral 500 when the hook itself throws, never rejecting', async () => {
    const h = service({
      renderError: () => {
        throw new Error('secret');
      },
    });
    const r = await call(h, 'GET', '/nothing');
    expect(r.status).toBe(500);
    expect(await r.json()).toMatchObject({ error: { status: 500, code: 'http/internal' } });
  });

  it('renders a failure of the service’s own path or id function', async () => {
    const h = service({
      requestId: {
        header: REQUEST_ID_HEADER,
        create: () => {
          throw new Error('no entropy');
        },
      },
    });
    const r = await call(h, 'GET', '/things');
    expect(r.status).toBe(500);
    expect(r.headers.get(REQUEST_ID_HEADER)).toBeNull();
  });
});

describe('body limits', () => {
  it('refuses a declared length past the limit before reading anything', async () => {
    failures.length = 0;
    const body = new ReadableStream({
      pull() {
        throw new Error('read');
      },
    });
    const r = await call(service(), 'POST', '/nothing', {
      body,
      headers: { 'content-length': '9' },
      duplex: 'half',
    } as RequestInit);
    expect(r.status).toBe(413);
    expect(failures[0]).toEqual({ reason: 'body-too-large', status: 413, limit: 8, declared: 9 });
  });

  it('reads a body of exactly the limit, and refuses one byte more while reading', async () => {
    expect(await (await call(service(), 'POST', '/size', { body: '12345678' })).text()).toBe('8');
    const r = await call(plain(), 'POST', '/size', { body: '123456789' });
    expect(r.status).toBe(413);
    expect(failures.at(-1)).toMatchObject({ reason: 'error', error: { code: 'http/body-too-large' } });
  });

  it('refuses a limit that is not a number of bytes', () => {
    expect(() => service({ maxBodyBytes: -1 })).toThrow('maxBodyBytes');
  });
});

describe('strict decoding', () => {
  it('parses a JSON body, and refuses bytes that are not UTF-8 with a 400', async () => {
    const ok = await call(service({ maxBodyBytes: 100 }), 'POST', '/things', { body: '{"a":"é"}' });
    expect(await ok.json()).toEqual({ a: 'é' });
    const bad = await call(service({ maxBodyBytes: 100 }), 'POST', '/things', {
      body: Uint8Array.of(0x22, 0xff, 0x22),
    });
    expect(bad.status).toBe(400);
    expect(failures.at(-1)).toMatchObject({ reason: 'error', error: { code: 'http/invalid-utf8' } });
  });
});

describe('createServiceHandler options', () => {
  it('refuses a pipeline it cannot run', () => {
    const bad = (overrides: Partial<ServiceKitOptions>) => {
      try {
        service(overrides);
        return undefined;
      } catch (e) {
        return isStackspecError(e) ? e.code : 'foreign';
      }
    };
    expect(bad({ pipeline: ['version', 'method'] })).toBe('http/bad-option');
    expect(bad({ pipeline: ['method', 'route', 'version'] })).toBe('http/bad-option');
    expect(bad({ microversion: undefined })).toBe('http/bad-option');
    // Routes with oldest versions need the version before the method check.
    expect(bad({ pipeline: ['route', 'method', 'version'] })).toBe('http/bad-option');
    expect(
      bad({
        routes: [{ path: '/x', minVersion: 'one', methods: {} }],
        pipeline: ['version', 'route', 'method'],
      }),
    ).toBe('http/bad-route');
  });
});
