import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { pyJsonDumps } from './json-dumps.js';
import { PY_JSON_MAX_DEPTH, pyJsonLoads } from './json-loads.js';
import { PyFloat, PyNumber } from './number.js';
import { pyRepr, pyStr } from './repr.js';

const value = (text: string) => {
  const r = pyJsonLoads(text);
  if (!r.ok) throw new Error(r.message);
  return r.value;
};

describe('pyJsonLoads', () => {
  it('keeps how numbers were written and accepts NaN and Infinity', () => {
    const v = value('{"a": 2.0, "b": 2, "c": [NaN, -Infinity, 1e3], "__proto__": 1}') as Record<
      string,
      unknown
    >;
    expect(v.a).toEqual(new PyNumber('2.0', true));
    expect(v.a).toBeInstanceOf(PyFloat);
    expect(String(v.b)).toBe('2');
    expect(v.b).not.toBeInstanceOf(PyFloat);
    expect((v.c as PyNumber[]).map(String)).toEqual(['nan', '-inf', '1000.0']);
    expect(Object.keys(v)).toContain('__proto__');
    expect(Object.getPrototypeOf(v)).toBe(Object.prototype);
  });

  it('keeps big ints digit for digit and reads -0 as the int 0', () => {
    const v = value('[12345678901234567890, -0, -0.0, 1E400]') as PyNumber[];
    expect(v.map(String)).toEqual(['12345678901234567890', '0', '-0.0', 'inf']);
    expect(v[0]?.text).toBe('12345678901234567890');
  });

  it("leaves strings that look like numbers alone and refuses bad JSON with Python's message", () => {
    expect(value('{"a": "2.0", "b\\"": "-1"}')).toEqual({ a: '2.0', 'b"': '-1' });
    expect(pyJsonLoads('{"a": 01}')).toMatchObject({
      ok: false,
      exception: 'JSONDecodeError',
      message: "Expecting ',' delimiter: line 1 column 8 (char 7)",
      reason: "Expecting ',' delimiter",
      position: 7,
      line: 1,
      column: 8,
    });
    expect(pyJsonLoads('{')).toMatchObject({
      message: 'Expecting property name enclosed in double quotes: line 1 column 2 (char 1)',
    });
    expect(pyJsonLoads('- 1')).toMatchObject({ message: 'Expecting value: line 1 column 1 (char 0)' });
    expect(pyJsonLoads('')).toMatchObject({ message: 'Expecting value: line 1 column 1 (char 0)' });
    expect(pyJsonLoads('[1,\n 2,]')).toMatchObject({ message: 'Expecting value: line 2 column 4 (char 7)' });
    expect(pyJsonLoads('\ufeff[]')).toMatchObject({
      message: 'Unexpected UTF-8 BOM (decode using utf-8-sig): line 1 column 1 (char 0)',
    });
  });

  it('counts positions in code points, as Python does', () => {
    expect(pyJsonLoads('["\u{1f600}\u{1f600}", x]')).toMatchObject({ position: 7, column: 8 });
  });

  it('refuses an int of more than 4,300 digits with the ValueError Python raises', () => {
    expect(value(`${'9'.repeat(4300)}`)).toBeInstanceOf(PyNumber);
    expect(pyJsonLoads(`[-${'9'.repeat(4301)}]`)).toEqual({
      ok: false,
      exception: 'ValueError',
      message:
        'Exceeds the limit (4300 digits) for integer string conversion: value has 4301 digits; use sys.set_int_max_str_digits() to increase the limit',
    });
    expect(value(`${'9'.repeat(4301)}.0`)).toEqual(new PyNumber(`${'9'.repeat(4301)}.0`, true));
  });

  it('refuses nesting deeper than its limit where Python would meet it, without recursing further', () => {
    const deep = (n: number) => `${'['.repeat(n)}${']'.repeat(n)}`;
    expect(value(deep(PY_JSON_MAX_DEPTH))).toBeInstanceOf(Array);
    for (const text of [deep(PY_JSON_MAX_DEPTH + 1), '['.repeat(3_000_000), '{"a":'.repeat(200_000)]) {
      const r = pyJsonLoads(text);
      expect(r.ok).toBe(false);
      if (!r.ok) expect(r.exception).toBe('RecursionError');
    }
    expect(pyJsonLoads('{"a":'.repeat(2000))).toMatchObject({
      message: 'maximum recursion depth exceeded while decoding a JSON object from a unicode string',
    });
    expect(value('{"a": "[[[[{{{{"}')).toEqual({ a: '[[[[{{{{' });
    expect(pyJsonLoads('{"a": "[[[[{{{{"}', { maxDepth: 1 }).ok).toBe(true);
    expect(pyJsonLoads('[[1]]', { maxDepth: 1 })).toMatchObject({
      exception: 'RecursionError',
      message: 'maximum recursion depth exceeded while decoding a JSON array from a unicode string',
    });
    // A syntax error before the deep part is what Python reports.
    expect(pyJsonLoads(`[1,,${deep(5000)}]`)).toMatchObject({ exception: 'JSONDecodeError' });
  });

  it("keeps Python's key order with dict: 'map', and the last value of a repeated key", () => {
    const r = pyJsonLoads('{"b": 1, "1": 2, "b": 3}', { dict: 'map' });
    expect(r.ok && [...(r.value as Map<string, unknown>).keys()]).toEqual(['b', '1']);
    expect(r.ok && pyRepr(r.value)).toBe("{'b': 3, '1': 2}");
    expect(value('{"b": 1, "b": 3}')).toEqual({ b: new PyNumber('3', false) });
  });

  it('agrees with JSON.parse on ordinary JSON (numbers aside) and never throws', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        const text = JSON.stringify(v);
        const parsed = value(text);
        const plain = JSON.parse(JSON.stringify(parsed, (_k, x) => (x instanceof PyNumber ? x.value : x)));
        expect(plain).toEqual(JSON.parse(text));
      }),
    );
    fc.assert(
      fc.property(fc.string(), (s) => {
        const r = pyJsonLoads(s);
        if (!r.ok) expect(r.message).toMatch(/\(char \d+\)$|^maximum recursion|^Exceeds the limit/);
      }),
    );
  });
});

describe('pyRepr, pyStr and pyJsonDumps of loaded values', () => {
  it("print values the way Python's repr, str and json.dumps do", () => {
    const v = {
      a: "It's",
      b: 'say "hi"',
      c: '\u0000\u2028\u00e9\u{1f600}',
      d: [true, null, new PyNumber('2.0', true)],
    };
    expect(pyRepr(v)).toBe(
      `{'a': "It's", 'b': 'say "hi"', 'c': '\\x00\\u2028\u00e9\u{1f600}', 'd': [True, None, 2.0]}`,
    );
    expect(pyStr('plain')).toBe('plain');
    expect(pyStr(false)).toBe('False');
    expect(
      pyJsonDumps(
        { a: '\u00e9\u2028\u0001', b: [new PyNumber('1.0', true), new PyNumber('NaN', true)] },
        { allowNan: true },
      ),
    ).toBe('{"a": "\\u00e9\\u2028\\u0001", "b": [1.0, NaN]}');
  });
});
