// Python's int(text) for base 10, which OpenStack services apply to extra
// spec values, query parameters and version headers. What CPython accepts,
// in order: the text is first made ASCII (any Unicode whitespace becomes a
// space, any Unicode decimal digit its ASCII digit, and anything else
// outside ASCII ends the text there); then ASCII whitespace (but not the
// separators U+001C to U+001F, which str.isspace() counts), one sign, digits
// with single underscores between them, ASCII whitespace again. Runs of more
// than 4,300 digits are refused with their own message, even when the text
// would have been refused anyway for what follows them.
import { pyReprPrefix } from './repr.js';
import type { PyResult } from './result.js';
import { isPySpaceCode } from './text.js';

/** CPython's default limit on digits in `int(str)` (`sys.get_int_max_str_digits()`, 3.11 and later). */
export const PY_INT_MAX_DIGITS = 4300;

const ND = /^\p{Nd}$/u;
const digitCache = new Map<number, number>();

/**
 * The value of a Unicode decimal digit (general category Nd, which is what
 * Python's `str.isdecimal()` and `int()` accept), or -1 for any other code point.
 */
export function pyDecimalValue(cp: number): number {
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

/**
 * CPython's first step for `int()` and `float()` of text that is not pure
 * ASCII: Unicode whitespace becomes a space, decimal digits become ASCII, and
 * the first other non-ASCII character ends the text as a `?` (which no
 * number grammar accepts). Pure ASCII text is returned as it is.
 */
export function pyNumberAscii(text: string): string {
  let ascii = true;
  for (let i = 0; i < text.length; i += 1) {
    if (text.charCodeAt(i) > 0x7f) {
      ascii = false;
      break;
    }
  }
  if (ascii) return text;
  let out = '';
  for (const ch of text) {
    const cp = ch.codePointAt(0) as number;
    if (cp < 0x7f) out += ch;
    else if (cp <= 0xffff && isPySpaceCode(cp)) out += ' ';
    else {
      const d = pyDecimalValue(cp);
      if (d < 0) return `${out}?`;
      out += String.fromCharCode(0x30 + d);
    }
  }
  return out;
}

/** True for what CPython's `Py_ISSPACE` accepts: ASCII TAB to CR and space. */
export function isAsciiSpace(c: number): boolean {
  return c === 0x20 || (c >= 0x09 && c <= 0x0d);
}

/** `str(ValueError)` of `int(text)` for too many digits. */
export function pyIntLimitMessage(digits: number): string {
  return `Exceeds the limit (${PY_INT_MAX_DIGITS} digits) for integer string conversion: value has ${digits} digits; use sys.set_int_max_str_digits() to increase the limit`;
}

function invalid(text: string): PyResult<bigint> {
  // CPython cuts the repr in this message at 200 characters (`%.200R`).
  return {
    ok: false,
    exception: 'ValueError',
    message: `invalid literal for int() with base 10: ${pyReprPrefix(text, 200)}`,
  };
}

/**
 * Python's `int(text)` (base 10), exactly as CPython 3.11 reads it:
 * surrounding whitespace, one sign, decimal digits from any script, single
 * underscores between digits, at most {@link PY_INT_MAX_DIGITS} digits.
 * Returns the value, or the `ValueError` CPython raises with its message
 * (`invalid literal for int() with base 10: 'x'`, or the digit-limit one).
 *
 * @example
 * pyInt(' ١٢_3 '); // { ok: true, value: 123n }
 * pyInt('0x10'); // { ok: false, exception: 'ValueError', message: "invalid literal for int() with base 10: '0x10'" }
 */
export function pyInt(text: string): PyResult<bigint> {
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
    if (plain) return { ok: true, value: BigInt(text) };
  }
  const s = pyNumberAscii(text);
  const end = s.length;
  let i = 0;
  while (i < end && isAsciiSpace(s.charCodeAt(i))) i += 1;
  let negative = false;
  if (s[i] === '+' || s[i] === '-') {
    negative = s[i] === '-';
    i += 1;
  }
  if (s[i] === '_') return invalid(text);
  const start = i;
  let digits = 0;
  let underscore = false;
  for (; i < end; i += 1) {
    const c = s.charCodeAt(i);
    if (c === 0x5f) {
      if (underscore) return invalid(text);
      underscore = true;
    } else if (c >= 0x30 && c <= 0x39) {
      underscore = false;
      digits += 1;
    } else break;
  }
  if (underscore) return invalid(text);
  if (digits > PY_INT_MAX_DIGITS)
    return { ok: false, exception: 'ValueError', message: pyIntLimitMessage(digits) };
  if (digits === 0) return invalid(text);
  const body = s.slice(start, i);
  while (i < end && isAsciiSpace(s.charCodeAt(i))) i += 1;
  if (i !== end) return invalid(text);
  const value = BigInt(body.includes('_') ? body.replace(/_/g, '') : body);
  return { ok: true, value: negative ? -value : value };
}
