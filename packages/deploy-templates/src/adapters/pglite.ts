import { PGlite } from '@electric-sql/pglite';
import {
  createSqlStore,
  type SqlDriver,
  type SqlExecutor,
  type SqlStoreOptions,
} from '../store/sql-store.js';
import type { DeployTemplateStore } from '../store/types.js';

/** Options for {@link createPgliteStore}. */
export interface PgliteStoreOptions extends SqlStoreOptions {
  /** Directory for the database files; omitted: in memory (lost on close). */
  dataDir?: string;
  /** An open PGlite instance to use instead (not closed by the store). */
  db?: PGlite;
}

/**
 * The embedded default store: PostgreSQL compiled to WebAssembly (PGlite),
 * in memory or in a data directory, with nothing to install or run.
 * Tables are created on first use.
 *
 * @example
 * const store = createPgliteStore({ dataDir: './templates-db' });
 * await store.create({ uuid, name: 'CUSTOM_RAID1', steps, extra: {} });
 * await store.close();
 */
export function createPgliteStore(options: PgliteStoreOptions = {}): DeployTemplateStore {
  const owned = !options.db;
  let db: PGlite | undefined = options.db;
  let opening: Promise<PGlite> | undefined;
  const open = (): Promise<PGlite> => {
    if (db) return Promise.resolve(db);
    opening ??= PGlite.create(options.dataDir ? { dataDir: options.dataDir } : {}).then((d) => {
      db = d;
      return d;
    });
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
      if (owned && (db || opening)) await (await open()).close();
    },
  };
  return createSqlStore(driver, options);
}
