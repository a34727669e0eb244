import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isStackspecError } from './errors.js';
import {
  compilePythonRegex,
  PythonRegexError,
  translatePythonRegex,
  translatePythonRegexPortable,
} from './python-regex.js';

const full = (pattern: string, text: string) => compilePythonRegex(pattern, 'fullmatch').test(text);

describe('compilePythonRegex in fullmatch mode', () => {
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

  it('throws a core spec error that says where the pattern breaks', () => {
    try {
      compilePythonRegex('ab(?i)c');
      expect.unreachable();
    } catch (e) {
      expect(isStackspecError(e) && e.kind).toBe('spec');
      expect((e as PythonRegexError).code).toBe('python/bad-regex');
      expect((e as PythonRegexError).index).toBe(2);
    }
  });

  it('refuses a pattern that is not a string with a PythonRegexError', () => {
    expect(() => translatePythonRegex(42 as unknown as string)).toThrow('the pattern is not a string');
  });

  it('never throws anything but PythonRegexError', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 12 }), (s) => {
        try {
          compilePythonRegex(s, 'fullmatch');
        } catch (e) {
          expect(e).toBeInstanceOf(PythonRegexError);
        }
      }),
    );
  });
});

describe('compilePythonRegex in search and match modes', () => {
  it('finds a match anywhere, and lets $ match before a final newline as re.search does', () => {
    const path = compilePythonRegex('^(/[\\w-]+)+$');
    expect(path.test('/steps/0')).toBe(true);
    expect(path.test('/steps\n')).toBe(true);
    expect(path.test('/steps\n\n')).toBe(false);
    expect(path.test('/a\u0301')).toBe(false);
    expect(path.test('/\u00b2\u2160')).toBe(true);
    expect(compilePythonRegex('b').test('abc')).toBe(true);
  });

  it('anchors at the start only in match mode', () => {
    expect(compilePythonRegex('b', 'match').test('abc')).toBe(false);
    expect(compilePythonRegex('a', 'match').test('abc')).toBe(true);
    expect(compilePythonRegex('a|b', 'fullmatch').test('ab')).toBe(false);
  });

  it('reports a translation the JavaScript engine rejects as a PythonRegexError', () => {
    expect(() => compilePythonRegex('(?P<a>x)(?P<a>y)')).toThrow(PythonRegexError);
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
            exact = compilePythonRegex(pattern, 'fullmatch');
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
