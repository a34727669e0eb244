import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseJsonPointer, toJsonPointer } from './json-pointer.js';

describe('JSON pointers', () => {
  it('escapes ~ and / in segments', () => {
    expect(toJsonPointer(['steps', 2, 'a/b', 'c~d'])).toBe('/steps/2/a~1b/c~0d');
    expect(toJsonPointer([])).toBe('');
  });

  it('decodes what it encodes', () => {
    fc.assert(
      fc.property(fc.array(fc.string()), (segments) => {
        expect(parseJsonPointer(toJsonPointer(segments))).toEqual(segments);
      }),
    );
  });

  it('rejects text that is not a pointer', () => {
    expect(parseJsonPointer('steps')).toBeUndefined();
    expect(parseJsonPointer('/a~2')).toBeUndefined();
    expect(parseJsonPointer('/a~')).toBeUndefined();
    expect(parseJsonPointer('')).toEqual([]);
    expect(parseJsonPointer('/')).toEqual(['']);
  });
});
