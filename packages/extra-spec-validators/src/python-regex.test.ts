import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compileFullMatch, PythonRegexError, translatePythonRegex } from './python-regex.js';
import { effectivePattern } from './value-check.js';

const full = (pattern: string, text: string) => compileFullMatch(pattern).test(text);

describe('compileFullMatch', () => {
  it('reads \\d, \\w and \\s the Unicode way Python does', () => {
    expect(full('\\d+', '\u0663\uff15')).toBe(true);
    expect(full('\\d', '\u00b2')).toBe(false);
    expect(full('\\w+', '\u00fcber_1')).toBe(true);
    expect(full('\\w', '\u0301')).toBe(false);
    expect(full('\\s', '\u001c')).toBe(true);
    expect(full('\\s', '\u0085')).toBe(true);
    expect(full('\\s', '\ufeff')).toBe(false);
    expect(full('\\S', 'a')).toBe(true);
    expect(full('\\D\\W', 'a!')).toBe(true);
  });

  it('lets . match everything but a newline', () => {
    expect(full('a.b', 'a\rb')).toBe(true);
    expect(full('a.b', 'a\u2028b')).toBe(true);
    expect(full('a.b', 'a\nb')).toBe(false);
    expect(full('[^:]+', 'a\nb')).toBe(true);
  });

  it('requires the whole string to match, trailing newline included', () => {
    expect(full('abc', 'abc\n')).toBe(false);
    expect(full('abc$', 'abc\n')).toBe(false);
    expect(full('a|ab', 'ab')).toBe(true);
  });

  it('treats braces that are not quantifiers as literals and reads {,n}', () => {
    expect(full('a{', 'a{')).toBe(true);
    expect(full('{x}', '{x}')).toBe(true);
    expect(full('a{,2}', 'aa')).toBe(true);
    expect(full('a{,2}', 'aaa')).toBe(false);
    expect(full('a{2}', 'aa')).toBe(true);
    expect(full('a{1,}?', 'aaa')).toBe(true);
  });

  it('supports named groups, back references, lookarounds, comments and anchors', () => {
    expect(full('(?P<x>a)(?P=x)', 'aa')).toBe(true);
    expect(full('(a)\\1', 'aa')).toBe(true);
    expect(full('(?=a)a(?!b)', 'a')).toBe(true);
    expect(full('(?<=a)', '')).toBe(false);
    expect(full('a(?#note)b', 'ab')).toBe(true);
    expect(full('\\Aab\\Z', 'ab')).toBe(true);
    expect(full('\\bab\\b', 'ab')).toBe(true);
    expect(full('a\\Bb', 'ab')).toBe(true);
  });

  it('handles character classes with a leading ], escapes and dashes', () => {
    expect(full('[]a]+', ']a')).toBe(true);
    expect(full('[^]a]', 'b')).toBe(true);
    expect(full('[a-zA-Z0-9_-]+', 'a-_Z')).toBe(true);
    expect(full('[\\d.]+', '\u06631.2')).toBe(true);
    expect(full('[\\s]', '\u3000')).toBe(true);
    expect(full('[\\x41-\\x43]+', 'ABC')).toBe(true);
    expect(full('[\\n\\t\\b]', '\b')).toBe(true);
    expect(full('\\x41\\u0042\\U00000043', 'ABC')).toBe(true);
    expect(full('\\^\\-\\:', '^-:')).toBe(true);
  });

  it.each([
    ['(?i)a', 'unsupported group'],
    ['(?>a)', 'unsupported group'],
    ['a++', 'possessive'],
    ['a**', 'multiple repeat'],
    ['*a', 'nothing to repeat'],
    ['\\N{DIGIT ONE}', 'unsupported escape'],
    ['(a', 'missing )'],
    ['a)', 'unbalanced'],
    ['[a', 'unterminated'],
    ['a\\', 'bad escape'],
    ['[\\W]', 'not supported'],
    ['a{3,1}', 'min repeat'],
    ['\\x4', 'incomplete escape'],
    ['(?P<1>a)', 'bad group name'],
  ])('refuses %j (%s)', (pattern, reason) => {
    expect(() => translatePythonRegex(pattern)).toThrow(PythonRegexError);
    expect(() => translatePythonRegex(pattern)).toThrow(reason);
  });

  it('never throws anything but PythonRegexError', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 12 }), (s) => {
        try {
          compileFullMatch(s);
        } catch (e) {
          expect(e).toBeInstanceOf(PythonRegexError);
        }
      }),
    );
  });
});

describe("linear-time rewrites of Nova's patterns", () => {
  const cases = [
    ['([a-zA-Z0-9_]+(,)?)+', 'ab,_1'],
    ['\\^?\\d+((-\\d+)?(,\\^?\\d+(-\\d+)?)?)*', '0123-,^'],
    ['(\\^)?\\d+((-\\d+)?(,\\^?\\d+(-\\d+)?)?)*', '01-,^'],
    ['\\^\\d+((-\\d+)?(,\\^?\\d+(-\\d+)?)?)*', '01-,^'],
  ] as const;

  it.each(cases)('accepts exactly what %s accepts', (pattern, alphabet) => {
    expect(effectivePattern(pattern)).not.toBe(pattern);
    const original = compileFullMatch(pattern);
    const rewrite = compileFullMatch(effectivePattern(pattern));
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...alphabet), { maxLength: 12 }), (chars) => {
        const s = chars.join('');
        expect(rewrite.test(s)).toBe(original.test(s));
      }),
      { numRuns: 3000 },
    );
  });

  it('answers quickly where the original pattern backtracks exponentially', () => {
    const rewrite = compileFullMatch(effectivePattern('([a-zA-Z0-9_]+(,)?)+'));
    expect(rewrite.test(`${'a'.repeat(50_000)}!`)).toBe(false);
    const cpu = compileFullMatch(effectivePattern('\\^?\\d+((-\\d+)?(,\\^?\\d+(-\\d+)?)?)*'));
    expect(cpu.test(`${'1-'.repeat(20_000)}x`)).toBe(false);
  });
});
