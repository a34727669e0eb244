// The two stores every service-level suite runs on: embedded PGlite and a
// real PostgreSQL server. Each store a test makes lives in a schema of its
// own, which cleanup() drops again.
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { dropSchema, ensurePostgres, POSTGRES_URL, schemaName } from '../../../../test-support/postgres.js';
import { createPgliteStore } from '../../src/adapters/pglite.js';
import { createPostgresStore } from '../../src/adapters/postgres.js';
import type { DeployTemplateStore } from '../../src/index.js';

/** Fresh stores of one kind for tests. */
export interface TestStores {
  readonly name: 'PGlite' | 'PostgreSQL';
  /** False when PostgreSQL cannot be reached here (outside CI the suite is then skipped). */
  readonly available: boolean;
  /** An empty store in a new schema whose name starts with `prefix`. */
  make(prefix: string, options?: { clock?: () => Date }): Promise<DeployTemplateStore>;
  /** Closes every store made so far and drops its schema. */
  cleanup(): Promise<void>;
  /** {@link TestStores.cleanup}, then releases what the kind shares between tests. */
  close(): Promise<void>;
}

/** The store with a close() that may be called again (a server closes its store, and so does cleanup). */
function closeOnce(store: DeployTemplateStore): DeployTemplateStore {
  let closing: Promise<void> | undefined;
  return {
    ...store,
    close: () => {
      closing ??= store.close();
      return closing;
    },
  };
}

function pgliteStores(): TestStores {
  // One PGlite instance (slow to boot) per test file; a schema per store.
  let db: Promise<PGlite> | undefined;
  const made: { store: DeployTemplateStore; schema: string }[] = [];
  let seq = 0;
  const cleanup = async () => {
    const done = made.splice(0);
    await Promise.all(done.map((m) => m.store.close()));
    if (!done.length || !db) return;
    const d = await db;
    for (const m of done) await d.exec(`DROP SCHEMA IF EXISTS "${m.schema}" CASCADE`);
  };
  return {
    name: 'PGlite',
    available: true,
    async make(prefix, options = {}) {
      db ??= PGlite.create();
      seq += 1;
      const schema = `${prefix}_${seq}`;
      const store = closeOnce(createPgliteStore({ db: await db, schema, ...options }));
      made.push({ store, schema });
      return store;
    },
    cleanup,
    async close() {
      await cleanup();
      if (db) await (await db).close();
      db = undefined;
    },
  };
}

async function postgresStores(): Promise<TestStores> {
  const available = await ensurePostgres(pg.Client);
  const made: { store: DeployTemplateStore; schema: string }[] = [];
  const cleanup = async () => {
    const done = made.splice(0);
    await Promise.all(done.map((m) => m.store.close()));
    for (const m of done) await dropSchema(pg.Client, m.schema);
  };
  return {
    name: 'PostgreSQL',
    available,
    async make(prefix, options = {}) {
      const schema = schemaName(prefix);
      const store = closeOnce(
        createPostgresStore({ connectionString: POSTGRES_URL, schema, maxConnections: 8, ...options }),
      );
      made.push({ store, schema });
      return store;
    },
    cleanup,
    close: cleanup,
  };
}

/** PGlite and PostgreSQL, in that order. */
export async function testStores(): Promise<TestStores[]> {
  return [pgliteStores(), await postgresStores()];
}
