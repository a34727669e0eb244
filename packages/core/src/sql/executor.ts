// The little a store needs from a PostgreSQL driver, as structural types:
// core depends on neither `pg` nor PGlite, and each package passes its own
// driver in. Both drivers answer `query(text, params)` with `rows`, and one
// of `rowCount` (pg, PGlite) or `affectedRows` (PGlite, for writes).

/** Something that runs one SQL statement with `$1`-style parameters. */
export interface SqlQueryable {
  query<T = Record<string, unknown>>(text: string, params?: readonly unknown[]): Promise<{ rows: T[] }>;
}

/** A {@link SqlQueryable} that also runs a function in one transaction. */
export interface SqlTransactional extends SqlQueryable {
  /** Runs `fn` in one transaction: committed when it resolves, rolled back when it throws. */
  transaction<T>(fn: (tx: SqlQueryable) => Promise<T>): Promise<T>;
}

/** The rows of a statement and how many rows it returned or changed. */
export interface SqlRowsResult<T> {
  rows: T[];
  rowCount: number;
}

/** A {@link SqlQueryable} whose answers carry a row count. */
export interface SqlExecutor {
  query<T = Record<string, unknown>>(text: string, params?: readonly unknown[]): Promise<SqlRowsResult<T>>;
}

/** What a driver's own `query` answers: `pg`'s `QueryResult` and PGlite's `Results` both fit. */
export interface DriverQueryResult {
  rows: unknown[];
  rowCount?: number | null;
  affectedRows?: number;
}

/** A driver connection, pool or transaction as it comes (a `pg.Pool`, a `pg.PoolClient`, a PGlite). */
export interface DriverQueryable {
  query(text: string, params: unknown[]): Promise<DriverQueryResult>;
}

/**
 * Adapts a driver's connection, pool or transaction to a {@link SqlExecutor}.
 * The row count is the driver's `rowCount`, else its `affectedRows`, else
 * the number of rows returned; parameters are copied into a fresh array,
 * since drivers take a mutable one.
 *
 * @example
 * const executor = sqlExecutorOf(pool); // a pg.Pool
 * const { rows } = await executor.query<{ n: number }>('SELECT $1::int AS n', [1]);
 */
export function sqlExecutorOf(client: DriverQueryable): SqlExecutor {
  return {
    async query<T>(text: string, params: readonly unknown[] = []) {
      const r = await client.query(text, [...params]);
      return { rows: r.rows as T[], rowCount: r.rowCount ?? r.affectedRows ?? r.rows.length };
    },
  };
}
