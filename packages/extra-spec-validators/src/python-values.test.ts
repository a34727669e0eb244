import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  formatPythonInt,
  isPythonSpace,
  parsePythonBool,
  parsePythonInt,
  pythonStrip,
} from './python-values.js';

const int = (s: string) => {
  const r = parsePythonInt(s);
  return r ? formatPythonInt(r) : undefined;
};

describe('parsePythonInt', () => {
  it.each([
    ['42', '42'],
    ['007', '7'],
    ['-0', '0'],
    ['+3', '3'],
    [' 5 ', '5'],
    ['\t7\n', '7'],
    ['1_000', '1000'],
    ['0_7', '7'],
    ['\u0663\u0661', '31'],
    ['\uff11_\uff12', '12'],
    ['\u{1d7d3}', '5'],
    ['\u00a05\u3000', '5'],
    ['\u00855\u2028', '5'],
    ['-99999999999999999999', '-99999999999999999999'],
  ])('reads %j as %s, like Python int()', (text, expected) => {
    expect(int(text)).toBe(expected);
  });

  it.each([
    '',
    ' ',
    '2.0',
    '2.',
    '.5',
    '1e3',
    '0x10',
    '0o7',
    '0b1',
    '1 000',
    '1,000',
    '1__0',
    '_1',
    '1_',
    '+_1',
    '- 1',
    '\u00b2',
    '\u00bd',
    '\u216b',
    '\ufeff5',
    '\u200b5',
    '\u001c5',
    '5\u001f',
    '1\u0000',
    '1\u0301',
  ])('refuses %j, like Python int()', (text) => {
    expect(parsePythonInt(text)).toBeUndefined();
  });

  it('refuses more than 4,300 digits (underscores not counted)', () => {
    expect(int('9'.repeat(4300))).toBe('9'.repeat(4300));
    expect(parsePythonInt('9'.repeat(4301))).toBeUndefined();
    expect(parsePythonInt(`0${'0'.repeat(4300)}`)).toBeUndefined();
    expect(int(`${'1_'.repeat(4299)}1`)).toBe('1'.repeat(4300));
  });

  it('never throws and agrees with BigInt on plain ASCII integers', () => {
    fc.assert(
      fc.property(fc.string(), (s) => {
        parsePythonInt(s);
      }),
    );
    fc.assert(
      fc.property(fc.bigInt({ min: -(10n ** 40n), max: 10n ** 40n }), (n) => {
        expect(int(n.toString())).toBe(n.toString());
      }),
    );
  });
});

describe('parsePythonBool', () => {
  it.each([
    ['true', true],
    ['TRUE', true],
    [' on ', true],
    ['Y', true],
    ['1', true],
    ['\u001ctrue\u001f', true],
    ['\u0085no\u0085', false],
    ['N', false],
    ['off', false],
    ['0', false],
  ])('reads %j as %s', (text, expected) => {
    expect(parsePythonBool(text)).toBe(expected);
  });

  it.each([
    '2',
    '00',
    '01',
    '1.0',
    'enabled',
    'yep',
    '',
    '\uff54\uff52\uff55\uff45',
    '\ufefftrue',
    '\u200btrue',
  ])('refuses %j', (text) => {
    expect(parsePythonBool(text)).toBeUndefined();
  });
});

describe('pythonStrip', () => {
  it('trims what Python str.strip() trims and nothing else', () => {
    expect(pythonStrip('\u001c\u0085 a \u3000')).toBe('a');
    expect(pythonStrip('\ufeffa\u200b')).toBe('\ufeffa\u200b');
    expect(pythonStrip('abc')).toBe('abc');
    expect(isPythonSpace('\u2028')).toBe(true);
    expect(isPythonSpace('\ufeff')).toBe(false);
    expect(isPythonSpace('')).toBe(false);
  });
});
