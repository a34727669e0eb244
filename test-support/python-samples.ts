// Texts that Python's own parsing refuses, shared by the suites that mimic
// it: core's unit tests of its int() and the extra spec corpus that Nova
// and this project both judge.

/**
 * Texts Python's `int()` refuses in base 10 with `invalid literal for int()`
 * (none is over the 4,300 digit limit): signs and underscores out of place,
 * other number syntaxes, inner spaces and separators, numerals that are not
 * decimal digits, and characters around the digits that `int()` does not
 * skip as white space (though `str.strip()` removes some of them).
 */
export const PY_INT_INVALID_LITERALS: readonly string[] = [
  '',
  ' ',
  '+',
  '- 1',
  '1__0',
  '_1',
  '1_',
  '+_1',
  '1.5',
  '2.0',
  '2.',
  '.5',
  '1e3',
  '0x10',
  '0o7',
  '0b1',
  '1 2',
  '1 000',
  '1,000',
  'cow',
  'abc',
  'true',
  '\u00b2',
  '\u00bd',
  '\u216b',
  '\u1369',
  '1\u0301',
  '\ufeff5',
  '\u200b5',
  '\u001c5',
  '5\u001f',
  '1\u0000',
];
