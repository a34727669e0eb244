/**
 * Python's `repr()` of a float: the shortest digits that read back to the
 * same double, `.0` on integral values, and exponent notation below 1e-4 and
 * from 1e16 up (`1e-05`, `1e+16`); `nan`, `inf`, `-inf`.
 *
 * @example
 * pyFloatRepr(2); // '2.0'
 * pyFloatRepr(0.00001); // '1e-05'
 */
export function pyFloatRepr(x: number): string {
  if (Number.isNaN(x)) return 'nan';
  if (x === Number.POSITIVE_INFINITY) return 'inf';
  if (x === Number.NEGATIVE_INFINITY) return '-inf';
  if (x === 0) return Object.is(x, -0) ? '-0.0' : '0.0';
  // toExponential() without an argument gives the shortest round-trip digits.
  const [mantissa = '', expText = '0'] = x.toExponential().split('e');
  const exp = Number(expText);
  const sign = mantissa.startsWith('-') ? '-' : '';
  const digits = mantissa.replace('-', '').replace('.', '');
  if (exp < -4 || exp >= 16) {
    const m = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    return `${sign}${m}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
  }
  if (exp < 0) return `${sign}0.${'0'.repeat(-exp - 1)}${digits}`;
  const whole = digits.slice(0, exp + 1).padEnd(exp + 1, '0');
  return `${sign}${whole}.${digits.slice(exp + 1) || '0'}`;
}
