// `stackspec-placement migrate`, `import` and `export`: the commands that
// work on a durable Placement's database directly, without a server.
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import {
  addExamples,
  addFormatOption,
  type CliIO,
  type createProgram,
  formatObject,
  usage,
} from '@stackspec/core/cli';
import { exportInventory } from './model/inventory-export.js';
import type { ResolvedInventory } from './model/inventory-file.js';
import type { SqlPlacementStore } from './store/sql-store.js';
import {
  addStoreOptions,
  createStoreFor,
  describePlace,
  isSqlStore,
  resolveStorePlace,
  type StoreOptionValues,
  storeProblem,
} from './store-place.js';

/** A commander command, as core's `createProgram` makes them. */
type Command = ReturnType<typeof createProgram>;

/** What the store commands need from the rest of the command line. */
export interface StoreCommandDeps {
  /** Reads and checks an inventory file (the `-i` of every command). */
  loadInventory(file: string, maxMb: number | undefined): ResolvedInventory;
  /** The `--max-inventory-mb` option. */
  maxInventoryOption: { flags: string; description: string; parse: (value: string) => number };
}

function print(io: CliIO, text: string): void {
  io.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
}

/** Opens the database a command line names; a memory store is refused. */
async function openSql(
  o: StoreOptionValues,
  io: CliIO,
  what: string,
  migrate: boolean,
): Promise<{ store: SqlPlacementStore; where: string }> {
  const place = resolveStorePlace(o, io);
  const where = describePlace(place, o.schema);
  const store = await createStoreFor(place, o, io, { migrate });
  if (!isSqlStore(store))
    usage(`${what} needs a database: give --data-dir DIR or --database-url postgres://….`);
  return { store, where };
}

/** Adds `migrate`, `import` and `export` to the program. */
export function addStoreCommands(program: Command, io: CliIO, deps: StoreCommandDeps): void {
  const migrate = addStoreOptions(
    program
      .command('migrate')
      .description(
        'Create or upgrade the Placement tables, then exit; run it as the owner, so that serve --no-migrate needs no right to create',
      ),
    'migrate',
  );
  addExamples(migrate, [
    {
      description: 'Create the tables in PostgreSQL as their owner',
      command: 'stackspec-placement migrate --database-url postgres://placement_owner@db/placement',
    },
    {
      description: 'Create the tables in a PGlite data directory',
      command: 'stackspec-placement migrate --data-dir ./placement-data',
    },
  ]);
  migrate.action(async (o: StoreOptionValues) => {
    const { store, where } = await openSql(o, io, 'migrate', true);
    try {
      const done = await store.migrate().catch(storeProblem);
      print(
        io,
        done.applied.length
          ? `Migrated the Placement tables (${where}) to version ${done.version}: applied ${done.applied.map((m) => `${m.version} (${m.name})`).join(', ')}.`
          : `The Placement tables (${where}) are at version ${done.version} already; nothing to do.`,
      );
    } finally {
      await store.close();
    }
  });

  const importer = addStoreOptions(
    program
      .command('import')
      .description(
        'Load an inventory file into the database, in one transaction; running servers on PostgreSQL read the new state at once',
      )
      .requiredOption('-i, --inventory <file>', 'inventory file (YAML or JSON)')
      .option(
        deps.maxInventoryOption.flags,
        deps.maxInventoryOption.description,
        deps.maxInventoryOption.parse,
      )
      .option(
        '--replace',
        'remove every provider, consumer, custom trait and class the database holds first',
      ),
    'data',
  );
  addFormatOption(importer, ['text', 'json'], 'text');
  addExamples(importer, [
    {
      description: 'Start a PGlite data directory from an inventory file',
      command: 'stackspec-placement import -i cloud.yaml',
    },
    {
      description: 'Replace what a shared PostgreSQL holds',
      command:
        'STACKSPEC_DATABASE_URL=postgres://placement@db/placement stackspec-placement import -i cloud.yaml --replace',
    },
  ]);
  importer.action(
    async (
      o: StoreOptionValues & {
        inventory: string;
        maxInventoryMb?: number;
        replace?: boolean;
        format: 'text' | 'json';
      },
    ) => {
      const inventory = deps.loadInventory(o.inventory, o.maxInventoryMb);
      const { store, where } = await openSql(o, io, 'import', true);
      try {
        await store.open().catch(storeProblem);
        const done = await store.importInventory(inventory, { replace: o.replace === true });
        print(
          io,
          o.format === 'json'
            ? JSON.stringify({ ...done, store: where }, null, 2)
            : `Imported ${done.providers} providers and ${done.consumers} consumers into ${where}${done.replaced ? ` (replacing ${done.replaced} providers)` : ''}.`,
        );
      } finally {
        await store.close();
      }
    },
  );

  const exporter = addStoreOptions(
    program
      .command('export')
      .description(
        'Write the database as an inventory file (providers, inventories, traits, aggregates, consumers; generations are not kept), for query, explain and stackspec schedule',
      )
      .option('-o, --output <file>', 'file to write (default: standard output)'),
    'data',
  );
  addFormatOption(exporter, ['yaml', 'json'], 'yaml');
  addExamples(exporter, [
    {
      description: 'The state of a PGlite data directory, as YAML',
      command: 'stackspec-placement export -o cloud.yaml',
    },
    {
      description: 'The state of a shared PostgreSQL, as JSON',
      command:
        'stackspec-placement export --database-url postgres://placement@db/placement -f json -o cloud.json',
    },
  ]);
  exporter.action(async (o: StoreOptionValues & { output?: string; format: 'yaml' | 'json' }) => {
    // Reading changes nothing: the tables are checked, never created.
    const { store } = await openSql(o, io, 'export', false);
    let text: string;
    try {
      await store.open().catch(storeProblem);
      const file = exportInventory(store.store);
      text =
        o.format === 'json'
          ? `${JSON.stringify(file, null, 2)}\n`
          : `${formatObject(file as unknown as Record<string, unknown>, { format: 'yaml' })}\n`;
    } finally {
      await store.close();
    }
    if (o.output) writeFileSync(resolve(io.cwd, o.output), text);
    else io.stdout.write(text);
  });
}
