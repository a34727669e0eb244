import { concatBytes } from '../bytes.js';
import { HttpError, SpecError } from '../errors.js';

/** Default largest request body read by {@link readBodyBytes} and `readJsonBody`: 1 MiB. */
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

/** Options for {@link readBodyBytes}. */
export interface ReadBodyBytesOptions {
  /** Largest accepted body in bytes (default 1 MiB); `Infinity` reads everything. */
  maxBytes?: number;
}

/**
 * Reads a request's body into bytes without trusting `Content-Length`: the
 * stream is cancelled as soon as it passes `maxBytes`, so an endless or lying
 * body costs at most that much memory. A request without a body gives an
 * empty array. Uses only web APIs (no `Buffer`).
 *
 * Throws `HttpError` 413 with code `http/body-too-large` past the limit, and
 * `SpecError` (`http/bad-option`) when `maxBytes` is not a number of bytes.
 * Errors of the stream itself (a client that hangs up) pass through.
 *
 * @example
 * const bytes = await readBodyBytes(request, { maxBytes: 64 * 1024 });
 * const text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
 */
export async function readBodyBytes(
  request: Request,
  options: ReadBodyBytesOptions = {},
): Promise<Uint8Array> {
  const max = options.maxBytes ?? DEFAULT_MAX_BODY_BYTES;
  if (typeof max !== 'number' || !(max >= 0)) {
    throw new SpecError(`maxBytes must be a number of bytes, 0 or more, but it is ${String(max)}.`, {
      code: 'http/bad-option',
    });
  }
  if (!request.body) return new Uint8Array(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      await reader.cancel().catch(() => undefined);
      throw new HttpError(413, `The request body is larger than ${max} bytes.`, {
        code: 'http/body-too-large',
      });
    }
    chunks.push(value);
  }
  return concatBytes(chunks);
}

/**
 * The request's `Content-Length` when it is a whole number of bytes, as
 * webob reads it; `undefined` for none or anything else (a size limit then
 * applies while the body is read instead).
 */
export function declaredContentLength(request: Request): number | undefined {
  const value = request.headers.get('content-length')?.trim();
  return value && /^\d+$/.test(value) ? Number(value) : undefined;
}

/**
 * The words of oslo.middleware's request size limit, which sits in front of
 * Nova and Ironic deployments: `declared` for a `Content-Length` past the
 * limit (refused before anything is read), otherwise for a body cut off
 * while it was read.
 */
export function requestTooLargeMessage(limit: number, declared: boolean): string {
  return declared
    ? `Request is too large. Larger than max_request_body_size (${limit}).`
    : `Request is too large. Larger than ${limit}.`;
}
