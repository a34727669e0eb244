import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PyFloat, pyEquals, pyFloatRepr, pyRepr, pyStr, pyTruthy, toPyValue } from './py-value.js';

describe('Python value rules', () => {
  it('renders values the way str() does', () => {
    expect(
      [1, new PyFloat(2), 2.5, true, false, null, 'x', ['a', 1], { a: 'b' }].map((v) => pyStr(v)),
    ).toEqual(['1', '2.0', '2.5', 'True', 'False', 'None', 'x', "['a', 1]", "{'a': 'b'}"]);
  });

  it('writes floats like Python repr, including exponents', () => {
    const cases: [number, string][] = [
      [1e16, '1e+16'],
      [1.5e-5, '1.5e-05'],
      [0.0001, '0.0001'],
      [123456.789, '123456.789'],
      [1e15, '1000000000000000.0'],
      [-0.5, '-0.5'],
      [0, '0.0'],
      [-0, '-0.0'],
      [Number.POSITIVE_INFINITY, 'inf'],
      [Number.NaN, 'nan'],
      [1.7976931348623157e308, '1.7976931348623157e+308'],
    ];
    for (const [x, text] of cases) expect(pyFloatRepr(x), String(x)).toBe(text);
  });

  it('quotes strings like repr', () => {
    expect(pyRepr("it's")).toBe(`"it's"`);
    expect(pyRepr('a\nb\\')).toBe(`'a\\nb\\\\'`);
    expect(pyRepr('\u0001')).toBe(`'\\x01'`);
  });

  it('compares like ==: numbers with booleans, never with strings', () => {
    expect(pyEquals(1, true)).toBe(true);
    expect(pyEquals(1, new PyFloat(1))).toBe(true);
    expect(pyEquals(1, '1')).toBe(false);
    expect(pyEquals(null, null)).toBe(true);
    expect(pyEquals(null, '')).toBe(false);
    expect(pyEquals(['a', 1], ['a', true])).toBe(true);
    expect(pyEquals({ a: 1 }, { a: 1 })).toBe(true);
    expect(pyEquals({ a: 1 }, { b: 1 })).toBe(false);
    expect(pyEquals(['a'], { 0: 'a' })).toBe(false);
  });

  it('decides truthiness like Python', () => {
    expect([0, '', null, false, [], {}, new PyFloat(0), undefined].map(pyTruthy)).toEqual(
      Array(8).fill(false),
    );
    expect([1, 'x', true, [0], { a: 1 }, new PyFloat(1)].map(pyTruthy)).toEqual(Array(6).fill(true));
  });

  it('round-trips any finite double through repr digits', () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (x) => {
        expect(Number(pyFloatRepr(x))).toBe(x);
      }),
    );
  });

  it('converts plain values', () => {
    expect(toPyValue(undefined)).toBe(null);
    expect(toPyValue({ a: [1, 'b'] })).toEqual({ a: [1, 'b'] });
    expect(toPyValue(10n)).toBe(10);
  });
});
