// Nova reads extra spec values with Python's `int()` and oslo's
// `bool_from_string(strict=True)`; both accept more than a casual reading of
// "integer" or "boolean" suggests. These functions reproduce them exactly so
// that `nova` mode agrees with the real service on every input.

import { requireString } from './guards.js';

/** Python 3.11's default limit on digits in `int(str)` (`sys.get_int_max_str_digits()`). */
export const PY_INT_MAX_DIGITS = 4300;

const isPySpaceCode = (c: number): boolean =>
  (c >= 0x09 && c <= 0x0d) ||
  (c >= 0x1c && c <= 0x20) ||
  c === 0x85 ||
  c === 0xa0 ||
  c === 0x1680 ||
  (c >= 0x2000 && c <= 0x200a) ||
  c === 0x2028 ||
  c === 0x2029 ||
  c === 0x202f ||
  c === 0x205f ||
  c === 0x3000;

/** True for a character Python's `str.isspace()` accepts. */
export function isPythonSpace(ch: string): boolean {
  return ch.length > 0 && isPySpaceCode(ch.codePointAt(0) as number);
}

/** Python's `str.strip()` with no arguments. */
export function pythonStrip(text: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && isPySpaceCode(text.charCodeAt(start))) start += 1;
  while (end > start && isPySpaceCode(text.charCodeAt(end - 1))) end -= 1;
  return start === 0 && end === text.length ? text : text.slice(start, end);
}

const ND = /^\p{Nd}$/u;
const digitCache = new Map<number, number>();

/** The decimal value of a Unicode `Nd` code point, or -1. */
function decimalValue(cp: number): number {
  if (cp >= 0x30 && cp <= 0x39) return cp - 0x30;
  if (cp < 0x80) return -1;
  const hit = digitCache.get(cp);
  if (hit !== undefined) return hit;
  let value = -1;
  if (ND.test(String.fromCodePoint(cp))) {
    // Unicode keeps decimal digits in contiguous runs of ten starting at zero,
    // so the value is the distance from the start of the run, modulo ten.
    let first = cp;
    while (first > 0 && ND.test(String.fromCodePoint(first - 1))) first -= 1;
    value = (cp - first) % 10;
  }
  if (digitCache.size < 4096) digitCache.set(cp, value);
  return value;
}

/** Result of {@link parsePythonInt}: the integer in canonical decimal form. */
export interface PythonInt {
  /** True below zero (`-0` parses as zero, not negative). */
  readonly negative: boolean;
  /** Canonical digits without sign or leading zeros (`'0'` for zero). */
  readonly digits: string;
}

/**
 * Parses text the way Python's `int(text)` does (base 10): surrounding
 * whitespace (Python's definition, except the ASCII separators U+001C to
 * U+001F, which `int()` does not skip), one sign, digits from any script,
 * single underscores between digits, and at most 4,300 digits. Returns
 * `undefined` wherever Python raises `ValueError`.
 */
export function parsePythonInt(text: string): PythonInt | undefined {
  requireString(text, 'The text of parsePythonInt');
  const n = text.length;
  // Fast path: plain ASCII digits, the overwhelmingly common case.
  if (n > 0 && n <= 15) {
    let plain = true;
    for (let i = 0; i < n; i += 1) {
      const c = text.charCodeAt(i);
      if (c < 0x30 || c > 0x39) {
        plain = false;
        break;
      }
    }
    if (plain) return { negative: false, digits: String(Number(text)) };
  }
  let i = 0;
  const skip = () => {
    while (i < n) {
      const c = text.charCodeAt(i);
      if ((c >= 0x09 && c <= 0x0d) || c === 0x20 || (c >= 0x7f && isPySpaceCode(c))) i += 1;
      else break;
    }
  };
  skip();
  let negative = false;
  if (text[i] === '+' || text[i] === '-') {
    negative = text[i] === '-';
    i += 1;
  }
  let digits = '';
  let count = 0;
  let lastUnderscore = false;
  let sawDigit = false;
  while (i < n) {
    const cp = text.codePointAt(i) as number;
    if (cp === 0x5f) {
      if (!sawDigit || lastUnderscore) return undefined;
      lastUnderscore = true;
      i += 1;
      continue;
    }
    const v = decimalValue(cp);
    if (v < 0) break;
    sawDigit = true;
    lastUnderscore = false;
    count += 1;
    if (!(digits === '' && v === 0)) digits += String(v);
    i += cp > 0xffff ? 2 : 1;
  }
  if (!sawDigit || lastUnderscore) return undefined;
  skip();
  if (i !== n) return undefined;
  if (count > PY_INT_MAX_DIGITS) return undefined;
  if (digits === '') return { negative: false, digits: '0' };
  return { negative, digits };
}

/** Compares a parsed integer with a bound; negative when `a` < `bound`. */
export function compareToBound(a: PythonInt, bound: number): number {
  if (a.digits.length <= 15) {
    const v = a.negative ? -Number(a.digits) : Number(a.digits);
    return v < bound ? -1 : v > bound ? 1 : 0;
  }
  const b = BigInt(bound);
  const v = BigInt(a.negative ? `-${a.digits}` : a.digits);
  return v < b ? -1 : v > b ? 1 : 0;
}

/** Canonical text of a parsed integer, as Python's `str(int(text))` prints it. */
export function formatPythonInt(a: PythonInt): string {
  return a.negative ? `-${a.digits}` : a.digits;
}

const TRUE_WORDS = new Set(['1', 't', 'true', 'on', 'y', 'yes']);
const FALSE_WORDS = new Set(['0', 'f', 'false', 'off', 'n', 'no']);

/** The words (after trimming and lower-casing) that oslo reads as booleans. */
export const BOOL_WORDS: readonly string[] = [...TRUE_WORDS, ...FALSE_WORDS];

/**
 * oslo.utils' `bool_from_string(text, strict=True)`: trims Python
 * whitespace, lower-cases, then accepts `1 t true on y yes` and
 * `0 f false off n no`. Returns `undefined` where oslo raises.
 */
export function parsePythonBool(text: string): boolean | undefined {
  requireString(text, 'The text of parsePythonBool');
  const lowered = pythonStrip(text).toLowerCase();
  if (TRUE_WORDS.has(lowered)) return true;
  if (FALSE_WORDS.has(lowered)) return false;
  return undefined;
}
