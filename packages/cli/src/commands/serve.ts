import { randomUUID } from 'node:crypto';
import { resolve } from 'node:path';
import { describeError, isStackspecError } from '@stackspec/core';
import { type CliIO, createColors, formatDiagnostics, usage } from '@stackspec/core/cli';
import { type RunningServer, startServer } from '@stackspec/core/node';
import type { DeployTemplateStore } from '@stackspec/deploy-templates';
import {
  createExtraSpecRegistry,
  createMemoryFlavorStore,
  type ExtraSpecRegistry,
} from '@stackspec/extra-spec-validators';
import { parseInventory, type ResolvedInventory } from '@stackspec/placement-query';
import type { PgliteDatabase, SqlPlacementStore } from '@stackspec/placement-query/pglite';
import type { Command } from 'commander';
import { Option } from 'commander';
import {
  AUTH_HELP,
  createStackspecApp,
  ENFORCE_NEW_DEFAULTS_HELP,
  oversizedHeadResponse,
  SERVICE_PREFIXES,
  type StackspecApp,
  type StackspecAppOptions,
} from '../app.js';
import { type Cloud, loadCloud } from '../cloud.js';
import { loadConfigForFolder } from '../config.js';
import { registryFor } from '../extra-spec-registry.js';

interface ServeOptions {
  port: string;
  host: string;
  inventory?: string;
  config?: string;
  dataDir?: string;
  databaseUrl?: string;
  auth: 'none' | 'trusted-headers';
  enforceNewDefaults?: boolean;
  migrate: boolean;
  poolSize?: string;
  statementTimeout?: string;
  maxAllocationCandidates?: string;
  allocationCandidatesGenerationStrategy?: 'depth-first' | 'breadth-first';
  optimizeForWideProviderTrees?: boolean;
}

/** A running `stackspec serve`. */
export interface StackspecServer extends RunningServer {
  readonly app: StackspecApp;
}

/** Options for {@link serveStackspec}. */
export interface ServeStackspecOptions {
  port?: number;
  host?: string;
  /** Placement inventory file text and name, loaded at start. */
  inventory?: { text: string; filename: string };
  /** Deploy template store (default: an in-memory PGlite store). */
  deployTemplates?: DeployTemplateStore;
  /**
   * A durable Placement (`@stackspec/placement-query/pglite` or `/postgres`),
   * not yet opened: it is opened before the server listens, loaded with the
   * inventory when its database holds nothing yet, and closed by `close()`.
   * Default: Placement's state in memory only.
   */
  placementStore?: SqlPlacementStore;
  /** A cloud read by `loadCloud`: its flavors, inventory and deploy templates are served. */
  cloud?: Pick<Cloud, 'flavors' | 'templates' | 'inventory'>;
  auth?: 'none' | 'trusted-headers';
  /** Check only the new default rules of `/compute` and `/placement` (see `StackspecAppOptions`). */
  enforceNewDefaults?: boolean;
  /** Placement's candidate generation settings, passed to `/placement`. */
  placementSearch?: StackspecAppOptions['placementSearch'];
  /** The extra spec catalog and plugins the compute service validates against (default: the newest built-in catalog). */
  extraSpecRegistry?: ExtraSpecRegistry;
  /** Operational log lines (default: nowhere). */
  log?: (line: string) => void;
}

/** Starts the combined server; `close()` stops it and closes the stores. */
export async function serveStackspec(options: ServeStackspecOptions = {}): Promise<StackspecServer> {
  // PGlite is loaded only when it serves (never by `stackspec check`, nor by a caller's own store).
  const store =
    options.deployTemplates ?? (await import('@stackspec/deploy-templates/pglite')).createPgliteStore();
  try {
    // Open the store before listening: an unreachable database, a data directory another
    // process holds or tables that were never migrated end here, not in every request.
    await store.list({ limit: 1 });
  } catch (e) {
    if (!options.deployTemplates) await store.close();
    throw e;
  }
  const durable = options.placementStore;
  const loaded = options.inventory
    ? {
        file: options.inventory.filename,
        ...parseInventory(options.inventory.text, { filename: options.inventory.filename }),
      }
    : options.cloud?.inventory
      ? {
          file: options.cloud.inventory.file,
          store: options.cloud.inventory.store,
          inventory: options.cloud.inventory.resolved,
        }
      : undefined;
  if (durable) {
    try {
      await openDurablePlacement(durable, loaded, options.log);
    } catch (e) {
      await durable.close();
      if (!options.deployTemplates) await store.close();
      throw e;
    }
  }
  const placement = durable ? undefined : loaded?.store;
  for (const t of options.cloud?.templates ?? []) {
    // Preload templates the store does not hold yet (a data directory keeps earlier ones).
    if (!(await store.getByName(t.name))) {
      await store.create({
        uuid: t.uuid ?? randomUUID(),
        name: t.name,
        steps: t.steps,
        extra: t.extra ?? {},
      });
    }
  }
  const flavors = createMemoryFlavorStore(
    Object.fromEntries((options.cloud?.flavors ?? []).map((f) => [f.name, { ...f.extraSpecs }])),
  );
  let app: StackspecApp | undefined;
  // The app needs the public URL for its links, known once the port is bound.
  let server: RunningServer;
  try {
    server = await startServer(
      (request) => (app ? app(request) : Promise.resolve(new Response('starting', { status: 503 }))),
      { port: options.port ?? 8080, host: options.host ?? '127.0.0.1', oversizedHead: oversizedHeadResponse },
    );
  } catch (e) {
    // A store we opened is ours to close; one handed to us is the caller's.
    if (!options.deployTemplates) await store.close();
    await durable?.close();
    throw e;
  }
  app = createStackspecApp({
    publicUrl: server.url,
    deployTemplates: store,
    flavors,
    ...(placement ? { placement } : {}),
    ...(durable ? { placementStore: durable } : {}),
    ...(options.extraSpecRegistry ? { extraSpecRegistry: options.extraSpecRegistry } : {}),
    auth: options.auth ?? 'none',
    ...(options.enforceNewDefaults ? { enforceNewDefaults: true } : {}),
    ...(options.placementSearch ? { placementSearch: options.placementSearch } : {}),
    ...(options.log ? { log: options.log } : {}),
  });
  const ready = app;
  return {
    ...server,
    app: ready,
    async close() {
      await server.close();
      await durable?.close();
      await store.close();
    },
  };
}

/**
 * Opens a durable Placement and loads the inventory into it when its
 * database holds nothing yet; a database that already holds a cloud keeps
 * it (the file is not loaded, and `log` says so).
 */
async function openDurablePlacement(
  placement: SqlPlacementStore,
  loaded: { file: string; inventory: ResolvedInventory } | undefined,
  log: ((line: string) => void) | undefined,
): Promise<void> {
  await placement.open();
  if (!loaded) return;
  const held = placement.store.providerCount + [...placement.store.consumers()].length;
  if (held) {
    log?.(
      `warning: Placement's database already holds ${placement.store.providerCount} providers; ${loaded.file} was not loaded (stackspec-placement import --replace loads it over them).`,
    );
    return;
  }
  await placement.importInventory(loaded.inventory);
}

// Why the server could not listen, as a usage error the user can act on.
function listenProblem(e: unknown, host: string, port: number): never {
  const code = (e as { code?: string } | null)?.code;
  if (code === 'EADDRINUSE')
    usage(`Port ${port} on ${host} is already in use.`, 'Pick another --port, or --port 0 for a free one.');
  if (code === 'EACCES')
    usage(
      `Listening on ${host}:${port} is not allowed: ${describeError(e)}.`,
      'Ports below 1024 need privileges; pick another --port, or --port 0 for a free one.',
    );
  if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND' || code === 'EAI_AGAIN')
    usage(
      `--host ${host} is not an address of this machine.`,
      'Use 127.0.0.1, 0.0.0.0 or an address this machine has.',
    );
  throw e;
}

/** Where `stackspec serve` keeps deploy templates: an option wins over the environment. */
function templatePlace(
  opts: ServeOptions,
  env: Readonly<Record<string, string | undefined>>,
): { dataDir?: string; databaseUrl?: string } {
  if (opts.databaseUrl) return { databaseUrl: opts.databaseUrl };
  if (opts.dataDir) return { dataDir: opts.dataDir };
  const { STACKSPEC_DATA_DIR: dataDir, STACKSPEC_DATABASE_URL: databaseUrl } = env;
  if (dataDir && databaseUrl)
    usage(
      'Both STACKSPEC_DATA_DIR and STACKSPEC_DATABASE_URL are set, and each names a different place for the deploy templates.',
      'Choose one with --data-dir or --database-url (an option wins over the environment), or unset one.',
    );
  return databaseUrl ? { databaseUrl } : dataDir ? { dataDir } : {};
}

/** A whole number from the command line, or a usage error naming the option. */
function wholeNumber(option: string, value: string, min: number): number {
  if (!/^\d+$/.test(value) || Number(value) < min)
    usage(`${option} must be a whole number${min > 0 ? ` of at least ${min}` : ''}, not ${value}.`);
  return Number(value);
}

/** The store settings of the command line, checked against the store they apply to. */
function storeSettings(
  place: { dataDir?: string; databaseUrl?: string },
  opts: ServeOptions,
): { migrate?: false; maxConnections?: number; statementTimeoutMillis?: number } {
  if (!place.databaseUrl && (opts.poolSize !== undefined || opts.statementTimeout !== undefined))
    usage(
      `${opts.poolSize !== undefined ? '--pool-size' : '--statement-timeout'} applies to PostgreSQL only, and the deploy templates are kept in PGlite ${place.dataDir ? `in ${place.dataDir}` : 'in memory'}.`,
      'Give --database-url postgres://… (or STACKSPEC_DATABASE_URL), or leave the option out.',
    );
  if (!place.databaseUrl && !place.dataDir && !opts.migrate)
    usage(
      '--no-migrate needs a database that was migrated before; in memory there is none.',
      'Give --data-dir DIR or --database-url postgres://…, migrated with stackspec-baremetal migrate.',
    );
  return {
    ...(opts.migrate ? {} : { migrate: false as const }),
    ...(opts.poolSize !== undefined ? { maxConnections: wholeNumber('--pool-size', opts.poolSize, 1) } : {}),
    ...(opts.statementTimeout !== undefined
      ? { statementTimeoutMillis: wholeNumber('--statement-timeout', opts.statementTimeout, 0) }
      : {}),
  };
}

// A data directory another process serves: a usage error that says how to reach that server instead.
function lockProblem(e: unknown): void {
  if (!isStackspecError(e) || e.code !== 'store/locked') return;
  usage(
    e.message,
    'Another process has this data directory open. If it is a server, clients can use it with --os-endpoint and the URL it printed when it started; stop it before serving the directory from here.',
  );
}

/** Adds `stackspec serve` to a program. */
export function addServeCommand(program: Command, io: CliIO, onStarted?: (server: StackspecServer) => void) {
  program
    .command('serve')
    .description(
      'serve the extra spec, Placement, deploy template and Heat introspection APIs from one process',
    )
    .argument('[paths...]', 'cloud files to serve: flavors, a Placement inventory, deploy templates')
    .option('--port <n>', 'TCP port (0 picks a free one)', '8080')
    .option('--host <address>', 'interface to bind', '127.0.0.1')
    .option('--inventory <file>', 'Placement inventory to load at start (default: the one found among PATHS)')
    .option(
      '--config <file>',
      'config file: extra spec release and plugins (default: the stackspec.config.yaml nearest to the first path)',
    )
    .option(
      '--data-dir <dir>',
      "keep deploy templates and Placement's state in this PGlite data directory, locked while serving (env STACKSPEC_DATA_DIR; default: in memory)",
    )
    .option(
      '--database-url <url>',
      "keep deploy templates and Placement's state (schema placement) in PostgreSQL instead (postgres://…; env STACKSPEC_DATABASE_URL keeps a password out of ps)",
    )
    .option(
      '--no-migrate',
      'create no tables: check that stackspec-baremetal migrate and stackspec-placement migrate brought them up to date, and fail if not',
    )
    .option('--pool-size <n>', 'largest number of PostgreSQL connections (default 10)')
    .option(
      '--statement-timeout <ms>',
      "cancel a PostgreSQL statement that runs longer (default: the server's statement_timeout)",
    )
    .addOption(new Option('--auth <mode>', AUTH_HELP).choices(['none', 'trusted-headers']).default('none'))
    .option('--enforce-new-defaults', ENFORCE_NEW_DEFAULTS_HELP)
    .option(
      '--max-allocation-candidates <n>',
      "/placement: Placement's [placement]max_allocation_candidates, -1 for no bound (default 100000)",
    )
    .addOption(
      new Option(
        '--allocation-candidates-generation-strategy <strategy>',
        "/placement: Placement's [placement]allocation_candidates_generation_strategy",
      ).choices(['depth-first', 'breadth-first']),
    )
    .option(
      '--optimize-for-wide-provider-trees',
      "/placement: Placement's [workarounds]optimize_for_wide_provider_trees",
    )
    .action(async (paths: string[], opts: ServeOptions) => {
      const maxCandidates =
        opts.maxAllocationCandidates === undefined ? undefined : Number(opts.maxAllocationCandidates);
      if (maxCandidates !== undefined && !(Number.isInteger(maxCandidates) && maxCandidates >= -1))
        usage(
          `--max-allocation-candidates must be -1 or a whole number, not ${opts.maxAllocationCandidates}.`,
        );
      const port = Number(opts.port);
      if (!/^\d+$/.test(opts.port) || port > 65535)
        usage(`--port must be a number from 0 to 65535, not ${opts.port}.`);
      if (opts.dataDir && opts.databaseUrl) usage('Give either --data-dir or --database-url, not both.');
      if (opts.enforceNewDefaults && opts.auth !== 'trusted-headers')
        usage(
          '--enforce-new-defaults changes the policy checked under --auth trusted-headers; without it every request is an admin.',
          'Add --auth trusted-headers, or drop --enforce-new-defaults.',
        );
      const place = templatePlace(opts, io.env);
      const settings = storeSettings(place, opts);
      const colors = createColors({ stream: io.stderr, env: io.env });
      const loaded = await loadConfigForFolder(io.cwd, paths[0] ?? '.', opts.config);
      const choice = await registryFor(loaded.config, loaded.baseDir);
      if (choice.pending.length)
        io.stderr.write(`${formatDiagnostics(choice.pending.splice(0), { colors })}\n`);
      const release = loaded.config.extraSpecs.release;
      const registry = choice.registry ?? (release ? createExtraSpecRegistry({ release }) : undefined);
      let cloud: Cloud | undefined;
      if (paths.length || opts.inventory) {
        cloud = await loadCloud(paths, io.cwd, opts.inventory ? { inventory: opts.inventory } : {});
        if (cloud.diagnostics.some((d) => d.severity === 'error')) {
          io.stderr.write(`${formatDiagnostics(cloud.diagnostics, { colors })}\n`);
          const inventory = cloud.rejected.find((r) => r.kind === 'placement-inventory');
          usage(
            inventory
              ? `The Placement inventory ${inventory.file} cannot be used; its problems are listed above.`
              : 'The cloud files have errors (listed above); fix them before serving.',
            inventory ? undefined : 'stackspec check shows every problem of these files.',
          );
        }
      }
      let store: DeployTemplateStore;
      // Placement's state goes where the deploy templates go; in memory when they are in memory.
      let placementStore: SqlPlacementStore | undefined;
      // One PGlite for both stores of a data directory: one lock, one copy of PostgreSQL in memory.
      let shared: PgliteDatabase | undefined;
      // A lock taken over from a killed process, a dropped pooled connection: said, not hidden.
      const log = (line: string) => io.stderr.write(`warning: ${line}\n`);
      const noMigrate = settings.migrate === false ? { migrate: false as const } : {};
      if (place.databaseUrl) {
        const { createPostgresStore } = await import('@stackspec/deploy-templates/postgres');
        const { createPostgresPlacementStore } = await import('@stackspec/placement-query/postgres');
        store = createPostgresStore({ connectionString: place.databaseUrl, log, ...settings });
        placementStore = createPostgresPlacementStore({
          connectionString: place.databaseUrl,
          log,
          ...settings,
        });
      } else if (place.dataDir) {
        const { createPgliteStore } = await import('@stackspec/deploy-templates/pglite');
        const { createPglitePlacementStore, openPgliteDatabase } = await import(
          '@stackspec/placement-query/pglite'
        );
        try {
          shared = await openPgliteDatabase({ dataDir: resolve(io.cwd, place.dataDir), log });
        } catch (e) {
          lockProblem(e);
          throw e;
        }
        store = createPgliteStore({ db: shared.db, ...noMigrate });
        placementStore = createPglitePlacementStore({ db: shared.db, log, ...noMigrate });
      } else {
        const { createPgliteStore } = await import('@stackspec/deploy-templates/pglite');
        store = createPgliteStore({ log, ...noMigrate });
      }
      let server: StackspecServer;
      try {
        server = await serveStackspec({
          ...(cloud ? { cloud } : {}),
          log: (line) => io.stderr.write(`${line}\n`),
          port,
          host: opts.host,
          deployTemplates: store,
          ...(placementStore ? { placementStore } : {}),
          auth: opts.auth,
          ...(opts.enforceNewDefaults ? { enforceNewDefaults: true } : {}),
          placementSearch: {
            ...(maxCandidates !== undefined ? { maxAllocationCandidates: maxCandidates } : {}),
            ...(opts.allocationCandidatesGenerationStrategy
              ? { allocationCandidatesGenerationStrategy: opts.allocationCandidatesGenerationStrategy }
              : {}),
            ...(opts.optimizeForWideProviderTrees ? { optimizeForWideProviderTrees: true } : {}),
          },
          ...(registry ? { extraSpecRegistry: registry } : {}),
        });
      } catch (e) {
        await store.close();
        await shared?.close();
        lockProblem(e);
        listenProblem(e, opts.host, port);
      }
      io.stdout.write(`stackspec serving on ${server.url}\n`);
      if (cloud) {
        const inv = cloud.inventory?.file;
        io.stdout.write(
          `  loaded ${cloud.flavors.length} flavor(s), ${cloud.templates.length} deploy template(s)${inv ? `, inventory ${inv}` : ''}\n`,
        );
      }
      io.stdout.write(
        placementStore
          ? `  Placement data is kept in ${shared?.description ?? placementStore.health().description}: it survives a restart.\n`
          : '  Placement data is kept in memory only: it is lost when the server stops (--data-dir or --database-url keeps it).\n',
      );
      for (const [type, prefix] of Object.entries(SERVICE_PREFIXES))
        io.stdout.write(`  ${type.padEnd(14)} ${server.url}${prefix}\n`);
      io.stdout.write(`  ${'health'.padEnd(14)} ${server.url}/healthz\n`);
      // Runs until SIGINT/SIGTERM (or until whoever was handed the server closes it).
      await new Promise<void>((done) => {
        const close = async () => {
          process.off('SIGINT', onSignal);
          process.off('SIGTERM', onSignal);
          await server.close();
          await shared?.close();
          done();
        };
        const onSignal = () => {
          io.stdout.write('stopping…\n');
          void close();
        };
        process.once('SIGINT', onSignal);
        process.once('SIGTERM', onSignal);
        onStarted?.({ ...server, close });
      });
    });
}
