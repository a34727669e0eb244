// JSON the way Nova's Python sees it. Nova turns number values into strings
// with Python's str() (`2.0` stays `2.0`, so it fails an integer check), and
// quotes offending values with repr() in its error messages. JavaScript's
// JSON.parse forgets how a number was written, so numbers are kept as their
// source text here.

/** A JSON number with its source text, and whether Python reads it as an int or a float. */
export class PyNumber {
  constructor(
    readonly text: string,
    readonly isFloat: boolean,
  ) {}

  /** Python's `str()` of the number json.loads would produce. */
  toString(): string {
    return this.isFloat ? pyFloatRepr(this.text) : pyIntText(this.text);
  }
}

function pyIntText(text: string): string {
  const negative = text.startsWith('-');
  const digits = (negative ? text.slice(1) : text).replace(/^0+(?=\d)/, '');
  return negative && digits !== '0' ? `-${digits}` : digits;
}

/** Python's `repr(float(text))`. */
export function pyFloatRepr(text: string): string {
  if (text === 'NaN') return 'nan';
  if (text === 'Infinity') return 'inf';
  if (text === '-Infinity') return '-inf';
  const x = Number(text);
  if (Number.isNaN(x)) return 'nan';
  if (!Number.isFinite(x)) return x > 0 ? 'inf' : '-inf';
  if (x === 0) return Object.is(x, -0) ? '-0.0' : '0.0';
  const exp = x.toExponential(); // shortest round-trip digits, e.g. 1.2345e+2
  const m = /^(-?)(\d)(?:\.(\d+))?e([+-]\d+)$/.exec(exp) as RegExpExecArray;
  const sign = m[1] as string;
  const digits = `${m[2]}${m[3] ?? ''}`;
  const e = Number(m[4]);
  if (e < -4 || e >= 16) {
    const mantissa = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : (digits[0] as string);
    return `${sign}${mantissa}e${e < 0 ? '-' : '+'}${String(Math.abs(e)).padStart(2, '0')}`;
  }
  if (e < 0) return `${sign}0.${'0'.repeat(-e - 1)}${digits}`;
  const whole = digits.slice(0, e + 1).padEnd(e + 1, '0');
  const frac = digits.slice(e + 1);
  return `${sign}${whole}.${frac || '0'}`;
}

/**
 * Thrown by {@link parsePyJson} for text Python's json module refuses;
 * `tooDeep` when the text nests deeper than the parser's limit.
 */
export class PyJsonError extends Error {
  constructor(
    message: string,
    readonly tooDeep = false,
  ) {
    super(message);
  }
}

/**
 * Deepest nesting {@link parsePyJson} reads by default. Python's json module
 * recurses once per level and gives up at its recursion limit (1,000 frames,
 * less those of the server above it: Nova's API process fails just under
 * 970 levels), so nothing deeper can reach Nova's validation.
 */
export const PY_JSON_MAX_DEPTH = 960;

const NUMBER = /-?(?:0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/y;

/**
 * Parses JSON as Python's `json.loads` does: numbers become {@link PyNumber},
 * `NaN`, `Infinity` and `-Infinity` are accepted, duplicate keys keep the
 * last value. Throws {@link PyJsonError} otherwise, with `tooDeep` set for
 * arrays and objects nested deeper than `maxDepth` (default
 * {@link PY_JSON_MAX_DEPTH}), which is checked before anything recurses.
 */
export function parsePyJson(text: string, maxDepth = PY_JSON_MAX_DEPTH): unknown {
  const nonce = `\u0000n${Math.random().toString(36).slice(2)}:`;
  let out = '';
  let i = 0;
  let depth = 0;
  const n = text.length;
  while (i < n) {
    const c = text[i] as string;
    if (c === '[' || c === '{') {
      depth += 1;
      if (depth > maxDepth) throw new PyJsonError(`nested deeper than ${maxDepth} levels`, true);
    } else if (c === ']' || c === '}') depth -= 1;
    if (c === '"') {
      let j = i + 1;
      while (j < n && text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
      out += text.slice(i, j + 1);
      i = j + 1;
      continue;
    }
    if (c === '-' || (c >= '0' && c <= '9')) {
      if (text.startsWith('-Infinity', i)) {
        out += JSON.stringify(`${nonce}f-Infinity`);
        i += 9;
        continue;
      }
      NUMBER.lastIndex = i;
      const m = NUMBER.exec(text);
      if (!m) throw new PyJsonError('Expecting value');
      const isFloat = m[1] !== undefined || m[2] !== undefined;
      out += JSON.stringify(`${nonce}${isFloat ? 'f' : 'i'}${m[0]}`);
      i += m[0].length;
      continue;
    }
    if (text.startsWith('NaN', i) || text.startsWith('Infinity', i)) {
      const word = text.startsWith('NaN', i) ? 'NaN' : 'Infinity';
      out += JSON.stringify(`${nonce}f${word}`);
      i += word.length;
      continue;
    }
    out += c;
    i += 1;
  }
  let value: unknown;
  try {
    value = JSON.parse(out);
  } catch (e) {
    throw new PyJsonError((e as Error).message);
  }
  const revive = (v: unknown): unknown => {
    if (typeof v === 'string') {
      return v.startsWith(nonce) ? new PyNumber(v.slice(nonce.length + 1), v[nonce.length] === 'f') : v;
    }
    if (Array.isArray(v)) return v.map(revive);
    if (v && typeof v === 'object') {
      const o: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(v)) {
        // defineProperty, so that a key named __proto__ stays a plain key.
        Object.defineProperty(o, k, {
          value: revive(x),
          enumerable: true,
          writable: true,
          configurable: true,
        });
      }
      return o;
    }
    return v;
  };
  return revive(value);
}

const NON_PRINTABLE = /[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Zs}]/u;

function reprString(s: string): string {
  const quote = s.includes("'") && !s.includes('"') ? '"' : "'";
  let body = '';
  for (const ch of s) {
    if (ch === '\\') body += '\\\\';
    else if (ch === quote) body += `\\${ch}`;
    else if (ch === '\n') body += '\\n';
    else if (ch === '\r') body += '\\r';
    else if (ch === '\t') body += '\\t';
    else if (ch !== ' ' && NON_PRINTABLE.test(ch)) {
      const cp = ch.codePointAt(0) as number;
      body +=
        cp < 0x100
          ? `\\x${cp.toString(16).padStart(2, '0')}`
          : cp < 0x10000
            ? `\\u${cp.toString(16).padStart(4, '0')}`
            : `\\U${cp.toString(16).padStart(8, '0')}`;
    } else body += ch;
  }
  return `${quote}${body}${quote}`;
}

/** Python's `repr()` of a value from {@link parsePyJson}. */
export function pyRepr(value: unknown): string {
  if (value === null || value === undefined) return 'None';
  if (value === true) return 'True';
  if (value === false) return 'False';
  if (value instanceof PyNumber) return value.toString();
  if (typeof value === 'number') return String(value);
  if (typeof value === 'string') return reprString(value);
  if (Array.isArray(value)) return `[${value.map(pyRepr).join(', ')}]`;
  return `{${Object.entries(value as Record<string, unknown>)
    .map(([k, v]) => `${reprString(k)}: ${pyRepr(v)}`)
    .join(', ')}}`;
}

/** Python's `str()`: strings as they are, everything else as `repr()`. */
export function pyStr(value: unknown): string {
  return typeof value === 'string' ? value : pyRepr(value);
}

function dumpString(s: string): string {
  let out = '"';
  for (let i = 0; i < s.length; i += 1) {
    const c = s.charCodeAt(i);
    const ch = s[i] as string;
    if (ch === '"') out += '\\"';
    else if (ch === '\\') out += '\\\\';
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (ch === '\b') out += '\\b';
    else if (ch === '\f') out += '\\f';
    else if (c < 0x20 || c > 0x7e) out += `\\u${c.toString(16).padStart(4, '0')}`;
    else out += ch;
  }
  return `${out}"`;
}

/** Python's `json.dumps(value)` (default separators, ASCII only). */
export function pyDumps(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (value === true) return 'true';
  if (value === false) return 'false';
  if (value instanceof PyNumber) {
    if (!value.isFloat) return value.toString();
    const r = value.toString();
    return r === 'nan' ? 'NaN' : r === 'inf' ? 'Infinity' : r === '-inf' ? '-Infinity' : r;
  }
  if (typeof value === 'number') return String(value);
  if (typeof value === 'string') return dumpString(value);
  if (Array.isArray(value)) return `[${value.map(pyDumps).join(', ')}]`;
  return `{${Object.entries(value as Record<string, unknown>)
    .map(([k, v]) => `${dumpString(k)}: ${pyDumps(v)}`)
    .join(', ')}}`;
}
