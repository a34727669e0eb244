import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { type CliIO, usage } from '@stackspec/core/cli';
import { type RunningServer, startServer } from '@stackspec/core/node';
import { createPgliteStore, type DeployTemplateStore } from '@stackspec/deploy-templates';
import { loadInventory } from '@stackspec/placement-query';
import type { Command } from 'commander';
import { Option } from 'commander';
import { createStackspecApp, SERVICE_PREFIXES, type StackspecApp } from '../app.js';

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
  auth?: 'none' | 'trusted-headers';
}

/** Starts the combined server; `close()` stops it and closes the stores. */
export async function serveStackspec(options: ServeStackspecOptions = {}): Promise<StackspecServer> {
  const store = options.deployTemplates ?? createPgliteStore();
  const placement = options.inventory
    ? loadInventory(options.inventory.text, { filename: options.inventory.filename }).store
    : undefined;
  let app: StackspecApp | undefined;
  // The app needs the public URL for its links, known once the port is bound.
  const server = await startServer(
    (request) => (app ? app(request) : Promise.resolve(new Response('starting', { status: 503 }))),
    { port: options.port ?? 8080, host: options.host ?? '127.0.0.1' },
  );
  app = createStackspecApp({
    publicUrl: server.url,
    deployTemplates: store,
    ...(placement ? { placement } : {}),
    auth: options.auth ?? 'none',
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
    .description('serve the Placement, deploy template and Heat introspection APIs from one process')
    .option('--port <n>', 'TCP port (0 picks a free one)', '8080')
    .option('--host <address>', 'interface to bind', '127.0.0.1')
    .option('--inventory <file>', 'Placement inventory to load at start')
    .option('--data-dir <dir>', 'keep deploy templates in this PGlite data directory (default: in memory)')
    .option('--database-url <url>', 'keep deploy templates in PostgreSQL instead (postgres://…)')
    .addOption(
      new Option('--auth <mode>', 'who may write').choices(['none', 'trusted-headers']).default('none'),
    )
    .action(async (opts: ServeOptions) => {
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
      const server = await serveStackspec({
        port,
        host: opts.host,
        deployTemplates: store,
        auth: opts.auth,
        ...(inventory ? { inventory } : {}),
      });
      io.stdout.write(`stackspec serving on ${server.url}\n`);
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
