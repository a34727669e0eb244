import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isStackspecError } from './errors.js';
import {
  isPyFloat,
  isPySpace,
  PyFloat,
  pyCompare,
  pyEquals,
  pyFloatRepr,
  pyJsonDumps,
  pyRepr,
  pyStr,
  pyStrip,
  pyTruthy,
} from './python.js';

describe('pyRepr', () => {
  it.each([
    [null, 'None'],
    [undefined, 'None'],
    [true, 'True'],
    [false, 'False'],
    [42, '42'],
    [-7, '-7'],
    [1.5, '1.5'],
    [1e16, '10000000000000000'],
    [1e21, '1e+21'],
    [1e-5, '1e-05'],
    [1.5e300, '1.5e+300'],
    [new PyFloat(2), '2.0'],
    ['a', "'a'"],
    ["it's", '"it\'s"'],
    ['a\'b"c', "'a\\'b\"c'"],
    ['tab\there\n\r\\', "'tab\\there\\n\\r\\\\'"],
    ['\u0001\u007fé', "'\\x01\\x7fé'"],
    ['\x85\xa0\xad\u200b\u2028\ud800😀\u{e0001}', "'\\x85\\xa0\\xad\\u200b\\u2028\\ud800😀\\U000e0001'"],
    [[1, 'x', { a: null }], "[1, 'x', {'a': None}]"],
    [new Map([[1, 'one']]), "{1: 'one'}"],
    [[], '[]'],
    [{}, '{}'],
  ])('prints %j as Python would', (value, text) => {
    expect(pyRepr(value)).toBe(text);
  });

  it('prints a container that contains itself as Python does, instead of overflowing', () => {
    const list: unknown[] = [1];
    list.push(list);
    const dict: Record<string, unknown> = {};
    dict.self = dict;
    expect(pyRepr(list)).toBe('[1, [...]]');
    expect(pyRepr(dict)).toBe("{'self': {...}}");
    const shared = [1];
    expect(pyRepr([shared, shared])).toBe('[[1], [1]]');
  });

  it('prints big ints in full and anything else through String()', () => {
    expect(pyRepr(12345678901234567890n)).toBe('12345678901234567890');
    expect(pyRepr(Symbol('s'))).toBe('Symbol(s)');
  });

  it('leaves strings bare in pyStr and reprs everything else', () => {
    expect(pyStr('abc')).toBe('abc');
    expect(pyStr(['abc'])).toBe("['abc']");
    expect(pyStr(null)).toBe('None');
    expect(pyStr(new PyFloat(3))).toBe('3.0');
  });
});

describe('pyFloatRepr', () => {
  it('spells floats like Python repr, exponents included', () => {
    const cases: [number, string][] = [
      [1e16, '1e+16'],
      [1.5e-5, '1.5e-05'],
      [0.0001, '0.0001'],
      [123456.789, '123456.789'],
      [1e15, '1000000000000000.0'],
      [-0.5, '-0.5'],
      [0, '0.0'],
      [-0, '-0.0'],
      [Number.POSITIVE_INFINITY, 'inf'],
      [Number.NEGATIVE_INFINITY, '-inf'],
      [Number.NaN, 'nan'],
      [1.7976931348623157e308, '1.7976931348623157e+308'],
      [5e-324, '5e-324'],
    ];
    for (const [x, text] of cases) expect(pyFloatRepr(x), String(x)).toBe(text);
  });

  it('round-trips any finite double through its digits', () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (x) => {
        expect(Number(pyFloatRepr(x))).toBe(x);
      }),
    );
  });
});

describe('pyJsonDumps', () => {
  it('writes like json.dumps: spaced separators, ASCII only', () => {
    expect(pyJsonDumps({ a: [1, 'x', null, true, false], 'b"': { c: 1.5 } })).toBe(
      '{"a": [1, "x", null, true, false], "b\\"": {"c": 1.5}}',
    );
    expect(pyJsonDumps('é\u2028\n\t\r\b\f\u0001\\')).toBe('"\\u00e9\\u2028\\n\\t\\r\\b\\f\\u0001\\\\"');
    expect(pyJsonDumps('😀')).toBe('"\\ud83d\\ude00"');
    expect(pyJsonDumps([])).toBe('[]');
    expect(pyJsonDumps({})).toBe('{}');
  });

  it('spells numbers as Python does', () => {
    expect(pyJsonDumps([1e-7, 1e21, 2, new PyFloat(2), 10n, -0])).toBe('[1e-07, 1e+21, 2, 2.0, 10, 0]');
  });

  it('drops undefined members and writes non-finite numbers and other values as null', () => {
    expect(pyJsonDumps({ a: undefined, b: Number.NaN, c: new PyFloat(Number.POSITIVE_INFINITY) })).toBe(
      '{"b": null, "c": null}',
    );
    expect(pyJsonDumps([undefined, () => 1])).toBe('[null, null]');
  });

  it('refuses a value that contains itself with a core error', () => {
    const list: unknown[] = [];
    list.push(list);
    try {
      pyJsonDumps({ list });
      expect.unreachable();
    } catch (e) {
      expect(isStackspecError(e) && e.code).toBe('python/circular-reference');
    }
  });

  it('agrees with JSON.parse on what it wrote', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(JSON.parse(pyJsonDumps(value))).toEqual(JSON.parse(JSON.stringify(value)));
      }),
    );
  });
});

describe('pyEquals', () => {
  it('compares like ==: numbers with booleans, never with strings', () => {
    expect(pyEquals(1, true)).toBe(true);
    expect(pyEquals(0, false)).toBe(true);
    expect(pyEquals(1, new PyFloat(1))).toBe(true);
    expect(pyEquals(2n, 2)).toBe(true);
    expect(pyEquals(1, '1')).toBe(false);
    expect(pyEquals('a', 'a')).toBe(true);
    expect(pyEquals(null, null)).toBe(true);
    expect(pyEquals(null, undefined)).toBe(true);
    expect(pyEquals(null, '')).toBe(false);
    expect(pyEquals(null, 0)).toBe(false);
    expect(pyEquals(['a', 1], ['a', true])).toBe(true);
    expect(pyEquals(['a'], ['a', 'b'])).toBe(false);
    expect(pyEquals({ a: 1, b: 2 }, { b: 2, a: 1 })).toBe(true);
    expect(pyEquals({ a: 1 }, { b: 1 })).toBe(false);
    expect(pyEquals({ a: 1 }, { a: 1, b: 1 })).toBe(false);
    expect(pyEquals(['a'], { 0: 'a' })).toBe(false);
    expect(pyEquals(Symbol.iterator, Symbol.iterator)).toBe(true);
  });
});

describe('pyTruthy', () => {
  it('decides truthiness like Python', () => {
    expect([0, '', null, false, [], {}, new PyFloat(0), undefined, 0n, new Map()].map(pyTruthy)).toEqual(
      Array(10).fill(false),
    );
    expect([1, 'x', true, [0], { a: 1 }, new PyFloat(1), 1n, () => 0].map(pyTruthy)).toEqual(
      Array(8).fill(true),
    );
  });
});

describe('PyFloat', () => {
  it('is recognised by a brand, so copies of core agree', () => {
    const foreign = Object.defineProperty({ value: 2 }, Symbol.for('@stackspec/py-float'), { value: true });
    expect(foreign instanceof PyFloat).toBe(true);
    expect({ value: 2 } instanceof PyFloat).toBe(false);
    expect(isPyFloat(new PyFloat(2))).toBe(true);
    expect(isPyFloat(2.5)).toBe(true);
    expect(isPyFloat(2)).toBe(false);
    expect(isPyFloat('2.5')).toBe(false);
  });
});

describe('strings', () => {
  it('strips the whitespace Python strips, not a BOM or a zero-width space', () => {
    expect(pyStrip('\x1c a \x85\u3000')).toBe('a');
    expect(pyStrip('\ufeffa\u200b')).toBe('\ufeffa\u200b');
    expect(pyStrip('   ')).toBe('');
    expect(pyStrip('abc')).toBe('abc');
    expect(isPySpace('\u2028')).toBe(true);
    expect(isPySpace('\ufeff')).toBe(false);
    expect(isPySpace('  ')).toBe(false);
  });

  it('orders strings by code point, as sorted() does', () => {
    expect(['b', 'a', '\u{1f600}', '\uffff', 'ab'].sort(pyCompare)).toEqual([
      'a',
      'ab',
      'b',
      '\uffff',
      '\u{1f600}',
    ]);
    expect(pyCompare('a', 'a')).toBe(0);
  });
});
