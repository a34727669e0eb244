// Versioned schema migrations kept in a bookkeeping table of the schema they
// migrate. The point of looking before creating: `CREATE SCHEMA IF NOT
// EXISTS` and `CREATE TABLE IF NOT EXISTS` need the right to create even
// when the object is there, so a serving role that may only read and write
// rows could never start on an up-to-date schema if every start ran them.
import { createDiagnostic } from '../diagnostic.js';
import { HttpError, SpecError, type StackspecError } from '../errors.js';
import type { SqlQueryable, SqlTransactional } from './executor.js';
import { quoteIdent } from './identifier.js';

/** One schema migration: its version, what it does, and its SQL for a (quoted) schema. */
export interface SqlMigration {
  version: number;
  name: string;
  /** Statements separated by `;` (no `;` inside one), given the quoted schema name. */
  sql: (schema: string) => string;
}

/** What {@link SchemaMigrator.migrate} did. */
export interface SqlMigrationResult {
  /** The schema migrated (unquoted). */
  schema: string;
  /** Migrations this call applied, in order; empty when the schema was up to date. */
  applied: { version: number; name: string }[];
  /** The version the schema is at now (the latest the caller knows). */
  version: number;
}

/** What exists of a schema: whether it does, and the migrations applied (`undefined`: no bookkeeping table). */
export interface SchemaState {
  hasSchema: boolean;
  versions: ReadonlySet<number> | undefined;
}

/** Options for {@link createSchemaMigrator}. */
export interface SchemaMigratorOptions {
  /** The schema (unquoted), created when missing. */
  schema: string;
  /** The bookkeeping table in it (unquoted), such as `placement_migrations`. */
  table: string;
  /** Every migration, versions positive whole numbers in increasing order. */
  migrations: readonly SqlMigration[];
  /** Text whose hash names the advisory lock that lets one migrator at a time work on this schema. */
  lockKey: string;
  /**
   * How the key is hashed: `hashtextextended` (64 bits, the default) or
   * `hashtext` (32 bits), for a store whose released versions locked with
   * it, so that old and new migrators still exclude each other.
   */
  lockHash?: 'hashtext' | 'hashtextextended';
  /** Code for a bad option of this function (the caller's `<area>/bad-option`). */
  badOptionCode: string;
  /** How {@link SchemaMigrator.verify} words its 503. */
  notMigrated: {
    /** The error's code, the caller's `<area>/not-migrated`. */
    code: string;
    /** Whose tables they are, as in "holds no Placement tables". */
    tables: string;
    /** The command that migrates, as in "Run my-store migrate with a role…". */
    command: string;
    /**
     * The message, worded by the caller so that its code stands beside it,
     * from what exists (`what`: "The schema x does not exist", "The schema x
     * holds no … tables", "The … tables in schema x are at version 1"), the
     * latest version, and the migrations missing.
     */
    message: (what: string, latest: number, missing: readonly SqlMigration[]) => string;
  };
}

/** Migrations of one schema, from {@link createSchemaMigrator}. */
export interface SchemaMigrator {
  /** The latest version the migrations reach. */
  readonly latest: number;
  /** Looks the schema and its bookkeeping up in the catalogs (no right on the schema needed). */
  inspect(db: SqlQueryable): Promise<SchemaState>;
  /** The migrations `state` lacks, in order. */
  missing(state: SchemaState): SqlMigration[];
  /**
   * Creates what is missing (the schema, the bookkeeping table, each missing
   * migration once, in one transaction), one migrator at a time across
   * processes; runs nothing but two catalog reads when nothing is missing.
   */
  migrate(db: SqlTransactional): Promise<SqlMigrationResult>;
  /** Resolves when nothing is missing; else throws {@link SchemaMigrator.notMigrated}'s error. */
  verify(db: SqlQueryable): Promise<void>;
  /** The 503 saying what `state` lacks and which command adds it. */
  notMigrated(state: SchemaState): StackspecError;
}

function checkOptions(options: SchemaMigratorOptions): void {
  const fail = (message: string) => new SpecError(message, { code: options.badOptionCode });
  if (!options.migrations.length) throw fail('The list of migrations must not be empty.');
  let last = 0;
  for (const m of options.migrations) {
    if (!Number.isInteger(m.version) || m.version <= last) {
      throw fail(
        `Migration versions must be whole numbers above 0 in increasing order, but ${String(m.version)} follows ${last}.`,
      );
    }
    last = m.version;
  }
}

/**
 * The migrations of one schema: look up what exists, apply what is missing,
 * or refuse a schema that lacks some. Throws `SpecError` with
 * `badOptionCode` for no migrations, or versions that are not whole
 * numbers above 0 in increasing order. Names are quoted, never checked:
 * PostgreSQL refuses an empty one itself, on first use.
 *
 * @example
 * const migrator = createSchemaMigrator({
 *   schema: 'things',
 *   table: 'things_migrations',
 *   migrations: [{ version: 1, name: 'things', sql: (s) => `CREATE TABLE ${s}.things (id INTEGER)` }],
 *   lockKey: 'my-store-migrate:things',
 *   badOptionCode: MY_BAD_OPTION,
 *   notMigrated: {
 *     code: MY_NOT_MIGRATED,
 *     tables: 'thing',
 *     command: 'my-store migrate',
 *     message: (what, latest) => `${what}; my-store needs version ${latest}.`,
 *   },
 * });
 * await migrator.migrate(driver); // as the owner
 * await migrator.verify(driver); // as a role that may only read and write rows
 */
export function createSchemaMigrator(options: SchemaMigratorOptions): SchemaMigrator {
  checkOptions(options);
  const { migrations } = options;
  const name = options.schema;
  const schema = quoteIdent(name);
  const table = `${schema}.${quoteIdent(options.table)}`;
  const latest = Math.max(...migrations.map((m) => m.version));
  const lock = `SELECT pg_advisory_xact_lock(${options.lockHash === 'hashtext' ? 'hashtext($1)' : 'hashtextextended($1, 0)'})`;

  // The catalogs answer without any right on the schema (to_regclass would need USAGE).
  async function inspect(db: SqlQueryable): Promise<SchemaState> {
    const { rows } = await db.query<{ has_schema: boolean; has_table: boolean }>(
      `SELECT n.oid IS NOT NULL AS has_schema,
              EXISTS (SELECT 1 FROM pg_catalog.pg_class c
                      WHERE c.relnamespace = n.oid AND c.relname = $2) AS has_table
       FROM (SELECT 1) AS one LEFT JOIN pg_catalog.pg_namespace n ON n.nspname = $1`,
      [name, options.table],
    );
    const row = rows[0];
    if (!row?.has_schema) return { hasSchema: false, versions: undefined };
    if (!row.has_table) return { hasSchema: true, versions: undefined };
    const applied = await db.query<{ version: number }>(`SELECT version FROM ${table}`);
    return { hasSchema: true, versions: new Set(applied.rows.map((r) => Number(r.version))) };
  }

  const missing = (state: SchemaState) => migrations.filter((m) => !state.versions?.has(m.version));

  function notMigrated(state: SchemaState): StackspecError {
    const { code, tables, command } = options.notMigrated;
    const at = Math.max(0, ...[...(state.versions ?? [])].filter((v) => v <= latest));
    const what = !state.hasSchema
      ? `The schema ${name} does not exist`
      : !state.versions
        ? `The schema ${name} holds no ${tables} tables`
        : `The ${tables} tables in schema ${name} are at version ${at}`;
    const message = options.notMigrated.message(what, latest, missing(state));
    const hint = `Run ${command} with a role that may create tables (the owner), then start again; without --no-migrate (migrate: false) a role with that right migrates on start.`;
    return new HttpError(503, message, { code, diagnostics: [createDiagnostic({ code, message, hint })] });
  }

  return {
    latest,
    inspect,
    missing,
    notMigrated,
    async migrate(db) {
      const result = (applied: SqlMigrationResult['applied']) => ({ schema: name, applied, version: latest });
      if (!missing(await inspect(db)).length) return result([]);
      return db.transaction(async (tx) => {
        // Look again once it is our turn: another migrator may have done the work meanwhile.
        await tx.query(lock, [options.lockKey]);
        const state = await inspect(tx);
        if (!state.hasSchema) await tx.query(`CREATE SCHEMA ${schema}`);
        if (!state.versions) {
          await tx.query(
            `CREATE TABLE ${table} (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TIMESTAMP(6) NOT NULL DEFAULT (now() AT TIME ZONE 'utc'))`,
          );
        }
        const applied: SqlMigrationResult['applied'] = [];
        for (const m of missing(state)) {
          for (const statement of m.sql(schema).split(';')) if (statement.trim()) await tx.query(statement);
          await tx.query(`INSERT INTO ${table} (version, name) VALUES ($1, $2)`, [m.version, m.name]);
          applied.push({ version: m.version, name: m.name });
        }
        return result(applied);
      });
    },
    async verify(db) {
      const state = await inspect(db);
      if (missing(state).length) throw notMigrated(state);
    },
  };
}
