// Python's json.loads as services run it on request bodies. It differs from
// JSON.parse in what it accepts (NaN, Infinity, -Infinity; lone surrogate
// escapes), in what it refuses (ints of more than 4,300 digits, nesting
// deeper than the interpreter's stack), in what it keeps (an int stays an
// int, a float a float, however they are spelled) and in how it words its
// errors, which services repeat to clients. The reading order below is
// CPython's C scanner's, so the first problem found is the one Python reports.

import { PY_INT_MAX_DIGITS, pyIntLimitMessage } from './int.js';
import { PyNumber } from './number.js';
import type { PyFailure, PyResult } from './result.js';
import type { PyValue } from './value.js';

/**
 * Deepest nesting {@link pyJsonLoads} reads by default. Python's json module
 * recurses once per level and gives up at the interpreter's recursion limit
 * (1,000 frames, less those of the program around it: Nova's API process
 * fails just under 970 levels), so a service never sees anything deeper.
 */
export const PY_JSON_MAX_DEPTH = 960;

// Recursion here costs a few JavaScript frames a level; no option may go past this.
const DEPTH_CEILING = 2000;

/** What a caller may tune in {@link pyJsonLoads}. */
export interface PyJsonLoadsOptions {
  /**
   * Refuse arrays and objects nested deeper than this, as Python's
   * `RecursionError` (default {@link PY_JSON_MAX_DEPTH}; at most 2,000).
   */
  maxDepth?: number;
  /**
   * `object` (default): dicts become plain objects (a `__proto__` key stays a
   * plain key). `map`: dicts become `Map`s, which keep Python's key order
   * even for keys such as `"1"` that JavaScript objects move to the front.
   */
  dict?: 'object' | 'map';
}

/** A value {@link pyJsonLoads} returns with `dict: 'map'`: dicts are `Map`s. */
export type PyJsonMapValue =
  | string
  | boolean
  | null
  | PyNumber
  | PyJsonMapValue[]
  | Map<string, PyJsonMapValue>;

class Stop {
  constructor(readonly failure: PyFailure) {}
}

const isWhitespace = (c: number) => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;
const isDigit = (c: number) => c >= 0x30 && c <= 0x39;

function hexValue(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  if (c >= 0x61 && c <= 0x66) return c - 0x57;
  if (c >= 0x41 && c <= 0x46) return c - 0x37;
  return -1;
}

class Scanner {
  readonly #text: string;
  readonly #end: number;
  readonly #maxDepth: number;
  readonly #maps: boolean;
  #depth = 0;

  constructor(text: string, maxDepth: number, maps: boolean) {
    this.#text = text;
    this.#end = text.length;
    this.#maxDepth = maxDepth;
    this.#maps = maps;
  }

  /** A JSONDecodeError at UTF-16 offset `at`, positioned in code points as Python counts. */
  fail(reason: string, at: number): never {
    const text = this.#text;
    let position = 0;
    let line = 1;
    let lineStart = 0;
    for (let i = 0; i < at; i += 1) {
      const c = text.charCodeAt(i);
      if (c >= 0xd800 && c <= 0xdbff && i + 1 < at) {
        const d = text.charCodeAt(i + 1);
        if (d >= 0xdc00 && d <= 0xdfff) i += 1;
      }
      position += 1;
      if (c === 0x0a) {
        line += 1;
        lineStart = position;
      }
    }
    const column = position - lineStart + 1;
    throw new Stop({
      ok: false,
      exception: 'JSONDecodeError',
      message: `${reason}: line ${line} column ${column} (char ${position})`,
      reason,
      position,
      line,
      column,
    });
  }

  skip(i: number): number {
    while (i < this.#end && isWhitespace(this.#text.charCodeAt(i))) i += 1;
    return i;
  }

  /** Reads one value at `i`; returns it and the offset after it. */
  value(i: number): [unknown, number] {
    const text = this.#text;
    if (i >= this.#end) this.fail('Expecting value', i);
    const c = text[i];
    if (c === '"') return this.string(i + 1);
    if (c === '{' || c === '[') {
      if (this.#depth >= this.#maxDepth) {
        const what = c === '{' ? 'object' : 'array';
        throw new Stop({
          ok: false,
          exception: 'RecursionError',
          message: `maximum recursion depth exceeded while decoding a JSON ${what} from a unicode string`,
        });
      }
      this.#depth += 1;
      const out = c === '{' ? this.object(i + 1) : this.array(i + 1);
      this.#depth -= 1;
      return out;
    }
    for (const [word, constant] of CONSTANTS) {
      if (c === word[0] && text.startsWith(word, i)) return [constant(), i + word.length];
    }
    return this.number(i);
  }

  number(start: number): [PyNumber, number] {
    const text = this.#text;
    const last = this.#end - 1;
    let i = start;
    if (text.charCodeAt(i) === 0x2d) {
      i += 1;
      if (i > last) this.fail('Expecting value', start);
    }
    const first = text.charCodeAt(i);
    if (first >= 0x31 && first <= 0x39) {
      i += 1;
      while (i <= last && isDigit(text.charCodeAt(i))) i += 1;
    } else if (first === 0x30) i += 1;
    else this.fail('Expecting value', start);
    let isFloat = false;
    if (i < last && text.charCodeAt(i) === 0x2e && isDigit(text.charCodeAt(i + 1))) {
      isFloat = true;
      i += 2;
      while (i <= last && isDigit(text.charCodeAt(i))) i += 1;
    }
    if (i < last && (text.charCodeAt(i) | 0x20) === 0x65) {
      // An exponent counts only with digits; otherwise the number ends before the `e`.
      const e = i;
      i += 1;
      if (i < last && (text.charCodeAt(i) === 0x2d || text.charCodeAt(i) === 0x2b)) i += 1;
      while (i <= last && isDigit(text.charCodeAt(i))) i += 1;
      if (isDigit(text.charCodeAt(i - 1))) isFloat = true;
      else i = e;
    }
    const literal = text.slice(start, i);
    if (!isFloat) {
      const digits = literal.length - (literal.startsWith('-') ? 1 : 0);
      if (digits > PY_INT_MAX_DIGITS) {
        throw new Stop({ ok: false, exception: 'ValueError', message: pyIntLimitMessage(digits) });
      }
    }
    return [new PyNumber(literal, isFloat), i];
  }

  string(begin: number): [string, number] {
    const text = this.#text;
    const len = this.#end;
    let out = '';
    let end = begin;
    for (;;) {
      let next = end;
      let c = 0;
      for (; next < len; next += 1) {
        c = text.charCodeAt(next);
        if (c === 0x22 || c === 0x5c) break;
        if (c <= 0x1f) this.fail('Invalid control character at', next);
      }
      if (next >= len) this.fail('Unterminated string starting at', begin - 1);
      out += text.slice(end, next);
      next += 1;
      if (c === 0x22) return [out, next];
      if (next === len) this.fail('Unterminated string starting at', begin - 1);
      const e = text[next];
      if (e !== 'u') {
        const simple = ESCAPES[e as string];
        if (simple === undefined) this.fail('Invalid \\escape', next - 1);
        out += simple;
        end = next + 1;
        continue;
      }
      next += 1;
      end = next + 4;
      if (end >= len) this.fail('Invalid \\uXXXX escape', next - 1);
      let unit = 0;
      for (; next < end; next += 1) {
        const h = hexValue(text.charCodeAt(next));
        if (h < 0) this.fail('Invalid \\uXXXX escape', end - 5);
        unit = unit * 16 + h;
      }
      // A high surrogate escape followed by a low one makes one character;
      // anything else leaves the lone surrogate as it is.
      if (unit >= 0xd800 && unit <= 0xdbff && end + 6 < len && text[end] === '\\' && text[end + 1] === 'u') {
        let low = 0;
        const lowEnd = end + 6;
        for (next = end + 2; next < lowEnd; next += 1) {
          const h = hexValue(text.charCodeAt(next));
          if (h < 0) this.fail('Invalid \\uXXXX escape', lowEnd - 5);
          low = low * 16 + h;
        }
        if (low >= 0xdc00 && low <= 0xdfff) {
          out += String.fromCharCode(unit, low);
          end = lowEnd;
          continue;
        }
      }
      out += String.fromCharCode(unit);
    }
  }

  array(start: number): [unknown[], number] {
    const text = this.#text;
    const list: unknown[] = [];
    let i = this.skip(start);
    if (i < this.#end && text[i] === ']') return [list, i + 1];
    for (;;) {
      const [item, next] = this.value(i);
      list.push(item);
      i = this.skip(next);
      if (i < this.#end && text[i] === ']') return [list, i + 1];
      if (i >= this.#end || text[i] !== ',') this.fail("Expecting ',' delimiter", i);
      i = this.skip(i + 1);
    }
  }

  object(start: number): [unknown, number] {
    const text = this.#text;
    const map = this.#maps ? new Map<string, unknown>() : undefined;
    const obj: Record<string, unknown> = {};
    let i = this.skip(start);
    if (i < this.#end && text[i] === '}') return [map ?? obj, i + 1];
    for (;;) {
      if (i >= this.#end || text[i] !== '"') {
        this.fail('Expecting property name enclosed in double quotes', i);
      }
      const [key, afterKey] = this.string(i + 1);
      i = this.skip(afterKey);
      if (i >= this.#end || text[i] !== ':') this.fail("Expecting ':' delimiter", i);
      i = this.skip(i + 1);
      const [item, next] = this.value(i);
      // A repeated key keeps its first place and takes the last value, as in a Python dict.
      if (map) map.set(key, item);
      else if (key === '__proto__') {
        Object.defineProperty(obj, key, {
          value: item,
          enumerable: true,
          writable: true,
          configurable: true,
        });
      } else obj[key] = item;
      i = this.skip(next);
      if (i < this.#end && text[i] === '}') return [map ?? obj, i + 1];
      if (i >= this.#end || text[i] !== ',') this.fail("Expecting ',' delimiter", i);
      i = this.skip(i + 1);
    }
  }
}

const ESCAPES: Readonly<Record<string, string>> = {
  '"': '"',
  '\\': '\\',
  '/': '/',
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
};

const CONSTANTS: readonly (readonly [string, () => unknown])[] = [
  ['null', () => null],
  ['true', () => true],
  ['false', () => false],
  ['NaN', () => new PyNumber('NaN', true)],
  ['Infinity', () => new PyNumber('Infinity', true)],
  ['-Infinity', () => new PyNumber('-Infinity', true)],
];

/**
 * Python's `json.loads(text)` for text (already decoded), as CPython 3.11
 * reads it: every number becomes a {@link PyNumber} that keeps its text and
 * whether Python reads it as an int or a float; `NaN`, `Infinity` and
 * `-Infinity` are accepted; a repeated key keeps its first place and its
 * last value; a text starting with a BOM is refused. Returns the value, or
 * the exception Python raises, with its message word for word:
 * `JSONDecodeError` (`Expecting value: line 1 column 1 (char 0)`), the
 * `ValueError` of an int of more than 4,300 digits, or a `RecursionError`
 * for nesting deeper than `maxDepth`, found where Python would meet it.
 *
 * Linear in the length of the text; recursion is bounded by `maxDepth`.
 *
 * @example
 * const r = pyJsonLoads('{"a": 2.0}');
 * if (r.ok) pyRepr(r.value); // "{'a': 2.0}"
 */
export function pyJsonLoads(
  text: string,
  options?: PyJsonLoadsOptions & { dict?: 'object' },
): PyResult<PyValue>;
export function pyJsonLoads(
  text: string,
  options: PyJsonLoadsOptions & { dict: 'map' },
): PyResult<PyJsonMapValue>;
export function pyJsonLoads(text: string, options: PyJsonLoadsOptions = {}): PyResult<unknown> {
  const maxDepth = Math.min(Math.max(options.maxDepth ?? PY_JSON_MAX_DEPTH, 0), DEPTH_CEILING);
  const scanner = new Scanner(text, maxDepth, options.dict === 'map');
  try {
    if (text.charCodeAt(0) === 0xfeff) scanner.fail('Unexpected UTF-8 BOM (decode using utf-8-sig)', 0);
    const [value, next] = scanner.value(scanner.skip(0));
    const end = scanner.skip(next);
    if (end !== text.length) scanner.fail('Extra data', end);
    return { ok: true, value };
  } catch (e) {
    if (e instanceof Stop) return e.failure;
    throw e;
  }
}
