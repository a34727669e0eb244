// Starts the local PostgreSQL cluster when it is down and hands each test a
// schema of its own. CI sets STACKSPEC_REQUIRE_ORACLES=1, which turns an
// unavailable server into a failure instead of a skip.
import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import pg from 'pg';

export const POSTGRES_URL = process.env.STACKSPEC_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

async function canConnect(): Promise<boolean> {
  const client = new pg.Client({ connectionString: POSTGRES_URL, connectionTimeoutMillis: 2000 });
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

/** True when PostgreSQL answers (after starting the local cluster if needed). */
export async function ensurePostgres(): Promise<boolean> {
  if (await canConnect()) return true;
  try {
    const version = readdirSync('/etc/postgresql')[0];
    if (version) {
      execFileSync('pg_ctlcluster', ['--skip-systemctl-redirect', version, 'main', 'start'], {
        stdio: 'ignore',
      });
    }
  } catch {
    // fall through to the availability check
  }
  for (let i = 0; i < 30; i += 1) {
    if (await canConnect()) return true;
    await new Promise((r) => setTimeout(r, 500));
  }
  const message = `PostgreSQL is not reachable at ${POSTGRES_URL}`;
  if (process.env.STACKSPEC_REQUIRE_ORACLES) throw new Error(message);
  console.warn(`skipping: ${message}`);
  return false;
}

/** A fresh schema name; drop it with {@link dropSchema}. */
export function schemaName(prefix: string): string {
  return `${prefix}_${process.pid}_${Math.random().toString(36).slice(2, 10)}`;
}

export async function dropSchema(schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: POSTGRES_URL });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  } finally {
    await client.end();
  }
}
