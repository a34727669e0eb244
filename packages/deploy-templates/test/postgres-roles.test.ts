// Least privilege on the real PostgreSQL: an owner role migrates with
// `stackspec-baremetal migrate`, and a service role that may only read and
// write rows (SELECT, INSERT, UPDATE, DELETE on the tables, USAGE on the
// schema and its sequences) serves. Before the migrations looked first,
// every start ran CREATE SCHEMA IF NOT EXISTS, which PostgreSQL refuses to
// such a role even when the schema exists. The commands run as separate
// processes and take the database URL from STACKSPEC_DATABASE_URL, as a
// deployment would (a password on the command line shows in ps). The file
// owns a database and two roles, and drops them at the end.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ensurePostgres, POSTGRES_URL } from '../../../test-support/postgres.js';
import { createRoleDatabase } from '../../../test-support/postgres-roles.js';
import { createPostgresStore } from '../src/adapters/postgres.js';
import { run, type Started, start } from './support/processes.js';

const available = await ensurePostgres(pg.Client);
const roles = createRoleDatabase(pg.Client, 'dt');
const { owner, service, urlAs, sql, sqlError } = roles;
const HEADERS = { 'X-OpenStack-Ironic-API-Version': '1.55', 'Content-Type': 'application/json' };
const STEPS = [{ interface: 'raid', step: 'create_configuration', args: {}, priority: 10 }];

let cwd: string;
const servers: Started[] = [];

async function serve(args: string[], user: string): Promise<{ server: Started; url: string }> {
  const server = start('stackspec-baremetal', ['serve', '--port', '0', ...args], {
    cwd,
    env: { STACKSPEC_DATABASE_URL: urlAs(user) },
  });
  servers.push(server);
  const [, url] = await server.waitFor(/on (http:\/\/\S+) \(/, 'stderr');
  return { server, url: url as string };
}

const post = (url: string, name: string) =>
  fetch(`${url}/v1/deploy_templates`, {
    method: 'POST',
    headers: HEADERS,
    body: JSON.stringify({ name, steps: STEPS }),
  });

describe.runIf(available)('PostgreSQL with an owner that migrates and a service role that serves', () => {
  beforeAll(async () => {
    cwd = mkdtempSync(join(tmpdir(), 'dt-roles-'));
    // Nothing through PUBLIC: the service role gets exactly what the README lists.
    await roles.create();
    await sql(urlAs('postgres'), `GRANT USAGE ON SCHEMA public TO "${service}"`);
  });
  afterEach(() => {
    for (const s of servers.splice(0)) s.child.kill('SIGKILL');
  });
  afterAll(async () => {
    rmSync(cwd, { recursive: true, force: true });
    await roles.drop();
  });

  it('the service role may not create anything, not even a schema that exists', async () => {
    // 42501: insufficient_privilege. This is what every start used to run.
    expect(await sqlError(urlAs(service), 'CREATE SCHEMA IF NOT EXISTS public')).toBe('42501');
    expect(await sqlError(urlAs(service), 'CREATE TABLE public.anything (id int)')).toBe('42501');
    // Serving an empty database as the service role fails before listening, saying what to run.
    const early = await run('stackspec-baremetal', ['serve', '--port', '0'], {
      cwd,
      env: { STACKSPEC_DATABASE_URL: urlAs(service) },
    });
    expect(early.code).toBe(1);
    expect(early.err).toContain('Cannot serve on 127.0.0.1:0 (store: PostgreSQL)');
    expect(early.err).toContain('permission denied');
    expect(early.err).toContain(
      'hint: The database role lacks a right: create or upgrade the tables with stackspec-baremetal migrate',
    );
    expect(early.ms).toBeLessThan(30_000);
  }, 60_000);

  it('migrates as the owner, once', async () => {
    const env = { STACKSPEC_DATABASE_URL: urlAs(owner) };
    const first = await run('stackspec-baremetal', ['migrate'], { cwd, env });
    expect(first).toMatchObject({
      code: 0,
      out: 'Migrated the deploy template tables (store: PostgreSQL, schema public) to version 1: applied 1 (deploy templates and their steps).\n',
    });
    const again = await run('stackspec-baremetal', ['migrate'], { cwd, env });
    expect(again.out).toBe(
      'The deploy template tables (store: PostgreSQL, schema public) are at version 1 already; nothing to do.\n',
    );
    // The rights the README lists for the service role, granted by the owner of the tables.
    await sql(
      urlAs(owner),
      `GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO "${service}";
       GRANT USAGE ON ALL SEQUENCES IN SCHEMA public TO "${service}"`,
    );
  }, 60_000);

  it('serves as the service role with --no-migrate: create, list, change, delete', async () => {
    const { url } = await serve(
      ['--no-migrate', '--pool-size', '4', '--statement-timeout', '10000'],
      service,
    );
    const created = await post(url, 'CUSTOM_LEAST');
    expect(created.status).toBe(201);
    const { uuid } = (await created.json()) as { uuid: string };
    expect((await post(url, 'CUSTOM_LEAST')).status).toBe(409);
    const listed = (await (await fetch(`${url}/v1/deploy_templates`, { headers: HEADERS })).json()) as {
      deploy_templates: { name: string }[];
    };
    expect(listed.deploy_templates.map((t) => t.name)).toEqual(['CUSTOM_LEAST']);
    const patched = await fetch(`${url}/v1/deploy_templates/${uuid}`, {
      method: 'PATCH',
      headers: HEADERS,
      body: JSON.stringify([{ op: 'add', path: '/extra/owner', value: 'ops' }]),
    });
    expect(patched.status).toBe(200);
    const deleted = await fetch(`${url}/v1/deploy_templates/${uuid}`, { method: 'DELETE', headers: HEADERS });
    expect(deleted.status).toBe(204);
    // The one-shot command reads the same variable.
    const listing = await run('stackspec-baremetal', ['deploy', 'template', 'list', '-f', 'json'], {
      cwd,
      env: { STACKSPEC_DATABASE_URL: urlAs(service) },
    });
    expect(listing).toMatchObject({ code: 0, out: '[]\n' });
  }, 120_000);

  it('serves as the service role without --no-migrate too, since nothing is missing', async () => {
    const plain = await serve([], service);
    expect((await post(plain.url, 'CUSTOM_PLAIN')).status).toBe(201);
    // stackspec serve reads STACKSPEC_DATABASE_URL as well, and keeps Placement's state
    // in the same database (schema placement): the owner migrates that too.
    const placement = await run('stackspec-placement', ['migrate'], {
      cwd,
      env: { STACKSPEC_DATABASE_URL: urlAs(owner) },
    });
    expect(placement.code, placement.err).toBe(0);
    await sql(
      urlAs(owner),
      `GRANT USAGE ON SCHEMA placement TO "${service}";
       GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA placement TO "${service}";
       GRANT USAGE ON ALL SEQUENCES IN SCHEMA placement TO "${service}"`,
    );
    const combined = start('stackspec', ['serve', '--port', '0', '--no-migrate'], {
      cwd,
      env: { STACKSPEC_DATABASE_URL: urlAs(service) },
    });
    servers.push(combined);
    const [, base] = await combined.waitFor(/stackspec serving on (http:\/\/\S+)\n/);
    const r = await fetch(`${base}/baremetal/v1/deploy_templates`, { headers: HEADERS });
    const body = (await r.json()) as { deploy_templates: { name: string }[] };
    expect(body.deploy_templates.map((t) => t.name)).toEqual(['CUSTOM_PLAIN']);
  }, 120_000);

  it('lets exactly one of many concurrent creates of one name win across two server processes', async () => {
    const [a, b] = await Promise.all([serve(['--no-migrate'], service), serve([], service)]);
    const responses = await Promise.all(
      Array.from({ length: 24 }, (_, i) => post(i % 2 ? a.url : b.url, 'CUSTOM_RACE')),
    );
    const statuses = responses.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(23);
    const rows = await sql(
      urlAs(owner),
      "SELECT count(*)::int AS n FROM deploy_templates WHERE name = 'CUSTOM_RACE'",
    );
    expect(rows).toEqual([{ n: 1 }]);
  }, 120_000);

  it('cancels a statement after the statement timeout instead of waiting on a lock', async () => {
    const blocker = new pg.Client({ connectionString: urlAs(owner) });
    await blocker.connect();
    const store = createPostgresStore({
      connectionString: urlAs(service),
      migrate: false,
      statementTimeoutMillis: 500,
    });
    try {
      await store.list();
      await blocker.query('BEGIN');
      await blocker.query('LOCK TABLE deploy_templates IN ACCESS EXCLUSIVE MODE');
      const started = Date.now();
      const e = (await store.list().catch((x: unknown) => x)) as Error & { code?: string };
      expect(e.code).toBe('deploy-templates/storage');
      expect(e.message).toContain('canceling statement due to statement timeout');
      expect(Date.now() - started).toBeLessThan(5000);
    } finally {
      await blocker.query('ROLLBACK').catch(() => undefined);
      await blocker.end();
      await store.close();
    }
  });

  it('reports an idle connection the server ends, and goes on with a new one', async () => {
    const lines: string[] = [];
    const store = createPostgresStore({
      connectionString: urlAs(service),
      migrate: false,
      log: (line) => lines.push(line),
    });
    try {
      await store.list();
      await sql(
        POSTGRES_URL,
        `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = '${service}'`,
      );
      for (let i = 0; i < 100 && !lines.length; i += 1)
        await new Promise((resolve) => setTimeout(resolve, 50));
      expect(lines).toEqual([
        expect.stringMatching(
          /^A PostgreSQL connection of the pool failed while idle and was discarded: terminating connection due to administrator command/,
        ),
      ]);
      expect(await store.list()).toEqual(expect.any(Array));
    } finally {
      await store.close();
    }
  });
});
