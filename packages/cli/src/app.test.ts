import type { DeployTemplateStore } from '@stackspec/deploy-templates';
import { createPgliteStore } from '@stackspec/deploy-templates/pglite';
import { createMemoryFlavorStore } from '@stackspec/extra-spec-validators';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AUTH_HELP,
  createStackspecApp,
  ENFORCE_NEW_DEFAULTS_HELP,
  oversizedHeadResponse,
  type StackspecApp,
} from './app.js';

const SYSTEM_ADMIN = { 'X-Roles': 'admin,member,reader', 'OpenStack-System-Scope': 'all' };
const PROJECT_MEMBER = { 'X-Roles': 'member,reader', 'X-Project-Id': 'p1' };
// Nova's service user: an admin of the service project.
const PROJECT_ADMIN = { 'X-Roles': 'admin,member,reader', 'X-Project-Id': 'service' };

// One write per API (orchestration has none: its POSTs compute answers and store nothing).
const WRITES = {
  compute: {
    path: '/compute/v2.1/flavors/m1/os-extra_specs',
    method: 'POST',
    headers: { 'OpenStack-API-Version': 'compute 2.86' },
    body: { extra_specs: { 'hw:numa_nodes': '1' } },
    refused:
      '{"forbidden": {"code": 403, "message": "Policy doesn\'t allow os_compute_api:os-flavor-extra-specs:create to be performed."}}',
  },
  'compute delete': {
    path: '/compute/v2.1/flavors/m1/os-extra_specs/hw:cpu_policy',
    method: 'DELETE',
    headers: { 'OpenStack-API-Version': 'compute 2.86' },
    body: undefined,
    refused:
      '{"forbidden": {"code": 403, "message": "Policy doesn\'t allow os_compute_api:os-flavor-extra-specs:delete to be performed."}}',
  },
  placement: {
    path: '/placement/resource_providers',
    method: 'POST',
    headers: { 'OpenStack-API-Version': 'placement 1.39' },
    body: { name: 'cn9' },
    refused: 'Policy does not allow placement:resource_providers:create to be performed.',
  },
  baremetal: {
    path: '/baremetal/v1/deploy_templates',
    method: 'POST',
    headers: { 'X-OpenStack-Ironic-API-Version': '1.55' },
    body: {
      name: 'CUSTOM_RAID1',
      steps: [{ interface: 'raid', step: 'create_configuration', args: {}, priority: 10 }],
    },
    refused: 'Access was denied to the following resource: baremetal:deploy_template:create',
  },
} as const;

const get = (app: StackspecApp, path: string, headers: Record<string, string>) =>
  app(
    new Request(`http://x${path}`, {
      headers: {
        'OpenStack-API-Version': path.startsWith('/compute') ? 'compute 2.86' : 'placement 1.39',
        'X-OpenStack-Ironic-API-Version': '1.55',
        ...headers,
      },
    }),
  );

interface Write {
  path: string;
  method: string;
  headers: Readonly<Record<string, string>>;
  body?: unknown;
}

const sendTo = (app: StackspecApp, write: Write, headers: Record<string, string>) =>
  app(
    new Request(`http://x${write.path}`, {
      method: write.method,
      headers: { 'Content-Type': 'application/json', ...write.headers, ...headers },
      ...(write.body ? { body: JSON.stringify(write.body) } : {}),
    }),
  );

/** An app with --auth trusted-headers over a fresh PGlite store, made before the tests of the block that calls it. */
function trustedHeadersApp(options: { enforceNewDefaults?: boolean } = {}) {
  const made = {} as { store: DeployTemplateStore; app: StackspecApp };
  beforeAll(() => {
    made.store = createPgliteStore();
    made.app = createStackspecApp({
      publicUrl: 'http://x',
      deployTemplates: made.store,
      flavors: createMemoryFlavorStore({ m1: { 'hw:cpu_policy': 'shared' } }),
      auth: 'trusted-headers',
      ...options,
    });
  });
  afterAll(() => made.store.close());
  return made;
}

describe('createStackspecApp with --auth trusted-headers', () => {
  const made = trustedHeadersApp();

  const send = (write: (typeof WRITES)[keyof typeof WRITES], headers: Record<string, string>) =>
    sendTo(made.app, write, headers);

  it.each(Object.entries(WRITES))(
    'refuses %s writes without roles and from a project member, with the service’s 403',
    async (_name, write) => {
      for (const headers of [{}, PROJECT_MEMBER]) {
        const r = await send(write, headers);
        expect(r.status).toBe(403);
        expect(await r.text()).toContain(write.refused);
      }
    },
  );

  it('lets a system-scoped admin write to every API', async () => {
    for (const write of Object.values(WRITES))
      expect((await send(write, SYSTEM_ADMIN)).status).toBeLessThan(300);
    expect((await made.store.list({})).map((t) => t.name)).toEqual(['CUSTOM_RAID1']);
    expect(made.app.placement.providerCount).toBe(1);
  });

  it('lets a project-scoped admin write to /compute and /placement, as Nova and Placement ship, not to /baremetal', async () => {
    expect((await sendTo(made.app, WRITES.compute, PROJECT_ADMIN)).status).toBe(200);
    const placement = { ...WRITES.placement, body: { name: 'cn-service' } };
    expect((await sendTo(made.app, placement, PROJECT_ADMIN)).status).toBe(200);
    expect(made.app.placement.providerCount).toBe(2);
    const baremetal = await sendTo(made.app, WRITES.baremetal, PROJECT_ADMIN);
    expect(baremetal.status).toBe(403);
    expect(await baremetal.text()).toContain(WRITES.baremetal.refused);
  });

  it('applies the read rules too: a system reader reads Placement and Ironic, not without scope', async () => {
    const reader = { 'X-Roles': 'reader', 'OpenStack-System-Scope': 'all' };
    expect((await get(made.app, '/placement/resource_providers', reader)).status).toBe(200);
    expect((await get(made.app, '/baremetal/v1/deploy_templates', reader)).status).toBe(200);
    expect(
      (await get(made.app, '/placement/resource_providers', { 'X-Roles': 'reader', 'X-Project-Id': 'p1' }))
        .status,
    ).toBe(403);
    expect((await get(made.app, '/placement/resource_providers', PROJECT_ADMIN)).status).toBe(200);
    expect((await get(made.app, '/baremetal/v1/deploy_templates', PROJECT_ADMIN)).status).toBe(403);
    expect((await get(made.app, '/baremetal/v1/deploy_templates', {})).status).toBe(403);
    // Nova 26 as shipped lets any caller read extra specs.
    expect((await get(made.app, '/compute/v2.1/flavors/m1/os-extra_specs', PROJECT_MEMBER)).status).toBe(200);
    // Heat introspection is read-only and open; health and the index too.
    expect((await get(made.app, '/orchestration/v1/admin/template_versions', {})).status).toBe(200);
    expect((await get(made.app, '/healthz', {})).status).toBe(200);
  });

  it('says in its help text who may do what', () => {
    for (const words of [
      '/compute writes need admin in any scope, anyone may read',
      '/placement writes need admin in any scope',
      "/baremetal always uses Ironic's new defaults: writes need admin with system scope",
      'X-Roles',
      '/orchestration is read-only',
    ]) {
      expect(AUTH_HELP).toContain(words);
    }
    for (const words of [
      '/compute writes need admin, reads reader or admin',
      '/placement writes need admin with system scope',
    ]) {
      expect(ENFORCE_NEW_DEFAULTS_HELP).toContain(words);
    }
  });
});

describe('createStackspecApp with --auth trusted-headers and enforceNewDefaults', () => {
  const made = trustedHeadersApp({ enforceNewDefaults: true });

  it('lets a project-scoped admin write to /compute only, and a system-scoped admin everywhere', async () => {
    expect((await sendTo(made.app, WRITES.compute, PROJECT_ADMIN)).status).toBe(200);
    for (const write of [WRITES.placement, WRITES.baremetal]) {
      const r = await sendTo(made.app, write, PROJECT_ADMIN);
      expect(r.status).toBe(403);
      expect(await r.text()).toContain(write.refused);
    }
    for (const write of Object.values(WRITES))
      expect((await sendTo(made.app, write, SYSTEM_ADMIN)).status).toBeLessThan(300);
    expect(made.app.placement.providerCount).toBe(1);
  });

  it('refuses writes without roles and from a project member', async () => {
    for (const write of Object.values(WRITES))
      for (const headers of [{}, PROJECT_MEMBER])
        expect((await sendTo(made.app, write, headers)).status).toBe(403);
  });

  it('leaves /compute reads to a reader or an admin, and /placement reads to system scope', async () => {
    const path = '/compute/v2.1/flavors/m1/os-extra_specs';
    expect((await get(made.app, path, PROJECT_MEMBER)).status).toBe(200);
    expect((await get(made.app, path, { 'X-Roles': 'member', 'X-Project-Id': 'p1' })).status).toBe(403);
    expect((await get(made.app, '/placement/resource_providers', PROJECT_ADMIN)).status).toBe(403);
    expect(
      (
        await get(made.app, '/placement/resource_providers', {
          'X-Roles': 'reader',
          'OpenStack-System-Scope': 'all',
        })
      ).status,
    ).toBe(200);
  });
});

describe('oversizedHeadResponse', () => {
  const head = (path?: string) => ({
    status: 414 as const,
    message: 'The request line is too long.',
    ...(path ? { path } : {}),
  });

  it('answers in the body of the service the path belongs to', async () => {
    expect(await oversizedHeadResponse(head('/compute/v2.1/flavors')).json()).toEqual({
      computeFault: { code: 414, message: 'The request line is too long.' },
    });
    expect(
      ((await oversizedHeadResponse(head('/placement/x')).json()) as { errors: unknown[] }).errors[0],
    ).toMatchObject({
      status: 414,
      title: 'Request-URI Too Long',
      code: 'placement.undefined_code',
    });
    expect(await oversizedHeadResponse(head('/baremetal/v1')).text()).toBe(
      '{"error_message": "{\\"code\\": 414, \\"title\\": \\"Request-URI Too Long\\", \\"description\\": \\"The request line is too long.\\"}"}',
    );
    expect(await oversizedHeadResponse(head('/orchestration/v1')).json()).toMatchObject({
      code: 414,
      error: { type: 'HTTPRequestURITooLong' },
    });
  });

  it('answers with a neutral body when the path is unknown or unread', async () => {
    for (const r of [oversizedHeadResponse(head()), oversizedHeadResponse(head('/computer'))]) {
      expect(r.status).toBe(414);
      expect(await r.json()).toEqual({
        error: { status: 414, code: 'http/request-line-too-long', message: 'The request line is too long.' },
      });
    }
  });
});
