import { SpecError } from '@stackspec/core';
import {
  createPostgresPool,
  findPoolOptionProblem,
  runPoolTransaction,
  sqlExecutorOf,
} from '@stackspec/core/sql';
import pg from 'pg';
import {
  createSqlStore,
  type SqlDeployTemplateStore,
  type SqlDriver,
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
  const bad = findPoolOptionProblem(options);
  if (bad) {
    const message = `${bad.option} must be an integer of at least ${bad.min}, but it is ${String(bad.value)}.`;
    throw new SpecError(message, { code: 'deploy-templates/bad-option' });
  }
  // A pool the store creates reports, rather than throws, errors of idle connections.
  const pool = options.pool ?? createPostgresPool(pg.Pool, options);
  const driver: SqlDriver = {
    query: (sql, params) => sqlExecutorOf(pool).query(sql, params),
    transaction: (fn) => runPoolTransaction(pool, fn),
    async close() {
      if (!options.pool) await pool.end();
    },
  };
  return createSqlStore(driver, options);
}
