import { PGlite } from '@electric-sql/pglite';
import { type DirLock, lockDirectory } from '@stackspec/core/node';
import {
  createSqlStore,
  type SqlDeployTemplateStore,
  type SqlDriver,
  type SqlExecutor,
  type SqlStoreOptions,
} from '../store/sql-store.js';

export type { MigrationResult, SqlDeployTemplateStore } from '../store/sql-store.js';

/** Options for {@link createPgliteStore}. */
export interface PgliteStoreOptions extends SqlStoreOptions {
  /** Directory for the database files (created when missing); omitted: in memory (lost on close). */
  dataDir?: string;
  /** An open PGlite instance to use instead (not closed by the store, not locked). */
  db?: PGlite;
  /**
   * Operational messages, one sentence each (default: nowhere): the takeover
   * of a data directory's lock left by a process that ended without
   * releasing it.
   */
  log?: (line: string) => void;
}

/**
 * The embedded default store: PostgreSQL compiled to WebAssembly (PGlite),
 * in memory or in a data directory, with nothing to install or run.
 * Tables are created on first use.
 *
 * PGlite has no locking between processes, and two processes on one data
 * directory corrupt it. So the store locks the directory (core's
 * `lockDirectory`, a `.stackspec.lock` file in it) when it first opens it,
 * before PGlite starts, and releases the lock once PGlite is closed (or
 * when the process exits). While another process holds the directory, every
 * operation fails with core's `ConflictError` `store/locked`, naming that
 * process; a lock left by a process that was killed is taken over, and
 * `log` is told.
 *
 * Its own entry, `@stackspec/deploy-templates/pglite`, so that only
 * importers of this adapter load PGlite (several megabytes of WebAssembly).
 *
 * @example
 * import { createPgliteStore } from '@stackspec/deploy-templates/pglite';
 * const store = createPgliteStore({ dataDir: './templates-db' });
 * await store.create({ uuid, name: 'CUSTOM_RAID1', steps, extra: {} });
 * await store.close();
 */
export function createPgliteStore(options: PgliteStoreOptions = {}): SqlDeployTemplateStore {
  const owned = !options.db;
  let db: PGlite | undefined = options.db;
  let lock: DirLock | undefined;
  let opening: Promise<PGlite> | undefined;
  let closed = false;
  const start = async (): Promise<PGlite> => {
    if (!options.dataDir) return PGlite.create({});
    const held = lockDirectory(options.dataDir, { onTakeover: (message) => options.log?.(message) });
    try {
      const d = await PGlite.create({ dataDir: options.dataDir });
      lock = held;
      return d;
    } catch (e) {
      held.release();
      throw e;
    }
  };
  const open = (): Promise<PGlite> => {
    if (db) return Promise.resolve(db);
    // Opening again would take the directory's lock again, and nothing would release it.
    if (closed) return Promise.reject(new Error('the store is closed'));
    opening ??= start().then(
      (d) => {
        db = d;
        return d;
      },
      (e: unknown) => {
        // A later call may try again (the holder of the lock may have stopped meanwhile).
        opening = undefined;
        throw e;
      },
    );
    return opening;
  };
  const wrap = (q: { query: PGlite['query'] }): SqlExecutor => ({
    async query<T>(sql: string, params: readonly unknown[] = []) {
      const r = await q.query<T>(sql, [...params]);
      return { rows: r.rows };
    },
  });
  const driver: SqlDriver = {
    async query<T>(sql: string, params?: readonly unknown[]) {
      return wrap(await open()).query<T>(sql, params);
    },
    async transaction(fn) {
      const d = await open();
      return d.transaction((tx) => fn(wrap(tx)));
    },
    async close() {
      if (!owned || closed) return;
      closed = true;
      const pending = db ? Promise.resolve(db) : opening;
      if (!pending) return;
      let d: PGlite;
      try {
        d = await pending;
      } catch {
        // It never opened: nothing to close, no lock held.
        return;
      }
      try {
        await d.close();
      } finally {
        lock?.release();
        lock = undefined;
      }
    },
  };
  return createSqlStore(driver, options);
}
