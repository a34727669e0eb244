// The contract of core's HTTP kit, run against the four services built on
// it (Placement, Ironic's deploy templates, Nova's flavor extra specs, Heat's
// capabilities): each answers a path no route has with 404 and a method its
// route lacks with 405 in its own error body (with `Allow` where the service
// sends one), refuses a version it does not serve and names the version it
// serves, gives request ids where the service does, refuses a body past its
// limit with 413 and a JSON body that is not UTF-8 with 400, and never
// rejects, whatever it is sent.
import type { DeployTemplateService } from '@stackspec/deploy-templates';
import { createDeployTemplatesApi } from '@stackspec/deploy-templates';
import { createExtraSpecsHandler, createMemoryFlavorStore } from '@stackspec/extra-spec-validators';
import { createCapabilitiesHandler } from '@stackspec/heat-capabilities';
import { createPlacementHandler } from '@stackspec/placement-query';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

const LIMIT = 1024;
const REQUEST_ID = /^req-[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const NOT_UTF8 = Uint8Array.of(0x7b, 0x22, 0x61, 0xff, 0x22, 0x3a, 0x31, 0x7d);

interface ServiceUnderContract {
  name: string;
  handler: (request: Request) => Promise<Response>;
  /** The version header, a value the service serves and one it refuses with 406 (none without versions). */
  version?: readonly [header: string, served: string, unserved: string];
  /**
   * `missing`: a path no route has; `served`: a path a GET succeeds on;
   * `write`: a method and path that read a JSON body; `refused`: a method
   * and path whose route lacks the method.
   */
  paths: { missing: string; served: string; write: string; refused: string };
  /** The `Allow` the service sends with its 405 (null: it sends none). */
  allow: string | null;
  /** The request id header, when the service gives ids. */
  requestId?: string;
  /** Whether a body is the service's error body for `status`. */
  isErrorBody(body: string, status: number): boolean;
}

const json = (text: string): Record<string, unknown> => JSON.parse(text) as Record<string, unknown>;

// Ironic's API over a service that lists nothing: the contract never reaches the templates.
const emptyService = { list: async () => ({ deploy_templates: [] }) } as unknown as DeployTemplateService;
const flavors = createMemoryFlavorStore({ f1: {} });
const ironicFault = (body: string) =>
  json(json(body).error_message as string) as { code?: number; faultcode?: string };

const SERVICES: ServiceUnderContract[] = [
  {
    name: 'placement',
    handler: createPlacementHandler({ maxBodyBytes: LIMIT }),
    version: ['OpenStack-API-Version', 'placement 1.39', 'placement 1.99'],
    paths: {
      missing: '/x/y',
      served: '/',
      write: 'POST /resource_providers',
      refused: 'PATCH /resource_providers',
    },
    allow: 'GET, POST',
    requestId: 'x-openstack-request-id',
    isErrorBody: (body, status) => (json(body).errors as { status: number }[])[0]?.status === status,
  },
  {
    name: 'ironic deploy templates',
    handler: createDeployTemplatesApi({ service: emptyService, maxBodyBytes: LIMIT }),
    version: ['X-OpenStack-Ironic-API-Version', '1.55', '1.9999'],
    paths: {
      missing: '/v1/x',
      served: '/v1/deploy_templates',
      write: 'POST /v1/deploy_templates',
      refused: 'PUT /v1/deploy_templates',
    },
    allow: 'DELETE, GET, PATCH, POST',
    requestId: 'openstack-request-id',
    // webob's bodies carry the status; a controller's fault says whose fault it is.
    isErrorBody: (body, status) => {
      const fault = ironicFault(body);
      return fault.code === status || (fault.faultcode === 'Client' && status < 500);
    },
  },
  {
    name: 'nova extra specs',
    handler: createExtraSpecsHandler({ store: flavors, maxBodyBytes: LIMIT }),
    version: ['OpenStack-API-Version', 'compute 2.86', 'compute 2.999'],
    // Nova's 405 names no methods.
    allow: null,
    paths: {
      missing: '/flavors/f1/x',
      served: '/flavors/f1/os-extra_specs',
      write: 'POST /flavors/f1/os-extra_specs',
      refused: 'PUT /flavors/f1/os-extra_specs',
    },
    isErrorBody: (body, status) =>
      Object.values(json(body)).some((f) => (f as { code?: number }).code === status),
  },
  {
    name: 'heat capabilities',
    handler: createCapabilitiesHandler({ maxBodyBytes: LIMIT }),
    paths: {
      missing: '/v1/p/x',
      served: '/v1/p/template_versions',
      write: 'POST /v1/p/capabilities/find',
      refused: 'GET /v1/p/capabilities/find',
    },
    allow: 'POST',
    isErrorBody: (body, status) => json(body).code === status,
  },
];

const send = (s: ServiceUnderContract, method: string, path: string, init: RequestInit = {}) =>
  s.handler(
    new Request(`http://service.test${path}`, {
      method,
      ...init,
      headers: {
        ...(s.version ? { [s.version[0]]: s.version[1] } : {}),
        ...(init.headers as Record<string, string> | undefined),
      },
    }),
  );
/** `METHOD /path` as the two arguments of `send`. */
const split = (line: string) => line.split(' ') as [string, string];

describe.each(SERVICES)('$name on the HTTP kit', (s) => {
  it('answers a path no route has with 404 in its error body', async () => {
    const r = await send(s, 'GET', s.paths.missing);
    expect(r.status).toBe(404);
    expect(s.isErrorBody(await r.text(), 404)).toBe(true);
  });

  it('answers a method the route lacks with 405, naming the allowed methods where the service does', async () => {
    const r = await send(s, ...split(s.paths.refused));
    expect(r.status).toBe(405);
    expect(r.headers.get('allow')).toBe(s.allow);
    expect(s.isErrorBody(await r.text(), 405)).toBe(true);
  });

  it.runIf(s.version !== undefined)(
    'refuses a version it does not serve, and names the one it serves',
    async () => {
      const [header, , unserved] = s.version as NonNullable<ServiceUnderContract['version']>;
      const refused = await send(s, 'GET', s.paths.served, { headers: { [header]: unserved } });
      expect(refused.status).toBe(406);
      expect(s.isErrorBody(await refused.text(), 406)).toBe(true);
      const served = await send(s, 'GET', s.paths.served);
      expect(served.status).toBe(200);
      expect(served.headers.get(header)).not.toBeNull();
    },
  );

  it.runIf(s.requestId !== undefined)('gives each request an id of its own', async () => {
    const header = s.requestId as string;
    const first = (await send(s, 'GET', s.paths.served)).headers.get(header);
    const second = (await send(s, 'GET', s.paths.served)).headers.get(header);
    expect(first).toMatch(REQUEST_ID);
    expect(second).toMatch(REQUEST_ID);
    expect(first).not.toBe(second);
  });

  it('refuses a body past its limit with 413', async () => {
    const r = await send(s, ...split(s.paths.write), {
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ padding: 'x'.repeat(LIMIT) }),
    });
    expect(r.status).toBe(413);
  });

  it('refuses a JSON body that is not UTF-8 with 400', async () => {
    const r = await send(s, ...split(s.paths.write), {
      headers: { 'Content-Type': 'application/json' },
      body: NOT_UTF8,
    });
    expect(r.status).toBe(400);
  });

  it('answers any method, path and body with a response (property)', async () => {
    const segment = fc.oneof(
      fc.constantFrom(
        'v1',
        'p',
        'flavors',
        'f1',
        'os-extra_specs',
        'resource_providers',
        'deploy_templates',
        '%',
        '%ZZ',
        '%2F',
        '',
      ),
      fc.string({ maxLength: 6 }),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'patch'),
        fc.array(segment, { maxLength: 5 }),
        fc.option(fc.uint8Array({ maxLength: 64 }), { nil: undefined }),
        async (method, segments, body) => {
          const path = `/${segments.map(encodeURIComponent).join('/')}`;
          const r = await send(s, method, path, method === 'GET' || body === undefined ? {} : { body });
          expect(r.status).toBeGreaterThanOrEqual(200);
          expect(r.status).toBeLessThan(600);
        },
      ),
      { numRuns: 60 },
    );
  });
});
