import { DEFAULT_MAX_DEPTH, type PathSegment, SpecError } from '@stackspec/core';

/** What {@link findJsonValueProblem} found, and where. */
export interface JsonValueProblem {
  /**
   * `too-deep`: an object or array nested inside `maxDepth` others;
   * `not-finite`: `NaN` or ±`Infinity`, which JSON cannot carry (YAML's
   * `.nan` and `.inf`, or `1e400` read by `JSON.parse`).
   */
  kind: 'too-deep' | 'not-finite';
  /** Keys and indexes from the root to the offending value (`toJsonPointer` turns it into a pointer). */
  path: PathSegment[];
}

/** Options for {@link findJsonValueProblem}. */
export interface FindJsonValueProblemOptions {
  /** How many objects and arrays may nest, the root one included; default `DEFAULT_MAX_DEPTH` (200). */
  maxDepth?: number;
}

interface Frame {
  value: unknown;
  key: PathSegment | undefined;
  parent: Frame | undefined;
  /** Objects and arrays above this value. */
  depth: number;
}

function pathOf(frame: Frame): PathSegment[] {
  const path: PathSegment[] = [];
  for (let f: Frame | undefined = frame; f?.parent; f = f.parent) path.push(f.key as PathSegment);
  return path.reverse();
}

/**
 * The first part of a parsed value that JSON or a store cannot keep as it
 * is, in document order, or `undefined`: an object or array nested deeper
 * than `maxDepth`, or a number that is not finite. Walks without recursion,
 * so any depth (a cycle included) ends in `too-deep`; stops at the first
 * problem; O(size of the value). Values other than objects, arrays and
 * numbers are not looked at. Throws `SpecError` (`json/bad-max-depth`) when
 * `maxDepth` is not a whole number of 0 or more.
 *
 * @example
 * findJsonValueProblem({ steps: [{ priority: Infinity }] });
 * // { kind: 'not-finite', path: ['steps', 0, 'priority'] }
 */
export function findJsonValueProblem(
  value: unknown,
  options: FindJsonValueProblemOptions = {},
): JsonValueProblem | undefined {
  const maxDepth = options.maxDepth ?? DEFAULT_MAX_DEPTH;
  if (!Number.isInteger(maxDepth) || maxDepth < 0) {
    throw new SpecError(`maxDepth must be a whole number of 0 or more, not ${String(maxDepth)}.`, {
      code: 'json/bad-max-depth',
    });
  }
  const stack: Frame[] = [{ value, key: undefined, parent: undefined, depth: 0 }];
  while (stack.length) {
    const frame = stack.pop() as Frame;
    const v = frame.value;
    if (typeof v === 'number') {
      if (!Number.isFinite(v)) return { kind: 'not-finite', path: pathOf(frame) };
      continue;
    }
    if (v === null || typeof v !== 'object') continue;
    if (frame.depth >= maxDepth) return { kind: 'too-deep', path: pathOf(frame) };
    const depth = frame.depth + 1;
    // Pushed last to first, so that the first child is looked at first.
    if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i -= 1) stack.push({ value: v[i], key: i, parent: frame, depth });
    } else {
      const keys = Object.keys(v);
      for (let i = keys.length - 1; i >= 0; i -= 1) {
        const key = keys[i] as string;
        stack.push({ value: (v as Record<string, unknown>)[key], key, parent: frame, depth });
      }
    }
  }
  return undefined;
}
