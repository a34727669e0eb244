import { PyFloat } from '@stackspec/core';
import { describe, expect, it } from 'vitest';
import { fromPyValue, toPyValue } from './py-value.js';

describe('Python value conversion', () => {
  it('converts plain values, with undefined as None and big ints as numbers', () => {
    expect(toPyValue(undefined)).toBe(null);
    expect(toPyValue({ a: [1, 'b'] })).toEqual({ a: [1, 'b'] });
    expect(toPyValue(10n)).toBe(10);
    expect(toPyValue(Symbol.for('x'))).toBe('Symbol(x)');
    const f = new PyFloat(2);
    expect(toPyValue([f])).toEqual([f]);
  });

  it('turns integral floats back into plain numbers for reports', () => {
    expect(fromPyValue({ a: [new PyFloat(2), 'x', null] })).toEqual({ a: [2, 'x', null] });
    expect(fromPyValue(1.5)).toBe(1.5);
  });
});
