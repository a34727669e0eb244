import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { concatBytes } from './bytes.js';

describe('concatBytes', () => {
  it('joins the parts in order', () => {
    expect([...concatBytes([new Uint8Array([1, 2]), new Uint8Array(0), new Uint8Array([3])])]).toEqual([
      1, 2, 3,
    ]);
  });

  it('gives an empty array for no parts and the part itself for one', () => {
    expect(concatBytes([]).byteLength).toBe(0);
    const one = new Uint8Array([7]);
    expect(concatBytes([one])).toBe(one);
  });

  it('reads views into larger buffers by their own window', () => {
    const buffer = new Uint8Array([9, 1, 2, 9]);
    expect([...concatBytes([buffer.subarray(1, 3), buffer.subarray(0, 1)])]).toEqual([1, 2, 9]);
  });

  it('matches joining the arrays as lists', () => {
    fc.assert(
      fc.property(fc.array(fc.uint8Array({ maxLength: 20 }), { maxLength: 6 }), (parts) => {
        expect([...concatBytes(parts)]).toEqual(parts.flatMap((p) => [...p]));
      }),
    );
  });
});
