import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getRequestListener } from '@hono/node-server';

/** A WHATWG fetch-style handler, as every stackspec HTTP API exposes. */
export type FetchHandler = (request: Request) => Response | Promise<Response>;

/** Options for {@link startServer}. */
export interface StartServerOptions {
  /** TCP port; `0` (default) picks a free one. */
  port?: number;
  /** Interface to bind; default `127.0.0.1` (loopback only). */
  host?: string;
  /** Aborting it closes the server. */
  signal?: AbortSignal;
  /** Called for errors thrown by the handler itself (the client gets a 500). */
  onError?: (error: unknown) => void;
}

/** A listening server. */
export interface RunningServer {
  /** Base URL such as `http://127.0.0.1:6385`. */
  readonly url: string;
  readonly port: number;
  readonly host: string;
  /** Stops accepting connections, ends idle keep-alive ones and resolves when closed. */
  close(): Promise<void>;
}

/**
 * Serves a fetch-style handler with Node's `http` module.
 *
 * @example
 * const server = await startServer(handler, { port: 6385 });
 * console.log(server.url);
 * await server.close();
 */
export async function startServer(
  handler: FetchHandler,
  options: StartServerOptions = {},
): Promise<RunningServer> {
  const host = options.host ?? '127.0.0.1';
  const listener = getRequestListener(
    async (request: Request) => {
      try {
        return await handler(request);
      } catch (e) {
        options.onError?.(e);
        return new Response(JSON.stringify({ error: { status: 500, message: 'Internal server error.' } }), {
          status: 500,
          headers: { 'content-type': 'application/json' },
        });
      }
    },
    { overrideGlobalObjects: false },
  );
  const server: Server = createServer(listener);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeIdleConnections();
    });
    return closing;
  };
  options.signal?.addEventListener('abort', () => void close(), { once: true });
  const shownHost = host.includes(':') ? `[${host}]` : host;
  return { url: `http://${shownHost}:${port}`, port, host, close };
}
