import { PGlite } from '@electric-sql/pglite';
import { isStackspecError } from '@stackspec/core';
import { describe, expect, it } from 'vitest';
import { databaseForFile, withTempDir } from '../../../test-support/pglite.js';
import { createPgliteStore } from '../src/adapters/pglite.js';
import { createSqlStore, type SqlDriver } from '../src/index.js';
import { describeStoreContract } from './store.contract.js';

// One PGlite instance (slow to boot) shared by the file; every test gets a schema of its own.
const shared = databaseForFile(() => PGlite.create());
let n = 0;

describeStoreContract('PGlite', async (options) => {
  n += 1;
  return createPgliteStore({ db: shared(), schema: `contract_${n}`, ...options });
});

describe('PGlite store', () => {
  it('keeps templates in a data directory across restarts', async () => {
    await withTempDir('dt-pglite-', async (dir) => {
      const first = createPgliteStore({ dataDir: dir });
      await first.create({
        uuid: '11111111-2222-4333-8444-555555555555',
        name: 'CUSTOM_KEEP',
        steps: [{ interface: 'bios', step: 'apply_configuration', args: {}, priority: 0 }],
        extra: {},
      });
      await first.close();
      const second = createPgliteStore({ dataDir: dir });
      expect((await second.getByName('CUSTOM_KEEP'))?.uuid).toBe('11111111-2222-4333-8444-555555555555');
      await second.close();
    });
  });

  it('locks its data directory while open, naming the holder to a second store', async () => {
    await withTempDir('dt-pglite-lock-', async (dir) => {
      const first = createPgliteStore({ dataDir: dir });
      await first.list();
      const second = createPgliteStore({ dataDir: dir });
      const refused = await second.list().catch((e: unknown) => e);
      expect(isStackspecError(refused) && refused.code).toBe('store/locked');
      expect((refused as Error).message).toContain(
        `The directory ${dir} is in use by this process (pid ${process.pid})`,
      );
      await second.close();
      await first.close();
      // Released on close: the directory opens again, with what was written.
      const third = createPgliteStore({ dataDir: dir });
      expect(await third.list()).toEqual([]);
      await third.close();
    });
  });

  it('migrates only what is missing: an up-to-date schema gets no CREATE at all', async () => {
    const db = shared();
    const statements: string[] = [];
    const recording = (schema: string) => {
      const on = (q: Pick<PGlite, 'query'>) => ({
        async query<T>(sql: string, params: readonly unknown[] = []) {
          statements.push(sql);
          return { rows: (await q.query<T>(sql, [...params])).rows };
        },
      });
      const driver: SqlDriver = {
        ...on(db),
        transaction: (fn) => db.transaction((tx) => fn(on(tx))),
        close: async () => undefined,
      };
      return createSqlStore(driver, { schema });
    };
    const first = recording('checked_first');
    expect(await first.migrate()).toEqual({
      schema: 'checked_first',
      applied: [{ version: 1, name: 'deploy templates and their steps' }],
      version: 1,
    });
    expect(statements.filter((s) => /CREATE SCHEMA/.test(s))).toHaveLength(1);
    statements.length = 0;
    const second = recording('checked_first');
    expect(await second.list()).toEqual([]);
    expect(await second.migrate()).toMatchObject({ applied: [], version: 1 });
    expect(statements.filter((s) => /CREATE|ALTER|pg_advisory/.test(s))).toEqual([]);
  });

  it('with migrate: false, refuses a schema that was not migrated and says how to migrate it', async () => {
    const db = shared();
    const store = createPgliteStore({ db, schema: 'not_migrated', migrate: false });
    const e = await store.list().catch((x: unknown) => x);
    expect(isStackspecError(e) && e.code).toBe('deploy-templates/not-migrated');
    expect(isStackspecError(e) && e.status).toBe(503);
    expect((e as Error).message).toBe(
      'The schema not_migrated does not exist, and this stackspec needs version 1 (missing: 1 deploy templates and their steps).',
    );
    expect(isStackspecError(e) && e.diagnostics[0]?.hint).toContain('Run stackspec-baremetal migrate');
    // Nothing was created on the way.
    const { rows } = await db.query("SELECT 1 FROM pg_namespace WHERE nspname = 'not_migrated'");
    expect(rows).toEqual([]);
    await createPgliteStore({ db, schema: 'not_migrated' }).migrate();
    expect(await store.list()).toEqual([]);
  });

  it('applies each migration once even when two stores share a schema', async () => {
    const db = shared();
    const a = createPgliteStore({ db, schema: 'shared_migrations' });
    const b = createPgliteStore({ db, schema: 'shared_migrations' });
    await Promise.all([a.list(), b.list()]);
    const { rows } = await db.query<{ version: number }>(
      'SELECT version FROM shared_migrations.deploy_templates_migrations',
    );
    expect(rows.map((r) => r.version)).toEqual([1]);
  });
});
