// OpenStack services quote values in their messages with Python's repr():
// its quote choice, its escapes, its spelling of numbers and containers.
// Clients and scripts match on that text.
import { pyFloatRepr } from './float-repr.js';
import { PyNumber, pyNumberRepr } from './number.js';

// An integral number is an int to Python when it came from JSON or YAML
// without a fraction. Past 2^53 the double only approximates the digits that
// were written; its shortest spelling (what String() gives below 1e21) is
// the text Python read as an int. From 1e21 JSON.stringify writes an
// exponent, which Python reads as a float.
/** Python's spelling of a plain JavaScript number: an int when integral (below 1e21), else a float. */
export function pyNumberText(value: number): string {
  if (Number.isInteger(value) && Math.abs(value) < 1e21) return String(value === 0 ? 0 : value);
  return pyFloatRepr(value);
}

// What `str.isprintable()` rejects: other, separator and unassigned
// categories, except the plain space. Node's Unicode tables may be a little
// newer than the Python release they stand for; only newly assigned
// characters can differ.
const NON_PRINTABLE = /[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}]|[^\P{Zs} ]/u;

function quoteOf(text: string): string {
  return text.includes("'") && !text.includes('"') ? '"' : "'";
}

function escapeChar(ch: string, quote: string): string {
  const cp = ch.codePointAt(0) as number;
  if (ch === quote || ch === '\\') return `\\${ch}`;
  if (ch === '\n') return '\\n';
  if (ch === '\r') return '\\r';
  if (ch === '\t') return '\\t';
  if (cp >= 0x20 && cp < 0x7f) return ch;
  if (cp < 0x7f || NON_PRINTABLE.test(ch)) {
    if (cp <= 0xff) return `\\x${cp.toString(16).padStart(2, '0')}`;
    if (cp <= 0xffff) return `\\u${cp.toString(16).padStart(4, '0')}`;
    return `\\U${cp.toString(16).padStart(8, '0')}`;
  }
  return ch;
}

function reprString(text: string): string {
  const quote = quoteOf(text);
  let out = quote;
  for (const ch of text) out += escapeChar(ch, quote);
  return out + quote;
}

/**
 * The first `limit` characters (code points) of `repr(text)`, as CPython's
 * `%.200R` format writes a value into a message (`int()` does). Costs
 * O(limit) after one scan for quotes, however long the text.
 */
export function pyReprPrefix(text: string, limit: number): string {
  const quote = quoteOf(text);
  let out = quote;
  let count = 1;
  for (const ch of text) {
    if (count >= limit) break;
    const piece = escapeChar(ch, quote);
    // Escapes are ASCII; an unescaped piece is one code point.
    const width = piece === ch ? 1 : piece.length;
    if (count + width > limit) return out + piece.slice(0, limit - count);
    out += piece;
    count += width;
  }
  return count < limit ? out + quote : out;
}

function repr(value: unknown, open: Set<object>): string {
  if (value === null || value === undefined) return 'None';
  if (value === true) return 'True';
  if (value === false) return 'False';
  if (typeof value === 'string') return reprString(value);
  if (typeof value === 'number') return pyNumberText(value);
  if (typeof value === 'bigint') return value.toString();
  if (value instanceof PyNumber) return pyNumberRepr(value);
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
 * a {@link PyNumber} as Python prints it, `[1, 'a']`, `{'k': None}`.
 * `undefined` prints as `None`; a `Map` as a dict (its keys in order, any
 * type); a container inside itself as `[...]` / `{...}`.
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
