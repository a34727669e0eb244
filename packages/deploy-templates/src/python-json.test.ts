import { describe, expect, it } from 'vitest';
import { pythonJson } from './python-json.js';

describe('pythonJson', () => {
  it('writes like json.dumps: spaced separators, ASCII only', () => {
    expect(pythonJson({ a: [1, 'x', null, true], 'b"': { c: 1.5 } })).toBe(
      '{"a": [1, "x", null, true], "b\\"": {"c": 1.5}}',
    );
    expect(pythonJson('é\u2028\n\t\u0001')).toBe('"\\u00e9\\u2028\\n\\t\\u0001"');
    expect(pythonJson('😀')).toBe('"\\ud83d\\ude00"');
    expect(pythonJson([])).toBe('[]');
    expect(pythonJson({})).toBe('{}');
  });

  it('drops undefined members and writes non-finite numbers as null', () => {
    expect(pythonJson({ a: undefined, b: Number.NaN })).toBe('{"b": null}');
  });
});
