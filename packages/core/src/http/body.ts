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
