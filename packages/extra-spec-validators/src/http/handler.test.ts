import { ConflictError } from '@stackspec/core';
import { describe, expect, it } from 'vitest';
import {
  createExtraSpecsHandler,
  createMemoryFlavorStore,
  type FlavorStore,
  NOVA_MAX_BODY_BYTES,
} from './handler.js';

function setup(options: Partial<Parameters<typeof createExtraSpecsHandler>[0]> = {}) {
  const store = createMemoryFlavorStore({ f1: { 'hw:cpu_policy': 'shared' } });
  const logged: string[] = [];
  const handler = createExtraSpecsHandler({
    store,
    onPermissive: (_f, key) => logged.push(key),
    ...options,
  });
  const call = async (method: string, path: string, body?: unknown, version = '2.86') => {
    const res = await handler(
      new Request(`http://localhost${path}`, {
        method,
        headers: { 'OpenStack-API-Version': `compute ${version}` },
        ...(body !== undefined ? { body: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
      }),
    );
    const text = await res.text();
    return {
      status: res.status,
      body: text ? (JSON.parse(text) as Record<string, unknown>) : undefined,
      res,
    };
  };
  return { store, call, logged };
}

describe('createExtraSpecsHandler (the design: validation query parameter)', () => {
  it('stores valid extra specs and echoes the body', async () => {
    const { store, call } = setup();
    const r = await call('POST', '/flavors/f1/os-extra_specs', { extra_specs: { 'hw:numa_nodes': 2 } });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ extra_specs: { 'hw:numa_nodes': 2 } });
    expect(store.snapshot().f1).toEqual({ 'hw:cpu_policy': 'shared', 'hw:numa_nodes': '2' });
    expect(r.res.headers.get('OpenStack-API-Version')).toBe('compute 2.86');
  });

  it('strict by default: unknown keys and bad values are 400 with a hint', async () => {
    const { call } = setup();
    const r = await call('POST', '/flavors/f1/os-extra_specs', {
      extra_specs: { 'hw:cpu_polcy': 'dedicated' },
    });
    expect(r.status).toBe(400);
    expect(r.body).toEqual({
      badRequest: {
        code: 400,
        message: expect.stringMatching(
          /'hw:cpu_polcy' is not a known extra spec.*Did you mean hw:cpu_policy\?$/,
        ),
      },
    });
    const foreign = await call('POST', '/flavors/f1/os-extra_specs', { extra_specs: { 'foo:bar': '1' } });
    expect(foreign.status).toBe(400);
  });

  it('permissive: unknown keys pass and are reported, bad values still fail', async () => {
    const { call, logged, store } = setup();
    const ok = await call('POST', '/flavors/f1/os-extra_specs?validation=permissive', {
      extra_specs: { 'foo:bar': '1' },
    });
    expect(ok.status).toBe(200);
    expect(logged).toEqual(['foo:bar']);
    expect(store.snapshot().f1?.['foo:bar']).toBe('1');
    const bad = await call('PUT', '/flavors/f1/os-extra_specs/hw:pmu?validation=permissive', {
      'hw:pmu': 'x',
    });
    expect(bad.status).toBe(400);
  });

  it('off: nothing is checked; any other value is a 400', async () => {
    const { call } = setup();
    expect(
      (await call('POST', '/flavors/f1/os-extra_specs?validation=off', { extra_specs: { 'hw:pmu': 'x' } }))
        .status,
    ).toBe(200);
    const r = await call('POST', '/flavors/f1/os-extra_specs?validation=lenient', {
      extra_specs: { a: '1' },
    });
    expect(r.status).toBe(400);
    expect(r.body).toEqual({
      badRequest: {
        code: 400,
        message:
          "Invalid input for query parameters validation. Value: lenient. 'lenient' is not one of ['strict', 'permissive', 'off']",
      },
    });
  });

  it('keeps the old unchecked behaviour below 2.86, query parameter included', async () => {
    const { call } = setup();
    const r = await call(
      'POST',
      '/flavors/f1/os-extra_specs?validation=bogus',
      { extra_specs: { 'hw:cpu_policy': 'x' } },
      '2.85',
    );
    expect(r.status).toBe(200);
  });

  it("nova behaviour ignores the query string and uses Nova's rules", async () => {
    const { call } = setup({ behaviour: 'nova' });
    expect(
      (await call('POST', '/flavors/f1/os-extra_specs?validation=bogus', { extra_specs: { 'foo:bar': '1' } }))
        .status,
    ).toBe(200);
    const r = await call('POST', '/flavors/f1/os-extra_specs?validation=off', {
      extra_specs: { 'hw:cpu_policy': 'x' },
    });
    expect(r.body).toEqual({
      badRequest: { code: 400, message: "Validation failed; 'x' is not one of: dedicated, shared, mixed." },
    });
  });

  it('answers 404 for other paths and missing flavors, 405 for other methods', async () => {
    const { call } = setup();
    expect((await call('GET', '/servers')).status).toBe(404);
    expect((await call('POST', '/flavors/zz/os-extra_specs', { extra_specs: {} })).body).toEqual({
      itemNotFound: { code: 404, message: 'Flavor zz could not be found.' },
    });
    expect((await call('PATCH', '/flavors/f1/os-extra_specs')).body).toMatchObject({
      badMethod: { code: 405 },
    });
    expect((await call('GET', '/flavors/f1/os-extra_specs/hw:cpu_policy')).body).toEqual({
      'hw:cpu_policy': 'shared',
    });
    expect((await call('DELETE', '/flavors/f1/os-extra_specs/hw:cpu_policy')).status).toBe(200);
    expect((await call('GET', '/flavors/f1/os-extra_specs')).body).toEqual({ extra_specs: {} });
  });

  it('turns store conflicts into 409 and unexpected failures into 500 without leaking them', async () => {
    const failing = (error: Error): FlavorStore => ({
      getExtraSpecs: async () => ({}),
      updateExtraSpecs: async () => {
        throw error;
      },
      deleteExtraSpec: async () => false,
    });
    const conflict = setup({ store: failing(new ConflictError('Flavor f1 was changed concurrently.')) });
    const r = await conflict.call('POST', '/flavors/f1/os-extra_specs', {
      extra_specs: { 'hw:pmu': 'true' },
    });
    expect(r.body).toEqual({
      conflictingRequest: { code: 409, message: 'Flavor f1 was changed concurrently.' },
    });
    const broken = setup({ store: failing(new Error('database password is hunter2')) });
    const b = await broken.call('POST', '/flavors/f1/os-extra_specs', { extra_specs: { 'hw:pmu': 'true' } });
    expect(b.status).toBe(500);
    expect(JSON.stringify(b.body)).not.toContain('hunter2');
  });

  it('honours a path prefix and a lower maximum microversion', async () => {
    const { call } = setup({ prefix: '/v2.1/', maxVersion: '2.86' });
    expect((await call('GET', '/v2.1/flavors/f1/os-extra_specs')).status).toBe(200);
    const r = await call('GET', '/v2.1/flavors/f1/os-extra_specs', undefined, '2.87');
    expect(r.body).toEqual({
      computeFault: {
        code: 406,
        message: 'Version 2.87 is not supported by the API. Minimum is 2.1 and maximum is 2.86.',
      },
    });
  });
});

describe('createExtraSpecsHandler on hostile input', () => {
  const handler = createExtraSpecsHandler({ store: createMemoryFlavorStore({ f1: {} }) });
  const post = (
    body: string | Uint8Array | ReadableStream<Uint8Array>,
    headers: Record<string, string> = {},
  ) =>
    handler(
      new Request('http://localhost/flavors/f1/os-extra_specs', {
        method: 'POST',
        headers: { 'OpenStack-API-Version': 'compute 2.86', ...headers },
        body,
        ...(body instanceof ReadableStream ? { duplex: 'half' } : {}),
      } as RequestInit),
    );
  /** A body of `chunks` chunks of 64 KiB (endless when `Infinity`), and how many were pulled. */
  const stream = (chunks: number) => {
    let pulled = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (pulled >= chunks) controller.close();
        else {
          pulled += 1;
          controller.enqueue(new Uint8Array(65_536).fill(0x20));
        }
      },
    });
    return { body, pulled: () => pulled };
  };

  it("refuses a declared length past the limit first, with webob's page in oslo's words", async () => {
    const res = await post('{}', {
      'Content-Length': String(NOVA_MAX_BODY_BYTES + 1),
      'OpenStack-API-Version': 'compute 2.x',
    });
    expect(res.status).toBe(413);
    expect(res.headers.get('Content-Type')).toBe('text/plain; charset=UTF-8');
    expect(res.headers.get('OpenStack-API-Version')).toBeNull();
    expect(await res.text()).toBe(
      '413 Request Entity Too Large\n\nRequest is too large. Larger than max_request_body_size (114688).\n\n   ',
    );
  });

  it('stops reading an endless body at the limit, after the version check', async () => {
    const endless = stream(Number.POSITIVE_INFINITY);
    const res = await post(endless.body, { Accept: 'application/json' });
    expect(res.status).toBe(413);
    expect(JSON.parse(await res.text())).toEqual({
      message: 'Request is too large. Larger than 114688.<br /><br />\n\n\n',
      code: '413 Request Entity Too Large',
      title: 'Request Entity Too Large',
    });
    expect(endless.pulled()).toBeLessThanOrEqual(3);
    const badVersion = await post(stream(4).body, { 'OpenStack-API-Version': 'compute 2.x' });
    expect(badVersion.status).toBe(400);
  });

  it('honours maxBodyBytes', async () => {
    const small = createExtraSpecsHandler({ store: createMemoryFlavorStore({ f1: {} }), maxBodyBytes: 10 });
    const res = await small(
      new Request('http://localhost/flavors/f1/os-extra_specs', {
        method: 'POST',
        headers: { Accept: 'text/html' },
        body: '{"extra_specs": {}}',
      }),
    );
    expect(res.status).toBe(413);
    expect(await res.text()).toContain(
      '<h1>413 Request Entity Too Large</h1>\n  Request is too large. Larger than 10.',
    );
  });

  it('refuses a maxBodyBytes that is not a number of bytes when the handler is made', () => {
    for (const maxBodyBytes of [Number.NaN, -1, '10' as unknown as number]) {
      expect(() => createExtraSpecsHandler({ store: createMemoryFlavorStore(), maxBodyBytes })).toThrow(
        expect.objectContaining({
          code: 'extra-specs/bad-option',
          message: expect.stringContaining('maxBodyBytes'),
        }),
      );
    }
  });

  it("answers JSON nested past Python's reach with Nova's 500, at once", async () => {
    const deep = `{"extra_specs": {"x": ${'['.repeat(50_000)}${']'.repeat(50_000)}}}`;
    const res = await post(deep);
    expect(res.status).toBe(500);
    expect(res.headers.get('OpenStack-API-Version')).toBe('compute 2.86');
    expect(JSON.parse(await res.text())).toEqual({
      computeFault: {
        code: 500,
        message: 'The server has either erred or is incapable of performing the requested operation.',
      },
    });
  });

  it('refuses bytes that are not UTF-8 and a byte order mark as a malformed body', async () => {
    for (const body of [
      new Uint8Array([0x7b, 0x22, 0xff, 0x22, 0x7d]),
      new TextEncoder().encode('\ufeff{"extra_specs": {}}'),
    ]) {
      const res = await post(body);
      expect(res.status).toBe(400);
      expect(JSON.parse(await res.text())).toEqual({
        badRequest: { code: 400, message: 'Malformed request body' },
      });
    }
  });

  it('answers any body, path and version with a Nova fault or success, never a 500', async () => {
    const { default: fc } = await import('fast-check');
    const store = createMemoryFlavorStore({ f1: {} });
    const handler = createExtraSpecsHandler({ store });
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('POST', 'PUT', 'GET', 'DELETE'),
        fc.constantFrom(
          '/flavors/f1/os-extra_specs',
          '/flavors/f1/os-extra_specs/hw:pmu',
          '/flavors/%zz/os-extra_specs/a',
        ),
        fc.oneof(
          fc.string(),
          fc.json(),
          fc.jsonValue().map((v) => JSON.stringify({ extra_specs: v })),
        ),
        fc.constantFrom('2.1', '2.86', 'latest', '2.x', '9.9', ''),
        async (method, path, body, version) => {
          const res = await handler(
            new Request(`http://localhost${path}${method === 'POST' ? '?validation=permissive' : ''}`, {
              method,
              headers: version ? { 'OpenStack-API-Version': `compute ${version}` } : {},
              ...(method === 'POST' || method === 'PUT' ? { body } : {}),
            }),
          );
          expect(res.status).not.toBe(500);
          const text = await res.text();
          if (text) expect(() => JSON.parse(text)).not.toThrow();
        },
      ),
      { numRuns: 400 },
    );
  });
});

describe('createExtraSpecsHandler with roles from trusted headers', () => {
  const store = () => createMemoryFlavorStore({ f1: { 'hw:cpu_policy': 'shared' } });
  const send = async (
    flavors: ReturnType<typeof store>,
    method: string,
    path: string,
    headers: Record<string, string>,
    body?: unknown,
    enforceNewDefaults = false,
  ) => {
    const handler = createExtraSpecsHandler({ store: flavors, auth: 'trusted-headers', enforceNewDefaults });
    const res = await handler(
      new Request(`http://localhost${path}`, {
        method,
        headers: { 'OpenStack-API-Version': 'compute 2.86', ...headers },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      }),
    );
    return { status: res.status, text: await res.text() };
  };
  const forbidden = (action: string) =>
    `{"forbidden": {"code": 403, "message": "Policy doesn't allow os_compute_api:os-flavor-extra-specs:${action} to be performed."}}`;

  it('lets an admin of a project create, update and delete', async () => {
    const flavors = store();
    const admin = { 'X-Roles': 'admin', 'X-Project-Id': 'p1' };
    const specs = { extra_specs: { 'hw:numa_nodes': '2' } };
    expect((await send(flavors, 'POST', '/flavors/f1/os-extra_specs', admin, specs)).status).toBe(200);
    expect(
      (
        await send(flavors, 'PUT', '/flavors/f1/os-extra_specs/hw:numa_nodes', admin, {
          'hw:numa_nodes': '1',
        })
      ).status,
    ).toBe(200);
    expect((await send(flavors, 'DELETE', '/flavors/f1/os-extra_specs/hw:cpu_policy', admin)).status).toBe(
      200,
    );
    expect(flavors.snapshot()).toEqual({ f1: { 'hw:numa_nodes': '1' } });
  });

  it.each([
    ['no roles', {}],
    ['a reader', { 'X-Roles': 'reader', 'X-Project-Id': 'p1' }],
    ['a member', { 'X-Roles': 'member,reader', 'X-Project-Id': 'p1' }],
    ['a system reader', { 'X-Roles': 'reader', 'OpenStack-System-Scope': 'all' }],
    ['a service user', { 'X-Roles': 'service', 'X-Project-Id': 'service' }],
  ])("refuses writes from %s with Nova's 403 and changes nothing", async (_who, headers) => {
    const flavors = store();
    const post = await send(flavors, 'POST', '/flavors/f1/os-extra_specs', headers, {
      extra_specs: { 'hw:numa_nodes': '2' },
    });
    expect(post).toEqual({ status: 403, text: forbidden('create') });
    const put = await send(flavors, 'PUT', '/flavors/f1/os-extra_specs/a', headers, { a: 'b' });
    expect(put).toEqual({ status: 403, text: forbidden('update') });
    const del = await send(flavors, 'DELETE', '/flavors/f1/os-extra_specs/hw:cpu_policy', headers);
    expect(del).toEqual({ status: 403, text: forbidden('delete') });
    expect(flavors.snapshot()).toEqual({ f1: { 'hw:cpu_policy': 'shared' } });
  });

  it('lets any caller read, as Nova 26 ships', async () => {
    const flavors = store();
    const callers: Record<string, string>[] = [
      { 'X-Roles': 'member', 'X-Project-Id': 'p1' },
      { 'X-Roles': 'other', 'X-Project-Id': 'p2' },
      { 'X-Project-Id': 'p3' },
    ];
    for (const headers of callers) {
      expect(await send(flavors, 'GET', '/flavors/f1/os-extra_specs/hw:cpu_policy', headers)).toEqual({
        status: 200,
        text: '{"hw:cpu_policy": "shared"}',
      });
      expect((await send(flavors, 'GET', '/flavors/f1/os-extra_specs', headers)).status).toBe(200);
    }
  });

  it('with enforceNewDefaults, lets a reader read and refuses a member or a caller without roles', async () => {
    const flavors = store();
    const reader = { 'X-Roles': 'reader', 'X-Project-Id': 'p1' };
    const get = (path: string, headers: Record<string, string>) =>
      send(flavors, 'GET', path, headers, undefined, true);
    expect((await get('/flavors/f1/os-extra_specs', reader)).status).toBe(200);
    expect(await get('/flavors/f1/os-extra_specs/hw:cpu_policy', {})).toEqual({
      status: 403,
      text: forbidden('show'),
    });
    expect(await get('/flavors/f1/os-extra_specs', { 'X-Roles': 'member', 'X-Project-Id': 'p1' })).toEqual({
      status: 403,
      text: forbidden('index'),
    });
    const post = await send(
      flavors,
      'POST',
      '/flavors/f1/os-extra_specs',
      { 'X-Roles': 'member,reader', 'X-Project-Id': 'p1' },
      { extra_specs: { 'hw:numa_nodes': '2' } },
      true,
    );
    expect(post).toEqual({ status: 403, text: forbidden('create') });
    expect(flavors.snapshot()).toEqual({ f1: { 'hw:cpu_policy': 'shared' } });
  });

  it('checks the JSON schema before the policy, as Nova does', async () => {
    const r = await send(store(), 'POST', '/flavors/f1/os-extra_specs', {}, { extra_specs: 1 });
    expect(r.status).toBe(400);
  });

  it('serves everyone as an admin without auth, as before', async () => {
    const flavors = store();
    const handler = createExtraSpecsHandler({ store: flavors });
    const r = await handler(
      new Request('http://localhost/flavors/f1/os-extra_specs/hw:cpu_policy', { method: 'DELETE' }),
    );
    expect(r.status).toBe(200);
  });
});

describe('createExtraSpecsHandler.oversizedHead', () => {
  it("answers a head too large to read with Nova's fault body", async () => {
    const handler = createExtraSpecsHandler({ store: createMemoryFlavorStore({}) });
    const r = handler.oversizedHead({ status: 414, message: 'The request line is too long.' });
    expect(r.status).toBe(414);
    expect(await r.text()).toBe(
      '{"computeFault": {"code": 414, "message": "The request line is too long."}}',
    );
  });
});
