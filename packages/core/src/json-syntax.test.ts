import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { findJsonSyntaxProblem, findJsonTooDeep } from './json-syntax.js';

describe('findJsonSyntaxProblem', () => {
  it.each([
    ['{"a": 1,}', 8, 'property name'],
    ['[1, 2', 5, "Expected ',' or ']'"],
    ['{"a" 1}', 5, "Expected ':'"],
    ['{"a": tru}', 6, 'Expected a JSON value'],
    ['"abc', 4, 'Unterminated string'],
    ['"a\\x"', 2, 'Invalid escape'],
    ['"\\u12"', 1, 'four hex digits'],
    ['{} x', 3, 'after the end'],
    ['', 0, 'Expected a JSON value'],
    ['-', 0, 'Expected a JSON value'],
    ['"a\u0001"', 2, 'Control characters'],
  ])('locates the problem in %j', (text, offset, message) => {
    const p = findJsonSyntaxProblem(text);
    expect(p?.offset).toBe(offset);
    expect(p?.message).toContain(message);
  });

  it('accepts everything JSON.stringify produces', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        expect(findJsonSyntaxProblem(JSON.stringify(v, null, 1))).toBeUndefined();
      }),
    );
  });

  it('agrees with JSON.parse on arbitrary text', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.json().map((j) => j.slice(0, Math.max(0, j.length - 1))),
        ),
        (text) => {
          let valid = true;
          try {
            JSON.parse(text);
          } catch {
            valid = false;
          }
          expect(findJsonSyntaxProblem(text) === undefined).toBe(valid);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('handles very deep nesting without recursion', () => {
    expect(findJsonSyntaxProblem(`${'['.repeat(200_000)}${']'.repeat(200_000)}`)).toBeUndefined();
    expect(findJsonSyntaxProblem('['.repeat(200_000))?.message).toContain('Expected a JSON value');
  });
});

describe('findJsonTooDeep', () => {
  it('points at the first bracket past the limit, ignoring brackets in strings', () => {
    expect(findJsonTooDeep('[[[]]]', 3)).toBeUndefined();
    expect(findJsonTooDeep('[[[[]]]]', 3)).toBe(3);
    expect(findJsonTooDeep('{"a": {"b": [1]}}', 2)).toBe(12);
    expect(findJsonTooDeep('["[[[[", "\\"[[[["]', 1)).toBeUndefined();
    expect(findJsonTooDeep('[][][][]', 1)).toBeUndefined();
  });

  it('measures the same depth as the parsed value, for any JSON', () => {
    const depthOf = (v: unknown): number =>
      v !== null && typeof v === 'object' ? 1 + Math.max(0, ...Object.values(v).map(depthOf)) : 0;
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 6 }), (v) => {
        const text = JSON.stringify(v);
        const d = depthOf(v);
        expect(findJsonTooDeep(text, d)).toBeUndefined();
        if (d > 0) expect(findJsonTooDeep(text, d - 1)).toBeGreaterThanOrEqual(0);
      }),
    );
  });
});
