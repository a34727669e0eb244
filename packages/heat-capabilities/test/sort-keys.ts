// Key order is not part of a merged environment's meaning: Heat's Python
// dicts and our objects may list the same keys in different orders.

/** A copy of `v` with the keys of every object in it sorted, so that two values compare as JSON text. */
export function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v && typeof v === 'object')
    return Object.fromEntries(
      Object.keys(v)
        .sort()
        .map((k) => [k, sortKeys((v as Record<string, unknown>)[k])]),
    );
  return v;
}
