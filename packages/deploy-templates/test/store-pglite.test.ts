import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPgliteStore } from '../src/index.js';
import { describeStoreContract } from './store.contract.js';

// One PGlite instance (slow to boot) shared by the file; every test gets a schema of its own.
let db: PGlite;
let n = 0;
beforeAll(async () => {
  db = await PGlite.create();
});
afterAll(async () => {
  await db.close();
});

describeStoreContract('PGlite', async (options) => {
  n += 1;
  return createPgliteStore({ db, schema: `contract_${n}`, ...options });
});

describe('PGlite store', () => {
  it('keeps templates in a data directory across restarts', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dt-pglite-'));
    try {
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
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('applies each migration once even when two stores share a schema', async () => {
    const a = createPgliteStore({ db, schema: 'shared_migrations' });
    const b = createPgliteStore({ db, schema: 'shared_migrations' });
    await Promise.all([a.list(), b.list()]);
    const { rows } = await db.query<{ version: number }>(
      'SELECT version FROM shared_migrations.deploy_templates_migrations',
    );
    expect(rows.map((r) => r.version)).toEqual([1]);
  });
});
