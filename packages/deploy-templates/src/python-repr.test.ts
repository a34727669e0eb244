import { describe, expect, it } from 'vitest';
import { pyRepr, pyStr } from './python-repr.js';

describe('pyRepr', () => {
  it.each([
    [null, 'None'],
    [true, 'True'],
    [42, '42'],
    [1.5, '1.5'],
    [1e16, '10000000000000000'],
    [1e-5, '1e-05'],
    [1.5e300, '1.5e+300'],
    ['a', "'a'"],
    ["it's", '"it\'s"'],
    ['a\'b"c', "'a\\'b\"c'"],
    ['tab\there\n', "'tab\\there\\n'"],
    ['\u0001é', "'\\x01é'"],
    [[1, 'x', { a: null }], "[1, 'x', {'a': None}]"],
  ])('prints %j as Python would', (value, text) => {
    expect(pyRepr(value)).toBe(text);
  });

  it('leaves strings bare in pyStr', () => {
    expect(pyStr('abc')).toBe('abc');
    expect(pyStr(['abc'])).toBe("['abc']");
  });
});
