import { PGlite } from '@electric-sql/pglite';
import { isStackspecError } from '@stackspec/core';
import { describe, expect, it } from 'vitest';
import { databaseForFile, withTempDir } from '../../../test-support/pglite.js';
import { createPglitePlacementStore } from '../src/adapters/pglite.js';
import { describePlacementStoreContract } from './placement-store.contract.js';

// One PGlite instance (slow to boot) shared by the file; every database is a
// schema of its own. Two servers on one PGlite stand for two processes on
// one database: each has its own memory and follows the other through the
// change log.
const shared = databaseForFile(() => PGlite.create());
let n = 0;

describePlacementStoreContract('PGlite', async () => {
  n += 1;
  const schema = `contract_${n}`;
  const db = shared();
  return {
    async server() {
      const store = createPglitePlacementStore({ db, schema, follow: true, heartbeatMillis: 200 });
      await store.open();
      return store;
    },
    shared: true,
    durable: true,
    drop: async () => {
      await db.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    },
  };
});

describe('PGlite PlacementStore', () => {
  it('keeps its state in a data directory across restarts, locked while open', async () => {
    await withTempDir('pq-pglite-', async (dir) => {
      const first = createPglitePlacementStore({ dataDir: dir });
      await first.open();
      await first.write({
        decide: (s) => s.createProvider({ name: 'kept', uuid: '11111111-2222-4333-8444-555555555555' }).uuid,
        answer: (_s, uuid) => uuid,
      });
      const second = createPglitePlacementStore({ dataDir: dir });
      const refused = await second.open().catch((e: unknown) => e);
      expect(isStackspecError(refused) && refused.code).toBe('store/locked');
      await second.close();
      await first.close();
      const third = createPglitePlacementStore({ dataDir: dir });
      await third.open();
      expect(third.store.providerByName('kept')?.uuid).toBe('11111111-2222-4333-8444-555555555555');
      expect(third.health()).toMatchObject({ status: 'ok', kind: 'pglite', description: `PGlite in ${dir}` });
      await third.close();
    });
  });

  it('with migrate: false, refuses a schema that was not migrated and says how to migrate it', async () => {
    const db = shared();
    const store = createPglitePlacementStore({ db, schema: 'not_migrated', migrate: false });
    const e = await store.open().catch((x: unknown) => x);
    expect(isStackspecError(e) && e.status).toBe(503);
    expect(isStackspecError(e) && e.code).toBe('placement-query/not-migrated');
    expect((e as Error).message).toBe(
      'The schema not_migrated does not exist, and this stackspec needs version 1 (missing: 1 placement tables and the change log).',
    );
    const { rows } = await db.query("SELECT 1 FROM pg_namespace WHERE nspname = 'not_migrated'");
    expect(rows).toEqual([]);
    const owner = createPglitePlacementStore({ db, schema: 'not_migrated' });
    expect(await owner.migrate()).toEqual({
      schema: 'not_migrated',
      applied: [{ version: 1, name: 'placement tables and the change log' }],
      version: 1,
    });
    expect((await owner.migrate()).applied).toEqual([]);
    await store.open();
    expect(store.health().status).toBe('ok');
    await db.query('DROP SCHEMA not_migrated CASCADE');
  });
});
