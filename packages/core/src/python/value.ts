// Python values as stackspec models them, and the two questions services
// ask of them everywhere: `==` and truthiness.
import { PyNumber, pyNumericValue } from './number.js';

/**
 * A Python value as stackspec models it: `str`, `int` (an integral number),
 * `float` (a non-integral number), a {@link PyNumber} (an int or float that
 * keeps its text, such as an integral float `2.0`), `bool`, `None`
 * (`null`), and lists and dicts of those.
 */
export type PyValue = string | number | boolean | null | PyNumber | readonly PyValue[] | PyMapping;

/** A Python `dict` with string keys. */
export interface PyMapping {
  readonly [key: string]: PyValue;
}

/**
 * Python's `==` between two values: ints, floats and booleans compare by
 * value (`1 == 1.0 == True`, big ints exactly), strings only with strings,
 * `None` only with `None`, lists item by item and dicts by their keys and
 * values, whatever the key order (a `Map` is a dict too).
 */
export function pyEquals(a: unknown, b: unknown): boolean {
  const na = pyNumericValue(a);
  const nb = pyNumericValue(b);
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
  if (a instanceof Map || b instanceof Map) return sameDict(dictEntries(a), dictEntries(b));
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  return ka.every(
    (k) =>
      Object.hasOwn(b, k) && pyEquals((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]),
  );
}

function dictEntries(value: object): [unknown, unknown][] {
  return value instanceof Map ? [...value.entries()] : Object.entries(value);
}

// A dict given as a Map may have keys of any type, which compare with == (1, 1.0 and True are one key).
function sameDict(a: [unknown, unknown][], b: [unknown, unknown][]): boolean {
  if (a.length !== b.length) return false;
  return a.every(([k, v]) => {
    const match = b.find(([kb]) => pyEquals(k, kb));
    return match !== undefined && pyEquals(v, match[1]);
  });
}

/** Python's truthiness: `None`, `False`, zero, `''` and empty containers are false (`undefined` too). */
export function pyTruthy(value: unknown): boolean {
  if (value === undefined || value === null || value === false) return false;
  if (value === true) return true;
  if (typeof value === 'string') return value.length > 0;
  if (typeof value === 'number') return value !== 0;
  if (typeof value === 'bigint') return value !== 0n;
  if (value instanceof PyNumber) return value.value !== 0;
  if (Array.isArray(value)) return value.length > 0;
  if (value instanceof Map) return value.size > 0;
  if (typeof value === 'object') return Object.keys(value).length > 0;
  return true;
}
