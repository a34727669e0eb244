import { describe, expect, it } from 'vitest';
import { PyNumber } from './number.js';
import { pyRepr, pyReprPrefix } from './repr.js';

describe('pyRepr of strings', () => {
  it('quotes as repr() does: single quotes unless the text has one and no double quote', () => {
    expect(pyRepr('abc')).toBe("'abc'");
    expect(pyRepr("a'b")).toBe('"a\'b"');
    expect(pyRepr('a\'b"c')).toBe("'a\\'b\"c'");
    expect(pyRepr('a\nb\\')).toBe("'a\\nb\\\\'");
    expect(pyRepr('\x00\u200b\xa0é')).toBe("'\\x00\\u200b\\xa0é'");
    expect(pyRepr(['', '1'])).toBe("['', '1']");
  });

  it('prints PyNumbers as Python prints ints and floats', () => {
    expect(pyRepr([new PyNumber('1e3', true), new PyNumber('-0', false), new PyNumber('NaN', true)])).toBe(
      '[1000.0, 0, nan]',
    );
  });

  it('prints a Map as a dict with keys of any type', () => {
    expect(
      pyRepr(
        new Map<unknown, unknown>([
          [1, 'a'],
          [null, true],
        ]),
      ),
    ).toBe("{1: 'a', None: True}");
  });
});

describe('pyReprPrefix', () => {
  it('gives the first characters of repr(), never cutting inside the count', () => {
    expect(pyReprPrefix('abc', 200)).toBe("'abc'");
    expect(pyReprPrefix('abc', 3)).toBe("'ab");
    expect(pyReprPrefix('abc', 4)).toBe("'abc");
    expect(pyReprPrefix('abc', 5)).toBe("'abc'");
    expect(pyReprPrefix('a\u0000', 4)).toBe("'a\\x");
    expect(pyReprPrefix("it's", 3)).toBe('"it');
    expect(pyReprPrefix('\u{1f600}\u{1f600}', 3)).toBe("'\u{1f600}\u{1f600}");
  });
});
