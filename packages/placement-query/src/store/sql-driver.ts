/** Something that runs one SQL statement with `$1`-style parameters. */
export interface SqlExecutor {
  query<T = Record<string, unknown>>(
    sql: string,
    params?: readonly unknown[],
  ): Promise<{ rows: T[]; rowCount: number }>;
}

/** Callbacks of a {@link SqlListener}. */
export interface SqlListenHandlers {
  /** A `NOTIFY` on the channel arrived (its payload). */
  onNotify(payload: string): void;
  /** The listening connection came up (`up`) or went down, with why, as a sentence. */
  onState(up: boolean, reason?: string): void;
}

/** A connection that listens for `NOTIFY`; it reconnects by itself after a failure. */
export interface SqlListener {
  /** Runs a query on the listening connection (so that it also proves the connection alive). */
  query: SqlExecutor['query'];
  close(): Promise<void>;
}

/** A PostgreSQL connection (PGlite or `pg`) as the durable Placement needs it. */
export interface SqlDriver extends SqlExecutor {
  readonly kind: 'pglite' | 'postgres';
  /** Where the database is, in words, with no password (for banners and health). */
  readonly description: string;
  /**
   * Runs `fn` in one transaction: committed when it resolves, rolled back
   * when it throws. `snapshot`: one consistent read-only view of the whole
   * database for its duration (REPEATABLE READ).
   */
  transaction<T>(fn: (tx: SqlExecutor) => Promise<T>, options?: { snapshot?: boolean }): Promise<T>;
  /** Listens on `channel` over a connection of its own, reconnecting after failures. */
  listen(channel: string, handlers: SqlListenHandlers): Promise<SqlListener>;
  close(): Promise<void>;
}
