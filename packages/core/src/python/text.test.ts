import { describe, expect, it } from 'vitest';
import { PY_WHITESPACE } from '../python-regex.js';
import { isPySpaceCode, pyLstrip, pyRstrip, pySortedSet, pyStrip } from './text.js';

describe('strip with chars', () => {
  it('strips every leading or trailing character from a set, by code point', () => {
    expect(pyLstrip('!!!A', '!')).toBe('A');
    expect(pyLstrip('A!', '!')).toBe('A!');
    expect(pyRstrip('A!!', '!')).toBe('A');
    expect(pyStrip('xyAyx', 'xy')).toBe('A');
    expect(pyStrip('\u{1f600}a\u{1f600}', '\u{1f600}')).toBe('a');
    // Half of a surrogate pair is not the character.
    expect(pyStrip('\u{1f600}a', '\ud83d')).toBe('\u{1f600}a');
    expect(pyStrip('  a  ', '')).toBe('  a  ');
    expect(pyLstrip(' \x85a ')).toBe('a ');
    expect(pyRstrip(' a\u3000')).toBe(' a');
  });
});

describe('whitespace', () => {
  it("is the same set as core's PY_WHITESPACE regex class", () => {
    const re = new RegExp(`^[${PY_WHITESPACE}]$`);
    for (let c = 0; c <= 0xffff; c += 1) {
      if (isPySpaceCode(c) !== re.test(String.fromCharCode(c))) expect.fail(`U+${c.toString(16)}`);
    }
  });
});

describe('pySortedSet', () => {
  it('sorts a set by code point', () => {
    expect(pySortedSet(['b', 'a', '\u{1F600}', '\uffff', 'a'])).toEqual(['a', 'b', '\uffff', '\u{1F600}']);
  });
});
