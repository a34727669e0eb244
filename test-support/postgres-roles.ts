// Least privilege on the real PostgreSQL: a database of its own with two
// roles, an owner that creates the tables and a service role that may only
// connect until the owner grants it rights on rows. Nothing reaches either
// role through PUBLIC, so a test sees exactly the rights a README lists.
// The caller passes its `pg` Client class, as with ./postgres.ts.
import { POSTGRES_URL } from './postgres.js';

/** The part of a `pg.Client` these helpers use. */
export interface RowsClient {
  connect(): Promise<unknown>;
  query(sql: string): Promise<{ rows: Record<string, unknown>[] }>;
  end(): Promise<unknown>;
}

/** A client class such as `pg.Client`. */
export type RowsClientClass = new (config: {
  connectionString: string;
  connectionTimeoutMillis?: number;
}) => RowsClient;

/** Runs `text` at `url` on a connection of its own, and answers the rows (undefined for several statements). */
export async function runSql(
  Client: RowsClientClass,
  url: string,
  text: string,
): Promise<Record<string, unknown>[]> {
  const client = new Client({ connectionString: url, connectionTimeoutMillis: 10_000 });
  await client.connect();
  try {
    return (await client.query(text)).rows;
  } finally {
    await client.end();
  }
}

/** The SQLSTATE with which `text` fails at `url` (`42501`), or undefined when it succeeds. */
export function sqlErrorCode(
  Client: RowsClientClass,
  url: string,
  text: string,
): Promise<string | undefined> {
  return runSql(Client, url, text).then(
    () => undefined,
    (e: { code?: string }) => e.code,
  );
}

/** A database with an owner and a service role, from {@link createRoleDatabase}. */
export interface RoleDatabase {
  /** Names: `<prefix>_roles_<tag>`, `<prefix>_owner_<tag>`, `<prefix>_service_<tag>`. */
  readonly database: string;
  readonly owner: string;
  readonly service: string;
  /** The URL of `db` (default the test's database) as `user`, without a password. */
  urlAs(user: string, db?: string): string;
  /** {@link runSql} with the caller's client class. */
  sql(url: string, text: string): Promise<Record<string, unknown>[]>;
  /** {@link sqlErrorCode} with the caller's client class. */
  sqlError(url: string, text: string): Promise<string | undefined>;
  /**
   * Creates both roles and the database owned by the owner; revokes what
   * PUBLIC has on the database and on its schema `public`; lets the service
   * role connect, and nothing else.
   */
  create(): Promise<void>;
  /** Drops the database (ending its connections) and both roles. */
  drop(): Promise<void>;
}

/**
 * Names a database and two roles unique to this process (`prefix` tells
 * whose they are, `dt`, `pq`), made by `create()` and removed by `drop()`
 * through the superuser at `url`.
 *
 * @example
 * const roles = createRoleDatabase(pg.Client, 'pq');
 * beforeAll(() => roles.create());
 * afterAll(() => roles.drop());
 */
export function createRoleDatabase(
  Client: RowsClientClass,
  prefix: string,
  url = POSTGRES_URL,
): RoleDatabase {
  const tag = `${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
  const database = `${prefix}_roles_${tag}`;
  const owner = `${prefix}_owner_${tag}`;
  const service = `${prefix}_service_${tag}`;
  const urlAs = (user: string, db = database) =>
    Object.assign(new URL(url), { username: user, password: '', pathname: `/${db}` }).href;
  const sql = (at: string, text: string) => runSql(Client, at, text);
  return {
    database,
    owner,
    service,
    urlAs,
    sql,
    sqlError: (at, text) => sqlErrorCode(Client, at, text),
    async create() {
      await sql(url, `CREATE ROLE "${owner}" LOGIN`);
      await sql(url, `CREATE ROLE "${service}" LOGIN`);
      await sql(url, `CREATE DATABASE "${database}" OWNER "${owner}"`);
      const superuser = urlAs('postgres');
      await sql(superuser, `REVOKE ALL ON DATABASE "${database}" FROM PUBLIC`);
      await sql(superuser, 'REVOKE ALL ON SCHEMA public FROM PUBLIC');
      await sql(superuser, `GRANT CONNECT ON DATABASE "${database}" TO "${service}"`);
    },
    async drop() {
      await sql(url, `DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
      await sql(url, `DROP ROLE IF EXISTS "${service}"`);
      await sql(url, `DROP ROLE IF EXISTS "${owner}"`);
    },
  };
}
