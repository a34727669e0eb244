// PostgreSQL for integration tests: starts the local cluster when nothing
// answers on the test URL, and gives each test a schema of its own. The
// caller passes its `pg` Client class, so this folder needs no dependency of
// its own (packages resolve `pg` from their own node_modules).
import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { serviceAvailable } from './require.js';

/** Where tests find PostgreSQL (`STACKSPEC_PG_URL`, default the local cluster's `test` database). */
export const POSTGRES_URL = process.env.STACKSPEC_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** The part of a `pg.Client` these helpers use. */
export interface SqlClient {
  connect(): Promise<unknown>;
  query(sql: string): Promise<unknown>;
  end(): Promise<unknown>;
}

/** A client class such as `pg.Client`. */
export type SqlClientClass = new (config: {
  connectionString: string;
  connectionTimeoutMillis?: number;
}) => SqlClient;

async function canConnect(Client: SqlClientClass, url: string): Promise<boolean> {
  const client = new Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * True when PostgreSQL answers at `url`, after starting the local cluster
 * (`pg_ctlcluster`) if it was down. When it cannot be reached: false with
 * the reason printed, or an error in CI, as {@link serviceAvailable} decides.
 */
export async function ensurePostgres(Client: SqlClientClass, url = POSTGRES_URL): Promise<boolean> {
  if (await canConnect(Client, url)) return true;
  try {
    const version = readdirSync('/etc/postgresql')[0];
    if (version) {
      execFileSync('pg_ctlcluster', ['--skip-systemctl-redirect', version, 'main', 'start'], {
        stdio: 'ignore',
      });
    }
  } catch {
    // No local cluster to start: the checks below report it.
  }
  // The cluster takes a moment to accept connections after pg_ctlcluster returns.
  for (let i = 0; i < 30; i += 1) {
    if (await canConnect(Client, url)) return true;
    await new Promise((r) => setTimeout(r, 500));
  }
  return serviceAvailable('PostgreSQL', { ok: false, reason: `nothing answers at ${url}` });
}

/** A fresh schema name for one test; drop it with {@link dropSchema}. */
export function schemaName(prefix: string): string {
  return `${prefix}_${process.pid}_${Math.random().toString(36).slice(2, 10)}`;
}

/** Drops a schema made for a test, with everything in it. */
export async function dropSchema(Client: SqlClientClass, schema: string, url = POSTGRES_URL): Promise<void> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS "${schema.replaceAll('"', '""')}" CASCADE`);
  } finally {
    await client.end();
  }
}
