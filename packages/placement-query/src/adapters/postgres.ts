import { describeError, SpecError } from '@stackspec/core';
import {
  createPostgresPool,
  findPoolOptionProblem,
  quoteIdent,
  runPoolTransaction,
  sqlExecutorOf,
} from '@stackspec/core/sql';
import pg from 'pg';
import type { SqlDriver, SqlListener, SqlListenHandlers } from '../store/sql-driver.js';
import { createSqlPlacementStore, type SqlPlacementStore, type SqlStoreOptions } from '../store/sql-store.js';

export type {
  ImportResult,
  MigrationResult,
  SqlPlacementStore,
  SqlStoreOptions,
} from '../store/sql-store.js';

/** Options for {@link createPostgresPlacementStore}. */
export interface PostgresPlacementStoreOptions extends SqlStoreOptions {
  /** `postgres://user@host:5432/db`; ignored when `pool` is given. */
  connectionString?: string;
  /** A `pg` pool to use (not ended by the store); the listening connection takes its settings. */
  pool?: pg.Pool;
  /** Largest number of connections of the pool the store creates (default 10). */
  maxConnections?: number;
  /** How long to wait for a connection, in milliseconds (default 10000). */
  connectionTimeoutMillis?: number;
  /**
   * Longest time one statement may run, in milliseconds, before PostgreSQL
   * cancels it (its `statement_timeout`, on each connection the store
   * opens); 0 or omitted: the server's setting. A cancelled statement fails
   * that request with 503.
   */
  statementTimeoutMillis?: number;
  /** `application_name` of the store's connections (default `stackspec-placement`), as `pg_stat_activity` shows it. */
  applicationName?: string;
}

/** `postgres://user@host:5432/db` without its password, for banners and health. */
export function describePostgresUrl(url: string | undefined): string {
  if (!url) return 'PostgreSQL (from PG* environment variables)';
  try {
    const u = new URL(url);
    return `PostgreSQL at ${u.hostname}${u.port ? `:${u.port}` : ''}${u.pathname}`;
  } catch {
    return 'PostgreSQL';
  }
}

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms).unref?.());

/**
 * A durable Placement on a PostgreSQL server through `pg`, shared by any
 * number of servers: each locks the rows of its writes, and follows the
 * others' writes through a change log (woken by `LISTEN/NOTIFY` on a
 * connection of its own, which reconnects by itself). While that connection
 * is down the server answers reads with 503, and catches up once it is back.
 * What is missing of the schema is created on first use; with
 * `migrate: false` it is only checked, so that the serving role needs no
 * right to create anything. Throws `SpecError` (`placement-query/bad-option`)
 * for a pool size or a timeout that is not a whole number in range.
 *
 * @example
 * import { createPostgresPlacementStore } from '@stackspec/placement-query/postgres';
 * const placement = createPostgresPlacementStore({
 *   connectionString: process.env.STACKSPEC_DATABASE_URL,
 *   migrate: false,
 *   maxConnections: 20,
 * });
 * await placement.open();
 */
export function createPostgresPlacementStore(options: PostgresPlacementStoreOptions = {}): SqlPlacementStore {
  const bad = findPoolOptionProblem(options);
  if (bad) {
    const message = `${bad.option} must be an integer of at least ${bad.min}, but it is ${String(bad.value)}.`;
    throw new SpecError(message, { code: 'placement-query/bad-option' });
  }
  const connectionTimeoutMillis = options.connectionTimeoutMillis ?? 10_000;
  const applicationName = options.applicationName ?? 'stackspec-placement';
  // A pool the store creates reports, rather than throws, errors of idle connections.
  const pool = options.pool ?? createPostgresPool(pg.Pool, { ...options, applicationName });
  const heartbeat = options.heartbeatMillis ?? 1000;
  const listenTimeout = Math.max(2000, 2 * heartbeat);
  const driver: SqlDriver = {
    kind: 'postgres',
    description: describePostgresUrl(
      options.connectionString ?? (options.pool?.options.connectionString as string),
    ),
    query: (sql, params) => sqlExecutorOf(pool).query(sql, params),
    transaction: (fn, txOptions = {}) =>
      runPoolTransaction(
        pool,
        fn,
        txOptions.snapshot ? 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY' : 'BEGIN',
      ),
    async listen(channel: string, handlers: SqlListenHandlers): Promise<SqlListener> {
      let client: pg.Client | undefined;
      let closed = false;
      let reconnecting = false;
      const connect = async (): Promise<void> => {
        const c = new pg.Client({
          ...(pool.options as pg.ClientConfig),
          application_name: `${applicationName} (listening)`,
          keepAlive: true,
          keepAliveInitialDelayMillis: 1000,
          connectionTimeoutMillis: Math.min(connectionTimeoutMillis, listenTimeout),
          // A query the server never answers (a dead link) fails, and the connection is replaced.
          query_timeout: listenTimeout,
        });
        c.on('notification', (n) => {
          if (n.channel === channel) handlers.onNotify(n.payload ?? '');
        });
        c.on('error', (e) => lost(c, describeError(e)));
        c.on('end', () => lost(c, 'the server closed the connection'));
        try {
          await c.connect();
          await c.query(`LISTEN ${quoteIdent(channel)}`);
        } catch (e) {
          c.removeAllListeners('end');
          await c.end().catch(() => undefined);
          throw e;
        }
        client = c;
      };
      const reconnect = async (): Promise<void> => {
        if (reconnecting) return;
        reconnecting = true;
        let wait = 100;
        try {
          while (!closed && !client) {
            await sleep(wait);
            try {
              await connect();
              handlers.onState(true);
            } catch {
              wait = Math.min(wait * 2, 2000);
            }
          }
        } finally {
          reconnecting = false;
        }
      };
      const lost = (c: pg.Client, reason: string): void => {
        if (client !== c) return;
        client = undefined;
        c.removeAllListeners('end');
        void c.end().catch(() => undefined);
        if (closed) return;
        handlers.onState(false, reason);
        void reconnect();
      };
      await connect();
      return {
        async query<T>(sql: string, params: readonly unknown[] = []) {
          const c = client;
          if (!c) throw new Error('the listening connection is down');
          try {
            return await sqlExecutorOf(c).query<T>(sql, params);
          } catch (e) {
            // No answer in time: the link is dead even if the socket has not noticed.
            if (/timeout/i.test(describeError(e))) lost(c, `no answer within ${listenTimeout} ms`);
            throw e;
          }
        },
        async close() {
          closed = true;
          const c = client;
          client = undefined;
          if (c) {
            c.removeAllListeners('end');
            await c.end().catch(() => undefined);
          }
        },
      };
    },
    async close() {
      if (!options.pool) await pool.end();
    },
  };
  return createSqlPlacementStore(driver, options);
}
