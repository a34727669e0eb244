import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  PY_JSON_MAX_DEPTH,
  PyJsonError,
  PyNumber,
  parsePyJson,
  pyDumps,
  pyFloatRepr,
  pyRepr,
  pyStr,
} from './pyjson.js';

describe('pyFloatRepr', () => {
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
  ])('reads %s as Python prints it: %s', (text, expected) => {
    expect(pyFloatRepr(text)).toBe(expected);
  });
});

describe('parsePyJson', () => {
  it('keeps how numbers were written and accepts NaN and Infinity', () => {
    const v = parsePyJson('{"a": 2.0, "b": 2, "c": [NaN, -Infinity, 1e3], "__proto__": 1}') as Record<
      string,
      unknown
    >;
    expect(v.a).toEqual(new PyNumber('2.0', true));
    expect(String(v.b)).toBe('2');
    expect((v.c as PyNumber[]).map(String)).toEqual(['nan', '-inf', '1000.0']);
    expect(Object.keys(v)).toContain('__proto__');
    expect(Object.getPrototypeOf(v)).toBe(Object.prototype);
  });

  it('leaves strings that look like numbers alone and refuses bad JSON', () => {
    expect(parsePyJson('{"a": "2.0", "b\\"": "-1"}')).toEqual({ a: '2.0', 'b"': '-1' });
    expect(() => parsePyJson('{"a": 01}')).toThrow(PyJsonError);
    expect(() => parsePyJson('{')).toThrow(PyJsonError);
    expect(() => parsePyJson('- 1')).toThrow(PyJsonError);
  });

  it('refuses nesting deeper than its limit before recursing, counting only brackets outside strings', () => {
    const deep = (n: number) => `${'['.repeat(n)}${']'.repeat(n)}`;
    expect(parsePyJson(deep(PY_JSON_MAX_DEPTH))).toBeInstanceOf(Array);
    for (const text of [deep(PY_JSON_MAX_DEPTH + 1), '['.repeat(3_000_000), '{"a":'.repeat(200_000)]) {
      try {
        parsePyJson(text);
        expect.unreachable();
      } catch (e) {
        expect(e).toBeInstanceOf(PyJsonError);
        expect((e as PyJsonError).tooDeep).toBe(true);
        expect((e as Error).message).toBe(`nested deeper than ${PY_JSON_MAX_DEPTH} levels`);
      }
    }
    expect(parsePyJson('{"a": "[[[[{{{{"}', 1)).toEqual({ a: '[[[[{{{{' });
    expect(() => parsePyJson('[[1]]', 1)).toThrow(/nested deeper than 1 levels/);
    try {
      parsePyJson('{');
    } catch (e) {
      expect((e as PyJsonError).tooDeep).toBe(false);
    }
  });

  it('agrees with JSON.parse on ordinary JSON (numbers aside) and never throws anything else', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const text = JSON.stringify(value);
        const parsed = parsePyJson(text);
        const plain = JSON.parse(
          JSON.stringify(parsed, (_k, v) => (v instanceof PyNumber ? Number(v.text) : v)),
        );
        expect(plain).toEqual(JSON.parse(text));
      }),
    );
    fc.assert(
      fc.property(fc.string(), (s) => {
        try {
          parsePyJson(s);
        } catch (e) {
          expect(e).toBeInstanceOf(PyJsonError);
        }
      }),
    );
  });
});

describe('pyRepr, pyStr and pyDumps', () => {
  it("print values the way Python's repr, str and json.dumps do", () => {
    const value = {
      a: "It's",
      b: 'say "hi"',
      c: '\u0000\u2028\u00e9\u{1f600}',
      d: [true, null, new PyNumber('2.0', true)],
    };
    expect(pyRepr(value)).toBe(
      `{'a': "It's", 'b': 'say "hi"', 'c': '\\x00\\u2028\u00e9\u{1f600}', 'd': [True, None, 2.0]}`,
    );
    expect(pyStr('plain')).toBe('plain');
    expect(pyStr(false)).toBe('False');
    expect(
      pyDumps({ a: '\u00e9\u2028\u0001', b: [new PyNumber('1.0', true), new PyNumber('NaN', true)] }),
    ).toBe('{"a": "\\u00e9\\u2028\\u0001", "b": [1.0, NaN]}');
  });
});
