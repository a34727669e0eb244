import pg from 'pg';
import { describe } from 'vitest';
import { dropSchema, ensurePostgres, POSTGRES_URL, schemaName } from '../../../test-support/postgres.js';
import { createPostgresPlacementStore } from '../src/adapters/postgres.js';
import { describePlacementStoreContract } from './placement-store.contract.js';

const available = await ensurePostgres(pg.Client);

describe.runIf(available)('PostgreSQL', () => {
  describePlacementStoreContract('PostgreSQL', async () => {
    const schema = schemaName('pq_contract');
    return {
      async server() {
        const store = createPostgresPlacementStore({
          connectionString: POSTGRES_URL,
          schema,
          maxConnections: 4,
          heartbeatMillis: 200,
        });
        await store.open();
        return store;
      },
      shared: true,
      durable: true,
      drop: () => dropSchema(pg.Client, schema),
    };
  });
});
