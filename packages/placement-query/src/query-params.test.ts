import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { QueryParams } from './query-params.js';

describe('QueryParams', () => {
  it('reads a query string the way webob does: + is a space, blanks kept, a leading ? ignored', () => {
    const q = QueryParams.from('?a=1&b=x+y&a=2&c=&d');
    expect(q.pairs).toEqual([
      ['a', '1'],
      ['b', 'x y'],
      ['a', '2'],
      ['c', ''],
      ['d', ''],
    ]);
    expect(q.getAll('a')).toEqual(['1', '2']);
    expect(q.first('a')).toBe('1');
    expect(q.last('a')).toBe('2');
    expect(q.has('c')).toBe(true);
    expect(q.has('z')).toBe(false);
    expect(q.last('z')).toBeUndefined();
    expect(q.first('z')).toBeUndefined();
    expect(q.getAll('z')).toEqual([]);
    expect(q.keys()).toEqual(['a', 'b', 'c', 'd']);
  });

  it('takes URLSearchParams, pairs, records (arrays, undefined skipped) and itself', () => {
    const fromSearch = QueryParams.from(new URLSearchParams('x=1&x=2'));
    expect(fromSearch.getAll('x')).toEqual(['1', '2']);
    expect(QueryParams.from([['k', 'v']]).last('k')).toBe('v');
    const fromRecord = QueryParams.from({ a: 'x', b: ['1', '2'], c: undefined });
    expect(fromRecord.pairs).toEqual([
      ['a', 'x'],
      ['b', '1'],
      ['b', '2'],
    ]);
    expect(QueryParams.from(fromRecord)).toBe(fromRecord);
    expect(QueryParams.from('').pairs).toEqual([]);
  });

  it('decodes malformed percent escapes without throwing (property)', () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        const q = QueryParams.from(text);
        for (const k of q.keys()) expect(q.getAll(k).length).toBeGreaterThan(0);
      }),
    );
    expect(QueryParams.from('a=%ZZ&b=%E0%A4%A').pairs).toEqual([
      ['a', '%ZZ'],
      ['b', '\uFFFD%A'],
    ]);
  });
});
