// Python's json.dumps with its defaults, which OpenStack services use for
// their response and error bodies: `, ` and `: ` between items, every
// non-ASCII character escaped, floats spelled by repr().
import { ValidationError } from '../errors.js';
import { pyFloatRepr } from './float-repr.js';
import { PyFloat, PyNumber, pyNumberRepr } from './number.js';
import { pyNumberText } from './repr.js';

/** What {@link pyJsonDumps} may do beyond `JSON.stringify`. */
export interface PyJsonDumpsOptions {
  /**
   * Write non-finite floats as Python's `json.dumps` does by default
   * (`allow_nan=True`): `NaN`, `Infinity`, `-Infinity`, which is not JSON.
   * Default false: they are written `null`, so the output stays JSON.
   */
  allowNan?: boolean;
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

function float(x: number, allowNan: boolean): string {
  if (Number.isFinite(x)) return pyFloatRepr(x);
  if (!allowNan) return 'null';
  return Number.isNaN(x) ? 'NaN' : x > 0 ? 'Infinity' : '-Infinity';
}

// Python turns the keys of a dict into strings: numbers by repr, True as `true`, None as `null`.
function keyText(key: unknown, allowNan: boolean): string {
  if (typeof key === 'string') return key;
  if (key === null || key === undefined) return 'null';
  if (typeof key === 'boolean') return key ? 'true' : 'false';
  if (typeof key === 'number') return Number.isInteger(key) ? pyNumberText(key) : float(key, allowNan);
  if (key instanceof PyFloat) return float(key.value, allowNan);
  if (key instanceof PyNumber) return pyNumberRepr(key);
  return String(key);
}

function dumps(value: unknown, open: Set<object>, allowNan: boolean): string {
  if (value === null || value === undefined) return 'null';
  if (value === true) return 'true';
  if (value === false) return 'false';
  if (typeof value === 'string') return jsonString(value);
  if (typeof value === 'number') return Number.isFinite(value) ? pyNumberText(value) : float(value, allowNan);
  if (typeof value === 'bigint') return value.toString();
  if (value instanceof PyFloat) return float(value.value, allowNan);
  if (value instanceof PyNumber) return pyNumberRepr(value);
  if (typeof value !== 'object') return 'null';
  if (open.has(value)) {
    throw new ValidationError('The value contains itself and cannot be written as JSON.', {
      code: 'python/circular-reference',
    });
  }
  open.add(value);
  try {
    if (Array.isArray(value)) return `[${value.map((v) => dumps(v, open, allowNan)).join(', ')}]`;
    const entries =
      value instanceof Map ? [...value.entries()] : Object.entries(value).filter(([, v]) => v !== undefined);
    return `{${entries.map(([k, v]) => `${jsonString(keyText(k, allowNan))}: ${dumps(v, open, allowNan)}`).join(', ')}}`;
  } finally {
    open.delete(value);
  }
}

/**
 * Python's `json.dumps(value)` with its defaults: `", "` and `": "`
 * separators, every non-ASCII character escaped (`\u00e9`, surrogate pairs
 * for astral ones), numbers spelled as Python spells them (`1e-07`, `2.0`
 * for a float {@link PyNumber}, an int `PyNumber` digit for digit). Like
 * `JSON.stringify`, members whose value is `undefined` are left out; a
 * `Map` is written as a dict, its keys turned into strings as Python does.
 * Non-finite numbers are written `null` unless `allowNan` is set (Python
 * writes `NaN`, which is not JSON).
 *
 * Throws `ValidationError` (`python/circular-reference`) for a value that
 * contains itself.
 *
 * @example
 * pyJsonDumps({ faultcode: 'Client', debuginfo: null }); // '{"faultcode": "Client", "debuginfo": null}'
 */
export function pyJsonDumps(value: unknown, options: PyJsonDumpsOptions = {}): string {
  return dumps(value, new Set(), options.allowNan === true);
}
