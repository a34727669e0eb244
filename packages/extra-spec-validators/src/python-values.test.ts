import { isPySpace, pyStrip } from '@stackspec/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BOOL_FALSE_VALUES, BOOL_REFUSED_VALUES, BOOL_TRUE_VALUES } from '../test/corpus.js';
import { parsePythonBool, parsePythonInt, validatePythonBool, validatePythonInt } from './python-values.js';

const int = (s: string) => {
  const r = validatePythonInt(s).value;
  return r ? `${r.negative ? '-' : ''}${r.digits}` : undefined;
};

// Python's int() itself is core's pyInt, proven against CPython in core; this
// checks only how the wrapper hands its verdict on.
describe('validatePythonInt and parsePythonInt', () => {
  it.each([
    ['42', '42'],
    [' -007 ', '-7'],
    ['\u0663\u0661', '31'],
    ['1_000', '1000'],
  ])('reads %j as %s, like Python int()', (text, expected) => {
    expect(int(text)).toBe(expected);
  });

  it.each(['', '2.0', '0x10', '1__0', '\u001c5', '9'.repeat(4301)])(
    'refuses %j, like Python int()',
    (text) => {
      const r = validatePythonInt(text);
      expect(r.ok).toBe(false);
      expect(r.diagnostics).toEqual([
        expect.objectContaining({
          code: 'extra-specs/invalid-integer',
          message: expect.stringMatching(/int\(\)|digits/),
        }),
      ]);
      expect(() => parsePythonInt(text)).toThrow(
        expect.objectContaining({ code: 'extra-specs/invalid-integer' }),
      );
    },
  );

  it('never throws and agrees with BigInt on plain ASCII integers', () => {
    fc.assert(
      fc.property(fc.string(), (s) => {
        validatePythonInt(s);
      }),
    );
    expect(parsePythonInt(' -0_7 ')).toEqual({ negative: true, digits: '7' });
    fc.assert(
      fc.property(fc.bigInt({ min: -(10n ** 40n), max: 10n ** 40n }), (n) => {
        expect(int(n.toString())).toBe(n.toString());
      }),
    );
  });
});

describe('validatePythonBool and parsePythonBool', () => {
  // The labels are the conformance corpus's, whose values Nova itself judges there.
  it.each([
    ...BOOL_TRUE_VALUES.map((text) => [text, true] as const),
    ...BOOL_FALSE_VALUES.map((text) => [text, false] as const),
  ])('reads %j as %s', (text, expected) => {
    expect(parsePythonBool(text)).toBe(expected);
    expect(validatePythonBool(text)).toEqual({ ok: true, value: expected, diagnostics: [] });
  });

  it.each(BOOL_REFUSED_VALUES)('refuses %j, listing the words oslo accepts', (text) => {
    const r = validatePythonBool(text);
    expect(r.ok).toBe(false);
    expect(r.diagnostics[0]).toMatchObject({
      code: 'extra-specs/invalid-boolean',
      message: expect.stringContaining(
        "'0', '1', 'f', 'false', 'n', 'no', 'off', 'on', 't', 'true', 'y', 'yes'",
      ),
    });
    expect(() => parsePythonBool(text)).toThrow(
      expect.objectContaining({ code: 'extra-specs/invalid-boolean' }),
    );
  });
});

// The trimming validatePythonBool and Nova's number checks rely on is core's pyStrip.
describe('pyStrip', () => {
  it('trims what Python str.strip() trims and nothing else', () => {
    expect(pyStrip('\u001c\u0085 a \u3000')).toBe('a');
    expect(pyStrip('\ufeffa\u200b')).toBe('\ufeffa\u200b');
    expect(pyStrip('abc')).toBe('abc');
    expect(isPySpace('\u2028')).toBe(true);
    expect(isPySpace('\ufeff')).toBe(false);
    expect(isPySpace('')).toBe(false);
  });
});
