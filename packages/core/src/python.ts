// OpenStack services build their messages and bodies with Python's own text
// rules: `repr()` quoting and escapes, float spelling, `json.dumps` spacing and
// ASCII escaping, `==` across ints, floats and booleans. Clients and scripts
// match on that text, so the packages that mirror those services share one
// faithful copy of the rules here.
import { ValidationError } from './errors.js';

const PY_FLOAT = Symbol.for('@stackspec/py-float');

/**
 * A Python `float` whose value is integral (`2.0`). JavaScript numbers cannot
 * tell `2.0` from the int `2`; loaders that can see the source text wrap such
 * floats so that {@link pyRepr} prints `2.0` and {@link pyEquals} still finds
 * `2.0 == 2`. Non-integral numbers need no wrapper: they are floats already.
 *
 * `instanceof PyFloat` works across the ESM and CommonJS copies of core.
 */
export class PyFloat {
  readonly value: number;
  constructor(value: number) {
    this.value = value;
    Object.defineProperty(this, PY_FLOAT, { value: true });
  }

  static [Symbol.hasInstance](candidate: unknown): boolean {
    return (
      typeof candidate === 'object' &&
      candidate !== null &&
      (candidate as Record<symbol, unknown>)[PY_FLOAT] === true
    );
  }
}

/**
 * A Python value as stackspec models it: `str`, `int` (an integral number),
 * `float` (a non-integral number or a {@link PyFloat}), `bool`, `None`
 * (`null`), and lists and dicts of those.
 */
export type PyValue = string | number | boolean | null | PyFloat | readonly PyValue[] | PyMapping;

/** A Python `dict` with string keys. */
export interface PyMapping {
  readonly [key: string]: PyValue;
}

/** True when `value` is a float in Python's eyes: a {@link PyFloat} or a non-integral number. */
export function isPyFloat(value: unknown): boolean {
  return value instanceof PyFloat || (typeof value === 'number' && !Number.isInteger(value));
}

// Characters `str.isspace()` accepts (and so `str.strip()` removes).
function isSpaceCode(c: number): boolean {
  return (
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
    c === 0x3000
  );
}

/** True for a single character Python's `str.isspace()` accepts (a BOM or zero-width space is not one). */
export function isPySpace(ch: string): boolean {
  return ch.length === 1 && isSpaceCode(ch.charCodeAt(0));
}

/** Python's `str.strip()` with no argument: removes what `str.isspace()` accepts from both ends. */
export function pyStrip(text: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && isSpaceCode(text.charCodeAt(start))) start += 1;
  while (end > start && isSpaceCode(text.charCodeAt(end - 1))) end -= 1;
  return start === 0 && end === text.length ? text : text.slice(start, end);
}

/**
 * Python's ordering of `str` values, for `sorted()`: by code point, so
 * astral characters sort after every BMP character (JavaScript's default
 * sort compares UTF-16 units and gets that wrong).
 */
export function pyCompare(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i += 1) {
    const x = a.codePointAt(i) as number;
    const y = b.codePointAt(i) as number;
    if (x !== y) return x - y;
    if (x > 0xffff) i += 1;
  }
  return a.length - b.length;
}

/**
 * Python's `repr()` of a float: the shortest digits that read back to the
 * same double, `.0` on integral values, and exponent notation below 1e-4 and
 * from 1e16 up (`1e-05`, `1e+16`); `nan`, `inf`, `-inf`.
 */
export function pyFloatRepr(x: number): string {
  if (Number.isNaN(x)) return 'nan';
  if (x === Number.POSITIVE_INFINITY) return 'inf';
  if (x === Number.NEGATIVE_INFINITY) return '-inf';
  if (x === 0) return Object.is(x, -0) ? '-0.0' : '0.0';
  // toExponential() without an argument gives the shortest round-trip digits.
  const [mantissa = '', expText = '0'] = x.toExponential().split('e');
  const exp = Number(expText);
  const sign = mantissa.startsWith('-') ? '-' : '';
  const digits = mantissa.replace('-', '').replace('.', '');
  if (exp < -4 || exp >= 16) {
    const m = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    return `${sign}${m}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
  }
  if (exp < 0) return `${sign}0.${'0'.repeat(-exp - 1)}${digits}`;
  const whole = digits.slice(0, exp + 1).padEnd(exp + 1, '0');
  return `${sign}${whole}.${digits.slice(exp + 1) || '0'}`;
}

// An integral number is an int to Python when it came from JSON or YAML
// without a fraction. Past 2^53 the double only approximates the digits that
// were written; its shortest spelling (what String() gives below 1e21) is
// the text Python read as an int. From 1e21 JSON.stringify writes an
// exponent, which Python reads as a float.
function numberText(value: number): string {
  if (Number.isInteger(value) && Math.abs(value) < 1e21) return String(value === 0 ? 0 : value);
  return pyFloatRepr(value);
}

// What `str.isprintable()` rejects: other, separator and unassigned
// categories, except the plain space. Node's Unicode tables may be a little
// newer than the Python release they stand for; only newly assigned
// characters can differ.
const NON_PRINTABLE = /[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}]|[^\P{Zs} ]/u;

function reprString(text: string): string {
  const quote = text.includes("'") && !text.includes('"') ? '"' : "'";
  let out = quote;
  for (const ch of text) {
    const cp = ch.codePointAt(0) as number;
    if (ch === quote || ch === '\\') out += `\\${ch}`;
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (cp >= 0x20 && cp < 0x7f) out += ch;
    else if (cp < 0x7f || NON_PRINTABLE.test(ch)) {
      if (cp <= 0xff) out += `\\x${cp.toString(16).padStart(2, '0')}`;
      else if (cp <= 0xffff) out += `\\u${cp.toString(16).padStart(4, '0')}`;
      else out += `\\U${cp.toString(16).padStart(8, '0')}`;
    } else out += ch;
  }
  return out + quote;
}

function repr(value: unknown, open: Set<object>): string {
  if (value === null || value === undefined) return 'None';
  if (value === true) return 'True';
  if (value === false) return 'False';
  if (typeof value === 'string') return reprString(value);
  if (typeof value === 'number') return numberText(value);
  if (typeof value === 'bigint') return value.toString();
  if (value instanceof PyFloat) return pyFloatRepr(value.value);
  if (typeof value !== 'object') return String(value);
  // Python prints a container that contains itself as [...] or {...}.
  if (open.has(value)) return Array.isArray(value) ? '[...]' : '{...}';
  open.add(value);
  try {
    if (Array.isArray(value)) return `[${value.map((v) => repr(v, open)).join(', ')}]`;
    const entries = value instanceof Map ? [...value.entries()] : Object.entries(value);
    return `{${entries.map(([k, v]) => `${repr(k, open)}: ${repr(v, open)}`).join(', ')}}`;
  } finally {
    open.delete(value);
  }
}

/**
 * Python's `repr()` of a JSON-like value, as OpenStack services print values
 * in messages: `None`, `True`, `'it\'s'` quoting with `\x`/`\u`/`\U` escapes
 * for unprintable characters, ints in full, floats as {@link pyFloatRepr},
 * `[1, 'a']`, `{'k': None}`. `undefined` prints as `None`; a `Map` as a dict;
 * a container inside itself as `[...]` / `{...}`.
 *
 * @example
 * pyRepr({ op: 'add', value: [1, 2.5, null] }); // "{'op': 'add', 'value': [1, 2.5, None]}"
 */
export function pyRepr(value: unknown): string {
  return repr(value, new Set());
}

/** Python's `str()`: a string as it is, anything else as {@link pyRepr}. */
export function pyStr(value: unknown): string {
  return typeof value === 'string' ? value : repr(value, new Set());
}

const PLAIN_JSON = /^[\x20-\x21\x23-\x5b\x5d-\x7e]*$/;

function jsonString(text: string): string {
  if (PLAIN_JSON.test(text)) return `"${text}"`;
  let out = '"';
  for (let i = 0; i < text.length; i += 1) {
    const code = text.charCodeAt(i);
    const ch = text[i] as string;
    if (ch === '"') out += '\\"';
    else if (ch === '\\') out += '\\\\';
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (ch === '\b') out += '\\b';
    else if (ch === '\f') out += '\\f';
    // ensure_ascii escapes by UTF-16 unit, so astral characters become surrogate pairs.
    else if (code < 0x20 || code > 0x7e) out += `\\u${code.toString(16).padStart(4, '0')}`;
    else out += ch;
  }
  return `${out}"`;
}

function dumps(value: unknown, open: Set<object>): string {
  if (value === null || value === undefined) return 'null';
  if (value === true) return 'true';
  if (value === false) return 'false';
  if (typeof value === 'string') return jsonString(value);
  if (typeof value === 'number') return Number.isFinite(value) ? numberText(value) : 'null';
  if (typeof value === 'bigint') return value.toString();
  if (value instanceof PyFloat) return Number.isFinite(value.value) ? pyFloatRepr(value.value) : 'null';
  if (typeof value !== 'object') return 'null';
  if (open.has(value)) {
    throw new ValidationError('The value contains itself and cannot be written as JSON.', {
      code: 'python/circular-reference',
    });
  }
  open.add(value);
  try {
    if (Array.isArray(value)) return `[${value.map((v) => dumps(v, open)).join(', ')}]`;
    const entries = Object.entries(value).filter(([, v]) => v !== undefined);
    return `{${entries.map(([k, v]) => `${jsonString(k)}: ${dumps(v, open)}`).join(', ')}}`;
  } finally {
    open.delete(value);
  }
}

/**
 * Python's `json.dumps(value)` with its defaults: `", "` and `": "`
 * separators, every non-ASCII character escaped (`\u00e9`, surrogate pairs
 * for astral ones), floats spelled as Python spells them (`1e-07`, `2.0`
 * for a {@link PyFloat}). Like `JSON.stringify`, members whose value is
 * `undefined` are left out, and non-finite numbers are written `null`
 * (Python would write `NaN`, which is not JSON).
 *
 * Throws `ValidationError` (`python/circular-reference`) for a value that
 * contains itself.
 *
 * @example
 * pyJsonDumps({ faultcode: 'Client', debuginfo: null }); // '{"faultcode": "Client", "debuginfo": null}'
 */
export function pyJsonDumps(value: unknown): string {
  return dumps(value, new Set());
}

function numeric(value: unknown): number | bigint | undefined {
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (typeof value === 'number' || typeof value === 'bigint') return value;
  if (value instanceof PyFloat) return value.value;
  return undefined;
}

/**
 * Python's `==` between two values: ints, floats and booleans compare by
 * value (`1 == 1.0 == True`), strings only with strings, `None` only with
 * `None`, lists item by item and dicts by their keys and values, whatever
 * the key order.
 */
export function pyEquals(a: unknown, b: unknown): boolean {
  const na = numeric(a);
  const nb = numeric(b);
  // biome-ignore lint/suspicious/noDoubleEquals: loose equality compares a bigint with a number by value, as Python does.
  if (na !== undefined || nb !== undefined) return na !== undefined && nb !== undefined && na == nb;
  if (typeof a === 'string' || typeof b === 'string') return a === b;
  if (a === null || a === undefined || b === null || b === undefined) {
    return (a === null || a === undefined) && (b === null || b === undefined);
  }
  if (typeof a !== 'object' || typeof b !== 'object') return a === b;
  if (Array.isArray(a) || Array.isArray(b)) {
    return (
      Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => pyEquals(x, b[i]))
    );
  }
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  return ka.every(
    (k) =>
      Object.hasOwn(b, k) && pyEquals((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]),
  );
}

/** Python's truthiness: `None`, `False`, zero, `''` and empty containers are false (`undefined` too). */
export function pyTruthy(value: unknown): boolean {
  if (value === undefined || value === null || value === false) return false;
  if (value === true) return true;
  if (typeof value === 'string') return value.length > 0;
  if (typeof value === 'number') return value !== 0;
  if (typeof value === 'bigint') return value !== 0n;
  if (value instanceof PyFloat) return value.value !== 0;
  if (Array.isArray(value)) return value.length > 0;
  if (value instanceof Map) return value.size > 0;
  if (typeof value === 'object') return Object.keys(value).length > 0;
  return true;
}
