// Where `stackspec-placement` keeps a Placement's state, from its options and
// the environment, and how to open it. The adapters are imported by the
// commands that open them, so that --help, `query` and `parse` never load
// PGlite or pg.
import { resolve } from 'node:path';
import { isStackspecError } from '@stackspec/core';
import { type CliIO, type createProgram, usage } from '@stackspec/core/cli';
import type { ProviderStore } from './model/store.js';
import { createMemoryPlacementStore } from './store/memory-store.js';
import type { SqlPlacementStore } from './store/sql-store.js';
import type { PlacementStore } from './store/types.js';

/** A commander command, as core's `createProgram` makes them. */
type Command = ReturnType<typeof createProgram>;

/** The data directory used when none is named: `placement-data` in the working directory. */
export const DEFAULT_DATA_DIR = 'placement-data';

/** Where the state is kept. */
export type StorePlace =
  | { kind: 'memory' }
  | { kind: 'pglite'; dir: string; defaulted: boolean }
  | { kind: 'postgres'; url: string };

/** The store options of a command, as commander hands them over. */
export interface StoreOptionValues {
  ephemeral?: boolean;
  dataDir?: string;
  databaseUrl?: string;
  schema?: string;
  migrate?: boolean;
  poolSize?: string;
  statementTimeout?: string;
}

/** Adds the options that say where the state is (and, for `serve`, how to use it). */
export function addStoreOptions(command: Command, kind: 'serve' | 'migrate' | 'data'): Command {
  if (kind === 'serve')
    command.option(
      '--ephemeral',
      'keep writes in memory only: stopping the server loses every provider, inventory, trait and allocation written through the API',
    );
  command
    .option(
      '--data-dir <dir>',
      `keep the state in this PGlite data directory, locked to one process (env STACKSPEC_DATA_DIR; default ./${DEFAULT_DATA_DIR})`,
    )
    .option(
      '--database-url <url>',
      'keep the state in PostgreSQL, shared by every server on it (postgres://…; env STACKSPEC_DATABASE_URL keeps a password out of ps)',
    )
    .option('--schema <name>', 'PostgreSQL schema of the tables (default placement)');
  if (kind === 'serve')
    command
      .option(
        '--no-migrate',
        'create no tables: check that stackspec-placement migrate brought them up to date, and fail if not (for a role that may only read and write rows)',
      )
      .option('--pool-size <n>', 'largest number of PostgreSQL connections (default 10)')
      .option(
        '--statement-timeout <ms>',
        "cancel a PostgreSQL statement that runs longer (default: the server's statement_timeout)",
      );
  return command;
}

/**
 * Where the state is: an option wins over the environment; two places given
 * the same way are refused (either guess could write to the wrong store);
 * with none, `--ephemeral` keeps it in memory and otherwise it is PGlite in
 * {@link DEFAULT_DATA_DIR}.
 */
export function resolveStorePlace(o: StoreOptionValues, io: CliIO): StorePlace {
  if (o.ephemeral && (o.dataDir || o.databaseUrl))
    usage(
      `--ephemeral keeps the state in memory, and ${o.dataDir ? '--data-dir' : '--database-url'} names where to keep it.`,
      'Give one of them.',
    );
  if (o.dataDir && o.databaseUrl)
    usage('Give either --data-dir or --database-url, not both: each names a different place for the state.');
  if (o.ephemeral) return { kind: 'memory' };
  if (o.databaseUrl) return { kind: 'postgres', url: o.databaseUrl };
  if (o.dataDir) return { kind: 'pglite', dir: resolve(io.cwd, o.dataDir), defaulted: false };
  const { STACKSPEC_DATA_DIR: dataDir, STACKSPEC_DATABASE_URL: databaseUrl } = io.env;
  if (dataDir && databaseUrl)
    usage(
      'Both STACKSPEC_DATA_DIR and STACKSPEC_DATABASE_URL are set, and each names a different place for the state.',
      'Choose one with --data-dir or --database-url (an option wins over the environment), or unset one.',
    );
  if (databaseUrl) return { kind: 'postgres', url: databaseUrl };
  if (dataDir) return { kind: 'pglite', dir: resolve(io.cwd, dataDir), defaulted: false };
  return { kind: 'pglite', dir: resolve(io.cwd, DEFAULT_DATA_DIR), defaulted: true };
}

/** The place in words, for banners and messages. */
export function describePlace(place: StorePlace, schema?: string): string {
  if (place.kind === 'memory') return 'memory only';
  if (place.kind === 'pglite') return `PGlite in ${place.dir}`;
  let where = 'PostgreSQL';
  try {
    const u = new URL(place.url);
    where = `PostgreSQL at ${u.hostname}${u.port ? `:${u.port}` : ''}${u.pathname}`;
  } catch {
    // An unparsable URL is reported by pg when it connects.
  }
  return `${where}, schema ${schema ?? 'placement'}`;
}

function wholeNumber(option: string, value: string, min: number): number {
  if (!/^\d+$/.test(value) || Number(value) < min)
    usage(`${option} must be a whole number${min > 0 ? ` of at least ${min}` : ''}, not ${value}.`);
  return Number(value);
}

/** The PostgreSQL-only settings, refused for a store they do not apply to. */
function checkSettings(place: StorePlace, o: StoreOptionValues): void {
  if (place.kind !== 'postgres' && (o.poolSize !== undefined || o.statementTimeout !== undefined))
    usage(
      `${o.poolSize !== undefined ? '--pool-size' : '--statement-timeout'} applies to PostgreSQL only, and the state is kept in ${describePlace(place)}.`,
      'Give --database-url postgres://… (or STACKSPEC_DATABASE_URL), or leave the option out.',
    );
  if (place.kind === 'memory' && o.migrate === false)
    usage(
      '--no-migrate needs a database that was migrated before; in memory there is none.',
      'Give --data-dir DIR or --database-url postgres://…, migrated with stackspec-placement migrate.',
    );
  if (place.kind === 'memory' && o.schema)
    usage('--schema names PostgreSQL tables; in memory there are none.');
}

/** Opens the store a command line names (not yet `open()`ed). */
export async function createStoreFor(
  place: StorePlace,
  o: StoreOptionValues,
  io: CliIO,
  extra: { migrate?: boolean; memory?: ProviderStore } = {},
): Promise<PlacementStore | SqlPlacementStore> {
  checkSettings(place, o);
  // A lock taken over from a killed process, a dropped connection: said, not hidden.
  const log = (line: string) => io.stderr.write(`warning: ${line}\n`);
  const migrate = (extra.migrate ?? o.migrate) === false ? { migrate: false } : {};
  const schema = o.schema ? { schema: o.schema } : {};
  if (place.kind === 'memory') return createMemoryPlacementStore(extra.memory);
  if (place.kind === 'postgres') {
    const { createPostgresPlacementStore } = await import('./adapters/postgres.js');
    return createPostgresPlacementStore({
      connectionString: place.url,
      log,
      ...migrate,
      ...schema,
      ...(o.poolSize !== undefined ? { maxConnections: wholeNumber('--pool-size', o.poolSize, 1) } : {}),
      ...(o.statementTimeout !== undefined
        ? { statementTimeoutMillis: wholeNumber('--statement-timeout', o.statementTimeout, 0) }
        : {}),
    });
  }
  const { createPglitePlacementStore } = await import('./adapters/pglite.js');
  return createPglitePlacementStore({ dataDir: place.dir, log, ...migrate, ...schema });
}

/** Whether a store keeps its state in a database (and can migrate and import). */
export function isSqlStore(store: PlacementStore): store is SqlPlacementStore {
  return 'migrate' in store;
}

/**
 * A data directory another process holds, as a usage error (exit 2) that
 * says how to reach that process instead; other errors pass through.
 */
export function storeProblem(e: unknown): never {
  if (isStackspecError(e) && e.code === 'store/locked') {
    usage(
      e.message,
      'Another process has this data directory open. If it is a server, load into it with stackspec-placement load --url and the URL it printed; stop it before opening the directory from here.',
    );
  }
  throw e;
}
