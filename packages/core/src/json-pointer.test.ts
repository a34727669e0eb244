import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseJsonPointer, toJsonPointer, validateJsonPointer } from './json-pointer.js';

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

  it('rejects text that is not a pointer, saying what was expected', () => {
    for (const text of ['steps', '/a~2', '/a~']) {
      const r = validateJsonPointer(text);
      expect(r.ok, text).toBe(false);
      expect(r.diagnostics[0]).toMatchObject({
        code: 'json-pointer/invalid',
        hint: expect.stringContaining('~1'),
      });
      expect(() => parseJsonPointer(text)).toThrow(expect.objectContaining({ code: 'json-pointer/invalid' }));
    }
    expect(validateJsonPointer('steps').diagnostics[0]?.message).toContain('start with "/"');
    expect(validateJsonPointer('/a~2').diagnostics[0]?.message).toContain('followed by 0 or 1');
    expect(validateJsonPointer(7 as unknown as string).diagnostics[0]?.message).toContain('must be a string');
  });

  it('reads the whole document and an empty key', () => {
    expect(parseJsonPointer('')).toEqual([]);
    expect(parseJsonPointer('/')).toEqual(['']);
    expect(validateJsonPointer('/a~1b/0')).toEqual({ ok: true, value: ['a/b', '0'], diagnostics: [] });
  });
});
