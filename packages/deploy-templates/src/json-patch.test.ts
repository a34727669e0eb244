import { isErrorKind } from '@stackspec/core';
import { describe, expect, it } from 'vitest';
import { applyJsonPatch, JsonPatchFailure } from './json-patch.js';

const doc = { name: 'CUSTOM_A', steps: [{ step: 'a' }, { step: 'b' }], extra: {} as Record<string, unknown> };

function reason(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    if (e instanceof JsonPatchFailure) return e.reason;
    throw e;
  }
  throw new Error('expected a failure');
}

describe('applyJsonPatch', () => {
  it("fails with an error of core's family, a 400 carrying the reason", () => {
    let thrown: unknown;
    try {
      applyJsonPatch(doc, [{ op: 'remove', path: '/nope' }]);
    } catch (e) {
      thrown = e;
    }
    expect(isErrorKind(thrown, 'validation')).toBe(true);
    expect(thrown).toMatchObject({
      code: 'deploy-templates/patch-failed',
      status: 400,
      name: 'JsonPatchFailure',
    });
    expect((thrown as JsonPatchFailure).reason).toBe((thrown as Error).message);
  });

  it('adds, inserts, appends, replaces and removes without touching the input', () => {
    const out = applyJsonPatch(doc, [
      { op: 'add', path: '/steps/0', value: { step: 'z' } },
      { op: 'add', path: '/steps/-', value: { step: 'end' } },
      { op: 'remove', path: '/steps/1' },
      { op: 'replace', path: '/name', value: 'CUSTOM_B' },
      { op: 'add', path: '/extra/k', value: [1] },
    ]);
    expect(out).toEqual({
      name: 'CUSTOM_B',
      steps: [{ step: 'z' }, { step: 'b' }, { step: 'end' }],
      extra: { k: [1] },
    });
    expect(doc.steps).toHaveLength(2);
    expect(doc.extra).toEqual({});
  });

  it('treats add on an existing member as a replacement', () => {
    expect(applyJsonPatch(doc, [{ op: 'add', path: '/name', value: 'CUSTOM_C' }]).name).toBe('CUSTOM_C');
  });

  it.each([
    [{ op: 'add', path: '/steps/3', value: 1 }, "can't insert outside of list"],
    [{ op: 'replace', path: '/steps/2', value: 1 }, "can't replace outside of list"],
    [{ op: 'remove', path: '/steps/2' }, "can't remove a non-existent object '2'"],
    [{ op: 'remove', path: '/extra/a' }, "can't remove a non-existent object 'a'"],
    [{ op: 'replace', path: '/extra/a', value: 1 }, "can't replace a non-existent object 'a'"],
    [{ op: 'add', path: '/extra/a/b', value: 1 }, "member 'a' not found in {}"],
    [{ op: 'add', path: '/steps/x', value: 1 }, "'x' is not a valid sequence index"],
    [{ op: 'remove', path: '/steps/-' }, "invalid array index '-'"],
    [
      { op: 'replace', path: '/steps/-', value: 1 },
      "'path' with '-' can't be applied to 'replace' operation",
    ],
    [{ op: 'add', path: '/name/0', value: 1 }, 'unable to fully resolve json pointer /name/0, part 0'],
    [{ op: 'add', path: '/steps/5/x', value: 1 }, "index '5' is out of bounds"],
    [{ op: 'add', path: '/extra' }, "The operation does not contain a 'value' member"],
    [{ op: 'copy', path: '/extra' }, "Unknown operation 'copy'"],
  ])('fails %j with python-jsonpatch’s reason', (op, expected) => {
    expect(reason(() => applyJsonPatch(doc, [op]))).toBe(expected);
  });

  it('reads a leading-zero index the way python-json-pointer does', () => {
    expect(applyJsonPatch(doc, [{ op: 'remove', path: '/steps/01' }]).steps).toEqual([{ step: 'a' }]);
  });

  it('says a value inside a number cannot be indexed', () => {
    expect(reason(() => applyJsonPatch({ a: 1 }, [{ op: 'add', path: '/a/b/c', value: 1 }]))).toBe(
      "Document '<class 'int'>' does not support indexing, must be mapping/sequence or support __getitem__",
    );
  });
});
