import { describe, expect, it } from 'vitest';
import { isStackspecError } from '../errors.js';
import type { SqlQueryable, SqlTransactional } from './executor.js';
import { createSchemaMigrator, type SchemaMigratorOptions, type SqlMigration } from './migrations.js';

/**
 * A stand-in for PostgreSQL that understands just the statements the
 * migrator sends: the catalog look-up, the bookkeeping table and the
 * statements of the migrations below (recorded, not run).
 */
function fakeDatabase(start: { schema?: boolean; versions?: number[] } = {}) {
  const statements: string[] = [];
  const lookups: unknown[][] = [];
  let hasSchema = start.schema ?? false;
  let versions: Set<number> | undefined = start.versions ? new Set(start.versions) : undefined;
  let failOn: RegExp | undefined;
  const query = async <T>(text: string, params: readonly unknown[] = []) => {
    statements.push(text);
    if (failOn?.test(text))
      throw Object.assign(new Error('permission denied for schema s'), { code: '42501' });
    let rows: unknown[] = [];
    if (/pg_catalog\.pg_namespace/.test(text)) {
      lookups.push([...params]);
      rows = [{ has_schema: hasSchema, has_table: hasSchema && versions !== undefined }];
    } else if (/^SELECT version FROM .*\."app_migrations"$/.test(text)) {
      rows = [...(versions ?? [])].map((version) => ({ version }));
    } else if (/^CREATE SCHEMA /.test(text)) {
      hasSchema = true;
    } else if (/^CREATE TABLE .*\."app_migrations"/.test(text)) {
      versions = new Set();
    } else if (/^INSERT INTO .*\."app_migrations"/.test(text)) {
      versions?.add(params[0] as number);
    }
    return { rows: rows as T[] };
  };
  const db: SqlTransactional = {
    query,
    async transaction(fn) {
      statements.push('BEGIN');
      const out = await fn({ query } as SqlQueryable);
      statements.push('COMMIT');
      return out;
    },
  };
  return {
    db,
    statements,
    lookups,
    failOn: (pattern: RegExp) => {
      failOn = pattern;
    },
  };
}

const MIGRATIONS: SqlMigration[] = [
  {
    version: 1,
    name: 'things',
    sql: (s) => `CREATE TABLE ${s}.things (id int); CREATE INDEX t ON ${s}.things (id)`,
  },
  { version: 2, name: 'more things', sql: (s) => `ALTER TABLE ${s}.things ADD COLUMN name text;` },
];

const OPTIONS: SchemaMigratorOptions = {
  schema: 'app one',
  table: 'app_migrations',
  migrations: MIGRATIONS,
  lockKey: 'app-migrate:app one',
  badOptionCode: 'app/bad-option',
  notMigrated: {
    code: 'app/not-migrated',
    tables: 'App',
    command: 'app migrate',
    message: (what, latest, missing) =>
      `${what}, and this stackspec needs version ${latest} (missing: ${missing.map((m) => `${m.version} ${m.name}`).join(', ')}).`,
  },
};

describe('createSchemaMigrator', () => {
  it('creates the schema, the bookkeeping table and every migration in one transaction, once', async () => {
    const fake = fakeDatabase();
    const migrator = createSchemaMigrator(OPTIONS);
    expect(migrator.latest).toBe(2);
    expect(await migrator.migrate(fake.db)).toEqual({
      schema: 'app one',
      applied: [
        { version: 1, name: 'things' },
        { version: 2, name: 'more things' },
      ],
      version: 2,
    });
    expect(fake.lookups[0]).toEqual(['app one', 'app_migrations']);
    const writes = fake.statements.filter((s) => !/pg_catalog|^SELECT version/.test(s));
    expect(writes).toEqual([
      'BEGIN',
      'SELECT pg_advisory_xact_lock(hashtextextended($1, 0))',
      'CREATE SCHEMA "app one"',
      expect.stringMatching(/^CREATE TABLE "app one"\."app_migrations" \(version INTEGER PRIMARY KEY/),
      'CREATE TABLE "app one".things (id int)',
      ' CREATE INDEX t ON "app one".things (id)',
      'INSERT INTO "app one"."app_migrations" (version, name) VALUES ($1, $2)',
      'ALTER TABLE "app one".things ADD COLUMN name text',
      'INSERT INTO "app one"."app_migrations" (version, name) VALUES ($1, $2)',
      'COMMIT',
    ]);
  });

  it('sends nothing but catalog reads for an up-to-date schema: no CREATE, no lock, no transaction', async () => {
    const fake = fakeDatabase({ schema: true, versions: [1, 2] });
    const result = await createSchemaMigrator(OPTIONS).migrate(fake.db);
    expect(result).toEqual({ schema: 'app one', applied: [], version: 2 });
    expect(fake.statements.every((s) => /pg_catalog|^SELECT version/.test(s))).toBe(true);
  });

  it('applies only the migrations that are missing, in an existing schema', async () => {
    const fake = fakeDatabase({ schema: true, versions: [1] });
    const result = await createSchemaMigrator(OPTIONS).migrate(fake.db);
    expect(result.applied).toEqual([{ version: 2, name: 'more things' }]);
    expect(fake.statements.some((s) => /CREATE SCHEMA|CREATE TABLE/.test(s))).toBe(false);
  });

  it('locks with the 32-bit hash when asked to, for stores that locked that way before', async () => {
    const fake = fakeDatabase();
    await createSchemaMigrator({ ...OPTIONS, lockHash: 'hashtext' }).migrate(fake.db);
    expect(fake.statements).toContain('SELECT pg_advisory_xact_lock(hashtext($1))');
  });

  it('passes a failure of the database through, untouched (the caller wraps it)', async () => {
    const fake = fakeDatabase();
    fake.failOn(/^CREATE SCHEMA/);
    const e = await createSchemaMigrator(OPTIONS)
      .migrate(fake.db)
      .catch((x: unknown) => x);
    expect(e).toMatchObject({ code: '42501', message: 'permission denied for schema s' });
  });

  it('verifies an up-to-date schema without writing anything', async () => {
    const fake = fakeDatabase({ schema: true, versions: [1, 2] });
    await expect(createSchemaMigrator(OPTIONS).verify(fake.db)).resolves.toBeUndefined();
    expect(fake.statements.some((s) => /CREATE|INSERT|pg_advisory/.test(s))).toBe(false);
  });

  it.each([
    [
      {},
      'The schema app one does not exist, and this stackspec needs version 2 (missing: 1 things, 2 more things).',
    ],
    [
      { schema: true },
      'The schema app one holds no App tables, and this stackspec needs version 2 (missing: 1 things, 2 more things).',
    ],
    [
      { schema: true, versions: [1, 7] },
      'The App tables in schema app one are at version 1, and this stackspec needs version 2 (missing: 2 more things).',
    ],
  ])('refuses a schema that lacks migrations (%j) with a 503 saying what to run', async (start, message) => {
    const fake = fakeDatabase(start);
    const e = await createSchemaMigrator(OPTIONS)
      .verify(fake.db)
      .catch((x: unknown) => x);
    expect(isStackspecError(e)).toBe(true);
    if (!isStackspecError(e)) return;
    expect({ status: e.status, code: e.code, message: e.message }).toEqual({
      status: 503,
      code: 'app/not-migrated',
      message,
    });
    expect(e.diagnostics).toEqual([
      expect.objectContaining({
        code: 'app/not-migrated',
        message,
        hint: 'Run app migrate with a role that may create tables (the owner), then start again; without --no-migrate (migrate: false) a role with that right migrates on start.',
      }),
    ]);
    expect(fake.statements.some((s) => /CREATE|INSERT/.test(s))).toBe(false);
  });

  it.each([
    [{ migrations: [] }, 'The list of migrations must not be empty.'],
    [
      { migrations: [MIGRATIONS[1], MIGRATIONS[0]] },
      'Migration versions must be whole numbers above 0 in increasing order, but 1 follows 2.',
    ],
    [
      { migrations: [{ ...(MIGRATIONS[0] as SqlMigration), version: 0.5 }] },
      'Migration versions must be whole numbers above 0 in increasing order, but 0.5 follows 0.',
    ],
    [
      { migrations: [MIGRATIONS[0], MIGRATIONS[0]] },
      'Migration versions must be whole numbers above 0 in increasing order, but 1 follows 1.',
    ],
  ] as [Partial<SchemaMigratorOptions>, string][])(
    'refuses bad options (%j) with the caller’s code',
    (bad, message) => {
      expect(() => createSchemaMigrator({ ...OPTIONS, ...bad })).toThrow(
        expect.objectContaining({ name: 'SpecError', kind: 'spec', code: 'app/bad-option', message }),
      );
    },
  );

  it('quotes a hostile schema name instead of running it', async () => {
    const fake = fakeDatabase();
    const migrator = createSchemaMigrator({ ...OPTIONS, schema: 'x"; DROP TABLE users; --' });
    await migrator.migrate(fake.db).catch(() => undefined);
    expect(fake.lookups[0]).toEqual(['x"; DROP TABLE users; --', 'app_migrations']);
    expect(fake.statements).toContain('CREATE SCHEMA "x""; DROP TABLE users; --"');
    expect(fake.statements).toContain(
      'INSERT INTO "x""; DROP TABLE users; --"."app_migrations" (version, name) VALUES ($1, $2)',
    );
  });
});
