// The REST API's behaviour on any store: every test file that calls
// describeApiContract passes the stores it runs on (PGlite, PostgreSQL).
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import {
  createDeployTemplatePolicy,
  createDeployTemplatesApi,
  type DeployTemplatesApiOptions,
  ironicProfile,
  type TemplateNotification,
} from '../src/index.js';
import type { TestStores } from './support/stores.js';

const step = { interface: 'raid', step: 'create_configuration', args: {}, priority: 10 };

function req(
  path: string,
  init: {
    method?: string;
    body?: unknown;
    raw?: string;
    version?: string;
    headers?: Record<string, string>;
  } = {},
) {
  const headers = new Headers({ 'X-OpenStack-Ironic-API-Version': init.version ?? '1.55', ...init.headers });
  const body = init.raw ?? (init.body === undefined ? undefined : JSON.stringify(init.body));
  return new Request(`http://api.test${path}`, {
    method: init.method ?? 'GET',
    headers,
    ...(body !== undefined ? { body } : {}),
  });
}

async function errorOf(res: Response): Promise<Record<string, unknown>> {
  const body = (await res.json()) as { error_message: string };
  return JSON.parse(body.error_message) as Record<string, unknown>;
}

export function describeApiContract(stores: TestStores): void {
  describe.runIf(stores.available)(`createDeployTemplatesApi on ${stores.name}`, () => {
    afterEach(() => stores.cleanup());
    afterAll(() => stores.close());
    const makeApi = async (options: Omit<DeployTemplatesApiOptions, 'store'> = {}) =>
      createDeployTemplatesApi({ store: await stores.make('api'), ...options });

    it('creates, shows, updates and deletes through the hyphenated alias too', async () => {
      const api = await makeApi();
      const created = await api(
        req('/v1/deploy-templates', { method: 'POST', body: { name: 'CUSTOM_A', steps: [step] } }),
      );
      expect(created.status).toBe(201);
      const body = (await created.json()) as { uuid: string; links: { href: string }[] };
      expect(created.headers.get('location')).toBe(`http://api.test/v1/deploy_templates/${body.uuid}`);
      expect(body.links[0]?.href).toBe(`http://api.test/v1/deploy_templates/${body.uuid}`);
      const patched = await api(
        req(`/v1/deploy-templates/${body.uuid}`, {
          method: 'PATCH',
          body: [{ op: 'add', path: '/name', value: 'CUSTOM_B' }],
        }),
      );
      expect(((await patched.json()) as { name: string }).name).toBe('CUSTOM_B');
      expect((await api(req('/v1/deploy_templates/CUSTOM_B', { method: 'DELETE' }))).status).toBe(204);
      expect((await api(req('/v1/deploy_templates/CUSTOM_B'))).status).toBe(404);
    });

    it('serves up to 1.115 in the newest profile and refuses 1.116 with the range headers', async () => {
      const api = await makeApi();
      const ok = await api(req('/v1/deploy_templates', { version: 'latest' }));
      expect(ok.headers.get('X-OpenStack-Ironic-API-Version')).toBe('1.115');
      const tooNew = await api(req('/v1/deploy_templates', { version: '1.116' }));
      expect(tooNew.status).toBe(406);
      expect(tooNew.headers.get('X-OpenStack-Ironic-API-Maximum-Version')).toBe('1.115');
      expect((await errorOf(tooNew)).description).toBe(
        'Version 1.116 was requested but the minor version is not supported by this service. The supported version range is: [1.1, 1.115].',
      );
    });

    it('reads OpenStack-API-Version when Ironic’s own header is absent', async () => {
      const api = await makeApi();
      const res = await api(
        new Request('http://api.test/v1/deploy_templates', {
          headers: { 'OpenStack-API-Version': 'compute 2.1, baremetal 1.60' },
        }),
      );
      expect(res.status).toBe(200);
      expect(res.headers.get('X-OpenStack-Ironic-API-Version')).toBe('1.60');
    });

    it('strips a .json suffix only when Ironic’s own header asks for 1.90 or older, whatever is negotiated', async () => {
      const api = await makeApi();
      await api(req('/v1/deploy_templates', { method: 'POST', body: { name: 'CUSTOM_A', steps: [step] } }));
      const path = '/v1/deploy_templates/CUSTOM_A.json';
      expect((await api(req(path, { version: '1.90' }))).status).toBe(200);
      const after = await api(req(path, { version: '1.91' }));
      expect(after.status).toBe(404);
      expect((await errorOf(after)).faultstring).toBe('Deploy template CUSTOM_A.json could not be found.');
      // Negotiated 1.60 from the standard header, but Ironic's middleware reads only its own.
      const standard = new Request(`http://api.test${path}`, {
        headers: { 'OpenStack-API-Version': 'baremetal 1.60' },
      });
      const kept = await api(standard);
      expect(kept.status).toBe(404);
      expect(kept.headers.get('X-OpenStack-Ironic-API-Version')).toBe('1.60');
      expect((await errorOf(kept)).faultstring).toBe('Deploy template CUSTOM_A.json could not be found.');
      // The other way round: negotiated 1.95, stripped because the old header says 1.60.
      const both = await api(
        req(path, { version: '1.60', headers: { 'OpenStack-API-Version': 'baremetal 1.95' } }),
      );
      expect(both.status).toBe(200);
      expect(both.headers.get('X-OpenStack-Ironic-API-Version')).toBe('1.95');
      expect((await api(req(path, { version: 'latest' }))).status).toBe(404);
      expect((await api(req('/v1/deploy_templates.json', { version: '1.90' }))).status).toBe(200);
      expect((await api(req('/v1/deploy_templates.json', { version: 'latest' }))).status).toBe(404);
    });

    it('strips a .json suffix on every request in the 21.4 profile', async () => {
      const api = await makeApi({ profile: ironicProfile('21.4') });
      await api(req('/v1/deploy_templates', { method: 'POST', body: { name: 'CUSTOM_A', steps: [step] } }));
      const standard = new Request('http://api.test/v1/deploy_templates/CUSTOM_A.json', {
        headers: { 'X-OpenStack-Ironic-API-Version': '1.60', 'OpenStack-API-Version': 'baremetal 1.70' },
      });
      expect((await api(standard)).status).toBe(200);
      expect((await api(req('/v1.json', { version: 'latest' }))).status).toBe(200);
    });

    it('serves paths without /v1 as under /v1, as Ironic’s root does', async () => {
      const api = await makeApi();
      const created = await api(
        req('/deploy_templates', { method: 'POST', body: { name: 'CUSTOM_A', steps: [step] } }),
      );
      expect(created.status).toBe(201);
      expect((await api(req('/deploy_templates/CUSTOM_A/'))).status).toBe(200);
      const unknown = await api(req('/whatever'));
      expect(unknown.status).toBe(404);
      expect((await errorOf(unknown)).description).toBe('');
      const bad = await api(req('/whatever', { version: '1.abc' }));
      expect(bad.status).toBe(406);
      expect((await errorOf(bad)).description).toBe(
        'Invalid value for X-OpenStack-Ironic-API-Version header',
      );
    });

    it('accepts the newest interfaces and standard traits in the newest profile', async () => {
      const api = await makeApi();
      const res = await api(
        req('/v1/deploy_templates', {
          method: 'POST',
          body: {
            name: 'HW_NVME_BES',
            steps: [
              { ...step, interface: 'firmware' },
              { ...step, interface: 'vendor' },
            ],
          },
        }),
      );
      expect(res.status).toBe(201);
    });

    it('answers malformed JSON with a 400 and an oversized body with a 413', async () => {
      const api = await makeApi();
      const bad = await api(req('/v1/deploy_templates', { method: 'POST', raw: '{"name": ' }));
      expect(bad.status).toBe(400);
      expect(String((await errorOf(bad)).faultstring)).toMatch(/not valid JSON/);
      const huge = await api(
        req('/v1/deploy_templates', { method: 'POST', raw: `{"x": "${'a'.repeat(1100 * 1024)}"}` }),
      );
      expect(huge.status).toBe(413);
    });

    it('answers what the store could not keep with a 400 naming the step, and stores nothing', async () => {
      const api = await makeApi();
      const post = (s: Record<string, unknown>, extra: unknown = {}) =>
        api(req('/v1/deploy_templates', { method: 'POST', body: { name: 'CUSTOM_H', steps: [s], extra } }));
      const cases: [Response, RegExp][] = [
        [await post({ ...step, step: 's'.repeat(256) }), /name of step 0 .* is 256 characters long/],
        [await post({ ...step, step: 'a\u0000b' }), /contains a NUL character or an unpaired surrogate/],
        [await post({ ...step, step: 'a\ud800b' }), /contains a NUL character or an unpaired surrogate/],
      ];
      for (const [res, message] of cases) {
        expect(res.status).toBe(400);
        expect(String((await errorOf(res)).faultstring)).toMatch(message);
      }
      // 255 characters (counted as characters, not UTF-16 units) and NUL inside args are fine.
      expect((await post({ ...step, step: '𝔰'.repeat(255), args: { k: 'a\u0000' } })).status).toBe(201);
      const shown = (await (await api(req('/v1/deploy_templates/CUSTOM_H'))).json()) as {
        steps: { step: string; args: Record<string, unknown> }[];
      };
      expect(shown.steps[0]).toMatchObject({ step: '𝔰'.repeat(255), args: { k: 'a\u0000' } });
      const patched = await api(
        req('/v1/deploy_templates/CUSTOM_H', {
          method: 'PATCH',
          body: [{ op: 'replace', path: '/steps/0/step', value: 'x'.repeat(300) }],
        }),
      );
      expect(patched.status).toBe(400);
    });

    it('refuses bodies nested too deeply or holding numbers JSON cannot carry, with a 400', async () => {
      const api = await makeApi();
      const deep = `${'{"a":'.repeat(3000)}1${'}'.repeat(3000)}`;
      const raw = (args: string) =>
        api(
          req('/v1/deploy_templates', {
            method: 'POST',
            raw: `{"name": "CUSTOM_D", "steps": [{"interface": "raid", "step": "x", "args": ${args}, "priority": 1}]}`,
          }),
        );
      const tooDeep = await raw(deep);
      expect(tooDeep.status).toBe(400);
      // The body reader refuses it before it is parsed into objects (core's limit is the same 200 levels).
      expect((await errorOf(tooDeep)).faultstring).toMatch(
        /^The request body nests deeper than the limit of 200 levels \(at character \d+\)\.$/,
      );
      const infinite = await raw('{"x": 1e400}');
      expect(infinite.status).toBe(400);
      expect(String((await errorOf(infinite)).faultstring)).toContain('number too large to represent');
      expect((await raw(`${'{"a":'.repeat(190)}1${'}'.repeat(190)}`)).status).toBe(201);
      const deepPatch = await api(
        req('/v1/deploy_templates/CUSTOM_D', {
          method: 'PATCH',
          raw: `[{"op": "add", "path": "/extra/x", "value": ${deep}}]`,
        }),
      );
      expect(deepPatch.status).toBe(400);
      expect((await errorOf(deepPatch)).faultstring).toMatch(
        /^The request body nests deeper than the limit of 200/,
      );
      // Callers of the service itself (the embedded CLI, embedders) meet the template rules' own limit.
      let args: unknown = 1;
      for (let i = 0; i < 3000; i += 1) args = { a: args };
      await expect(
        api.service.create({ name: 'CUSTOM_S', steps: [{ ...step, args }] }, {}, { baseUrl: 'http://x' }),
      ).rejects.toMatchObject({
        code: 'deploy-templates/too-deep',
        message: 'Deploy template invalid: the template nests objects and lists deeper than 200 levels.',
      });
    });

    it('answers malformed percent-escapes like Ironic instead of throwing', async () => {
      const api = await makeApi();
      for (const method of ['GET', 'PATCH', 'DELETE']) {
        const res = await api(
          req('/v1/deploy_templates/%ZZ', { method, ...(method === 'PATCH' ? { body: [] } : {}) }),
        );
        expect(res.status).toBe(400);
        expect((await errorOf(res)).faultstring).toBe('Expected UUID or name for template_ident: %ZZ');
      }
      for (const path of ['/v1/deploy_templates/%E0%A4%A', '/%E0%A4', '/v1/deploy_templates?marker=%E0%A4']) {
        const res = await api(req(path));
        expect(res.status).toBe(400);
        expect(await errorOf(res)).toEqual({ code: 400, title: 'Bad Request', description: '' });
        expect(res.headers.get('X-OpenStack-Ironic-API-Version')).toBeNull();
      }
    });

    it('serves the root and v1 documents a client negotiates with', async () => {
      const api = await makeApi();
      const root = (await (await api(new Request('http://api.test/'))).json()) as {
        default_version: { version: string };
      };
      expect(root.default_version.version).toBe('1.115');
      const old = (await (await api(req('/v1/', { version: '1.54' }))).json()) as Record<string, unknown>;
      expect(old.deploy_templates).toBeUndefined();
      const v1 = (await (await api(req('/v1', { version: '1.55' }))).json()) as Record<string, unknown>;
      expect(v1.deploy_templates).toEqual([
        { href: 'http://api.test/v1/deploy_templates/', rel: 'self' },
        { href: 'http://api.test/deploy_templates/', rel: 'bookmark' },
      ]);
      // Like Ironic: the root answers any method; /v1 refuses writes with a fault body;
      // /v1.json is the /v1 document when Ironic's header asks for 1.90 or older only.
      expect((await api(new Request('http://api.test/', { method: 'POST' }))).status).toBe(200);
      const post = await api(req('/v1', { method: 'POST', body: {} }));
      expect(post.status).toBe(405);
      expect((await errorOf(post)).faultstring).toMatch(/^The server could not comply/);
      expect((await api(req('/v1.json', { version: '1.90' }))).status).toBe(200);
      expect((await api(req('/v1.json', { version: '1.91' }))).status).toBe(404);
      const badVersion = await api(req('/v1', { version: '1.abc' }));
      expect(badVersion.status).toBe(406);
      expect((await errorOf(badVersion)).faultstring).toBe(
        'Invalid value for X-OpenStack-Ironic-API-Version header',
      );
    });

    it('uses the configured public URL in links', async () => {
      const api = await makeApi({ publicUrl: 'https://baremetal.example.com/' });
      const res = await api(
        req('/v1/deploy_templates', { method: 'POST', body: { name: 'CUSTOM_A', steps: [step] } }),
      );
      expect(res.headers.get('location')).toMatch(
        /^https:\/\/baremetal\.example\.com\/v1\/deploy_templates\//,
      );
    });

    it('applies the policy to credentials from trusted headers', async () => {
      const api = await makeApi({ auth: 'trusted-headers' });
      const admin = { 'X-Roles': 'admin,member,reader', 'OpenStack-System-Scope': 'all' };
      const reader = { 'X-Roles': 'reader', 'OpenStack-System-Scope': 'all' };
      const body = { name: 'CUSTOM_A', steps: [step] };
      expect((await api(req('/v1/deploy_templates', { method: 'POST', body, headers: reader }))).status).toBe(
        403,
      );
      expect((await api(req('/v1/deploy_templates', { method: 'POST', body, headers: admin }))).status).toBe(
        201,
      );
      expect((await api(req('/v1/deploy_templates', { headers: reader }))).status).toBe(200);
      const project = await api(
        req('/v1/deploy_templates', { headers: { 'X-Roles': 'admin', 'X-Project-Id': 'p' } }),
      );
      expect(project.status).toBe(403);
      expect((await errorOf(project)).faultstring).toBe(
        'Access was denied to the following resource: baremetal:deploy_template:get',
      );
      const service = { 'X-Roles': 'service', 'X-Project-Name': 'service' };
      expect((await api(req('/v1/deploy_templates', { headers: service }))).status).toBe(200);
    });

    it('accepts the deprecated roles when the legacy policy is chosen', async () => {
      const api = await makeApi({
        auth: 'trusted-headers',
        policy: createDeployTemplatePolicy({ legacy: true }),
      });
      const observer = { 'X-Roles': 'baremetal_observer', 'X-Project-Name': 'baremetal' };
      const projectAdmin = { 'X-Roles': 'admin', 'X-Project-Id': 'p' };
      expect((await api(req('/v1/deploy_templates', { headers: observer }))).status).toBe(200);
      const body = { name: 'CUSTOM_A', steps: [step] };
      expect(
        (await api(req('/v1/deploy_templates', { method: 'POST', body, headers: observer }))).status,
      ).toBe(403);
      expect(
        (await api(req('/v1/deploy_templates', { method: 'POST', body, headers: projectAdmin }))).status,
      ).toBe(201);
    });

    it('takes credentials from a custom request-context hook', async () => {
      const api = await makeApi({
        auth: (r) => (r.headers.get('authorization') === 'Bearer ok' ? 'admin' : { roles: [] }),
      });
      expect((await api(req('/v1/deploy_templates'))).status).toBe(403);
      expect(
        (await api(req('/v1/deploy_templates', { headers: { authorization: 'Bearer ok' } }))).status,
      ).toBe(200);
    });

    it('emits start and end notifications around writes, and an error on a conflict', async () => {
      const events: TemplateNotification[] = [];
      const api = await makeApi({ notify: (e) => events.push(e) });
      const body = { name: 'CUSTOM_A', steps: [step] };
      await api(req('/v1/deploy_templates', { method: 'POST', body }));
      await api(req('/v1/deploy_templates', { method: 'POST', body }));
      await api(req('/v1/deploy_templates', { method: 'POST', body: { name: 'bad' } }));
      await api(
        req('/v1/deploy_templates/CUSTOM_A', {
          method: 'PATCH',
          body: [{ op: 'add', path: '/extra/a', value: 1 }],
        }),
      );
      await api(req('/v1/deploy_templates/CUSTOM_A', { method: 'DELETE' }));
      expect(events.map((e) => e.event_type)).toEqual([
        'baremetal.deploytemplate.create.start',
        'baremetal.deploytemplate.create.end',
        'baremetal.deploytemplate.create.start',
        'baremetal.deploytemplate.create.error',
        'baremetal.deploytemplate.update.start',
        'baremetal.deploytemplate.update.end',
        'baremetal.deploytemplate.delete.start',
        'baremetal.deploytemplate.delete.end',
      ]);
      expect(events[1]?.payload).toMatchObject({ name: 'CUSTOM_A', extra: {}, updated_at: null });
      expect(events[3]?.priority).toBe('error');
      expect(events[5]?.payload.extra).toEqual({ a: 1 });
    });

    it('lets exactly one of several concurrent creates with one name through', async () => {
      const api = await makeApi();
      const responses = await Promise.all(
        Array.from({ length: 6 }, () =>
          api(req('/v1/deploy_templates', { method: 'POST', body: { name: 'CUSTOM_RACE', steps: [step] } })),
        ),
      );
      expect(responses.map((r) => r.status).sort()).toEqual([201, 409, 409, 409, 409, 409]);
    });

    it('changes nothing when a patch fails half way', async () => {
      const api = await makeApi();
      await api(
        req('/v1/deploy_templates', {
          method: 'POST',
          body: { name: 'CUSTOM_A', steps: [step], extra: { k: 1 } },
        }),
      );
      const before = await (await api(req('/v1/deploy_templates/CUSTOM_A'))).json();
      const res = await api(
        req('/v1/deploy_templates/CUSTOM_A', {
          method: 'PATCH',
          body: [
            { op: 'add', path: '/extra/x', value: 2 },
            { op: 'replace', path: '/name', value: 'CUSTOM_Z' },
            { op: 'remove', path: '/steps/3' },
          ],
        }),
      );
      expect(res.status).toBe(400);
      expect(await (await api(req('/v1/deploy_templates/CUSTOM_A'))).json()).toEqual(before);
    });

    it('answers 500 with a fault body when the store breaks, without leaking details', async () => {
      const store = await stores.make('api');
      const api = createDeployTemplatesApi({
        store: { ...store, list: () => Promise.reject(new Error('disk on fire')) },
      });
      const res = await api(req('/v1/deploy_templates'));
      expect(res.status).toBe(500);
      const fault = await errorOf(res);
      expect(fault.faultcode).toBe('Server');
      expect(String(fault.faultstring)).not.toContain('disk on fire');
    });
  });
}
