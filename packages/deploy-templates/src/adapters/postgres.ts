import { describeError, SpecError } from '@stackspec/core';
import pg from 'pg';
import {
  createSqlStore,
  type SqlDeployTemplateStore,
  type SqlDriver,
  type SqlExecutor,
  type SqlStoreOptions,
} from '../store/sql-store.js';

export type { MigrationResult, SqlDeployTemplateStore } from '../store/sql-store.js';

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
  /**
   * Longest time one statement may run, in milliseconds, before PostgreSQL
   * cancels it (its `statement_timeout`, set on each connection of the pool
   * the store creates); 0 or omitted: the server's setting. A cancelled
   * statement fails that request with `deploy-templates/storage` (500).
   */
  statementTimeoutMillis?: number;
  /**
   * Operational messages, one sentence each (default: nowhere): errors of
   * idle connections of the pool the store creates (a server restart, a
   * dropped connection). Such a connection is discarded and the next query
   * opens another, so these are reported rather than thrown.
   */
  log?: (line: string) => void;
}

function checkCount(name: string, value: number | undefined, min: number): void {
  if (value === undefined || (Number.isInteger(value) && value >= min)) return;
  throw new SpecError(`${name} must be an integer of at least ${min}, but it is ${String(value)}.`, {
    code: 'deploy-templates/bad-option',
  });
}

/**
 * A store on a PostgreSQL server through `pg`, for real deployments:
 * connection pooling, row locks for modifications, unique constraints that
 * decide races between concurrent creates. What is missing of the schema is
 * created on first use; with `migrate: false` it is only checked, so that
 * the serving role needs no right to create anything: the owner runs
 * `store.migrate()` (`stackspec-baremetal migrate`) once per upgrade.
 * Throws `SpecError` (`deploy-templates/bad-option`) for a pool size or a
 * timeout that is not a whole number in range.
 *
 * @example
 * import { createPostgresStore } from '@stackspec/deploy-templates/postgres';
 * // As the owner, once per upgrade:
 * const owner = createPostgresStore({ connectionString: 'postgres://ironic_owner@db/ironic' });
 * await owner.migrate();
 * await owner.close();
 * // As the service:
 * const store = createPostgresStore({
 *   connectionString: process.env.STACKSPEC_DATABASE_URL,
 *   migrate: false,
 *   maxConnections: 20,
 *   statementTimeoutMillis: 30_000,
 *   log: (line) => console.warn(line),
 * });
 */
export function createPostgresStore(options: PostgresStoreOptions = {}): SqlDeployTemplateStore {
  checkCount('maxConnections', options.maxConnections, 1);
  checkCount('connectionTimeoutMillis', options.connectionTimeoutMillis, 0);
  checkCount('statementTimeoutMillis', options.statementTimeoutMillis, 0);
  const pool =
    options.pool ??
    new pg.Pool({
      ...(options.connectionString ? { connectionString: options.connectionString } : {}),
      max: options.maxConnections ?? 10,
      // A server that never answers must end in an error, not a hang.
      connectionTimeoutMillis: options.connectionTimeoutMillis ?? 10_000,
      ...(options.statementTimeoutMillis ? { statement_timeout: options.statementTimeoutMillis } : {}),
    });
  const owned = !options.pool;
  // An idle connection dropped by the server must not crash the process (pg
  // emits 'error' on the pool, fatal without a listener); the pool discards
  // it and the next query connects again. Reported, not swallowed.
  if (owned) {
    pool.on('error', (e) => {
      options.log?.(
        `A PostgreSQL connection of the pool failed while idle and was discarded: ${describeError(e)}`,
      );
    });
  }
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
