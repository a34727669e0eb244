import {
  ConflictError,
  describeError,
  isStackspecError,
  type StackspecError,
  ValidationError,
} from '@stackspec/core';
import {
  createSchemaMigrator,
  quoteIdent,
  type SqlMigration,
  type SqlMigrationResult,
  sqlStorageError,
} from '@stackspec/core/sql';
import type { DeployStep } from '../schema.js';
import type {
  DeployTemplateStore,
  ListTemplatesOptions,
  NewTemplate,
  SortKey,
  StoredTemplate,
  TemplateChanges,
} from './types.js';
import { SORT_KEYS } from './types.js';

/** Something that runs one SQL statement with `$1`-style parameters. */
export interface SqlExecutor {
  query<T = Record<string, unknown>>(sql: string, params?: readonly unknown[]): Promise<{ rows: T[] }>;
}

/** A PostgreSQL connection (PGlite or `pg`) as the SQL store needs it. */
export interface SqlDriver extends SqlExecutor {
  /** Runs `fn` in one transaction: committed when it resolves, rolled back when it throws. */
  transaction<T>(fn: (tx: SqlExecutor) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/** Options shared by the SQL stores. */
export interface SqlStoreOptions {
  /** PostgreSQL schema holding the tables (created when missing); default `public`. */
  schema?: string;
  /** Current time; default the system clock with microseconds. */
  clock?: () => Date;
  /**
   * Whether first use may create what is missing: the schema, the tables,
   * later migrations (default `true`). What exists is looked up first, so a
   * schema that is up to date needs no right beyond reading and writing
   * rows either way. With `false` the store only checks that the schema is
   * at the latest version, and fails with `deploy-templates/not-migrated`
   * (503) when it is not: for a service role that may not create anything,
   * after {@link SqlDeployTemplateStore.migrate} ran as the owner.
   */
  migrate?: boolean;
}

/**
 * What {@link SqlDeployTemplateStore.migrate} did: the schema (unquoted),
 * the migrations this call applied in order (empty when the schema was up
 * to date), and the version the schema is at now (the latest this package
 * knows).
 */
export type MigrationResult = SqlMigrationResult;

/** A deploy template store on PostgreSQL (PGlite or a server) that can migrate its schema on request. */
export interface SqlDeployTemplateStore extends DeployTemplateStore {
  /**
   * Creates what is missing (the schema, the tables, later migrations), one
   * migrator at a time across processes (an advisory lock), each migration
   * once; nothing is created when everything exists. Needs the right to
   * create the schema (when it is missing) and tables in it: run it as the
   * owner, then serve with a role that may only read and write rows and
   * `migrate: false`. Errors are core's (`deploy-templates/storage`, 500,
   * with the database's reason, and a hint when a right is missing).
   */
  migrate(): Promise<MigrationResult>;
}

/** The object version Ironic records on each row. */
export const OBJECT_VERSION = '1.1';

/** Ordered schema migrations; each runs once, in its own transaction. */
export const MIGRATIONS: readonly SqlMigration[] = [
  {
    version: 1,
    name: 'deploy templates and their steps',
    sql: (s) => `
      CREATE TABLE ${s}.deploy_templates (
        id SERIAL PRIMARY KEY,
        uuid VARCHAR(36) NOT NULL,
        name VARCHAR(255) NOT NULL,
        extra TEXT,
        version VARCHAR(15),
        created_at TIMESTAMP(6) NOT NULL,
        updated_at TIMESTAMP(6),
        CONSTRAINT uniq_deploytemplates0uuid UNIQUE (uuid),
        CONSTRAINT uniq_deploytemplates0name UNIQUE (name)
      );
      CREATE TABLE ${s}.deploy_template_steps (
        id SERIAL PRIMARY KEY,
        deploy_template_id INTEGER NOT NULL REFERENCES ${s}.deploy_templates (id),
        interface VARCHAR(255) NOT NULL,
        step VARCHAR(255) NOT NULL,
        args TEXT NOT NULL,
        priority INTEGER NOT NULL,
        version VARCHAR(15),
        created_at TIMESTAMP(6) NOT NULL,
        updated_at TIMESTAMP(6)
      );
      CREATE INDEX deploy_template_id ON ${s}.deploy_template_steps (deploy_template_id);
      CREATE INDEX deploy_template_steps_interface_idx ON ${s}.deploy_template_steps (interface);
      CREATE INDEX deploy_template_steps_step_idx ON ${s}.deploy_template_steps (step);
    `,
  },
];

/** The wall clock as a `Date`; microseconds are added when formatting. */
function systemClock(): Date {
  return new Date();
}

let lastMicros = 0;
function timestamp(clock: () => Date, injected: boolean): string {
  const date = clock();
  let micros = date.getTime() * 1000;
  if (!injected) {
    // Date has millisecond precision; add sub-millisecond digits from the
    // monotonic clock and keep the sequence strictly increasing.
    micros += Math.floor((performance.now() % 1) * 1000);
    if (micros <= lastMicros) micros = lastMicros + 1;
    lastMicros = micros;
  }
  const base = new Date(Math.floor(micros / 1000)).toISOString().slice(0, 19);
  return `${base}.${String(micros % 1_000_000).padStart(6, '0')}`;
}

const TS = `'YYYY-MM-DD"T"HH24:MI:SS.US'`;

// One round trip per read: the steps come along as a JSON array (args kept
// as the stored JSON text, so key order survives).
const SELECT_TEMPLATE = (s: string) => `
  SELECT t.id, t.uuid, t.name, t.extra, t.version,
         to_char(t.created_at, ${TS}) AS created_at,
         to_char(t.updated_at, ${TS}) AS updated_at,
         COALESCE((SELECT json_agg(json_build_object('interface', st.interface, 'step', st.step,
                                                     'args', st.args::json, 'priority', st.priority) ORDER BY st.id)
                   FROM ${s}.deploy_template_steps st WHERE st.deploy_template_id = t.id), '[]'::json)::text AS steps
  FROM ${s}.deploy_templates t`;

// Inserts the steps passed as a JSON array parameter, in order.
const INSERT_STEPS = (
  s: string,
  idExpr: string,
  stepsParam: string,
  versionParam: string,
  atParam: string,
) => `
  INSERT INTO ${s}.deploy_template_steps (deploy_template_id, interface, step, args, priority, version, created_at)
  SELECT ${idExpr}, e.value->>'interface', e.value->>'step', e.value->>'args', (e.value->>'priority')::int,
         ${versionParam}, ${atParam}::timestamp
  FROM json_array_elements(${stepsParam}::json) WITH ORDINALITY AS e(value, ord)
  ORDER BY e.ord`;

interface TemplateRow {
  id: number;
  uuid: string;
  name: string;
  extra: string | null;
  version: string | null;
  created_at: string;
  updated_at: string | null;
  steps?: string;
}

function stepsParam(steps: readonly DeployStep[]): string {
  return JSON.stringify(
    steps.map((st) => ({
      interface: st.interface,
      step: st.step,
      args: JSON.stringify(st.args),
      priority: st.priority,
    })),
  );
}

function toTemplate(r: TemplateRow, steps?: DeployStep[]): StoredTemplate {
  return {
    id: Number(r.id),
    uuid: r.uuid,
    name: r.name,
    steps: steps ?? (JSON.parse(r.steps ?? '[]') as DeployStep[]),
    extra: r.extra ? (JSON.parse(r.extra) as Record<string, unknown>) : {},
    version: r.version ?? OBJECT_VERSION,
    created_at: `${r.created_at}+00:00`,
    updated_at: r.updated_at ? `${r.updated_at}+00:00` : null,
  };
}

function conflictFrom(
  error: unknown,
  template: { name?: string; uuid?: string },
): StackspecError | undefined {
  const e = error as { code?: string; constraint?: string };
  if (e?.code !== '23505') return undefined;
  if (e.constraint === 'uniq_deploytemplates0uuid') {
    return new ConflictError(`A deploy template with UUID ${template.uuid} already exists.`, {
      code: 'deploy-templates/duplicate-uuid',
      cause: error,
    });
  }
  return new ConflictError(`A deploy template with name ${template.name} already exists.`, {
    code: 'deploy-templates/duplicate-name',
    cause: error,
  });
}

/** Storage failures other than conflicts: wrapped so callers only see core's error family. */
function storageError(error: unknown): StackspecError {
  if (isStackspecError(error)) return error;
  const message = `The deploy template storage failed: ${describeError(error)}`;
  return sqlStorageError(error, {
    message,
    code: 'deploy-templates/storage',
    migrateCommand: 'stackspec-baremetal migrate',
  });
}

/**
 * The store on any PostgreSQL driver: the spec's two tables with their
 * unique keys and indexes, versioned migrations applied on first use (or
 * checked only, with `migrate: false`), one transaction per write.
 */
export function createSqlStore(driver: SqlDriver, options: SqlStoreOptions = {}): SqlDeployTemplateStore {
  const schemaName = options.schema ?? 'public';
  const schema = quoteIdent(schemaName);
  const clock = options.clock ?? systemClock;
  const now = () => timestamp(clock, options.clock !== undefined);
  let ready: Promise<unknown> | undefined;
  const migrator = createSchemaMigrator({
    schema: schemaName,
    table: 'deploy_templates_migrations',
    migrations: MIGRATIONS,
    // The key and the 32-bit hash of the releases before: a migrator of one
    // of them and one of this release still exclude each other.
    lockKey: `stackspec-deploy-templates:${schema}`,
    lockHash: 'hashtext',
    badOptionCode: 'deploy-templates/bad-option',
    notMigrated: {
      code: 'deploy-templates/not-migrated',
      tables: 'deploy template',
      command: 'stackspec-baremetal migrate',
      message: (what, latest, missing) =>
        `${what}, and this stackspec needs version ${latest} (missing: ${missing.map((m) => `${m.version} ${m.name}`).join(', ')}).`,
    },
  });

  // Looks first: an up-to-date schema gets no CREATE, which a serving role may not run.
  const migrate = () => migrator.migrate(driver);
  const verify = () => migrator.verify(driver);

  function ensureReady(): Promise<unknown> {
    ready ??= (options.migrate === false ? verify() : migrate()).catch((e) => {
      ready = undefined;
      throw storageError(e);
    });
    return ready;
  }

  async function selectOne(
    db: SqlExecutor,
    where: string,
    param: unknown,
  ): Promise<StoredTemplate | undefined> {
    const { rows } = await db.query<TemplateRow>(`${SELECT_TEMPLATE(schema)} WHERE ${where}`, [param]);
    return rows[0] ? toTemplate(rows[0]) : undefined;
  }

  async function guarded<T>(fn: () => Promise<T>, names: { name?: string; uuid?: string } = {}): Promise<T> {
    await ensureReady();
    try {
      return await fn();
    } catch (e) {
      if (isStackspecError(e)) throw e;
      throw conflictFrom(e, names) ?? storageError(e);
    }
  }

  const sortColumn = (key: SortKey) =>
    key === 'name' || key === 'uuid' || key === 'version' ? `t.${key} COLLATE "C"` : `t.${key}`;

  return {
    async migrate() {
      try {
        const done = await migrate();
        ready = Promise.resolve();
        return done;
      } catch (e) {
        throw storageError(e);
      }
    },

    create(template: NewTemplate) {
      // A single statement: atomic without an explicit transaction.
      return guarded(async () => {
        const at = now();
        const { rows } = await driver.query<TemplateRow>(
          `WITH t AS (
             INSERT INTO ${schema}.deploy_templates (uuid, name, extra, version, created_at)
             VALUES ($1, $2, $3, $4, $5::timestamp) RETURNING *
           ), s AS (${INSERT_STEPS(schema, 't.id', '$6', '$4', '$5').replace('FROM json_array_elements', 'FROM t, json_array_elements')})
           SELECT t.id, t.uuid, t.name, t.extra, t.version, to_char(t.created_at, ${TS}) AS created_at,
                  to_char(t.updated_at, ${TS}) AS updated_at FROM t`,
          [
            template.uuid,
            template.name,
            JSON.stringify(template.extra ?? {}),
            OBJECT_VERSION,
            at,
            stepsParam(template.steps),
          ],
        );
        const row = rows[0];
        if (!row) throw new Error('the insert returned no row');
        return toTemplate(row, structuredClone(template.steps));
      }, template);
    },

    getByUuid(uuid: string) {
      return guarded(() => selectOne(driver, 't.uuid = $1', uuid));
    },

    getByName(name: string) {
      return guarded(() => selectOne(driver, 't.name = $1', name));
    },

    list(opts: ListTemplatesOptions = {}) {
      return guarded(async () => {
        const key: SortKey = opts.sortKey ?? 'id';
        if (!SORT_KEYS.includes(key)) {
          throw new ValidationError(
            `${String(key)} is not a sort key: expected one of ${SORT_KEYS.join(', ')}.`,
            {
              code: 'deploy-templates/invalid-sort-key',
            },
          );
        }
        const dir = opts.sortDir === 'desc' ? 'DESC' : 'ASC';
        const params: unknown[] = [];
        const where: string[] = [];
        if (opts.marker) {
          const m = opts.marker;
          const value =
            key === 'id'
              ? m.id
              : key === 'updated_at'
                ? m.updated_at
                : key === 'created_at'
                  ? m.created_at
                  : m[key];
          const col = sortColumn(key);
          params.push(m.id);
          const idCmp = dir === 'ASC' ? '>' : '<';
          if (key === 'id') {
            where.push(`t.id ${idCmp} $1`);
          } else if (value === null || value === undefined) {
            // NULLs sort first ascending and last descending (as on SQLite and MySQL).
            where.push(
              dir === 'ASC'
                ? `((${col} IS NULL AND t.id > $1) OR ${col} IS NOT NULL)`
                : `(${col} IS NULL AND t.id < $1)`,
            );
          } else {
            const raw = typeof value === 'string' && /_at$/.test(key) ? value.replace(/\+00:00$/, '') : value;
            params.push(raw);
            const cast = /_at$/.test(key) ? '::timestamp' : '';
            const cmp = dir === 'ASC' ? '>' : '<';
            where.push(
              dir === 'ASC'
                ? `(${col} ${cmp} $2${cast} OR (${col} = $2${cast} AND t.id > $1))`
                : `(${col} ${cmp} $2${cast} OR ${col} IS NULL OR (${col} = $2${cast} AND t.id < $1))`,
            );
          }
        }
        let sql = `${SELECT_TEMPLATE(schema)}${where.length ? ` WHERE ${where.join(' AND ')}` : ''} ORDER BY ${sortColumn(key)} ${dir} ${dir === 'ASC' ? 'NULLS FIRST' : 'NULLS LAST'}, t.id ${dir}`;
        if (opts.limit !== undefined) {
          params.push(opts.limit);
          sql += ` LIMIT $${params.length}`;
        }
        const { rows } = await driver.query<TemplateRow>(sql, params);
        return rows.map((r) => toTemplate(r));
      });
    },

    listByNames(names: readonly string[]) {
      return guarded(async () => {
        if (!names.length) return [];
        const { rows } = await driver.query<TemplateRow>(
          `${SELECT_TEMPLATE(schema)} WHERE t.name = ANY($1::text[]) ORDER BY t.id`,
          [[...names]],
        );
        return rows.map((r) => toTemplate(r));
      });
    },

    modify(uuid, change) {
      let attempted: TemplateChanges = {};
      return guarded(
        () =>
          driver.transaction(async (tx) => {
            // Lock first, then read in a new statement: in READ COMMITTED a
            // statement that waited for the lock still sees the steps of its
            // old snapshot, which would lose a concurrent change.
            const locked = await tx.query(
              `SELECT id FROM ${schema}.deploy_templates WHERE uuid = $1 FOR UPDATE`,
              [uuid],
            );
            if (!locked.rows.length) return undefined;
            const current = await selectOne(tx, 't.uuid = $1', uuid);
            if (!current) return undefined;
            const changes = await change(current);
            attempted = changes;
            const sets: string[] = [];
            const params: unknown[] = [];
            if (changes.name !== undefined && changes.name !== current.name) {
              params.push(changes.name);
              sets.push(`name = $${params.length}`);
            }
            if (
              changes.extra !== undefined &&
              JSON.stringify(changes.extra) !== JSON.stringify(current.extra)
            ) {
              params.push(JSON.stringify(changes.extra));
              sets.push(`extra = $${params.length}`);
            }
            const stepsChanged =
              changes.steps !== undefined && JSON.stringify(changes.steps) !== JSON.stringify(current.steps);
            if (!sets.length && !stepsChanged) return current;
            const at = now();
            params.push(at);
            const atParam = `$${params.length}`;
            sets.push(`updated_at = ${atParam}::timestamp`);
            params.push(current.id);
            const idParam = `$${params.length}`;
            let sql = `WITH u AS (UPDATE ${schema}.deploy_templates SET ${sets.join(', ')} WHERE id = ${idParam}
                       RETURNING id, uuid, name, extra, version, created_at, updated_at)`;
            if (stepsChanged && changes.steps) {
              params.push(stepsParam(changes.steps), OBJECT_VERSION);
              sql += `, d AS (DELETE FROM ${schema}.deploy_template_steps WHERE deploy_template_id = ${idParam}),
                      i AS (${INSERT_STEPS(schema, `${idParam}::int`, `$${params.length - 1}`, `$${params.length}`, atParam)})`;
            }
            sql += ` SELECT u.id, u.uuid, u.name, u.extra, u.version, to_char(u.created_at, ${TS}) AS created_at,
                            to_char(u.updated_at, ${TS}) AS updated_at FROM u`;
            const { rows } = await tx.query<TemplateRow>(sql, params);
            const row = rows[0];
            if (!row) throw new Error('the update returned no row');
            return toTemplate(
              row,
              structuredClone(stepsChanged && changes.steps ? changes.steps : current.steps),
            );
          }),
        {
          get name() {
            return attempted.name;
          },
        },
      );
    },

    delete(uuid: string) {
      return guarded(async () => {
        const { rows } = await driver.query<{ id: number }>(
          `WITH t AS (SELECT id FROM ${schema}.deploy_templates WHERE uuid = $1 FOR UPDATE),
                s AS (DELETE FROM ${schema}.deploy_template_steps WHERE deploy_template_id IN (SELECT id FROM t))
           DELETE FROM ${schema}.deploy_templates WHERE id IN (SELECT id FROM t) RETURNING id`,
          [uuid],
        );
        return rows.length > 0;
      });
    },

    close() {
      return driver.close();
    },
  };
}
