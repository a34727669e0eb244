// Least privilege on the real PostgreSQL, as the README describes it: an
// owner role creates the tables with `stackspec-placement migrate`, and a
// service role that may only read and write rows (USAGE on the schema and
// its sequences; SELECT, INSERT, UPDATE, DELETE on its tables) serves with
// `serve --no-migrate`, imports and exports. The commands run as separate
// processes and read the database from STACKSPEC_DATABASE_URL, as a
// deployment would. The file owns a database and two roles and drops them.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ensurePostgres, POSTGRES_URL } from '../../../test-support/postgres.js';
import { createRoleDatabase } from '../../../test-support/postgres-roles.js';
import { LATEST_SCHEMA_VERSION } from '../src/store/schema.js';
import { callPlacement as call } from './support/placement-api.js';
import { type PlacementServer, runPlacement, startServer } from './support/serve-process.js';

const available = await ensurePostgres(pg.Client);
const roles = createRoleDatabase(pg.Client, 'pq');
const { database, owner, service, urlAs, sql, sqlError } = roles;
const where = () => {
  const u = new URL(POSTGRES_URL);
  return `PostgreSQL at ${u.hostname}:${u.port || 5432}/${database}, schema placement`;
};

let cwd: string;
const servers: PlacementServer[] = [];
const as = (user: string) => ({ STACKSPEC_DATABASE_URL: urlAs(user) });

describe.runIf(available)('PostgreSQL with an owner that migrates and a service role that serves', () => {
  beforeAll(async () => {
    cwd = mkdtempSync(join(tmpdir(), 'pq-roles-'));
    // Nothing through PUBLIC: the service role gets exactly what the README lists.
    await roles.create();
  });
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => s.kill9()));
  });
  afterAll(async () => {
    rmSync(cwd, { recursive: true, force: true });
    await roles.drop();
  });

  it('refuses to serve a database that was not migrated, saying what to run', async () => {
    const early = await runPlacement(['serve', '--port', '0', '--no-migrate'], cwd, as(service));
    expect(early.code).not.toBe(0);
    expect(early.err).toContain('The schema placement does not exist');
    expect(early.err).toContain('Run stackspec-placement migrate with a role that may create tables');
    expect(early.err).not.toContain('Placement API');
  }, 60_000);

  it('migrates as the owner, once', async () => {
    const first = await runPlacement(['migrate'], cwd, as(owner));
    expect(first.code, first.err).toBe(0);
    expect(first.out).toBe(
      `Migrated the Placement tables (${where()}) to version ${LATEST_SCHEMA_VERSION}: applied 1 (placement tables and the change log).\n`,
    );
    const again = await runPlacement(['migrate'], cwd, as(owner));
    expect(again.out).toBe(
      `The Placement tables (${where()}) are at version ${LATEST_SCHEMA_VERSION} already; nothing to do.\n`,
    );
    // The rights the README lists for the service role, granted by the owner of the tables.
    await sql(
      urlAs(owner),
      `GRANT USAGE ON SCHEMA placement TO "${service}";
       GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA placement TO "${service}";
       GRANT USAGE ON ALL SEQUENCES IN SCHEMA placement TO "${service}"`,
    );
    // 42501: insufficient_privilege. The service role cannot change the schema.
    expect(await sqlError(urlAs(service), 'CREATE TABLE placement.anything (id int)')).toBe('42501');
    expect(await sqlError(urlAs(service), 'CREATE SCHEMA IF NOT EXISTS placement')).toBe('42501');
  }, 60_000);

  it('serves as the service role with --no-migrate: providers, inventories, allocations', async () => {
    const server = await startServer(['--no-migrate', '--pool-size', '4'], cwd, as(service));
    servers.push(server);
    expect(server.err()).toContain(`State kept in ${where()}: writes survive a restart`);
    const uuid = randomUUID();
    expect((await call(server.url, 'POST', '/resource_providers', { name: 'least', uuid })).status).toBe(200);
    const inv = await call(server.url, 'PUT', `/resource_providers/${uuid}/inventories`, {
      resource_provider_generation: 0,
      inventories: { VCPU: { total: 4 } },
    });
    expect(inv.status).toBe(200);
    const allocated = await call(server.url, 'PUT', `/allocations/${randomUUID()}`, {
      allocations: { [uuid]: { resources: { VCPU: 2 } } },
      project_id: 'p',
      user_id: 'u',
      consumer_generation: null,
      consumer_type: 'INSTANCE',
    });
    expect(allocated.status).toBe(204);
    expect((await call(server.url, 'PUT', '/traits/CUSTOM_LEAST')).status).toBe(201);
    expect((await call(server.url, 'GET', `/resource_providers/${uuid}/usages`)).body).toMatchObject({
      usages: { VCPU: 2 },
    });
  }, 120_000);

  it('imports and exports as the service role', async () => {
    const file = join(cwd, 'cloud.yaml');
    writeFileSync(file, 'providers:\n  - name: imported\n    inventories:\n      VCPU: 8\n');
    const refused = await runPlacement(['import', '-i', file], cwd, as(service));
    expect(refused.code).not.toBe(0);
    expect(refused.err).toContain('already holds 1 providers');
    const imported = await runPlacement(['import', '-i', file, '--replace'], cwd, as(service));
    expect(imported.code, imported.err).toBe(0);
    expect(imported.out).toBe(
      `Imported 1 providers and 0 consumers into ${where()} (replacing 1 providers).\n`,
    );
    const exported = await runPlacement(['export', '-f', 'json', '-o', 'out.json'], cwd, as(service));
    expect(exported.code, exported.err).toBe(0);
    const back = JSON.parse(readFileSync(join(cwd, 'out.json'), 'utf8')) as {
      providers: { name: string; inventories: Record<string, unknown> }[];
    };
    expect(back.providers.map((p) => p.name)).toEqual(['imported']);
  }, 120_000);
});
