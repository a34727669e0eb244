import { createPostgresStore } from '@stackspec/deploy-templates/postgres';
import { afterAll, describe } from 'vitest';
import { describeStoreContract } from './store.contract.js';
import { dropSchema, ensurePostgres, POSTGRES_URL, schemaName } from './support/postgres.js';

const available = await ensurePostgres();
const schemas: string[] = [];

describe.runIf(available)('PostgreSQL', () => {
  afterAll(async () => {
    for (const s of schemas) await dropSchema(s);
  });
  describeStoreContract('PostgreSQL', async (options) => {
    const schema = schemaName('dt_contract');
    schemas.push(schema);
    return createPostgresStore({ connectionString: POSTGRES_URL, schema, ...options });
  });
});
