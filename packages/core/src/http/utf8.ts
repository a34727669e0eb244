import { createDiagnostic } from '../diagnostic.js';
import { ValidationError } from '../errors.js';

/** Why a byte sequence is not UTF-8, in the three words Python's decoder uses. */
export type Utf8ProblemReason = 'invalid start byte' | 'invalid continuation byte' | 'unexpected end of data';

/**
 * The first place where bytes stop being UTF-8: the bytes from `start`
 * (inclusive) to `end` (exclusive) are the ones Python's decoder would name.
 */
export interface Utf8Problem {
  start: number;
  end: number;
  reason: Utf8ProblemReason;
}

const STRICT = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * Finds the first sequence of `bytes` that is not well-formed UTF-8, or
 * `undefined` when there is none. The answer is the one Python's strict
 * decoder gives: a lead byte that cannot start a character
 * (`0x80`–`0xC1`, `0xF5`–`0xFF`) is an `invalid start byte`; a lead byte
 * followed by a byte out of range (overlong forms, surrogates and code
 * points past U+10FFFF included) is an `invalid continuation byte` covering
 * the lead and the valid bytes after it; a sequence cut by the end of the
 * input is `unexpected end of data` up to the end. Linear in the input.
 *
 * @example
 * findUtf8Problem(new TextEncoder().encode('ok')); // undefined
 * findUtf8Problem(Uint8Array.of(0x61, 0xff)); // { start: 1, end: 2, reason: 'invalid start byte' }
 */
export function findUtf8Problem(bytes: Uint8Array): Utf8Problem | undefined {
  try {
    STRICT.decode(bytes);
    return undefined;
  } catch {
    // Walk the bytes to say where and why, as Python would.
  }
  const n = bytes.length;
  let i = 0;
  while (i < n) {
    const lead = bytes[i] as number;
    if (lead < 0x80) {
      i += 1;
      continue;
    }
    let follow: number;
    let low = 0x80;
    let high = 0xbf;
    if (lead >= 0xc2 && lead <= 0xdf) follow = 1;
    else if (lead >= 0xe0 && lead <= 0xef) {
      follow = 2;
      if (lead === 0xe0) low = 0xa0;
      else if (lead === 0xed) high = 0x9f;
    } else if (lead >= 0xf0 && lead <= 0xf4) {
      follow = 3;
      if (lead === 0xf0) low = 0x90;
      else if (lead === 0xf4) high = 0x8f;
    } else return { start: i, end: i + 1, reason: 'invalid start byte' };
    for (let k = 1; k <= follow; k += 1) {
      if (i + k >= n) return { start: i, end: n, reason: 'unexpected end of data' };
      const b = bytes[i + k] as number;
      const [lo, hi] = k === 1 ? [low, high] : [0x80, 0xbf];
      if (b < lo || b > hi) return { start: i, end: i + k, reason: 'invalid continuation byte' };
    }
    i += follow + 1;
  }
  // The web decoder and this walk agree on every input; this is unreachable.
  return undefined;
}

/**
 * The text of the `UnicodeDecodeError` Python raises for `problem` in
 * `bytes`, as OpenStack services quote it in error messages:
 * `'utf-8' codec can't decode byte 0xff in position 10: invalid start byte`
 * for one byte, `… can't decode bytes in position 10-11: …` for several.
 */
export function pyUnicodeDecodeErrorText(bytes: Uint8Array, problem: Utf8Problem): string {
  const prefix = "'utf-8' codec can't decode";
  if (problem.end - problem.start === 1) {
    const hex = (bytes[problem.start] ?? 0).toString(16).padStart(2, '0');
    return `${prefix} byte 0x${hex} in position ${problem.start}: ${problem.reason}`;
  }
  return `${prefix} bytes in position ${problem.start}-${problem.end - 1}: ${problem.reason}`;
}

/**
 * Decodes bytes as UTF-8, refusing anything that is not: the OpenStack
 * services decode request bodies strictly, and replacing bad bytes with
 * U+FFFD would store text the client never sent. A byte order mark is kept,
 * as Python keeps it. `what` names the bytes in the message (default
 * `The request body`).
 *
 * Throws `ValidationError` (400) with code `http/invalid-utf8` (see
 * {@link invalidUtf8Error}).
 *
 * @example
 * decodeUtf8Strict(new TextEncoder().encode('é')); // 'é'
 */
export function decodeUtf8Strict(bytes: Uint8Array, what = 'The request body'): string {
  const problem = findUtf8Problem(bytes);
  if (!problem) return STRICT.decode(bytes);
  throw invalidUtf8Error(bytes, problem, what);
}

/**
 * The `ValidationError` (400, code `http/invalid-utf8`) for bytes that are
 * not UTF-8: the message names the offending bytes, the reason and the
 * offset; the diagnostic's hint says to send UTF-8.
 */
export function invalidUtf8Error(
  bytes: Uint8Array,
  problem: Utf8Problem,
  what = 'The request body',
): ValidationError {
  const shown = Array.from(
    bytes.subarray(problem.start, problem.end),
    (b) => `0x${b.toString(16).padStart(2, '0')}`,
  ).join(' ');
  const message = `${what} is not valid UTF-8: ${problem.reason} (${shown}) at byte ${problem.start}.`;
  return new ValidationError(message, {
    code: 'http/invalid-utf8',
    diagnostics: [
      createDiagnostic({ code: 'http/invalid-utf8', message, hint: 'Send the text encoded as UTF-8.' }),
    ],
  });
}
