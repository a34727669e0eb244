import { PGlite } from '@electric-sql/pglite';
import { createLazyDatabase, openLockedDatabase, sqlExecutorOf } from '@stackspec/core/sql';
import {
  createSqlStore,
  type SqlDeployTemplateStore,
  type SqlDriver,
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
  const database = createLazyDatabase(
    () =>
      openLockedDatabase({
        ...(options.dataDir ? { dataDir: options.dataDir } : {}),
        open: (dataDir) => PGlite.create(dataDir ? { dataDir } : {}),
        ...(options.log ? { log: options.log } : {}),
      }),
    options.db,
  );
  const driver: SqlDriver = {
    async query<T>(sql: string, params?: readonly unknown[]) {
      return sqlExecutorOf(await database.get()).query<T>(sql, params);
    },
    async transaction(fn) {
      const db = await database.get();
      return db.transaction((tx) => fn(sqlExecutorOf(tx)));
    },
    close: () => database.close(),
  };
  return createSqlStore(driver, options);
}
