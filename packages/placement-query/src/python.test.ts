import { pyRepr, pyStrip } from '@stackspec/core';
import { describe, expect, it } from 'vitest';
import { pyInt, pyLstrip, pySortedSet } from './python.js';

// pyStrip and pyRepr come from core; the cases Placement's parsing relies on stay here.
describe('python helpers', () => {
  it('strips the whitespace Python strips, not a BOM', () => {
    expect(pyStrip('\x1c a \x85')).toBe('a');
    expect(pyStrip('\ufeffa')).toBe('\ufeffa');
    expect(pyStrip('   ')).toBe('');
  });

  it('strips every leading character from a set', () => {
    expect(pyLstrip('!!!A', '!')).toBe('A');
    expect(pyLstrip('A!', '!')).toBe('A!');
  });

  it('reads integers the way int() does', () => {
    expect(pyInt('42')).toBe(42n);
    expect(pyInt(' +7 ')).toBe(7n);
    expect(pyInt('-0')).toBe(0n);
    expect(pyInt('1_000')).toBe(1000n);
    expect(pyInt('\u0663')).toBe(3n);
    expect(pyInt('\u{1D7D9}')).toBe(1n);
    expect(pyInt('99999999999999999999')).toBe(99999999999999999999n);
  });

  it('rejects what int() rejects', () => {
    for (const bad of ['', ' ', '+', '1.5', '1__0', '_1', '1_', '0x10', 'cow', '1 2']) {
      expect(pyInt(bad), bad).toBeUndefined();
    }
  });

  it('quotes strings like repr()', () => {
    expect(pyRepr('abc')).toBe("'abc'");
    expect(pyRepr("a'b")).toBe('"a\'b"');
    expect(pyRepr('a\'b"c')).toBe("'a\\'b\"c'");
    expect(pyRepr('a\nb\\')).toBe("'a\\nb\\\\'");
    expect(pyRepr('\x00\u200b\xa0é')).toBe("'\\x00\\u200b\\xa0é'");
    expect(pyRepr(['', '1'])).toBe("['', '1']");
  });

  it('sorts a set by code point', () => {
    expect(pySortedSet(['b', 'a', '\u{1F600}', '\uffff', 'a'])).toEqual(['a', 'b', '\uffff', '\u{1F600}']);
  });
});
