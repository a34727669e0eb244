import { DEFAULT_MAX_DEPTH, isStackspecError, toJsonPointer } from '@stackspec/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { findJsonValueProblem } from './json-value.js';

/** `levels` arrays, one inside the other, around `inner`. */
function nested(levels: number, inner: unknown = 1): unknown {
  let v = inner;
  for (let i = 0; i < levels; i += 1) v = [v];
  return v;
}

describe('findJsonValueProblem', () => {
  it('finds nothing in ordinary JSON', () => {
    expect(
      findJsonValueProblem({ name: 'CUSTOM_A', steps: [{ priority: 10, args: {} }], x: null }),
    ).toBeUndefined();
    expect(findJsonValueProblem('text')).toBeUndefined();
    expect(findJsonValueProblem(-0)).toBeUndefined();
  });

  it('points at a number that is not finite', () => {
    expect(findJsonValueProblem({ steps: [{ priority: 1 }, { args: { n: Number.NaN } }] })).toEqual({
      kind: 'not-finite',
      path: ['steps', 1, 'args', 'n'],
    });
    expect(findJsonValueProblem(JSON.parse('[1e400]'))).toEqual({ kind: 'not-finite', path: [0] });
    expect(findJsonValueProblem(-Infinity)).toEqual({ kind: 'not-finite', path: [] });
  });

  it('allows maxDepth levels of nesting and points at the first one past it', () => {
    expect(findJsonValueProblem(nested(DEFAULT_MAX_DEPTH))).toBeUndefined();
    const problem = findJsonValueProblem(nested(DEFAULT_MAX_DEPTH + 1));
    expect(problem?.kind).toBe('too-deep');
    expect(problem?.path).toEqual(Array(DEFAULT_MAX_DEPTH).fill(0));
    expect(findJsonValueProblem({ a: { b: [] } }, { maxDepth: 2 })).toEqual({
      kind: 'too-deep',
      path: ['a', 'b'],
    });
    expect(findJsonValueProblem({}, { maxDepth: 0 })).toEqual({ kind: 'too-deep', path: [] });
    expect(findJsonValueProblem(5, { maxDepth: 0 })).toBeUndefined();
  });

  it('reports the first problem in document order', () => {
    const value = { a: [1, { b: Infinity }], c: nested(5), d: Number.NaN };
    expect(findJsonValueProblem(value, { maxDepth: 3 })).toEqual({ kind: 'not-finite', path: ['a', 1, 'b'] });
    expect(findJsonValueProblem({ c: nested(5), a: [Infinity] }, { maxDepth: 3 })).toEqual({
      kind: 'too-deep',
      path: ['c', 0, 0],
    });
  });

  it('ends a nesting far deeper than the call stack, and a cycle, without recursion', () => {
    expect(findJsonValueProblem(nested(1_000_000))?.path).toHaveLength(DEFAULT_MAX_DEPTH);
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    expect(findJsonValueProblem(cycle, { maxDepth: 3 })).toEqual({
      kind: 'too-deep',
      path: ['self', 'self', 'self'],
    });
  });

  it('skips holes and keeps keys that look like indexes as strings', () => {
    // biome-ignore lint/suspicious/noSparseArray: a hole is what is tested
    expect(findJsonValueProblem([, Infinity])).toEqual({ kind: 'not-finite', path: [1] });
    expect(findJsonValueProblem({ '0': [Infinity] })).toEqual({ kind: 'not-finite', path: ['0', 0] });
  });

  it.each([-1, 1.5, Number.NaN, Infinity])('refuses maxDepth %s', (maxDepth) => {
    try {
      findJsonValueProblem({}, { maxDepth });
      expect.unreachable();
    } catch (e) {
      expect(isStackspecError(e) && e.code).toBe('json/bad-max-depth');
    }
  });

  it('agrees with a recursive reference on any JSON-like value', () => {
    const reference = (v: unknown, path: (string | number)[], maxDepth: number): string | undefined => {
      if (typeof v === 'number') return Number.isFinite(v) ? undefined : `not-finite ${toJsonPointer(path)}`;
      if (v === null || typeof v !== 'object') return undefined;
      if (path.length >= maxDepth) return `too-deep ${toJsonPointer(path)}`;
      const entries: [string | number, unknown][] = Array.isArray(v) ? [...v.entries()] : Object.entries(v);
      for (const [k, child] of entries) {
        const found = reference(child, [...path, k], maxDepth);
        if (found) return found;
      }
      return undefined;
    };
    const values = fc.letrec((tie) => ({
      value: fc.oneof(
        { depthSize: 'small', withCrossShrink: true },
        fc.oneof(fc.double(), fc.integer(), fc.string(), fc.constant(null), fc.boolean()),
        fc.array(tie('value'), { maxLength: 4 }),
        fc.dictionary(fc.string({ maxLength: 3 }), tie('value'), { maxKeys: 4 }),
      ),
    })).value;
    fc.assert(
      fc.property(values, fc.integer({ min: 0, max: 6 }), (value, maxDepth) => {
        const found = findJsonValueProblem(value, { maxDepth });
        expect(found && `${found.kind} ${toJsonPointer(found.path)}`).toBe(reference(value, [], maxDepth));
      }),
    );
  });
});
