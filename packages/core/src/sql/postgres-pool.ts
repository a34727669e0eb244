// A `pg` pool as both stores set it up. The class comes from the caller, so
// that core does not depend on `pg`.
import { describeError } from '../errors.js';
import { type DriverQueryable, type SqlExecutor, sqlExecutorOf } from './executor.js';

/** How a store's own pool is sized and bounded. */
export interface PostgresPoolOptions {
  /** `postgres://user@host:5432/db`; omitted: the `PG*` environment variables. */
  connectionString?: string;
  /** Largest number of connections (default 10). */
  maxConnections?: number;
  /** How long to wait for a connection, in milliseconds (default 10000). */
  connectionTimeoutMillis?: number;
  /** PostgreSQL's `statement_timeout` on each connection, in milliseconds; 0 or omitted: the server's. */
  statementTimeoutMillis?: number;
  /** `application_name` of the connections, as `pg_stat_activity` shows it; omitted: the driver's. */
  applicationName?: string;
  /** Told, in a sentence, about each idle connection that failed and was discarded. */
  log?: (line: string) => void;
}

/** The configuration {@link createPostgresPool} gives the pool class (a subset of `pg.PoolConfig`). */
export interface PostgresPoolConfig {
  connectionString?: string;
  max: number;
  connectionTimeoutMillis: number;
  application_name?: string;
  statement_timeout?: number;
}

/** The part of a `pg.Pool` that reports errors of idle connections. */
export interface PoolErrorEvents {
  on(event: 'error', listener: (error: Error) => void): unknown;
}

/** A connection taken from a pool (a `pg.PoolClient`). */
export interface PooledConnection extends DriverQueryable {
  release(): void;
}

/** The part of a `pg.Pool` that hands out connections. */
export interface ConnectionPool {
  connect(): Promise<PooledConnection>;
}

/** A count of {@link PostgresPoolOptions} out of range, from {@link findPoolOptionProblem}. */
export interface PoolOptionProblem {
  option: 'maxConnections' | 'connectionTimeoutMillis' | 'statementTimeoutMillis';
  /** The least value allowed. */
  min: number;
  /** What was given. */
  value: unknown;
}

/**
 * The first count of `options` that is out of range, or `undefined`:
 * `maxConnections` must be a whole number of at least 1, the timeouts whole
 * numbers of at least 0. The caller words and codes its error (its
 * `<area>/bad-option`), so that the code stands beside its message.
 *
 * @example
 * const bad = findPoolOptionProblem(options);
 * if (bad) throw new SpecError(`${bad.option} must be a whole number of at least ${bad.min}.`, { code: MY_BAD_OPTION });
 */
export function findPoolOptionProblem(options: PostgresPoolOptions): PoolOptionProblem | undefined {
  const counts: [PoolOptionProblem['option'], number | undefined, number][] = [
    ['maxConnections', options.maxConnections, 1],
    ['connectionTimeoutMillis', options.connectionTimeoutMillis, 0],
    ['statementTimeoutMillis', options.statementTimeoutMillis, 0],
  ];
  for (const [option, value, min] of counts) {
    if (value === undefined || (Number.isInteger(value) && value >= min)) continue;
    return { option, min, value };
  }
  return undefined;
}

/**
 * Creates a pool with `Pool` (`pg.Pool`): at most `maxConnections`
 * connections (10), a connection wait that ends in an error after
 * `connectionTimeoutMillis` (10000) rather than hanging on a server that
 * never answers, and the statement timeout and application name when given.
 * An idle connection that fails (a server restart) is reported to `log` and
 * discarded by the pool, where `pg` would otherwise crash the process for an
 * unhandled `error` event. Check the options first with
 * {@link findPoolOptionProblem}.
 *
 * @example
 * const pool = options.pool ?? createPostgresPool(pg.Pool, options);
 */
export function createPostgresPool<P extends PoolErrorEvents>(
  Pool: new (config: PostgresPoolConfig) => P,
  options: PostgresPoolOptions,
): P {
  const pool = new Pool({
    ...(options.connectionString ? { connectionString: options.connectionString } : {}),
    max: options.maxConnections ?? 10,
    connectionTimeoutMillis: options.connectionTimeoutMillis ?? 10_000,
    ...(options.applicationName ? { application_name: options.applicationName } : {}),
    ...(options.statementTimeoutMillis ? { statement_timeout: options.statementTimeoutMillis } : {}),
  });
  pool.on('error', (e) => {
    options.log?.(
      `A PostgreSQL connection of the pool failed while idle and was discarded: ${describeError(e)}`,
    );
  });
  return pool;
}

/**
 * Runs `fn` in one transaction on a connection of `pool`: `begin` (default
 * `BEGIN`), then `COMMIT` when `fn` resolves, `ROLLBACK` when it throws (the
 * error of `fn` is what is thrown, whatever the rollback does); the
 * connection goes back to the pool either way.
 */
export async function runPoolTransaction<T>(
  pool: ConnectionPool,
  fn: (tx: SqlExecutor) => Promise<T>,
  begin = 'BEGIN',
): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query(begin, []);
    const out = await fn(sqlExecutorOf(client));
    await client.query('COMMIT', []);
    return out;
  } catch (e) {
    await client.query('ROLLBACK', []).catch(() => undefined);
    throw e;
  } finally {
    client.release();
  }
}
