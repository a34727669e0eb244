import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PY_INT_INVALID_LITERALS } from '../../../../test-support/python-samples.js';
import { PY_INT_MAX_DIGITS, pyDecimalValue, pyInt } from './int.js';

const int = (text: string) => {
  const r = pyInt(text);
  return r.ok ? r.value : undefined;
};

describe('pyInt', () => {
  it.each([
    ['42', 42n],
    ['007', 7n],
    ['-0', 0n],
    [' +7 ', 7n],
    ['\t7\n', 7n],
    ['1_000', 1000n],
    ['0_7', 7n],
    ['\u0663\u0661', 31n],
    ['\uff11_\uff12', 12n],
    ['\u{1d7d9}', 1n],
    ['\u00a05\u3000', 5n],
    ['\u00855\u2028', 5n],
    ['-99999999999999999999', -99999999999999999999n],
  ])('reads %j as %s, like Python int()', (text, expected) => {
    expect(int(text)).toBe(expected);
  });

  it.each(PY_INT_INVALID_LITERALS)('refuses %j with the message Python gives', (text) => {
    const r = pyInt(text);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.message).toMatch(/^invalid literal for int\(\) with base 10: ['"]/);
  });

  it("quotes the text as repr() does, cut at 200 characters like CPython's %.200R", () => {
    expect(pyInt("it's")).toMatchObject({ message: `invalid literal for int() with base 10: "it's"` });
    const long = pyInt(`${'a'.repeat(300)}`);
    expect(!long.ok && long.message).toBe(`invalid literal for int() with base 10: '${'a'.repeat(199)}`);
    const escaped = pyInt(`${'a'.repeat(197)}\u0000`);
    expect(!escaped.ok && escaped.message.endsWith(`'${'a'.repeat(197)}\\x`)).toBe(true);
  });

  it('refuses more than 4,300 digits with its own message, before looking at what follows', () => {
    expect(int('9'.repeat(PY_INT_MAX_DIGITS))).toBe(BigInt('9'.repeat(4300)));
    const limit =
      'Exceeds the limit (4300 digits) for integer string conversion: value has 4301 digits; use sys.set_int_max_str_digits() to increase the limit';
    expect(pyInt('9'.repeat(4301))).toEqual({ ok: false, exception: 'ValueError', message: limit });
    expect(pyInt(`0${'0'.repeat(4300)}`)).toMatchObject({ message: limit });
    expect(pyInt(`-${'9'.repeat(4301)}x`)).toMatchObject({ message: limit });
    // Underscores are checked first, and do not count as digits.
    expect(pyInt(`${'9'.repeat(4301)}__`)).toMatchObject({ message: /^invalid literal/ });
    expect(int(`${'1_'.repeat(4299)}1`)).toBe(BigInt('1'.repeat(4300)));
  });

  it('never throws and agrees with BigInt on plain ASCII integers', () => {
    fc.assert(
      fc.property(fc.string(), (s) => {
        pyInt(s);
      }),
    );
    fc.assert(
      fc.property(fc.bigInt({ min: -(10n ** 40n), max: 10n ** 40n }), (n) => {
        expect(int(n.toString())).toBe(n);
      }),
    );
  });
});

describe('pyDecimalValue', () => {
  it('gives the value of decimal digits from any script, and -1 for other numerals', () => {
    expect(
      ['7', '\u0667', '\u{1d7d9}', '\u{1d7ff}', '\uff10'].map((c) =>
        pyDecimalValue(c.codePointAt(0) as number),
      ),
    ).toEqual([7, 7, 1, 9, 0]);
    expect(
      ['a', '\u00b2', '\u00bd', '\u1369'].map((c) => pyDecimalValue(c.codePointAt(0) as number)),
    ).toEqual([-1, -1, -1, -1]);
  });
});
