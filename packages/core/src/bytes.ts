/**
 * Joins byte arrays into one new array, in order. One part is returned as it
 * is (not copied); no parts give an empty array. Uses only web APIs, so it
 * runs wherever `Uint8Array` does.
 *
 * @example
 * concatBytes([new Uint8Array([1, 2]), new Uint8Array([3])]); // Uint8Array [1, 2, 3]
 */
export function concatBytes(parts: readonly Uint8Array[]): Uint8Array {
  if (parts.length === 1) return parts[0] as Uint8Array;
  let size = 0;
  for (const p of parts) size += p.byteLength;
  const out = new Uint8Array(size);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.byteLength;
  }
  return out;
}
