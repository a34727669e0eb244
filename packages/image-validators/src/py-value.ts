// Sahara keeps spec values as Python objects. The Python rules themselves
// (repr, str, ==, truthiness, integral floats) live in @stackspec/core; these
// two helpers convert between them and the plain values callers hand in and
// reports give back.
import { PyFloat, type PyMapping, type PyValue } from '@stackspec/core';

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
