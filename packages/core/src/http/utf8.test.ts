import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isStackspecError } from '../errors.js';
import { decodeUtf8Strict, findUtf8Problem, invalidUtf8Error, pyUnicodeDecodeErrorText } from './utf8.js';

const bytes = (...b: number[]) => Uint8Array.from(b);
const text = (b: Uint8Array) => {
  const p = findUtf8Problem(b);
  return p && pyUnicodeDecodeErrorText(b, p);
};

describe('findUtf8Problem', () => {
  it('finds nothing wrong with UTF-8, a byte order mark or an empty input', () => {
    expect(findUtf8Problem(new TextEncoder().encode('héllo ☃ 😀'))).toBeUndefined();
    expect(findUtf8Problem(bytes(0xef, 0xbb, 0xbf, 0x7b, 0x7d))).toBeUndefined();
    expect(findUtf8Problem(new Uint8Array(0))).toBeUndefined();
  });

  // Each expected text is what Python 3.11 prints for the same bytes.
  it.each([
    [[0xff], "'utf-8' codec can't decode byte 0xff in position 0: invalid start byte"],
    [[0x61, 0x80, 0x62], "'utf-8' codec can't decode byte 0x80 in position 1: invalid start byte"],
    [[0xc0, 0xaf], "'utf-8' codec can't decode byte 0xc0 in position 0: invalid start byte"],
    [[0xf5], "'utf-8' codec can't decode byte 0xf5 in position 0: invalid start byte"],
    [[0xe2, 0x28, 0xa1], "'utf-8' codec can't decode byte 0xe2 in position 0: invalid continuation byte"],
    [[0xe2, 0x82, 0x28], "'utf-8' codec can't decode bytes in position 0-1: invalid continuation byte"],
    [
      [0xf0, 0x80, 0x80, 0x80],
      "'utf-8' codec can't decode byte 0xf0 in position 0: invalid continuation byte",
    ],
    [[0xed, 0xa0, 0x80], "'utf-8' codec can't decode byte 0xed in position 0: invalid continuation byte"],
    [
      [0xf4, 0x90, 0x80, 0x80],
      "'utf-8' codec can't decode byte 0xf4 in position 0: invalid continuation byte",
    ],
    [[0xe2, 0x82], "'utf-8' codec can't decode bytes in position 0-1: unexpected end of data"],
    [[0xf0, 0x9f, 0x98], "'utf-8' codec can't decode bytes in position 0-2: unexpected end of data"],
    [[0x6f, 0x6b, 0xe2], "'utf-8' codec can't decode byte 0xe2 in position 2: unexpected end of data"],
  ])('words %j as Python does', (input, expected) => {
    expect(text(bytes(...input))).toBe(expected);
  });

  it('agrees with the web decoder on whether any input is UTF-8', () => {
    const fatal = new TextDecoder('utf-8', { fatal: true });
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (input) => {
        let ok = true;
        try {
          fatal.decode(input);
        } catch {
          ok = false;
        }
        const problem = findUtf8Problem(input);
        expect(problem === undefined).toBe(ok);
        if (problem) {
          expect(problem.start).toBeLessThan(problem.end);
          // Everything before the problem decodes.
          fatal.decode(input.subarray(0, problem.start));
        }
      }),
    );
  });
});

describe('decodeUtf8Strict', () => {
  it('decodes UTF-8 and keeps a byte order mark', () => {
    expect(decodeUtf8Strict(bytes(0xef, 0xbb, 0xbf, 0x61))).toBe('\ufeffa');
  });

  it('refuses bytes that are not UTF-8 with a 400 naming them and where they are', () => {
    try {
      decodeUtf8Strict(bytes(0x7b, 0xe2, 0x82, 0x28));
      expect.unreachable();
    } catch (e) {
      expect(isStackspecError(e) && e.status).toBe(400);
      expect(isStackspecError(e) && e.code).toBe('http/invalid-utf8');
      expect((e as Error).message).toBe(
        'The request body is not valid UTF-8: invalid continuation byte (0xe2 0x82) at byte 1.',
      );
      expect(isStackspecError(e) && e.diagnostics[0]?.hint).toBe('Send the text encoded as UTF-8.');
    }
  });

  it('names what it decodes', () => {
    const b = bytes(0xff);
    expect(invalidUtf8Error(b, { start: 0, end: 1, reason: 'invalid start byte' }, 'The file').message).toBe(
      'The file is not valid UTF-8: invalid start byte (0xff) at byte 0.',
    );
  });
});
