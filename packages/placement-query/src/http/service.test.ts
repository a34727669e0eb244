import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { placementRequest } from '../../test/support/placement-api.js';
import { createPlacementHandler } from './service.js';

const RP = '11111111-1111-4111-8111-111111111111';
const CHILD = '22222222-2222-4222-8222-222222222222';
const AGG = '33333333-3333-4333-8333-333333333333';
const CONSUMER = '44444444-4444-4444-8444-444444444444';

function client(handler = createPlacementHandler({ requestId: () => 'req-test' })) {
  const call = async (
    method: string,
    path: string,
    body?: unknown,
    version = '1.39',
    headers: Record<string, string> = {},
  ) => {
    const r = await handler(placementRequest(method, path, body, version, headers));
    const text = await r.text();
    return { status: r.status, headers: r.headers, body: text ? JSON.parse(text) : undefined };
  };
  return { handler, call };
}

const detail = (body: { errors: { detail: string }[] }) => body.errors[0]?.detail;

describe('createPlacementHandler', () => {
  it('serves the version document and microversion headers', async () => {
    const { call } = client();
    const r = await call('GET', '/', undefined, '1.0');
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      versions: [
        {
          id: 'v1.0',
          max_version: '1.39',
          min_version: '1.0',
          status: 'CURRENT',
          links: [{ rel: 'self', href: '' }],
        },
      ],
    });
    expect(r.headers.get('openstack-api-version')).toBe('placement 1.0');
    expect(r.headers.get('vary')).toBe('openstack-api-version');
    expect(r.headers.get('x-openstack-request-id')).toBe('req-test');
  });

  it("answers 406 above 1.39 and 400 for an unreadable version, with Placement's bodies", async () => {
    const { call } = client();
    const high = await call('GET', '/', undefined, '1.40');
    expect(high.status).toBe(406);
    expect(high.body.errors[0]).toMatchObject({
      max_version: '1.39',
      min_version: '1.0',
      request_id: 'req-test',
    });
    expect(detail(high.body)).toMatch(/Unacceptable version header: 1\.40$/);
    const junk = await call('GET', '/', undefined, '1.x');
    expect(junk.status).toBe(400);
    expect(junk.body.errors[0].code).toBeUndefined();
  });

  it('answers 404 for unknown routes and routes below their version, 405 with Allow', async () => {
    const { call } = client();
    const none = await call('GET', '/nope');
    expect(none.status).toBe(404);
    expect(detail(none.body)).toBe('The resource could not be found.\n\n   ');
    expect(none.headers.get('vary')).toBeNull();
    expect((await call('GET', '/allocation_candidates?resources=VCPU:1', undefined, '1.9')).status).toBe(404);
    const patch = await call('PATCH', '/allocation_candidates');
    expect(patch.status).toBe(405);
    expect(patch.headers.get('allow')).toBe('GET');
    expect(detail(patch.body)).toBe(
      'The method PATCH is not allowed for this resource. \n\n The method specified is not allowed for this resource.',
    );
    expect((await call('DELETE', `/resource_providers/${RP}/inventories`, undefined, '1.4')).status).toBe(
      405,
    );
  });

  it('creates, reads, updates and deletes providers with generations', async () => {
    const { call } = client();
    const created = await call('POST', '/resource_providers', { name: 'cn1', uuid: RP });
    expect(created.status).toBe(200);
    expect(created.headers.get('location')).toBe(`http://placement.test/resource_providers/${RP}`);
    expect(created.body).toMatchObject({
      uuid: RP,
      generation: 0,
      parent_provider_uuid: null,
      root_provider_uuid: RP,
    });
    expect((await call('POST', '/resource_providers', { name: 'old' }, '1.19')).status).toBe(201);
    const dup = await call('POST', '/resource_providers', { name: 'cn1' });
    expect(dup.status).toBe(409);
    expect(dup.body.errors[0].code).toBe('placement.duplicate_name');
    const child = await call('POST', '/resource_providers', {
      name: 'numa',
      uuid: CHILD,
      parent_provider_uuid: RP,
    });
    expect(child.body.root_provider_uuid).toBe(RP);
    const inv = await call('PUT', `/resource_providers/${CHILD}/inventories`, {
      resource_provider_generation: 0,
      inventories: { VCPU: { total: 8, allocation_ratio: 2.0 } },
    });
    expect(inv.body).toEqual({
      resource_provider_generation: 1,
      inventories: {
        VCPU: { total: 8, reserved: 0, min_unit: 1, max_unit: 2147483647, step_size: 1, allocation_ratio: 2 },
      },
    });
    const stale = await call('PUT', `/resource_providers/${CHILD}/inventories`, {
      resource_provider_generation: 0,
      inventories: {},
    });
    expect(stale.status).toBe(409);
    expect(stale.body.errors[0].code).toBe('placement.concurrent_update');
    const renamed = await call('PUT', `/resource_providers/${RP}`, { name: 'cn1-renamed' });
    expect(renamed.body.name).toBe('cn1-renamed');
    const parentDelete = await call('DELETE', `/resource_providers/${RP}`);
    expect(parentDelete.status).toBe(409);
    expect(parentDelete.body.errors[0].code).toBe('placement.resource_provider.cannot_delete_parent');
    expect((await call('DELETE', `/resource_providers/${CHILD}`)).status).toBe(204);
    expect((await call('GET', `/resource_providers/${CHILD}`)).status).toBe(404);
  });

  it("validates bodies with jsonschema's wording and requires JSON", async () => {
    const { call, handler } = client();
    const extra = await call('POST', '/resource_providers', { name: 5, x: 1 });
    expect(detail(extra.body)).toMatch(
      /JSON does not validate: Additional properties are not allowed \('x' was unexpected\)/,
    );
    const type = await call('POST', '/resource_providers', { name: 5 });
    expect(detail(type.body)).toMatch(/JSON does not validate: 5 is not of type 'string'/);
    const malformed = await call('POST', '/resource_providers', '{"name": ');
    expect(detail(malformed.body)).toMatch(/Malformed JSON: /);
    const r = await handler(
      new Request('http://placement.test/resource_providers', {
        method: 'POST',
        body: '{"name": "a"}',
        headers: { 'content-type': 'text/plain' },
      }),
    );
    expect(r.status).toBe(415);
  });

  it('manages traits, aggregates, allocations and usages', async () => {
    const { call } = client();
    await call('POST', '/resource_providers', { name: 'cn1', uuid: RP });
    expect((await call('PUT', '/traits/CUSTOM_GOLD')).status).toBe(201);
    expect((await call('PUT', '/traits/CUSTOM_GOLD')).status).toBe(204);
    expect((await call('PUT', '/traits/gold')).status).toBe(400);
    const traits = await call('PUT', `/resource_providers/${RP}/traits`, {
      traits: ['CUSTOM_GOLD', 'HW_CPU_X86_AVX'],
      resource_provider_generation: 0,
    });
    expect(traits.body.resource_provider_generation).toBe(1);
    const unknown = await call('PUT', `/resource_providers/${RP}/traits`, {
      traits: ['CUSTOM_NO'],
      resource_provider_generation: 1,
    });
    expect(detail(unknown.body)).toMatch(/No such trait CUSTOM_NO {2}$/);
    expect((await call('GET', '/traits?name=startswith:CUSTOM_&associated=true')).body).toEqual({
      traits: ['CUSTOM_GOLD'],
    });
    expect((await call('DELETE', '/traits/CUSTOM_GOLD')).status).toBe(409);
    const aggs = await call('PUT', `/resource_providers/${RP}/aggregates`, {
      aggregates: [AGG],
      resource_provider_generation: 1,
    });
    expect(aggs.body).toEqual({ aggregates: [AGG], resource_provider_generation: 2 });
    const oldAggs = await call('PUT', `/resource_providers/${RP}/aggregates`, [AGG], '1.1');
    expect(oldAggs.body).toEqual({ aggregates: [AGG] });
    await call('PUT', `/resource_providers/${RP}/inventories`, {
      resource_provider_generation: 2,
      inventories: { VCPU: { total: 4 } },
    });
    // Both writes claim CONSUMER is new (generation null): only the first may.
    const allocateAsNew = (vcpu: number) =>
      call('PUT', `/allocations/${CONSUMER}`, {
        allocations: { [RP]: { resources: { VCPU: vcpu } } },
        project_id: 'p',
        user_id: 'u',
        consumer_generation: null,
        consumer_type: 'INSTANCE',
      });
    expect((await allocateAsNew(3)).status).toBe(204);
    const again = await allocateAsNew(1);
    expect(again.status).toBe(409);
    expect(detail(again.body)).toMatch(/consumer generation conflict - expected 1 but got None/);
    expect((await call('GET', `/resource_providers/${RP}/usages`)).body).toEqual({
      resource_provider_generation: 4,
      usages: { VCPU: 3 },
    });
    expect((await call('GET', `/allocations/${CONSUMER}`)).body).toMatchObject({
      allocations: { [RP]: { resources: { VCPU: 3 } } },
      consumer_generation: 1,
      consumer_type: 'INSTANCE',
    });
    expect((await call('GET', '/usages?project_id=p', undefined, '1.37')).body).toEqual({
      usages: { VCPU: 3 },
    });
    expect((await call('GET', '/usages?project_id=p')).body).toEqual({
      usages: { INSTANCE: { VCPU: 3, consumer_count: 1 } },
    });
    const candidates = await call('GET', '/allocation_candidates?resources=VCPU:2');
    expect(candidates.body.allocation_requests).toEqual([]);
    expect((await call('DELETE', `/allocations/${CONSUMER}`)).status).toBe(204);
    expect(
      (await call('GET', '/allocation_candidates?resources=VCPU:2')).body.allocation_requests,
    ).toHaveLength(1);
  });

  it("renders query errors with Placement's code from 1.23", async () => {
    const { call } = client();
    const r = await call(
      'GET',
      '/allocation_candidates?resources1=VCPU:1&same_subtree=1,2',
      undefined,
      '1.36',
    );
    expect(r.status).toBe(400);
    expect(r.body.errors[0].code).toBe('placement.query.bad_value');
    const old = await call('GET', '/resource_providers?member_of=!x', undefined, '1.22');
    expect(old.body.errors[0].code).toBeUndefined();
  });

  it('refuses a body over the size limit with 413', async () => {
    const { call } = client(createPlacementHandler({ maxBodyBytes: 100 }));
    const r = await call('POST', '/resource_providers', { name: 'x'.repeat(200) });
    expect(r.status).toBe(413);
  });

  it('requires a token under noauth2 except at the root, and honours a prefix', async () => {
    const { call } = client(createPlacementHandler({ auth: 'noauth2', prefix: '/placement' }));
    expect((await call('GET', '/placement/resource_providers')).status).toBe(401);
    expect((await call('GET', '/placement/')).status).toBe(200);
    const ok = await call('GET', '/placement/resource_providers', undefined, '1.39', {
      'x-auth-token': 'admin',
    });
    expect(ok.status).toBe(200);
  });

  it('decodes the path as Placement does and answers 404 for malformed escapes, never throwing', async () => {
    const { call } = client();
    const malformed = await call('GET', '/resource_providers/%E0%A4%A');
    expect(malformed.status).toBe(404);
    expect(detail(malformed.body)).toContain('No resource provider with uuid \u00e0\u00a4%A found');
    const trait = await call('GET', '/traits/%ZZ');
    expect(trait.status).toBe(404);
    expect(detail(trait.body)).toContain('No such trait(s): %ZZ.');
    // %2F splits the segment, so the route no longer matches.
    const slash = await call('GET', '/resource_providers/a%2Fb');
    expect(slash.status).toBe(404);
    expect(detail(slash.body)).toBe('The resource could not be found.\n\n   ');
    expect((await call('GET', '/traits/%43USTOM_X')).body.errors[0].detail).toContain('CUSTOM_X');
  });

  it('turns a throwing clock into a 500 body instead of a rejected promise', async () => {
    const handler = createPlacementHandler({
      clock: () => {
        throw new Error('clock broke');
      },
    });
    const r = await handler(new Request('http://placement.test/resource_providers'));
    expect(r.status).toBe(500);
    expect(((await r.json()) as { errors: { status: number }[] }).errors[0]?.status).toBe(500);
  });

  it('answers any method, path, headers and body with a Response (property)', async () => {
    const { handler } = client();
    const segment = fc.oneof(
      fc.constantFrom(
        'resource_providers',
        'allocation_candidates',
        'traits',
        'resource_classes',
        'allocations',
        'usages',
        'inventories',
        'aggregates',
        RP,
        '%',
        '%E0%A4%A',
        '%ZZ',
        '%2F',
        '..',
        'CUSTOM_X',
        'VCPU',
      ),
      fc.string({ maxLength: 8 }).map((t) => encodeURIComponent(t)),
    );
    const path = fc.array(segment, { maxLength: 4 }).map((parts) => `/${parts.join('/')}`);
    const query = fc.oneof(
      fc.constant(''),
      fc.constantFrom('?resources=VCPU:1', '?member_of=!in:x', '?name=%ZZ', '?limit=0&limit=1', '?%'),
    );
    const method = fc.constantFrom('GET', 'PUT', 'POST', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS');
    const version = fc.oneof(
      fc.constantFrom('placement 1.39', 'placement 1.0', 'placement latest', 'placement 9.x', ''),
      fc.string({ maxLength: 12 }).filter((t) => /^[\x20-\x7e]*$/.test(t)),
    );
    const body = fc.oneof(fc.constant(undefined), fc.string({ maxLength: 40 }), fc.json({ maxDepth: 3 }));
    await fc.assert(
      fc.asyncProperty(method, path, query, version, body, fc.boolean(), async (m, p, q, v, b, jsonType) => {
        const init: RequestInit = {
          method: m,
          headers: {
            'openstack-api-version': v,
            ...(jsonType ? { 'content-type': 'application/json' } : {}),
          },
          ...(b !== undefined && m !== 'GET' && m !== 'HEAD' ? { body: b } : {}),
        };
        const r = await handler(new Request(`http://placement.test${p}${q}`, init));
        expect(r).toBeInstanceOf(Response);
        expect(r.status).toBeGreaterThanOrEqual(200);
        expect(r.status).toBeLessThan(600);
        if (r.status >= 500) expect(await r.text()).not.toContain('stack');
        await r.arrayBuffer().catch(() => undefined);
      }),
      { numRuns: 500 },
    );
  });
});

describe('createPlacementHandler with roles from trusted headers', () => {
  const handler = (enforceNewDefaults = false) =>
    createPlacementHandler({ requestId: () => 'req-test', auth: 'trusted-headers', enforceNewDefaults });
  const SYSTEM_ADMIN = { 'x-roles': 'admin,member,reader', 'openstack-system-scope': 'all' };
  const PROJECT_ADMIN = { 'x-roles': 'admin,member,reader', 'x-project-id': 'p1' };
  // Nova's service user: admin in the service project.
  const SERVICE_USER = { 'x-roles': 'admin,member,reader,service', 'x-project-id': 'service' };
  const forbiddenBody = (rule: string) => ({
    errors: [
      {
        status: 403,
        title: 'Forbidden',
        detail: `Access was denied to this resource.\n\n Policy does not allow ${rule} to be performed.  `,
        code: 'placement.undefined_code',
        request_id: 'req-test',
      },
    ],
  });

  /** As `headers`, creates a provider and a trait and lists providers: each call must succeed. */
  async function expectWritesAllowed(enforceNewDefaults: boolean, headers: Record<string, string>) {
    const h = handler(enforceNewDefaults);
    const { call } = client(h);
    expect(
      (await call('POST', '/resource_providers', { name: 'cn1', uuid: RP }, '1.39', headers)).status,
    ).toBe(200);
    expect((await call('PUT', '/traits/CUSTOM_A', undefined, '1.39', headers)).status).toBe(201);
    expect((await call('GET', '/resource_providers', undefined, '1.39', headers)).status).toBe(200);
    expect(h.store.providerCount).toBe(1);
  }

  /** As `headers`, tries to create a provider and a trait: both get Placement's 403, and nothing is stored. */
  async function expectWritesRefused(enforceNewDefaults: boolean, headers: Record<string, string>) {
    const h = handler(enforceNewDefaults);
    const { call } = client(h);
    const create = await call('POST', '/resource_providers', { name: 'cn1' }, '1.39', headers);
    expect(create.status).toBe(403);
    expect(create.body).toEqual(forbiddenBody('placement:resource_providers:create'));
    expect((await call('PUT', '/traits/CUSTOM_A', undefined, '1.39', headers)).body).toEqual(
      forbiddenBody('placement:traits:update'),
    );
    expect(h.store.providerCount).toBe(0);
    expect((await call('GET', '/traits/CUSTOM_A', undefined, '1.39', SYSTEM_ADMIN)).status).toBe(404);
  }

  describe('as Placement 8.0 ships (enforce_new_defaults off)', () => {
    it.each([
      ['a system-scoped admin', SYSTEM_ADMIN],
      ['a project-scoped admin', PROJECT_ADMIN],
      ["Nova's service user", SERVICE_USER],
    ])('lets %s write and read', (_who, headers) => expectWritesAllowed(false, headers));

    it.each([
      ['no roles', {}],
      ['no roles in system scope', { 'openstack-system-scope': 'all' }],
      ['a system reader', { 'x-roles': 'reader', 'openstack-system-scope': 'all' }],
      ['a member', { 'x-roles': 'member,reader', 'x-project-id': 'p1' }],
      ['a reader', { 'x-roles': 'reader', 'x-project-id': 'p1' }],
    ])("refuses writes from %s with Placement's 403 and stores nothing", (_who, headers) =>
      expectWritesRefused(false, headers),
    );

    it('lets a system reader or any admin read, and refuses a project reader', async () => {
      const { call } = client(handler());
      const reader = { 'x-roles': 'reader', 'openstack-system-scope': 'all' };
      expect((await call('GET', '/resource_providers', undefined, '1.39', reader)).status).toBe(200);
      expect(
        (await call('GET', '/traits', undefined, '1.39', { 'x-roles': 'admin', 'x-project-id': 'p1' }))
          .status,
      ).toBe(200);
      const project = await call('GET', '/traits', undefined, '1.39', {
        'x-roles': 'member,reader',
        'x-project-id': 'p1',
      });
      expect(project.body).toEqual(forbiddenBody('placement:traits:list'));
      expect((await call('GET', '/traits', undefined, '1.39', {})).status).toBe(403);
    });

    it('lets a reader of a project see its usages only', async () => {
      const { call } = client(handler());
      const reader = { 'x-roles': 'reader', 'x-project-id': 'p1' };
      expect((await call('GET', '/usages?project_id=p1', undefined, '1.39', reader)).status).toBe(200);
      expect((await call('GET', '/usages?project_id=p2', undefined, '1.39', reader)).body).toEqual(
        forbiddenBody('placement:usages'),
      );
    });
  });

  describe('with enforceNewDefaults', () => {
    it('lets a system-scoped admin write and read', () => expectWritesAllowed(true, SYSTEM_ADMIN));

    it.each([
      ['no roles', {}],
      ['a project admin', PROJECT_ADMIN],
      ["Nova's service user", SERVICE_USER],
      ['a system reader', { 'x-roles': 'reader', 'openstack-system-scope': 'all' }],
      ['a member', { 'x-roles': 'member,reader', 'x-project-id': 'p1' }],
    ])("refuses writes from %s with Placement's 403 and stores nothing", (_who, headers) =>
      expectWritesRefused(true, headers),
    );

    it('lets a system reader read, and refuses reads without system scope', async () => {
      const { call } = client(handler(true));
      const reader = { 'x-roles': 'reader', 'openstack-system-scope': 'all' };
      expect((await call('GET', '/resource_providers', undefined, '1.39', reader)).status).toBe(200);
      const project = await call('GET', '/traits', undefined, '1.39', PROJECT_ADMIN);
      expect(project.body).toEqual(forbiddenBody('placement:traits:list'));
    });

    it('lets a reader of a project see its usages only', async () => {
      const { call } = client(handler(true));
      const reader = { 'x-roles': 'reader', 'x-project-id': 'p1' };
      expect((await call('GET', '/usages?project_id=p1', undefined, '1.39', reader)).status).toBe(200);
      expect((await call('GET', '/usages?project_id=p2', undefined, '1.39', reader)).body).toEqual(
        forbiddenBody('placement:usages'),
      );
    });
  });

  it('refuses a wrong media type before the policy, and leaves the root open', async () => {
    const { call } = client(handler());
    const r = await call('POST', '/resource_providers', undefined, '1.39', { 'content-type': 'text/plain' });
    expect(r.status).toBe(415);
    expect((await call('GET', '/', undefined, '1.39')).status).toBe(200);
  });
});

describe('createPlacementHandler on bodies that are not UTF-8', () => {
  it("answers 400 quoting Python's error, as Placement does, and stores nothing", async () => {
    const h = createPlacementHandler({ requestId: () => 'req-test' });
    const body = Uint8Array.from([...new TextEncoder().encode('{"name": "c'), 0xff, 0x22, 0x7d]);
    const r = await h(
      new Request('http://placement.test/resource_providers', {
        method: 'POST',
        headers: { 'openstack-api-version': 'placement 1.39', 'content-type': 'application/json' },
        body,
      }),
    );
    expect(r.status).toBe(400);
    expect(detail((await r.json()) as { errors: { detail: string }[] })).toBe(
      "The server could not comply with the request since it is either malformed or otherwise incorrect.\n\n Malformed JSON: 'utf-8' codec can't decode byte 0xff in position 11: invalid start byte  ",
    );
    expect(h.store.providerCount).toBe(0);
  });
});

describe('createPlacementHandler.oversizedHead', () => {
  it("answers a head too large to read with Placement's error body", async () => {
    const r = createPlacementHandler({ requestId: () => 'req-x' }).oversizedHead({
      status: 400,
      message: 'The headers are too large.',
    });
    expect(r.status).toBe(400);
    expect(await r.json()).toEqual({
      errors: [
        {
          status: 400,
          title: 'Bad Request',
          detail:
            'The server could not comply with the request since it is either malformed or otherwise incorrect.\n\n The headers are too large.  ',
          code: 'placement.undefined_code',
          request_id: 'req-x',
        },
      ],
    });
  });
});
