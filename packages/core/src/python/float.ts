// Python's float(text). CPython first makes the text ASCII the way int()
// does (Unicode spaces and digits count), then checks underscores (each
// between two digits), trims ASCII whitespace and reads a decimal literal
// (`1.`, `.5`, `1e5`, `1_000.5`) or `inf`, `infinity`, `nan` in any case,
// each with an optional sign. Overflow gives an infinity, underflow zero.
import { isAsciiSpace, pyNumberAscii } from './int.js';
import { pyRepr } from './repr.js';
import type { PyResult } from './result.js';

const DECIMAL = /^[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?$/;
const SPECIAL = /^([+-]?)(?:(inf|infinity)|nan)$/i;

function isDigit(c: string | undefined): boolean {
  return c !== undefined && c >= '0' && c <= '9';
}

// Underscores are allowed only between two digits; returns the text without them.
function withoutUnderscores(s: string): string | undefined {
  if (!s.includes('_')) return s;
  let out = '';
  let prev = '';
  for (const c of s) {
    if (c === '_') {
      if (!isDigit(prev)) return undefined;
    } else {
      if (prev === '_' && !isDigit(c)) return undefined;
      out += c;
    }
    prev = c;
  }
  return prev === '_' ? undefined : out;
}

/**
 * Python's `float(text)`, exactly as CPython 3.11 reads a string: surrounding
 * whitespace (Unicode spaces too), decimal digits from any script,
 * underscores between digits, `inf`/`infinity`/`nan` in any case with a
 * sign. Returns the double, or the `ValueError` CPython raises
 * (`could not convert string to float: 'x'`).
 *
 * @example
 * pyFloat(' 1_000.5 '); // { ok: true, value: 1000.5 }
 * pyFloat('-Infinity'); // { ok: true, value: -Infinity }
 */
export function pyFloat(text: string): PyResult<number> {
  const fail = (): PyResult<number> => ({
    ok: false,
    exception: 'ValueError',
    message: `could not convert string to float: ${pyRepr(text)}`,
  });
  const ascii = withoutUnderscores(pyNumberAscii(text));
  if (ascii === undefined) return fail();
  let start = 0;
  let end = ascii.length;
  while (start < end && isAsciiSpace(ascii.charCodeAt(start))) start += 1;
  while (end > start && isAsciiSpace(ascii.charCodeAt(end - 1))) end -= 1;
  const body = ascii.slice(start, end);
  if (DECIMAL.test(body)) return { ok: true, value: Number(body) };
  const special = SPECIAL.exec(body);
  if (!special) return fail();
  if (special[2] === undefined) return { ok: true, value: Number.NaN };
  return { ok: true, value: special[1] === '-' ? Number.NEGATIVE_INFINITY : Number.POSITIVE_INFINITY };
}
