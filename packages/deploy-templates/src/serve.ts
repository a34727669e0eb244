import { type RunningServer, startServer } from '@stackspec/core/node';
import { createDeployTemplatesApi, type DeployTemplatesApiOptions } from './api.js';

/** Options for {@link serveDeployTemplates}. */
export interface ServeOptions extends DeployTemplatesApiOptions {
  /** TCP port (default 6385, Ironic's; 0 picks a free one). */
  port?: number;
  /** Interface to bind (default 127.0.0.1). */
  host?: string;
}

/** A running server; `close()` stops it and closes the store. */
export interface DeployTemplatesServer extends RunningServer {}

/**
 * Serves the deploy template API over HTTP with Node's `http` module. The
 * store is opened (and migrated, or only checked with `migrate: false`)
 * before the port is bound, so a database that cannot be reached, tables
 * that are missing, or a data directory another process holds
 * (`store/locked`) fail here, with the store's error, instead of answering
 * every request with a 500. When that fails, or nothing can
 * listen on the host and port, the store is closed again and the error
 * rethrown: for listening, core's `UsageError` (`serve/address-in-use` for
 * a port that is taken, `serve/bad-port`, `serve/bad-host`…) with a hint
 * and Node's error as its `cause`.
 *
 * @example
 * const server = await serveDeployTemplates({ port: 0, store: createPgliteStore() });
 * console.log(server.url); // http://127.0.0.1:40123
 * await server.close();
 */
export async function serveDeployTemplates(options: ServeOptions = {}): Promise<DeployTemplatesServer> {
  const api = createDeployTemplatesApi(options);
  let server: RunningServer;
  try {
    await api.service.store.list({ limit: 1 });
    server = await startServer(api, { port: options.port ?? 6385, host: options.host ?? '127.0.0.1' });
  } catch (e) {
    await api.service.store.close().catch(() => undefined);
    throw e;
  }
  return {
    ...server,
    async close() {
      await server.close();
      await api.service.store.close();
    },
  };
}
