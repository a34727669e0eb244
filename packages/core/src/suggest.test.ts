import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { defaultMaxDistance, didYouMean, editDistance, suggest } from './suggest.js';

describe('editDistance', () => {
  it.each([
    ['', '', 0],
    ['abc', '', 3],
    ['', 'ab', 2],
    ['kitten', 'sitting', 3],
    ['hw:cpu_polcy', 'hw:cpu_policy', 1],
    ['ab', 'ba', 1],
    ['dedicatde', 'dedicated', 1],
  ])('between %j and %j is %d', (a, b, d) => {
    expect(editDistance(a, b)).toBe(d);
  });

  it('stops early beyond the limit', () => {
    expect(editDistance('aaaaaaaa', 'bbbbbbbb', 2)).toBe(3);
    expect(editDistance('a', 'abcdef', 2)).toBe(3);
  });

  it('is symmetric and zero only for equal strings', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 12 }), fc.string({ maxLength: 12 }), (a, b) => {
        expect(editDistance(a, b)).toBe(editDistance(b, a));
        expect(editDistance(a, b) === 0).toBe(a === b);
        expect(editDistance(a, b)).toBeLessThanOrEqual(Math.max(a.length, b.length));
      }),
    );
  });
});

describe('suggest', () => {
  const names = ['hw:cpu_policy', 'hw:cpu_thread_policy', 'hw:numa_nodes', 'hw:mem_page_size'];

  it('finds the closest names first', () => {
    expect(suggest('hw:cpu_polcy', names)).toEqual(['hw:cpu_policy']);
    expect(suggest('hw:cpu_thread_polcy', names)[0]).toBe('hw:cpu_thread_policy');
  });

  it('always offers a case-insensitive match', () => {
    expect(suggest('HW:CPU_POLICY', names)).toEqual(['hw:cpu_policy']);
  });

  it('offers nothing when nothing is close', () => {
    expect(suggest('quota:cpu_shares', names)).toEqual([]);
  });

  it('never suggests the input itself and respects the limit', () => {
    expect(suggest('aa', ['aa', 'ab', 'ac', 'ad', 'ae'], { limit: 2 })).toEqual(['ab', 'ac']);
  });

  it('scales the distance budget with the input length', () => {
    expect(defaultMaxDistance('ab')).toBe(1);
    expect(defaultMaxDistance('hw:cpu_policy')).toBe(3);
    expect(defaultMaxDistance('x'.repeat(100))).toBe(4);
  });
});

describe('didYouMean', () => {
  it('phrases zero, one and several suggestions', () => {
    expect(didYouMean([])).toBeUndefined();
    expect(didYouMean(['a'])).toBe('Did you mean a?');
    expect(didYouMean(['a', 'b', 'c'])).toBe('Did you mean a, b or c?');
  });
});
