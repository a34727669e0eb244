import { resolve } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { createLazyDatabase, openLockedDatabase, sqlExecutorOf } from '@stackspec/core/sql';
import type { SqlDriver } from '../store/sql-driver.js';
import { createSqlPlacementStore, type SqlPlacementStore, type SqlStoreOptions } from '../store/sql-store.js';

export type {
  ImportResult,
  MigrationResult,
  SqlPlacementStore,
  SqlStoreOptions,
} from '../store/sql-store.js';

/** An open PGlite database with the lock on its directory, to share between stores of one process. */
export interface PgliteDatabase {
  readonly db: PGlite;
  /** Where it is, in words (`PGlite in /var/lib/stackspec`, `PGlite in memory`). */
  readonly description: string;
  /** Closes PGlite, then releases the directory's lock. */
  close(): Promise<void>;
}

/** Options for {@link openPgliteDatabase}. */
export interface OpenPgliteOptions {
  /** Directory for the database files (created when missing); omitted: in memory (lost on close). */
  dataDir?: string;
  /** Told, in a sentence, when a lock left by a process that was killed is taken over. */
  log?: (line: string) => void;
}

/**
 * Opens PGlite on a data directory, locked to this process first (core's
 * `lockDirectory`: PGlite has no locking of its own, and two processes on
 * one directory corrupt it). While another process holds the directory it
 * fails with core's `ConflictError` `store/locked`, naming that process; a
 * lock left by a killed process is taken over (and `log` is told). For a
 * process that keeps several stores in one database, such as `stackspec
 * serve` (deploy templates and Placement).
 *
 * @example
 * const shared = await openPgliteDatabase({ dataDir: './db' });
 * const placement = createPglitePlacementStore({ db: shared.db });
 */
export async function openPgliteDatabase(options: OpenPgliteOptions = {}): Promise<PgliteDatabase> {
  const dir = options.dataDir ? resolve(options.dataDir) : undefined;
  const { db, close } = await openLockedDatabase({
    ...(dir ? { dataDir: dir } : {}),
    open: (dataDir) => PGlite.create(dataDir ? { dataDir } : {}),
    ...(options.log ? { log: options.log } : {}),
  });
  return { db, description: dir ? `PGlite in ${dir}` : 'PGlite in memory', close };
}

/** Options for {@link createPglitePlacementStore}. */
export interface PglitePlacementStoreOptions extends SqlStoreOptions {
  /** Directory for the database files (created when missing, locked while open); omitted: in memory. */
  dataDir?: string;
  /** An open PGlite instance to use instead (neither locked nor closed by the store). */
  db?: PGlite;
}

function pgliteDriver(
  options: PglitePlacementStoreOptions,
  log: ((line: string) => void) | undefined,
): SqlDriver {
  const database = createLazyDatabase(
    () =>
      openPgliteDatabase({
        ...(options.dataDir ? { dataDir: options.dataDir } : {}),
        ...(log ? { log } : {}),
      }),
    options.db,
  );
  return {
    kind: 'pglite',
    description: options.db
      ? 'PGlite'
      : options.dataDir
        ? `PGlite in ${resolve(options.dataDir)}`
        : 'PGlite in memory',
    async query<T>(sql: string, params?: readonly unknown[]) {
      return sqlExecutorOf(await database.get()).query<T>(sql, params);
    },
    async transaction(fn) {
      // PGlite runs one transaction at a time: a snapshot is what it sees anyway.
      const db = await database.get();
      return db.transaction((tx) => fn(sqlExecutorOf(tx)));
    },
    async listen(channel, handlers) {
      const db = await database.get();
      const stop = await db.listen(channel, (payload) => handlers.onNotify(payload));
      return {
        query: (sql, params) => sqlExecutorOf(db).query(sql, params),
        async close() {
          await stop();
        },
      };
    },
    close: () => database.close(),
  };
}

/**
 * The embedded durable Placement: PostgreSQL compiled to WebAssembly
 * (PGlite) in a data directory, with nothing to install or run. The
 * directory is locked to this process (see {@link openPgliteDatabase}), so
 * one server serves it; by default it follows no other writer. Tables are
 * created on first use (or only checked, with `migrate: false`).
 *
 * Its own entry, `@stackspec/placement-query/pglite`, so that only importers
 * of this adapter load PGlite.
 *
 * @example
 * import { createPglitePlacementStore } from '@stackspec/placement-query/pglite';
 * const placement = createPglitePlacementStore({ dataDir: './placement-data' });
 * await placement.open();
 * const handler = createPlacementHandler({ placement });
 */
export function createPglitePlacementStore(options: PglitePlacementStoreOptions = {}): SqlPlacementStore {
  return createSqlPlacementStore(pgliteDriver(options, options.log), options);
}
