import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { type CliIO, createColors, formatDiagnostics, usage } from '@stackspec/core/cli';
import { type RunningServer, startServer } from '@stackspec/core/node';
import { createPgliteStore, type DeployTemplateStore } from '@stackspec/deploy-templates';
import { createMemoryFlavorStore } from '@stackspec/extra-spec-validators';
import { loadInventory } from '@stackspec/placement-query';
import type { Command } from 'commander';
import { Option } from 'commander';
import { createStackspecApp, SERVICE_PREFIXES, type StackspecApp } from '../app.js';
import { type Cloud, loadCloud } from '../cloud.js';

interface ServeOptions {
  port: string;
  host: string;
  inventory?: string;
  dataDir?: string;
  databaseUrl?: string;
  auth: 'none' | 'trusted-headers';
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
  /** A cloud read by `loadCloud`: its flavors, inventory and deploy templates are served. */
  cloud?: Cloud;
  auth?: 'none' | 'trusted-headers';
  /** Operational log lines (default: nowhere). */
  log?: (line: string) => void;
}

/** Starts the combined server; `close()` stops it and closes the stores. */
export async function serveStackspec(options: ServeStackspecOptions = {}): Promise<StackspecServer> {
  const store = options.deployTemplates ?? createPgliteStore();
  const placement = options.inventory
    ? loadInventory(options.inventory.text, { filename: options.inventory.filename }).store
    : options.cloud?.inventory?.store;
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
  const server = await startServer(
    (request) => (app ? app(request) : Promise.resolve(new Response('starting', { status: 503 }))),
    { port: options.port ?? 8080, host: options.host ?? '127.0.0.1' },
  );
  app = createStackspecApp({
    publicUrl: server.url,
    deployTemplates: store,
    flavors,
    ...(placement ? { placement } : {}),
    auth: options.auth ?? 'none',
    ...(options.log ? { log: options.log } : {}),
  });
  const ready = app;
  return {
    ...server,
    app: ready,
    async close() {
      await server.close();
      await store.close();
    },
  };
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
    .option('--inventory <file>', 'Placement inventory to load at start')
    .option('--data-dir <dir>', 'keep deploy templates in this PGlite data directory (default: in memory)')
    .option('--database-url <url>', 'keep deploy templates in PostgreSQL instead (postgres://…)')
    .addOption(
      new Option('--auth <mode>', 'who may write').choices(['none', 'trusted-headers']).default('none'),
    )
    .action(async (paths: string[], opts: ServeOptions) => {
      const port = Number(opts.port);
      if (!Number.isInteger(port) || port < 0 || port > 65535)
        usage(`--port must be a number from 0 to 65535, not ${opts.port}.`);
      if (opts.dataDir && opts.databaseUrl) usage('Give either --data-dir or --database-url, not both.');
      let store: DeployTemplateStore;
      if (opts.databaseUrl) {
        const { createPostgresStore } = await import('@stackspec/deploy-templates/postgres');
        store = createPostgresStore({ connectionString: opts.databaseUrl });
      } else {
        store = createPgliteStore(opts.dataDir ? { dataDir: resolve(io.cwd, opts.dataDir) } : {});
      }
      const inventory = opts.inventory
        ? { text: await readFile(resolve(io.cwd, opts.inventory), 'utf8'), filename: opts.inventory }
        : undefined;
      let cloud: Cloud | undefined;
      if (paths.length) {
        cloud = await loadCloud(paths, io.cwd);
        if (cloud.diagnostics.some((d) => d.severity === 'error')) {
          io.stderr.write(
            `${formatDiagnostics(cloud.diagnostics, { colors: createColors({ stream: io.stderr, env: io.env }) })}\n`,
          );
          usage('The cloud files have errors; fix them (stackspec check shows them all) before serving.');
        }
      }
      const server = await serveStackspec({
        ...(cloud ? { cloud } : {}),
        log: (line) => io.stderr.write(`${line}\n`),
        port,
        host: opts.host,
        deployTemplates: store,
        auth: opts.auth,
        ...(inventory ? { inventory } : {}),
      });
      io.stdout.write(`stackspec serving on ${server.url}\n`);
      if (cloud || inventory) {
        const inv = inventory?.filename ?? cloud?.inventory?.file;
        io.stdout.write(
          `  loaded ${cloud?.flavors.length ?? 0} flavor(s), ${cloud?.templates.length ?? 0} deploy template(s)${inv ? `, inventory ${inv}` : ''}\n`,
        );
      }
      for (const [type, prefix] of Object.entries(SERVICE_PREFIXES))
        io.stdout.write(`  ${type.padEnd(14)} ${server.url}${prefix}\n`);
      io.stdout.write(`  ${'health'.padEnd(14)} ${server.url}/healthz\n`);
      // Runs until SIGINT/SIGTERM (or until whoever was handed the server closes it).
      await new Promise<void>((done) => {
        const close = async () => {
          process.off('SIGINT', onSignal);
          process.off('SIGTERM', onSignal);
          await server.close();
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
