import { createPostgresStore } from '@stackspec/deploy-templates/postgres';
import pg from 'pg';
import { afterAll, describe } from 'vitest';
import { dropSchema, ensurePostgres, POSTGRES_URL, schemaName } from '../../../test-support/postgres.js';
import { describeStoreContract } from './store.contract.js';

const available = await ensurePostgres(pg.Client);
const schemas: string[] = [];

describe.runIf(available)('PostgreSQL', () => {
  afterAll(async () => {
    for (const s of schemas) await dropSchema(pg.Client, s);
  });
  describeStoreContract('PostgreSQL', async (options) => {
    const schema = schemaName('dt_contract');
    schemas.push(schema);
    return createPostgresStore({ connectionString: POSTGRES_URL, schema, ...options });
  });
});
