import { describe, expect, it } from 'vitest';
import { kindOf, optionsOf, requireBytes, requireObject, requireString } from './arguments.js';
import { isErrorKind } from './errors.js';

function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (e) {
    return e;
  }
  return undefined;
}

describe('argument guards', () => {
  it('names what a value is', () => {
    expect([null, undefined, [], new Uint8Array(1), {}, 1, 'x', true].map(kindOf)).toEqual([
      'null',
      'undefined',
      'a list',
      'bytes',
      'an object',
      'a number',
      'a string',
      'a boolean',
    ]);
  });

  it('passes values of the right type and refuses others with a SpecError saying what was expected', () => {
    expect(() => requireString('x', 'The text')).not.toThrow();
    expect(() => requireBytes(Buffer.from('x'), 'The body')).not.toThrow();
    expect(() => requireObject({}, 'The spec')).not.toThrow();
    const e = thrown(() => requireString(3, 'The text of validateTemplate'));
    expect(isErrorKind(e, 'spec')).toBe(true);
    expect(e).toMatchObject({
      code: 'validation/invalid-argument',
      message: 'The text of validateTemplate must be a string, but it is a number.',
    });
    expect(thrown(() => requireBytes('x', 'The body', 'demo/bad'))).toMatchObject({
      code: 'demo/bad',
      message: 'The body must be bytes (a Uint8Array), but it is a string.',
    });
    expect(thrown(() => requireObject([], 'The spec'))).toMatchObject({
      message: 'The spec must be an object, but it is a list.',
    });
  });

  it('reads absent or null options as none and refuses options that are not an object', () => {
    expect(optionsOf(undefined, 'f')).toEqual({});
    expect(optionsOf(null, 'f')).toEqual({});
    expect(optionsOf({ a: 1 }, 'f')).toEqual({ a: 1 });
    expect(thrown(() => optionsOf('x' as never, 'validateInventory'))).toMatchObject({
      message: 'The options of validateInventory must be an object, but it is a string.',
    });
  });
});
