import { describe, expect, it } from 'vitest';
import { isPyFloat, PyFloat, PyNumber, pyNumericValue } from './number.js';

describe('PyNumber', () => {
  it.each([
    ['2.0', '2.0'],
    ['1e3', '1000.0'],
    ['-0.0', '-0.0'],
    ['1.5e300', '1.5e+300'],
    ['0.0001', '0.0001'],
    ['0.00001', '1e-05'],
    ['1e16', '1e+16'],
    ['123.456', '123.456'],
    ['1E-7', '1e-07'],
    ['9007199254740993.0', '9007199254740992.0'],
    ['1e400', 'inf'],
    ['-1e400', '-inf'],
    ['NaN', 'nan'],
    ['-Infinity', '-inf'],
    ['inf', 'inf'],
  ])('prints the float %s as Python prints it: %s', (text, expected) => {
    expect(new PyNumber(text, true).toString()).toBe(expected);
  });

  it('prints an int in canonical form, however long', () => {
    expect(new PyNumber('-0', false).toString()).toBe('0');
    expect(new PyNumber('12345678901234567890', false).toString()).toBe('12345678901234567890');
    expect(new PyNumber('007', false).toString()).toBe('7');
    expect(new PyNumber('1_000', false).toString()).toBe('1000');
  });

  it('is one type: every float PyNumber is a PyFloat and every PyFloat a PyNumber', () => {
    const f = new PyFloat(2);
    expect(f).toBeInstanceOf(PyNumber);
    expect(f.text).toBe('2.0');
    expect(f).toEqual(new PyNumber('2.00', true));
    expect(new PyNumber('2', true)).toBeInstanceOf(PyFloat);
    expect(new PyNumber('2', false)).not.toBeInstanceOf(PyFloat);
    expect(isPyFloat(new PyNumber('2', false))).toBe(false);
    expect(Object.keys(f)).toEqual(['value', 'isFloat']);
    expect(new PyFloat(Number.NEGATIVE_INFINITY).value).toBe(Number.NEGATIVE_INFINITY);
  });

  it('compares big ints exactly', () => {
    expect(pyNumericValue(new PyNumber('12345678901234567891', false))).toBe(12345678901234567891n);
    expect(pyNumericValue(new PyNumber('12', false))).toBe(12);
    expect(pyNumericValue(true)).toBe(1);
    expect(pyNumericValue('1')).toBeUndefined();
  });
});
