import {
  createServer,
  type OutgoingHttpHeaders,
  type Server,
  type ServerResponse,
  STATUS_CODES,
} from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { UsageError } from '../cli/usage-error.js';
import { createDiagnostic } from '../diagnostic.js';
import { describeError } from '../errors.js';
import { bytesOfResponse, bytesResponse } from '../http/bytes-response.js';

/**
 * A WHATWG fetch-style handler, as every stackspec HTTP API exposes. A
 * handler may carry an {@link OversizedHeadHook} as `oversizedHead`, which
 * {@link startServer} uses unless its options name another.
 */
export type FetchHandler = ((request: Request) => Response | Promise<Response>) & {
  readonly oversizedHead?: OversizedHeadHook;
};

/** A request head {@link startServer} refused because it is too large. */
export interface OversizedHead {
  /** 414 when the request line itself is too long, 400 when the header fields are. */
  status: 400 | 414;
  /** A sentence saying what was too large and the limit. */
  message: string;
  /** The request path, when the start of the request line was seen (to pick a service's error body). */
  path?: string;
}

/**
 * Builds the answer to an oversized request head, in a service's error
 * format. Only the status, headers and body of the response are used; the
 * connection is closed after it.
 */
export type OversizedHeadHook = (head: OversizedHead) => Response | Promise<Response>;

/**
 * Largest request head (request line and header fields) {@link startServer}
 * reads by default: 64 KiB, what OpenStack's own WSGI servers allow
 * (eventlet.wsgi's 65536 bytes of header fields; uWSGI's `buffer-size` as
 * Debian's services set it). Node's own default is 16 KiB.
 */
export const DEFAULT_MAX_HEADER_BYTES = 64 * 1024;

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
  /** Largest request head in bytes (default {@link DEFAULT_MAX_HEADER_BYTES}). */
  maxHeaderBytes?: number;
  /**
   * The answer to a request head past `maxHeaderBytes` (default: the
   * handler's own `oversizedHead`, else a neutral JSON body
   * `{"error": {"status", "code", "message"}}`).
   */
  oversizedHead?: OversizedHeadHook;
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

// Kept here too: servers and the handlers they serve have imported it from `@stackspec/core/node`.
export { bytesResponse };

/**
 * Sends a {@link bytesResponse} straight to Node's response; false (nothing
 * sent) for any other response, or one whose body someone already read.
 */
function writeBytes(response: Response, outgoing: ServerResponse): boolean {
  const body = bytesOfResponse(response);
  if (body === undefined) return false;
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

// When a request head outgrows the limit, Node's parser gives up and by
// default writes a bare `431 Request Header Fields Too Large`. No OpenStack
// deployment answers that: eventlet.wsgi, which the services ship with,
// answers an over-long request line with 414 and over-long header fields
// with 400 (Apache and nginx do the same); uWSGI just drops the connection.
// So we keep eventlet's statuses and give them the service's error body.
// Node says only that the head overflowed, so each connection keeps the
// first bytes it received: a first request whose line has no end within
// them is an over-long request line. On a connection that already served a
// request, only the piece being parsed is known; a head that overflows there
// counts as header fields unless that piece shows a request line.
const REQUEST_LINE_START = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+ ([^ \r\n]*)/;
/** How much of a connection's first bytes is kept to classify an oversized head. */
const PREFIX_BYTES = 8192;

function classifyOversizedHead(seen: Uint8Array | undefined, limit: number): OversizedHead {
  const head = seen ? Buffer.from(seen.buffer, seen.byteOffset, seen.byteLength).toString('latin1') : '';
  const start = REQUEST_LINE_START.exec(head);
  let path: string | undefined;
  if (start) {
    const target = (start[1] as string).split('?')[0] as string;
    if (target.startsWith('/')) path = target;
    else {
      try {
        path = new URL(target).pathname;
      } catch {
        path = undefined;
      }
    }
  }
  const where = `${limit} bytes for the request line and headers together`;
  if (start && !/[\r\n]/.test(head)) {
    return {
      status: 414,
      message: `The request line is longer than this server accepts (${where}).`,
      ...(path ? { path } : {}),
    };
  }
  return {
    status: 400,
    message: `The request header fields are larger than this server accepts (${where}).`,
    ...(path ? { path } : {}),
  };
}

const NODE_ANSWERS: Readonly<Record<string, string>> = {
  HPE_CHUNK_EXTENSIONS_OVERFLOW: 'HTTP/1.1 413 Payload Too Large\r\nConnection: close\r\n\r\n',
  ERR_HTTP_REQUEST_TIMEOUT: 'HTTP/1.1 408 Request Timeout\r\nConnection: close\r\n\r\n',
  default: 'HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n',
};

/** The neutral answer to an oversized head: `{"error": {"status", "code", "message"}}`. */
function neutralOversizedHead(head: OversizedHead): Response {
  const code = head.status === 414 ? 'http/request-line-too-long' : 'http/headers-too-large';
  return new Response(JSON.stringify({ error: { status: head.status, code, message: head.message } }), {
    status: head.status,
    headers: { 'content-type': 'application/json' },
  });
}

/** Writes `response` to a socket whose request could not be parsed, then closes the connection. */
async function answerOnSocket(socket: Socket, response: Response): Promise<void> {
  const body = new Uint8Array(await response.arrayBuffer());
  if (!socket.writable) return;
  const lines = [`HTTP/1.1 ${response.status} ${STATUS_CODES[response.status] ?? 'Error'}`];
  for (const [name, value] of response.headers) {
    if (name !== 'content-length' && name !== 'connection' && name !== 'transfer-encoding') {
      lines.push(`${name}: ${value}`);
    }
  }
  lines.push(`content-length: ${body.byteLength}`, 'connection: close', '', '');
  socket.end(Buffer.concat([Buffer.from(lines.join('\r\n'), 'latin1'), body]));
  // Give the client time to read the answer before the rest of its request is dropped.
  const timer = setTimeout(() => socket.destroy(), 2000);
  timer.unref();
  socket.once('close', () => clearTimeout(timer));
}

/**
 * Serves a fetch-style handler with Node's `http` module. A
 * {@link bytesResponse} is written to the socket directly; other responses
 * go through `@hono/node-server`.
 *
 * A request head (request line and header fields) past `maxHeaderBytes`
 * (64 KiB by default) is answered as OpenStack's eventlet server answers
 * one: 414 when the request line is what is too long, 400 otherwise, with
 * the body the `oversizedHead` hook gives (the handler's own by default),
 * and the connection closed; the server goes on serving other requests.
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
  // Hono's Node adapter is loaded by the first server, not with this entry:
  // most importers of `@stackspec/core/node` only read files.
  const [{ getRequestListener }, { RESPONSE_ALREADY_SENT }] = await Promise.all([
    import('@hono/node-server'),
    import('@hono/node-server/utils/response'),
  ]);
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
  const maxHeaderBytes = options.maxHeaderBytes ?? DEFAULT_MAX_HEADER_BYTES;
  if (!Number.isInteger(maxHeaderBytes) || maxHeaderBytes < 1024) {
    throw problem(
      'serve/bad-option',
      `maxHeaderBytes must be a whole number of bytes, 1024 or more, not ${String(maxHeaderBytes)}.`,
      'Leave it out for 64 KiB.',
    );
  }
  const oversized = options.oversizedHead ?? handler.oversizedHead ?? neutralOversizedHead;
  const server: Server = createServer({ maxHeaderSize: maxHeaderBytes }, listener);
  const answered = new WeakSet<Socket>();
  // The first bytes of each connection, until it has served a request (see classifyOversizedHead).
  const prefixes = new WeakMap<Socket, Buffer>();
  server.on('connection', (socket: Socket) => {
    let prefix = Buffer.alloc(0);
    prefixes.set(socket, prefix);
    const keep = (chunk: Buffer) => {
      prefix = Buffer.concat([prefix, chunk.subarray(0, PREFIX_BYTES - prefix.length)]);
      prefixes.set(socket, prefix);
      if (prefix.length >= PREFIX_BYTES) socket.off('data', keep);
    };
    // Listening for data makes Node parse this connection from JavaScript, chunk by chunk.
    socket.on('data', keep);
  });
  server.on('request', (req) => {
    prefixes.delete(req.socket);
  });
  server.on('clientError', (error: NodeJS.ErrnoException & { rawPacket?: unknown }, socket: Socket) => {
    if (answered.has(socket)) return;
    answered.add(socket);
    // An answer may go out only while no response of this connection has started.
    const inFlight = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
    const canAnswer = socket.writable && !inFlight?.headersSent;
    if (error.code !== 'HPE_HEADER_OVERFLOW' || !canAnswer) {
      // Node's own answers for everything else (it gives them only when nobody listens).
      if (canAnswer) socket.write(NODE_ANSWERS[error.code ?? ''] ?? (NODE_ANSWERS.default as string));
      socket.destroy(error);
      return;
    }
    const raw = error.rawPacket instanceof Uint8Array ? error.rawPacket : undefined;
    const head = classifyOversizedHead(prefixes.get(socket) ?? raw, maxHeaderBytes);
    void Promise.resolve()
      .then(() => oversized(head))
      .catch((e: unknown) => {
        options.onError?.(e);
        return neutralOversizedHead(head);
      })
      .then((response) => answerOnSocket(socket, response))
      .catch(() => socket.destroy());
  });
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
