import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isStackspecError } from '../errors.js';
import { ANY_METHOD, createRouteTable, routeHandler } from './router.js';

const table = createRouteTable<string>([
  { path: '/', methods: { GET: 'home' } },
  { path: '/resource_providers', methods: { GET: 'list', POST: 'create' } },
  { path: '/resource_providers/{uuid}', methods: { GET: 'show', PUT: 'update', DELETE: 'delete' } },
  {
    path: '/resource_providers/{uuid}/inventories/{resource_class}',
    methods: { GET: 'inventory', PUT: 'set-inventory' },
  },
  { path: '/v1', methods: { [ANY_METHOD]: 'document' } },
]);

describe('createRouteTable', () => {
  it('finds the handler of a method on a path, with the segments its {name} parts took', () => {
    expect(table.match('GET', '/')).toMatchObject({ status: 200, handler: 'home', params: {} });
    expect(table.match('PUT', '/resource_providers/r1/inventories/VCPU')).toMatchObject({
      status: 200,
      handler: 'set-inventory',
      params: { uuid: 'r1', resource_class: 'VCPU' },
      route: { path: '/resource_providers/{uuid}/inventories/{resource_class}' },
    });
  });

  it('tells a path no route has (404) from a method its route lacks (405, with Allow in declared order)', () => {
    expect(table.match('GET', '/traits')).toEqual({ status: 404 });
    const refused = table.match('PATCH', '/resource_providers/r1');
    expect(refused.status).toBe(405);
    expect(refused.status === 405 && refused.route.allow).toEqual(['GET', 'PUT', 'DELETE']);
    expect(refused.status === 405 && refused.params).toEqual({ uuid: 'r1' });
  });

  it('matches exactly: case, trailing slashes, empty segments and an empty path all count', () => {
    for (const path of ['/Resource_providers', '/resource_providers/', '//resource_providers', '', '/v1/']) {
      expect(table.find(path), path).toBeUndefined();
    }
    expect(table.find('/resource_providers/r1/')).toBeUndefined();
  });

  it('keeps a segment as sent: percent escapes, spaces and any character but a slash', () => {
    for (const segment of ['a%2Fb', '%E0%A4%A', 'x y', 'é', 'a\nb', ':x', '*', '{y}', '..']) {
      expect(table.find(`/resource_providers/${segment}`)?.params, segment).toEqual({ uuid: segment });
    }
  });

  it('lets a route answer any method with the * key, and lists no method for Allow then', () => {
    expect(table.match('DELETE', '/v1')).toMatchObject({ status: 200, handler: 'document' });
    expect(table.routes.find((r) => r.path === '/v1')?.allow).toEqual([]);
  });

  it('looks methods up among the route’s own keys only', () => {
    for (const method of ['constructor', '__proto__', 'toString', 'get']) {
      expect(table.match(method, '/resource_providers').status, method).toBe(405);
    }
    expect(routeHandler({ path: '/', methods: { GET: 1 } }, 'hasOwnProperty')).toBeUndefined();
  });

  it('prefers the route declared first where a literal and a {name} both match (the trie router then)', () => {
    const overlapping = createRouteTable<string>([
      { path: '/traits/{name}', methods: { GET: 'by-name' } },
      { path: '/traits/special', methods: { GET: 'special' } },
      { path: '/items/fixed', methods: { GET: 'fixed' } },
      { path: '/items/{id}', methods: { GET: 'by-id' } },
    ]);
    expect(overlapping.match('GET', '/traits/special')).toMatchObject({ handler: 'by-name' });
    expect(overlapping.match('GET', '/items/fixed')).toMatchObject({ handler: 'fixed' });
    expect(overlapping.match('GET', '/items/x')).toMatchObject({ handler: 'by-id', params: { id: 'x' } });
  });

  it('refuses templates it cannot serve as written', () => {
    for (const path of ['traits', '/traits/:name', '/traits/{name', '/a/x{name}', '/files/*', '/a/{1x}']) {
      try {
        createRouteTable([{ path, methods: { GET: 1 } }]);
        expect.unreachable(path);
      } catch (e) {
        expect(isStackspecError(e) && e.code, path).toBe('http/bad-route');
      }
    }
    expect(() =>
      createRouteTable([
        { path: '/a/{x}', methods: {} },
        { path: '/a/{x}', methods: {} },
      ]),
    ).toThrow('declared twice');
  });

  it('answers an empty table with 404', () => {
    expect(createRouteTable([]).match('GET', '/')).toEqual({ status: 404 });
  });

  it('gives back any segment values it was built from, and never throws on a path (property)', () => {
    const segment = fc.string({ minLength: 1, maxLength: 12 }).filter((s) => !s.includes('/'));
    fc.assert(
      fc.property(segment, segment, (uuid, rc) => {
        const m = table.match('GET', `/resource_providers/${uuid}/inventories/${rc}`);
        expect(m).toMatchObject({ status: 200, params: { uuid, resource_class: rc } });
      }),
    );
    fc.assert(
      fc.property(fc.string({ maxLength: 40 }), fc.string({ maxLength: 8 }), (path, method) => {
        expect([200, 404, 405]).toContain(table.match(method, path).status);
      }),
    );
  });
});
