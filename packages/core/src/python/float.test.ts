import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { pyFloat } from './float.js';
import { pyFloatRepr } from './float-repr.js';

const float = (text: string) => {
  const r = pyFloat(text);
  return r.ok ? pyFloatRepr(r.value) : undefined;
};

describe('pyFloat', () => {
  it.each([
    ['1_000.5', '1000.5'],
    ['1e1_0', '10000000000.0'],
    [' 1.5 ', '1.5'],
    ['\u30001.5\u2028', '1.5'],
    ['\u0661.\u0665', '1.5'],
    ['.5', '0.5'],
    ['5.', '5.0'],
    ['1.e5', '100000.0'],
    ['+.5', '0.5'],
    ['inf', 'inf'],
    ['-Infinity', '-inf'],
    ['iNfInItY', 'inf'],
    ['-nan', 'nan'],
    ['1e400', 'inf'],
    ['1e-400', '0.0'],
    ['-0', '-0.0'],
    ['1.0000000000000001', '1.0'],
  ])('reads %j as Python float() does: %s', (text, expected) => {
    expect(float(text)).toBe(expected);
  });

  it.each([
    '',
    ' ',
    '.',
    'e5',
    '1e',
    '1e+',
    '1__0',
    '_1',
    '1_.5',
    '1._5',
    '1_e5',
    'infinit',
    'nan(1)',
    '0x1p3',
    '1,5',
    '\x1c1',
    '1\u0000',
    'in_f',
  ])('refuses %j with the message Python gives', (text) => {
    const r = pyFloat(text);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.message).toMatch(/^could not convert string to float: ['"]/);
  });

  it('reads back the repr of any double', () => {
    fc.assert(
      fc.property(fc.double(), (x) => {
        const r = pyFloat(pyFloatRepr(x));
        expect(r.ok && r.value).toBe(x);
      }),
    );
  });
});
