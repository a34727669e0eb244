import pg from 'pg';
import {
  createSqlStore,
  type SqlDriver,
  type SqlExecutor,
  type SqlStoreOptions,
} from '../store/sql-store.js';
import type { DeployTemplateStore } from '../store/types.js';

/** Options for {@link createPostgresStore}. */
export interface PostgresStoreOptions extends SqlStoreOptions {
  /** `postgres://user@host:5432/db`; ignored when `pool` is given. */
  connectionString?: string;
  /** A `pg` pool to use (not ended by the store). */
  pool?: pg.Pool;
  /** Largest number of connections of the pool the store creates (default 10). */
  maxConnections?: number;
  /** How long the pool the store creates waits for a connection, in milliseconds (default 10000). */
  connectionTimeoutMillis?: number;
}

/**
 * A store on a PostgreSQL server through `pg`, for real deployments:
 * connection pooling, row locks for modifications, unique constraints that
 * decide races between concurrent creates. Tables are created on first use.
 *
 * @example
 * import { createPostgresStore } from '@stackspec/deploy-templates/postgres';
 * const store = createPostgresStore({ connectionString: 'postgres://ironic@db/ironic' });
 */
export function createPostgresStore(options: PostgresStoreOptions = {}): DeployTemplateStore {
  const pool =
    options.pool ??
    new pg.Pool({
      ...(options.connectionString ? { connectionString: options.connectionString } : {}),
      max: options.maxConnections ?? 10,
      // A server that never answers must end in an error, not a hang.
      connectionTimeoutMillis: options.connectionTimeoutMillis ?? 10_000,
    });
  const owned = !options.pool;
  // An idle connection dropped by the server must not crash the process; the next query reconnects.
  if (owned) pool.on('error', () => undefined);
  const wrap = (client: pg.Pool | pg.PoolClient): SqlExecutor => ({
    async query<T>(sql: string, params: readonly unknown[] = []) {
      const r = await client.query(sql, [...params]);
      return { rows: r.rows as T[] };
    },
  });
  const driver: SqlDriver = {
    query: (sql, params) => wrap(pool).query(sql, params),
    async transaction(fn) {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        const out = await fn(wrap(client));
        await client.query('COMMIT');
        return out;
      } catch (e) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw e;
      } finally {
        client.release();
      }
    },
    async close() {
      if (owned) await pool.end();
    },
  };
  return createSqlStore(driver, options);
}
