import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { boundedEditDistance, defaultMaxDistance, didYouMean, editDistance, suggest } from './suggest.js';

/** The textbook optimal-string-alignment table, filled completely: what the fast paths must agree with. */
function referenceDistance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= a.length; i += 1) {
    for (let j = 1; j <= b.length; j += 1) {
      const row = d[i] as number[];
      const up = d[i - 1] as number[];
      let v = Math.min(
        (up[j] as number) + 1,
        (row[j - 1] as number) + 1,
        (up[j - 1] as number) + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        v = Math.min(v, ((d[i - 2] as number[])[j - 2] as number) + 1);
      row[j] = v;
    }
  }
  return (d[a.length] as number[])[b.length] as number;
}

/** Words over a small alphabet, so that random pairs are often close. */
const word = fc.string({ unit: fc.constantFrom('a', 'b', 'c', 'A', ':', '_'), maxLength: 14 });

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

describe('boundedEditDistance', () => {
  it('is the distance when within the limit, else limit + 1', () => {
    fc.assert(
      fc.property(word, word, fc.integer({ min: 0, max: 6 }), (a, b, limit) => {
        const d = referenceDistance(a, b);
        expect(boundedEditDistance(a, b, limit)).toBe(d <= limit ? d : limit + 1);
        expect(editDistance(a, b)).toBe(d);
        if (d <= limit) expect(editDistance(a, b, limit)).toBe(d);
        else expect(editDistance(a, b, limit)).toBeGreaterThan(limit);
      }),
      { numRuns: 2000 },
    );
  });

  it('compares only the first `length` characters of the first string when asked', () => {
    fc.assert(
      fc.property(word, word, fc.nat(14), (a, b, cut) => {
        const length = Math.min(cut, a.length);
        const d = referenceDistance(a.slice(0, length), b);
        expect(boundedEditDistance(a, b, 3, length)).toBe(d <= 3 ? d : 4);
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

  it('lists what a full comparison with every candidate lists', () => {
    fc.assert(
      fc.property(
        word,
        fc.array(word, { maxLength: 12 }),
        fc.integer({ min: 1, max: 4 }),
        (input, candidates, limit) => {
          const max = defaultMaxDistance(input);
          const scored = candidates
            .map((name, order) => ({
              name,
              order,
              distance: name.toLowerCase() === input.toLowerCase() ? 0 : referenceDistance(input, name),
            }))
            .filter((c) => c.name !== input && c.distance <= max)
            .sort((x, y) => x.distance - y.distance || x.order - y.order);
          const expected = [...new Set(scored.map((c) => c.name))].slice(0, limit);
          expect(suggest(input, candidates, { limit })).toEqual(expected);
        },
      ),
      { numRuns: 1000 },
    );
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
