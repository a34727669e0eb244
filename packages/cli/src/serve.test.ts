import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CliIO } from '@stackspec/core/cli';
import { runCli } from '@stackspec/core/cli';
import type { DeployTemplateStore } from '@stackspec/deploy-templates';
import { createPgliteStore } from '@stackspec/deploy-templates/pglite';
import { createPglitePlacementStore } from '@stackspec/placement-query/pglite';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryIO } from '../../../test-support/cli.js';
import { ensurePostgres, POSTGRES_URL } from '../../../test-support/postgres.js';
import { createStackspecApp } from './app.js';
import { type StackspecServer, serveStackspec } from './commands/serve.js';
import { runStackspec } from './program.js';

const INVENTORY = join(__dirname, 'fixtures/cloud/inventory.yaml');
const postgres = await ensurePostgres(pg.Client);
let server: StackspecServer;

beforeAll(async () => {
  server = await serveStackspec({
    port: 0,
    inventory: { text: readFileSync(INVENTORY, 'utf8'), filename: 'inventory.yaml' },
  });
});
afterAll(() => server.close());

describe('serveStackspec', () => {
  it('lists its services at the root and reports health', async () => {
    const root = (await (await fetch(server.url)).json()) as { services: unknown[] };
    expect(root.services).toContainEqual({ type: 'placement', url: `${server.url}/placement` });
    const health = await fetch(`${server.url}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toMatchObject({ status: 'ok', checks: { baremetal: 'ok', placement: 'ok' } });
  });

  it('serves Placement over the loaded inventory', async () => {
    const r = await fetch(
      `${server.url}/placement/allocation_candidates?resources=CUSTOM_BAREMETAL:1&required=CUSTOM_FIRMWARE`,
      {
        headers: { 'OpenStack-API-Version': 'placement 1.39' },
      },
    );
    expect(r.status).toBe(200);
    const body = (await r.json()) as { allocation_requests: unknown[] };
    expect(body.allocation_requests).toHaveLength(1);
    const bad = await fetch(`${server.url}/placement/resource_providers?member_of=!in:x`, {
      headers: { 'OpenStack-API-Version': 'placement 1.39' },
    });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { errors: { detail: string }[] }).errors[0]?.detail).toContain(
      "Expected 'member_of' parameter to contain valid UUID(s)",
    );
  });

  it('serves the deploy templates API with links under its prefix', async () => {
    const headers = { 'X-OpenStack-Ironic-API-Version': '1.55', 'Content-Type': 'application/json' };
    const created = await fetch(`${server.url}/baremetal/v1/deploy_templates`, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        name: 'CUSTOM_RAID1',
        steps: [{ interface: 'raid', step: 'create_configuration', args: {}, priority: 10 }],
      }),
    });
    expect(created.status).toBe(201);
    const tpl = (await created.json()) as { uuid: string; links: { href: string }[] };
    expect(tpl.links[0]?.href).toBe(`${server.url}/baremetal/v1/deploy_templates/${tpl.uuid}`);
    const list = (await (await fetch(`${server.url}/baremetal/v1/deploy_templates`, { headers })).json()) as {
      deploy_templates: { name: string }[];
    };
    expect(list.deploy_templates.map((t: { name: string }) => t.name)).toContain('CUSTOM_RAID1');
  });

  it('serves Heat capability queries', async () => {
    const r = await fetch(`${server.url}/orchestration/v1/admin/template_versions`);
    expect(r.status).toBe(200);
    expect(((await r.json()) as { template_versions: unknown[] }).template_versions.length).toBeGreaterThan(
      5,
    );
  });

  it('serves Nova extra specs with validation, logging what permissive mode lets through', async () => {
    const lines: string[] = [];
    const flavor = {
      name: 'm1',
      vcpus: 1,
      ram: 512,
      disk: 1,
      ephemeral: 0,
      swap: 0,
      extraSpecs: {},
      file: 'f.yaml',
      path: '',
      specsPath: '/extra_specs',
    };
    const local = await serveStackspec({
      port: 0,
      log: (l) => lines.push(l),
      cloud: { flavors: [flavor], templates: [] },
    });
    try {
      const post = (id: string, key: string, validation?: string) =>
        fetch(
          `${local.url}/compute/v2.1/flavors/${id}/os-extra_specs${validation ? `?validation=${validation}` : ''}`,
          {
            method: 'POST',
            headers: { 'Content-Type': 'application/json', 'OpenStack-API-Version': 'compute 2.86' },
            body: JSON.stringify({ extra_specs: { [key]: 'dedicated' } }),
          },
        );
      const strict = await post('m1', 'hw:cpu_polcy');
      expect(strict.status).toBe(400);
      expect(JSON.stringify(await strict.json())).toContain('hw:cpu_polcy');
      expect((await post('m1', 'hw:cpu_polcy', 'permissive')).status).toBe(200);
      expect(lines.join('\n')).toContain('permissive: flavor m1: hw:cpu_polcy');
      expect((await post('nope', 'hw:cpu_policy')).status).toBe(404);
    } finally {
      await local.close();
    }
  });

  it('answers 404 elsewhere', async () => {
    expect((await fetch(`${server.url}/nope`)).status).toBe(404);
  });
});

describe('createStackspecApp', () => {
  it('answers 503 degraded when the deploy template store does not answer', async () => {
    const real = createPgliteStore();
    const failing: DeployTemplateStore = {
      ...real,
      list: () => Promise.reject(new Error('connection refused')),
    };
    try {
      const app = createStackspecApp({ publicUrl: 'http://x', deployTemplates: failing });
      const r = await app(new Request('http://x/healthz'));
      expect(r.status).toBe(503);
      expect(await r.json()).toMatchObject({
        status: 'degraded',
        checks: { baremetal: 'unavailable', placement: 'ok' },
      });
    } finally {
      await real.close();
    }
  });
});

/** Runs `stackspec serve ARGS`, calls `use` once it listens, then stops it. */
async function serveWith(
  args: string[],
  cwd: string,
  use: (url: string) => Promise<void> = async () => {},
  env: Record<string, string> = {},
) {
  const io = memoryIO({ cwd, env: { NO_COLOR: '1', ...env } });
  let failure: unknown;
  const code = await runCli(
    () =>
      runStackspec(['serve', '--port', '0', ...args], io, {
        onServeStarted: (s) => {
          void use(s.url)
            .catch((e: unknown) => {
              failure = e;
            })
            .finally(() => s.close());
        },
      }),
    io,
  );
  if (failure) throw failure;
  return { code, out: io.out(), err: io.err() };
}

describe('stackspec serve', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'stackspec-serve-'));
    writeFileSync(join(dir, 'flavors.yaml'), 'name: m1\nextra_specs: {}\n');
    writeFileSync(
      join(dir, 'plugin.mjs'),
      "export const extraSpecs = [{ name: 'reservation', description: 'Lease.', value: { type: 'str' } }];\n",
    );
    writeFileSync(join(dir, 'with-plugin.yaml'), 'extraSpecs:\n  plugins: [./plugin.mjs]\n');
    writeFileSync(join(dir, 'zed.yaml'), 'extraSpecs:\n  release: zed\n');
    writeFileSync(
      join(dir, 'broken-inventory.yaml'),
      'providers:\n  - name: cn1\n    inventories: { VCPU: -1 }\n',
    );
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const post = (url: string, key: string, value = 'r1') =>
    fetch(`${url}/compute/v2.1/flavors/m1/os-extra_specs`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'OpenStack-API-Version': 'compute 2.86' },
      body: JSON.stringify({ extra_specs: { [key]: value } }),
    });

  it("validates /compute against the config's plugins and release", async () => {
    const statuses: number[] = [];
    const plain = await serveWith(['flavors.yaml'], dir, async (url) => {
      statuses.push((await post(url, 'reservation')).status);
      statuses.push((await post(url, 'hw:virtio_packed_ring', 'true')).status);
    });
    expect(plain.code).toBe(0);
    await serveWith(['flavors.yaml', '--config', 'with-plugin.yaml'], dir, async (url) => {
      statuses.push((await post(url, 'reservation')).status);
    });
    // hw:virtio_packed_ring came in 2024.1 (caracal): the catalog of zed does not know it.
    await serveWith(['flavors.yaml', '--config', 'zed.yaml'], dir, async (url) => {
      statuses.push((await post(url, 'hw:virtio_packed_ring', 'true')).status);
    });
    expect(statuses).toEqual([400, 200, 200, 400]);
  });

  it('refuses a missing or broken inventory as bad usage, saying which file', async () => {
    const missing = await serveWith(['--inventory', 'nope.yaml'], dir);
    expect(missing.code).toBe(2);
    expect(missing.err).toContain('nope.yaml  error  No such file or directory.  (fs/not-found)');
    expect(missing.err).toContain('error: The Placement inventory nope.yaml cannot be used');
    expect(missing.err).not.toContain('bug');
    const broken = await serveWith(['--inventory', 'broken-inventory.yaml'], dir);
    expect(broken.code).toBe(2);
    expect(broken.err).toMatch(/broken-inventory\.yaml:3:\d+ {2}error/);
  });

  it('says a port in use is taken, with a hint, instead of calling it a bug', async () => {
    const taken = await serveStackspec({ port: 0 });
    try {
      const r = await serveWith(['--port', String(new URL(taken.url).port)], dir);
      expect(r.code).toBe(2);
      expect(r.err).toContain(`error: Port ${new URL(taken.url).port} on 127.0.0.1 is already in use.`);
      expect(r.err).toContain('hint: Pick another --port, or --port 0 for a free one.');
    } finally {
      await taken.close();
    }
  });

  it('starts, prints its URLs and stops cleanly when closed', async () => {
    const out: string[] = [];
    const io: CliIO = {
      stdout: { write: (s: string) => out.push(s) },
      stderr: { write: () => true },
      env: {},
      cwd: __dirname,
    };
    let health = 0;
    const code = await runCli(
      () =>
        runStackspec(['serve', '--port', '0', '--inventory', 'fixtures/cloud/inventory.yaml'], io, {
          onServeStarted: (s) => {
            void fetch(`${s.url}/healthz`).then(async (r) => {
              health = r.status;
              await s.close();
            });
          },
        }),
      io,
    );
    expect(code).toBe(0);
    expect(health).toBe(200);
    expect(out.join('')).toMatch(/stackspec serving on http:\/\/127\.0\.0\.1:\d+/);
  });

  it('says that Placement data is kept in memory only', async () => {
    const r = await serveWith([], dir);
    expect(r.code).toBe(0);
    expect(r.out).toContain(
      '\n  Placement data is kept in memory only: it is lost when the server stops (--data-dir or --database-url keeps it).\n',
    );
  });

  const templates = (url: string) =>
    fetch(`${url}/baremetal/v1/deploy_templates`, {
      headers: { 'X-OpenStack-Ironic-API-Version': '1.55', 'Content-Type': 'application/json' },
    });
  const createTemplate = (url: string, name: string) =>
    fetch(`${url}/baremetal/v1/deploy_templates`, {
      method: 'POST',
      headers: { 'X-OpenStack-Ironic-API-Version': '1.55', 'Content-Type': 'application/json' },
      body: JSON.stringify({
        name,
        steps: [{ interface: 'raid', step: 'create_configuration', args: {}, priority: 10 }],
      }),
    });

  it('reads STACKSPEC_DATABASE_URL and STACKSPEC_DATA_DIR, an option winning over either', async () => {
    // Nothing listens on port 9: a server that used this URL would fail to start.
    const unreachable = { STACKSPEC_DATABASE_URL: 'postgres://postgres@127.0.0.1:9/none' };
    const fromEnv = await serveWith([], dir, undefined, unreachable);
    expect(fromEnv.code).toBe(1);
    expect(fromEnv.err).toContain('connect ECONNREFUSED 127.0.0.1:9');
    const data = join(dir, 'env-data');
    const statuses: number[] = [];
    const explicit = await serveWith(
      ['--data-dir', data],
      dir,
      async (url) => {
        statuses.push((await createTemplate(url, 'CUSTOM_ENV')).status);
      },
      unreachable,
    );
    expect(explicit.code).toBe(0);
    const names: string[] = [];
    const again = await serveWith(
      [],
      dir,
      async (url) => {
        const body = (await (await templates(url)).json()) as { deploy_templates: { name: string }[] };
        names.push(...body.deploy_templates.map((t) => t.name));
      },
      { STACKSPEC_DATA_DIR: data },
    );
    expect(again.code).toBe(0);
    expect(statuses).toEqual([201]);
    expect(names).toEqual(['CUSTOM_ENV']);
    const both = await serveWith([], dir, undefined, { STACKSPEC_DATA_DIR: data, ...unreachable });
    expect(both.code).toBe(2);
    expect(both.err).toContain('error: Both STACKSPEC_DATA_DIR and STACKSPEC_DATABASE_URL are set');
  });

  const PLACEMENT = { 'OpenStack-API-Version': 'placement 1.39', 'Content-Type': 'application/json' };
  const providerNames = async (url: string) => {
    const r = await fetch(`${url}/placement/resource_providers`, { headers: PLACEMENT });
    expect(r.status).toBe(200);
    const body = (await r.json()) as { resource_providers: { name: string }[] };
    return body.resource_providers.map((p) => p.name).sort();
  };
  const createProvider = async (url: string, name: string) =>
    (
      await fetch(`${url}/placement/resource_providers`, {
        method: 'POST',
        headers: PLACEMENT,
        body: JSON.stringify({ name }),
      })
    ).status;

  // Writes through /placement and /baremetal, a restart, then what is still there.
  async function survivesRestart(args: string[], env: Record<string, string> = {}) {
    const statuses: number[] = [];
    let before: string[] = [];
    const first = await serveWith(
      [...args, '--inventory', INVENTORY],
      dir,
      async (url) => {
        before = await providerNames(url);
        statuses.push(
          await createProvider(url, 'cn-written'),
          (await createTemplate(url, 'CUSTOM_KEPT')).status,
        );
      },
      env,
    );
    expect(first.code, first.err).toBe(0);
    expect(statuses).toEqual([200, 201]);
    let after: string[] = [];
    let kept: string[] = [];
    const second = await serveWith(
      [...args, '--inventory', INVENTORY],
      dir,
      async (url) => {
        after = await providerNames(url);
        const body = (await (await templates(url)).json()) as { deploy_templates: { name: string }[] };
        kept = body.deploy_templates.map((t) => t.name);
        const health = (await (await fetch(`${url}/healthz`)).json()) as { checks: Record<string, string> };
        expect(health.checks.placement).toBe('ok');
      },
      env,
    );
    expect(second.code, second.err).toBe(0);
    expect(before.length).toBeGreaterThan(0);
    expect(after).toEqual([...before, 'cn-written'].sort());
    expect(kept).toEqual(['CUSTOM_KEPT']);
    // The second start found a cloud in the database and left the file alone, saying so.
    expect(second.err).toContain("warning: Placement's database already holds");
    return { first, second };
  }

  it('keeps Placement writes in the data directory with the deploy templates, across a restart', async () => {
    const data = join(dir, 'durable');
    const { first } = await survivesRestart(['--data-dir', data]);
    expect(first.out).toContain(`  Placement data is kept in PGlite in ${data}: it survives a restart.\n`);
    // One lock for both stores: a second opener is refused, naming this directory's holder.
    const holder = createPglitePlacementStore({ dataDir: data });
    await holder.open();
    try {
      const r = await serveWith(['--data-dir', data], dir);
      expect(r.code).toBe(2);
      expect(r.err).toContain(`error: The directory ${data} is in use by this process (pid ${process.pid})`);
    } finally {
      await holder.close();
    }
  });

  it.skipIf(!postgres)(
    'keeps Placement writes in PostgreSQL (schema placement) beside the deploy templates, across a restart',
    async () => {
      const database = `stackspec_serve_${process.pid}_${Date.now()}`;
      const admin = new pg.Client({ connectionString: POSTGRES_URL });
      await admin.connect();
      await admin.query(`CREATE DATABASE ${database}`);
      const url = new URL(POSTGRES_URL);
      url.pathname = `/${database}`;
      try {
        const { first } = await survivesRestart([], { STACKSPEC_DATABASE_URL: url.href });
        expect(first.out).toMatch(
          / {2}Placement data is kept in PostgreSQL at 127\.0\.0\.1:5432\/stackspec_serve_\d+_\d+: it survives a restart\.\n/,
        );
        const check = new pg.Client({ connectionString: url.href });
        await check.connect();
        try {
          const rows = await check.query(
            "SELECT name FROM placement.resource_providers WHERE name = 'cn-written'",
          );
          expect(rows.rowCount).toBe(1);
        } finally {
          await check.end();
        }
      } finally {
        await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
        await admin.end();
      }
    },
  );

  it('refuses a data directory another store holds, with the way to reach its server', async () => {
    const data = join(dir, 'held');
    const holder = createPgliteStore({ dataDir: data });
    await holder.list();
    try {
      const r = await serveWith(['--data-dir', data], dir);
      expect(r.code).toBe(2);
      expect(r.out).toBe('');
      expect(r.err).toContain(`error: The directory ${data} is in use by this process (pid ${process.pid})`);
      expect(r.err).toContain(
        'hint: Another process has this data directory open. If it is a server, clients can use it with --os-endpoint',
      );
    } finally {
      await holder.close();
    }
  });

  it('serves with --no-migrate only what was migrated, and checks the PostgreSQL flags', async () => {
    const data = join(dir, 'unmigrated');
    const early = await serveWith(['--data-dir', data, '--no-migrate'], dir);
    expect(early.code).toBe(1);
    expect(early.err).toContain('error: The schema public holds no deploy template tables');
    expect(early.err).toContain('hint: Run stackspec-baremetal migrate');
    const owner = createPgliteStore({ dataDir: data });
    expect((await owner.migrate()).applied).toHaveLength(1);
    await owner.close();
    // Placement's tables live in the same directory and need their own migration.
    const placementEarly = await serveWith(['--data-dir', data, '--no-migrate'], dir);
    expect(placementEarly.code).toBe(1);
    expect(placementEarly.err).toMatch(/stackspec-placement migrate/);
    const placementOwner = createPglitePlacementStore({ dataDir: data });
    expect((await placementOwner.migrate()).applied.length).toBeGreaterThan(0);
    await placementOwner.close();
    expect((await serveWith(['--data-dir', data, '--no-migrate'], dir)).code).toBe(0);
    const pool = await serveWith(['--data-dir', data, '--pool-size', '3'], dir);
    expect(pool.code).toBe(2);
    expect(pool.err).toContain('error: --pool-size applies to PostgreSQL only');
    const timeout = await serveWith(
      ['--database-url', 'postgres://x@127.0.0.1:9/x', '--statement-timeout', 'soon'],
      dir,
    );
    expect(timeout.code).toBe(2);
    expect(timeout.err).toContain('error: --statement-timeout must be a whole number, not soon.');
    const memory = await serveWith(['--no-migrate'], dir);
    expect(memory.code).toBe(2);
    expect(memory.err).toContain('error: --no-migrate needs a database that was migrated before');
  });

  it('checks Placement as shipped under --auth trusted-headers, its new defaults with --enforce-new-defaults', async () => {
    // Nova's service user: an admin of the service project, not system-scoped.
    const create = (url: string) =>
      fetch(`${url}/placement/resource_providers`, {
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          'OpenStack-API-Version': 'placement 1.39',
          'X-Roles': 'admin,member,reader',
          'X-Project-Id': 'service',
        },
        body: JSON.stringify({ name: 'cn1' }),
      });
    const statuses: number[] = [];
    await serveWith(['--auth', 'trusted-headers'], dir, async (url) => {
      statuses.push((await create(url)).status);
    });
    await serveWith(['--auth', 'trusted-headers', '--enforce-new-defaults'], dir, async (url) => {
      statuses.push((await create(url)).status);
    });
    expect(statuses).toEqual([200, 403]);
    const alone = await serveWith(['--enforce-new-defaults'], dir);
    expect(alone.code).toBe(2);
    expect(alone.err).toContain(
      '--enforce-new-defaults changes the policy checked under --auth trusted-headers',
    );
  });

  it('rejects a bad port and conflicting stores with exit code 2', async () => {
    const io: CliIO = {
      stdout: { write: () => true },
      stderr: { write: () => true },
      env: {},
      cwd: __dirname,
    };
    expect(await runCli(() => runStackspec(['serve', '--port', 'http'], io), io)).toBe(2);
    expect(
      await runCli(
        () => runStackspec(['serve', '--data-dir', 'x', '--database-url', 'postgres://x'], io),
        io,
      ),
    ).toBe(2);
  });
});
