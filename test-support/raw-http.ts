// Raw HTTP/1.1 over a socket, for tests that send what fetch() refuses to
// send: bytes that are not UTF-8 with a lying or missing length, request
// lines and headers of any size, heads split into slow pieces.
import { connect } from 'node:net';

/** A response as read off the socket. */
export interface RawResponse {
  status: number;
  /** Header names in lower case. */
  headers: Record<string, string>;
  body: Buffer;
  /** Milliseconds from connecting to the end of the response. */
  elapsedMs: number;
}

/** Options for {@link rawRequest}. */
export interface RawRequestOptions {
  /** Send the request in pieces of this many bytes, a few milliseconds apart (default: all at once). */
  chunkSize?: number;
  /** Give up after this many milliseconds (default 10 s). */
  timeoutMs?: number;
}

/** Parses one HTTP/1.1 response (Content-Length or connection close delimited). */
function parse(data: Buffer): Omit<RawResponse, 'elapsedMs'> | undefined {
  const end = data.indexOf('\r\n\r\n');
  if (end < 0) return undefined;
  const lines = data.subarray(0, end).toString('latin1').split('\r\n');
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(lines[0] ?? '')?.[1]);
  const headers: Record<string, string> = {};
  for (const line of lines.slice(1)) {
    const i = line.indexOf(':');
    if (i > 0) headers[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim();
  }
  const length = headers['content-length'];
  const body = data.subarray(end + 4);
  if (length !== undefined && body.length < Number(length)) return undefined;
  return { status, headers, body: length === undefined ? body : body.subarray(0, Number(length)) };
}

/**
 * Sends `request` (the whole request, head and body, as bytes or text) to
 * `url`'s host and port over a fresh connection, and resolves with the first
 * response once it is complete (or the server closes). Rejects on timeout
 * or when the connection ends without a response.
 */
export function rawRequest(
  url: string,
  request: string | Uint8Array,
  options: RawRequestOptions = {},
): Promise<RawResponse> {
  const { hostname, port } = new URL(url);
  const bytes = typeof request === 'string' ? Buffer.from(request, 'latin1') : Buffer.from(request);
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    let data = Buffer.alloc(0);
    let done = false;
    const finish = (error?: Error) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      const parsed = parse(data);
      if (parsed) resolve({ ...parsed, elapsedMs: performance.now() - started });
      else reject(error ?? new Error(`no complete response (${data.length} bytes read)`));
    };
    const timer = setTimeout(() => finish(new Error('timed out')), options.timeoutMs ?? 10_000);
    socket.on('data', (chunk: Buffer) => {
      data = Buffer.concat([data, chunk]);
      const parsed = parse(data);
      if (parsed && parsed.headers['content-length'] !== undefined) finish();
    });
    socket.on('end', () => finish());
    // A server that answers early and closes may reset the rest of the upload.
    socket.on('error', (e) => finish(e));
    socket.on('connect', async () => {
      const size = options.chunkSize ?? bytes.length;
      for (let at = 0; at < bytes.length && !done; at += size) {
        socket.write(bytes.subarray(at, at + size));
        if (size < bytes.length) await new Promise((r) => setTimeout(r, 5));
      }
    });
  });
}

/** A request head and body as one buffer: `METHOD path HTTP/1.1`, the headers, a Content-Length for the body. */
export function httpRequest(
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body?: string | Uint8Array,
): Buffer {
  const payload = body === undefined ? undefined : typeof body === 'string' ? Buffer.from(body) : body;
  const lines = [`${method} ${path} HTTP/1.1`, 'Host: 127.0.0.1', 'Connection: close'];
  for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`);
  if (payload) lines.push(`Content-Length: ${payload.byteLength}`);
  return Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1'), payload ?? Buffer.alloc(0)]);
}
