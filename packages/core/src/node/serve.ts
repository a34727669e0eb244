import { createServer, type OutgoingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getRequestListener } from '@hono/node-server';
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';
import { UsageError } from '../cli/usage-error.js';
import { createDiagnostic } from '../diagnostic.js';
import { describeError } from '../errors.js';

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

// A registered symbol, so that a response made by one copy of core (ESM or
// CommonJS) is recognised by the other.
const BYTES = Symbol.for('@stackspec/core.bytesResponse');

/**
 * A `Response` whose body is bytes already in memory, such as a large JSON
 * document rendered straight into a buffer.
 *
 * {@link startServer} writes those bytes to the socket as they are, in one
 * write with a `Content-Length`, without a stream or a copy. Anywhere else it
 * is an ordinary `Response` whose body yields the same bytes (a
 * `new Response(bytes)` would copy them first). The caller must not change
 * the bytes afterwards.
 *
 * @example
 * return bytesResponse(Buffer.from(JSON.stringify(body)), { headers: { 'content-type': 'application/json' } });
 */
export function bytesResponse(body: Uint8Array, init: ResponseInit = {}): Response {
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (body.byteLength) controller.enqueue(body);
      controller.close();
    },
  });
  const response = new Response(stream, init);
  Object.defineProperty(response, BYTES, { value: body });
  return response;
}

/**
 * Sends a {@link bytesResponse} straight to Node's response; false (nothing
 * sent) for any other response, or one whose body someone already read.
 */
function writeBytes(response: Response, outgoing: ServerResponse): boolean {
  const body = (response as { [BYTES]?: Uint8Array })[BYTES];
  if (body === undefined || response.bodyUsed) return false;
  const headers: OutgoingHttpHeaders = {};
  for (const [name, value] of response.headers) {
    headers[name] = name === 'set-cookie' ? response.headers.getSetCookie() : value;
  }
  headers['content-length'] = body.byteLength;
  outgoing.writeHead(response.status, response.statusText || undefined, headers);
  outgoing.end(body);
  return true;
}

const FREE_PORT = 'Pick another --port, or --port 0 for a free one.';

function problem(code: string, message: string, hint: string, cause?: unknown): UsageError {
  return new UsageError(message, {
    code,
    diagnostics: [createDiagnostic({ code, message, hint })],
    ...(cause === undefined ? {} : { cause }),
  });
}

/**
 * Why nothing could listen on `host:port`, as core's error: the raw Node
 * error (`EADDRINUSE`, `EACCES`, `ENOTFOUND`…) becomes the cause.
 */
function listenError(error: unknown, host: string, port: number): UsageError {
  const code = (error as { code?: unknown } | null)?.code;
  const where = `${host.includes(':') ? `[${host}]` : host}:${port}`;
  switch (code) {
    case 'EADDRINUSE':
      // The wording the stackspec command printed before core said it.
      return problem('serve/address-in-use', `Port ${port} on ${host} is already in use.`, FREE_PORT, error);
    case 'EACCES':
    case 'EPERM':
      return problem(
        'serve/permission-denied',
        `Listening on ${where} is not allowed (${String(code)}).`,
        'Ports below 1024 need privileges; pick another --port, or --port 0 for a free one.',
        error,
      );
    case 'EADDRNOTAVAIL':
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
    case 'EAI_FAIL':
    case 'EAI_NONAME':
      return problem(
        'serve/bad-host',
        code === 'EADDRNOTAVAIL'
          ? `Cannot listen on ${where}: ${host} is not an address of this machine.`
          : `Cannot listen on ${where}: the host name ${host} does not resolve.`,
        'Pick another --host: 127.0.0.1 (this machine only), 0.0.0.0 (every interface) or an address this machine has.',
        error,
      );
    default:
      return problem(
        'serve/listen-failed',
        `Cannot listen on ${where}: ${describeError(error)}.`,
        'Check --host and --port.',
        error,
      );
  }
}

/**
 * Serves a fetch-style handler with Node's `http` module. A
 * {@link bytesResponse} is written to the socket directly; other responses
 * go through `@hono/node-server`.
 *
 * Rejects with core's `UsageError` (exit code 2 in `runCli`), the Node error
 * as its `cause`, when it cannot listen: `serve/bad-port` for a port that is
 * not a whole number from 0 to 65535, `serve/address-in-use`,
 * `serve/permission-denied` (a privileged port), `serve/bad-host` (not an
 * address of this machine, or a name that does not resolve) and
 * `serve/listen-failed` for anything else. Each names host and port and
 * carries a hint.
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
  const port = options.port ?? 0;
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw problem(
      'serve/bad-port',
      `Cannot listen on ${host}: the port must be a whole number from 0 to 65535, not ${String(port)}.`,
      FREE_PORT,
    );
  }
  if (typeof host !== 'string' || host === '') {
    throw problem(
      'serve/bad-host',
      'The host to listen on must be a non-empty string.',
      'Use 127.0.0.1 or 0.0.0.0.',
    );
  }
  const listener = getRequestListener(
    async (request: Request, env: { outgoing?: unknown }) => {
      try {
        const response = await handler(request);
        if (env.outgoing && writeBytes(response, env.outgoing as ServerResponse))
          return RESPONSE_ALREADY_SENT;
        return response;
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
    const fail = (e: unknown) => reject(listenError(e, host, port));
    server.once('error', fail);
    try {
      server.listen(port, host, () => {
        server.off('error', fail);
        resolve();
      });
    } catch (e) {
      // Node throws some refusals synchronously instead of emitting them.
      server.off('error', fail);
      fail(e);
    }
  });
  const bound = (server.address() as AddressInfo).port;
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
  return { url: `http://${shownHost}:${bound}`, port: bound, host, close };
}
