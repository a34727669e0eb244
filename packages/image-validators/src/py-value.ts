// Sahara keeps spec values as Python objects: keys and values compare with
// Python's `==` (1 == 1.0 == True, but 1 != '1') and reach scripts through
// `str()`. These helpers reproduce those rules for values read from YAML.

/** A float whose value happens to be integral (`2.0`), which JavaScript cannot tell from the int `2`. */
export class PyFloat {
  constructor(readonly value: number) {}
}

/**
 * A value in the variable map that validators share: a string, an int
 * (integral `number`), a float (non-integral `number` or {@link PyFloat}),
 * a boolean, `null` (Python's `None`), or a list/mapping of those.
 */
export type PyValue = string | number | boolean | null | PyFloat | readonly PyValue[] | PyMapping;

/** A mapping value (from a YAML default such as `{a: 1}`). */
export interface PyMapping {
  readonly [key: string]: PyValue;
}

function isFloat(v: unknown): v is number | PyFloat {
  return v instanceof PyFloat || (typeof v === 'number' && !Number.isInteger(v));
}

function numeric(v: PyValue): number | undefined {
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (typeof v === 'number') return v;
  if (v instanceof PyFloat) return v.value;
  return undefined;
}

/** Python's `repr()` of a float: shortest round-trip digits, `.0` when integral, exponent outside 1e-4…1e16. */
export function pyFloatRepr(x: number): string {
  if (Number.isNaN(x)) return 'nan';
  if (x === Number.POSITIVE_INFINITY) return 'inf';
  if (x === Number.NEGATIVE_INFINITY) return '-inf';
  if (x === 0) return Object.is(x, -0) ? '-0.0' : '0.0';
  const [mantissa = '', expText = '0'] = x.toExponential().split('e');
  const exp = Number(expText);
  const negative = mantissa.startsWith('-');
  const digits = mantissa.replace('-', '').replace('.', '');
  const sign = negative ? '-' : '';
  if (exp < -4 || exp >= 16) {
    const m = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    const e = Math.abs(exp) < 10 ? `0${Math.abs(exp)}` : String(Math.abs(exp));
    return `${sign}${m}e${exp < 0 ? '-' : '+'}${e}`;
  }
  if (exp < 0) return `${sign}0.${'0'.repeat(-exp - 1)}${digits}`;
  const intPart = digits.slice(0, exp + 1).padEnd(exp + 1, '0');
  const frac = digits.slice(exp + 1);
  return `${sign}${intPart}.${frac || '0'}`;
}

function reprString(s: string): string {
  const quote = s.includes("'") && !s.includes('"') ? '"' : "'";
  let out = '';
  for (const ch of s) {
    const code = ch.codePointAt(0) ?? 0;
    if (ch === '\\') out += '\\\\';
    else if (ch === quote) out += `\\${quote}`;
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (code < 0x20 || code === 0x7f) out += `\\x${code.toString(16).padStart(2, '0')}`;
    else out += ch;
  }
  return `${quote}${out}${quote}`;
}

/** Python's `repr()` of a value. */
export function pyRepr(v: PyValue): string {
  if (typeof v === 'string') return reprString(v);
  return pyStr(v);
}

/** Python's `str()` of a value: what Sahara writes after `export NAME=`. */
export function pyStr(v: PyValue): string {
  if (v === null) return 'None';
  if (v === true) return 'True';
  if (v === false) return 'False';
  if (typeof v === 'string') return v;
  if (v instanceof PyFloat) return pyFloatRepr(v.value);
  if (typeof v === 'number') return Number.isInteger(v) ? String(v) : pyFloatRepr(v);
  if (Array.isArray(v)) return `[${v.map(pyRepr).join(', ')}]`;
  return `{${Object.entries(v as PyMapping)
    .map(([k, x]) => `${reprString(k)}: ${pyRepr(x)}`)
    .join(', ')}}`;
}

/** Python's `==`: numbers and booleans compare by value, strings only with strings, containers deeply. */
export function pyEquals(a: PyValue, b: PyValue): boolean {
  const na = numeric(a);
  const nb = numeric(b);
  if (na !== undefined || nb !== undefined) return na !== undefined && nb !== undefined && na === nb;
  if (typeof a === 'string' || typeof b === 'string') return a === b;
  if (a === null || b === null) return a === b;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((x, i) => pyEquals(x, b[i] as PyValue));
  }
  const ka = Object.keys(a as PyMapping);
  const kb = Object.keys(b as PyMapping);
  if (ka.length !== kb.length) return false;
  return ka.every(
    (k) =>
      Object.hasOwn(b as PyMapping, k) &&
      pyEquals((a as PyMapping)[k] as PyValue, (b as PyMapping)[k] as PyValue),
  );
}

/** Python truthiness: empty strings, zero, `None`, `False` and empty containers are false. */
export function pyTruthy(v: PyValue | undefined): boolean {
  if (v === undefined || v === null || v === false) return false;
  if (v === true) return true;
  if (typeof v === 'string') return v.length > 0;
  if (typeof v === 'number') return v !== 0;
  if (v instanceof PyFloat) return v.value !== 0;
  if (Array.isArray(v)) return v.length > 0;
  return Object.keys(v).length > 0;
}

/** Converts a plain JSON-like value (from a caller or a parsed document) to a {@link PyValue}. */
export function toPyValue(v: unknown): PyValue {
  if (v === undefined || v === null) return null;
  if (typeof v === 'string' || typeof v === 'boolean' || typeof v === 'number' || v instanceof PyFloat)
    return v;
  if (typeof v === 'bigint') return Number(v);
  if (Array.isArray(v)) return v.map(toPyValue);
  if (typeof v === 'object') {
    const out: Record<string, PyValue> = {};
    for (const [k, x] of Object.entries(v as Record<string, unknown>)) out[k] = toPyValue(x);
    return out;
  }
  return String(v);
}

/** A plain JSON value for reports (floats stay numbers). */
export function fromPyValue(v: PyValue): unknown {
  if (v instanceof PyFloat) return v.value;
  if (Array.isArray(v)) return v.map(fromPyValue);
  if (v !== null && typeof v === 'object') {
    return Object.fromEntries(Object.entries(v as PyMapping).map(([k, x]) => [k, fromPyValue(x)]));
  }
  return v;
}

/** True when `x` is a float in Python's eyes. */
export function isPyFloat(x: PyValue): boolean {
  return isFloat(x);
}
