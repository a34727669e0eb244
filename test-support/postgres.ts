// PostgreSQL for integration tests. On a clean Debian machine (the
// postgresql package just installed by .ci/run) the cluster may be down and
// the `test` database missing: ensurePostgres starts the cluster and creates
// the database, then gives each test a schema of its own. It never edits
// pg_hba.conf: when the server refuses the test user, the reason says what to
// change (as root, .ci/run lets `postgres` in from 127.0.0.1 without a
// password, and prints that it did). The caller passes its `pg` Client class,
// so this folder needs no dependency of its own (packages resolve `pg` from
// their own node_modules).
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { type Availability, isRoot, serviceAvailable } from './require.js';

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

/** Output of a finished command. */
export interface CommandResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** What {@link preparePostgres} does to the machine; a fake in tests. */
export interface PostgresHost {
  /** Runs a command to its end. */
  run(command: string, args: readonly string[]): CommandResult;
  /** Whether this process may act as the `postgres` user (it is root). */
  isRoot(): boolean;
  /** Whether a program exists. */
  exists(path: string): boolean;
  /** Waits between connection attempts while a cluster starts. */
  sleep(ms: number): Promise<void>;
}

/** The real machine. */
export const SYSTEM_HOST: PostgresHost = {
  run: (command, args) => {
    const r = spawnSync(command, args, { encoding: 'utf8', timeout: 120_000 });
    return { status: r.status, stdout: r.stdout ?? '', stderr: r.stderr || r.error?.message || '' };
  },
  isRoot,
  exists: existsSync,
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};

/** What {@link preparePostgres} found, and what it did on the way. */
export type PostgresReadiness = Availability & {
  /** Each step taken, in order ("started cluster 15/main", "created database test"). */
  actions: string[];
};

type Attempt = { ok: true } | { ok: false; code: string | undefined; message: string };

async function attempt(Client: SqlClientClass, url: string, sql = 'SELECT 1'): Promise<Attempt> {
  const client = new Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.query(sql);
    return { ok: true };
  } catch (e) {
    const error = e as { code?: unknown; message?: unknown };
    return {
      ok: false,
      code: typeof error.code === 'string' ? error.code : undefined,
      message: typeof error.message === 'string' ? error.message : String(e),
    };
  } finally {
    await client.end().catch(() => undefined);
  }
}

// Nothing listens, or the server is not ready yet (57P03: starting up).
const DOWN = new Set(['ECONNREFUSED', 'ENOENT', 'ECONNRESET', '57P03']);
const isDown = (a: Attempt) =>
  !a.ok && (DOWN.has(a.code ?? '') || /timeout|terminated unexpectedly/i.test(a.message));
// 28P01: wrong password; 28000: no pg_hba.conf line lets the user in, or the role does not exist.
const isRefused = (a: Attempt) =>
  !a.ok && (a.code === '28P01' || a.code === '28000' || /password/i.test(a.message));

function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** The cluster `pg_lsclusters` lists on `port`, as `[version, name, status]`. */
function clusterOn(host: PostgresHost, port: number): [string, string, string] | undefined {
  if (!host.exists('/usr/bin/pg_lsclusters')) return undefined;
  const r = host.run('pg_lsclusters', ['--no-header']);
  for (const line of r.stdout.split('\n')) {
    const [version, name, p, status] = line.trim().split(/\s+/);
    if (version && name && status && Number(p) === port) return [version, name, status];
  }
  return undefined;
}

/** Runs SQL as the `postgres` operating-system user over the local socket (peer authentication). */
function psqlAsPostgres(host: PostgresHost, port: number, sql: string): CommandResult {
  const psql = ['psql', '-X', '-q', '-v', 'ON_ERROR_STOP=1', '-p', String(port), '-d', 'postgres', '-c', sql];
  if (host.exists('/usr/sbin/runuser') || host.exists('/sbin/runuser')) {
    return host.run('runuser', ['-u', 'postgres', '--', ...psql]);
  }
  return host.run('su', ['postgres', '-c', psql.map((a) => `'${a.replaceAll("'", "'\\''")}'`).join(' ')]);
}

/**
 * Makes the PostgreSQL at `url` usable for tests, as far as it can without
 * touching its authentication rules: when nothing answers on a local address,
 * starts the `pg_lsclusters` cluster on that port (`pg_ctlcluster … start`,
 * as root or the postgres user) and waits up to 15 s for it; when the
 * database does not exist, creates it, first through `url`'s own user on the
 * `postgres` database, then (as root) as the `postgres` user over the local
 * socket. Never throws; a refusal says what to change.
 */
export async function preparePostgres(
  Client: SqlClientClass,
  url = POSTGRES_URL,
  host: PostgresHost = SYSTEM_HOST,
): Promise<PostgresReadiness> {
  const actions: string[] = [];
  const target = new URL(url);
  const port = Number(target.port || 5432);
  const database = decodeURIComponent(target.pathname.slice(1)) || 'postgres';
  const where = `${target.hostname}:${port}`;
  let a = await attempt(Client, url);

  if (isDown(a) && ['127.0.0.1', 'localhost', '[::1]'].includes(target.hostname)) {
    const cluster = clusterOn(host, port);
    if (!cluster) {
      return {
        ok: false,
        actions,
        reason: `nothing answers at ${where}, and no local cluster (pg_lsclusters) uses port ${port}`,
      };
    }
    const [version, name, status] = cluster;
    if (status !== 'online') {
      const r = host.run('pg_ctlcluster', ['--skip-systemctl-redirect', version, name, 'start']);
      // Another test file may have started it meanwhile.
      if (r.status !== 0 && clusterOn(host, port)?.[2] !== 'online') {
        return {
          ok: false,
          actions,
          reason: `cluster ${version}/${name} is ${status} and pg_ctlcluster could not start it (${r.stderr.trim() || `exit ${r.status}`}); start it as root or as the postgres user`,
        };
      }
      actions.push(
        r.status === 0
          ? `started cluster ${version}/${name}`
          : `cluster ${version}/${name} was started meanwhile`,
      );
    }
    // The cluster takes a moment to accept connections after pg_ctlcluster returns.
    for (let i = 0; i < 30 && isDown(a); i += 1) {
      await host.sleep(500);
      a = await attempt(Client, url);
    }
  }

  if (!a.ok && a.code === '3D000') {
    const create = `CREATE DATABASE ${quoteIdent(database)}`;
    const maintenance = Object.assign(new URL(url), { pathname: '/postgres' }).href;
    const own = await attempt(Client, maintenance, create);
    // 42P04: another test file created it meanwhile.
    if (own.ok || own.code === '42P04') {
      actions.push(`created database ${database}`);
    } else if (host.isRoot()) {
      const r = psqlAsPostgres(host, port, create);
      if (r.status === 0 || /already exists/.test(r.stderr)) {
        actions.push(`created database ${database} as the postgres user`);
      } else {
        return {
          ok: false,
          actions,
          reason: `database ${database} does not exist and could not be created: ${own.message}; as the postgres user: ${r.stderr.trim() || `exit ${r.status}`}`,
        };
      }
    } else {
      return {
        ok: false,
        actions,
        reason: `database ${database} does not exist and ${target.username || 'this user'} cannot create it (${own.message}); run createdb ${database} as the postgres user`,
      };
    }
    a = await attempt(Client, url);
  }

  if (a.ok) return { ok: true, actions };
  const user = decodeURIComponent(target.username) || 'the current user';
  if (!a.ok && a.code === '28000' && /role .* does not exist/.test(a.message)) {
    return {
      ok: false,
      actions,
      reason: `PostgreSQL at ${where} has no role ${user} (${a.message}); use the postgres user or create the role (createuser)`,
    };
  }
  if (isRefused(a)) {
    return {
      ok: false,
      actions,
      reason: `PostgreSQL at ${where} refuses ${user}: ${a.message}. Let ${user} in from ${target.hostname} without a password (pg_hba.conf: host all ${user} ${target.hostname === 'localhost' ? '127.0.0.1' : target.hostname}/32 trust; .ci/run adds it when run as root) or set STACKSPEC_PG_URL to a URL with a password`,
    };
  }
  return { ok: false, actions, reason: `nothing usable answers at ${where}: ${a.message}` };
}

/**
 * True when PostgreSQL answers at `url`, after {@link preparePostgres} has
 * started its cluster or created its database if needed. When it cannot be
 * used: false with the reason printed, or an error in CI, as
 * {@link serviceAvailable} decides.
 */
export async function ensurePostgres(
  Client: SqlClientClass,
  url = POSTGRES_URL,
  host: PostgresHost = SYSTEM_HOST,
): Promise<boolean> {
  const r = await preparePostgres(Client, url, host);
  for (const action of r.actions) console.warn(`PostgreSQL for tests: ${action}`);
  if (r.ok) return true;
  return serviceAvailable('PostgreSQL', r);
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
    await client.query(`DROP SCHEMA IF EXISTS ${quoteIdent(schema)} CASCADE`);
  } finally {
    await client.end();
  }
}
