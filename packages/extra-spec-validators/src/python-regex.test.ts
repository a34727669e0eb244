import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  compileFullMatch,
  PythonRegexError,
  translatePythonRegex,
  translatePythonRegexPortable,
} from './python-regex.js';
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

describe('translatePythonRegexPortable', () => {
  const portable = (pattern: string, flags: string) =>
    new RegExp(`^(?:${translatePythonRegexPortable(pattern)})$(?!\\n)`, flags);

  it('writes no Unicode property escapes, code point escapes or named groups', () => {
    const out = translatePythonRegexPortable('(?P<n>\\d+)\\s\\w.[^a\\d]\\U0001F600\\u00e9$');
    expect(out).not.toMatch(/\\[pP]\{|\\u\{|\(\?</);
    expect(() => new RegExp(out)).not.toThrow();
    expect(() => new RegExp(out, 'u')).not.toThrow();
  });

  it('keeps a supplementary character whole, with or without the u flag', () => {
    for (const flags of ['', 'u']) {
      expect(portable('\\U0001F600+', flags).test('\u{1f600}\u{1f600}')).toBe(true);
      expect(portable('a.b', flags).test('a\u{1f600}b')).toBe(true);
      expect(portable('[^:]', flags).test('\u{1f600}')).toBe(true);
      expect(portable('\\d', flags).test('\u{1d7d3}')).toBe(true);
      expect(portable('abc$', flags).test('abc\n')).toBe(false);
    }
  });

  it.each([
    ['\\bx', '\\b'],
    ['\\W', '\\W'],
    ['[\\S]', 'not supported'],
    ['(?P<a>x)(?P=a)', '(?P=a)'],
    ['[\\U0001F600]', 'cannot be written'],
    ['[\u{1f600}]', 'in a class'],
  ])('refuses %j, which has no portable form', (pattern, reason) => {
    expect(() => translatePythonRegexPortable(pattern)).toThrow(PythonRegexError);
    expect(() => translatePythonRegexPortable(pattern)).toThrow(reason);
  });

  it('matches exactly what the Unicode translation matches on BMP text, in both modes', () => {
    const atoms = [
      'a',
      'b',
      '\\d',
      '\\s',
      '\\S',
      '.',
      '[a-c]',
      '[^b]',
      '[\\d_]',
      '\\D',
      '$',
      '\\Z',
      '\\u00e9',
      '(?:ab|\\d)',
    ];
    const quantifiers = ['', '*', '+', '?', '{1,2}'];
    const text = fc.array(
      fc.constantFrom('a', 'b', 'c', '1', '\u0663', '\u00b2', ' ', '\n', '\u0085', '\u00e9', '_'),
      {
        maxLength: 6,
      },
    );
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.constantFrom(...atoms), fc.constantFrom(...quantifiers)), {
          minLength: 1,
          maxLength: 4,
        }),
        fc.array(text, { minLength: 1, maxLength: 8 }),
        (parts, samples) => {
          const pattern = parts.map(([a, q]) => (a === '$' || a === '\\Z' ? a : a + q)).join('');
          let exact: RegExp;
          try {
            exact = compileFullMatch(pattern);
          } catch {
            return;
          }
          for (const flags of ['', 'u']) {
            const loose = portable(pattern, flags);
            for (const chars of samples) {
              const s = chars.join('');
              expect(loose.test(s), `${pattern} /${flags} on ${JSON.stringify(s)}`).toBe(exact.test(s));
            }
          }
        },
      ),
      { numRuns: 500 },
    );
  });
});

describe("linear-time rewrites of Nova's patterns", () => {
  const cases = [
    ['([a-zA-Z0-9_]+(,)?)+', 'ab,_1'],
    ['\\^?\\d+((-\\d+)?(,\\^?\\d+(-\\d+)?)?)*', '0123-,^'],
    ['(\\^)?\\d+((-\\d+)?(,\\^?\\d+(-\\d+)?)?)*', '01-,^'],
    ['\\^\\d+((-\\d+)?(,\\^?\\d+(-\\d+)?)?)*', '01-,^'],
    ['[^:]+:\\d+(?:\\s*,\\s*[^:]+:\\d+)*', 'a1:, \t\u00a0'],
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
    const pci = compileFullMatch(effectivePattern('[^:]+:\\d+(?:\\s*,\\s*[^:]+:\\d+)*'));
    expect(pci.test(`a:1,${' '.repeat(60_000)}`)).toBe(false);
  });
});
