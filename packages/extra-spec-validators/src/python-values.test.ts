import { isPySpace, pyStrip } from '@stackspec/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parsePythonBool, parsePythonInt } from './python-values.js';

const int = (s: string) => {
  const r = parsePythonInt(s);
  return r ? `${r.negative ? '-' : ''}${r.digits}` : undefined;
};

// Python's int() itself is core's pyInt, proven against CPython in core; this
// checks only how the wrapper hands its verdict on.
describe('parsePythonInt', () => {
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
      expect(parsePythonInt(text)).toBeUndefined();
    },
  );

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

// The trimming parsePythonBool and Nova's number checks rely on is core's pyStrip.
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
