import { compilePythonRegex } from '@stackspec/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { effectivePattern } from './value-check.js';

describe("linear-time rewrites of Nova's patterns", () => {
  const cases = [
    ['([a-zA-Z0-9_]+(,)?)+', 'ab,_1'],
    ['\\^?\\d+((-\\d+)?(,\\^?\\d+(-\\d+)?)?)*', '0123-,^'],
    ['(\\^)?\\d+((-\\d+)?(,\\^?\\d+(-\\d+)?)?)*', '01-,^'],
    ['\\^\\d+((-\\d+)?(,\\^?\\d+(-\\d+)?)?)*', '01-,^'],
    ['[^:]+:\\d+(?:\\s*,\\s*[^:]+:\\d+)*', 'a1:, \t\u00a0'],
  ] as const;

  it.each(cases)('accepts exactly what %s accepts', (pattern, alphabet) => {
    expect(effectivePattern(pattern)).not.toBe(pattern);
    const original = compilePythonRegex(pattern, 'fullmatch');
    const rewrite = compilePythonRegex(effectivePattern(pattern), 'fullmatch');
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...alphabet), { maxLength: 12 }), (chars) => {
        const s = chars.join('');
        expect(rewrite.test(s)).toBe(original.test(s));
      }),
      { numRuns: 3000 },
    );
  });

  it('answers quickly where the original pattern backtracks exponentially', () => {
    const rewrite = compilePythonRegex(effectivePattern('([a-zA-Z0-9_]+(,)?)+'), 'fullmatch');
    expect(rewrite.test(`${'a'.repeat(50_000)}!`)).toBe(false);
    const cpu = compilePythonRegex(effectivePattern('\\^?\\d+((-\\d+)?(,\\^?\\d+(-\\d+)?)?)*'), 'fullmatch');
    expect(cpu.test(`${'1-'.repeat(20_000)}x`)).toBe(false);
    const pci = compilePythonRegex(effectivePattern('[^:]+:\\d+(?:\\s*,\\s*[^:]+:\\d+)*'), 'fullmatch');
    expect(pci.test(`a:1,${' '.repeat(60_000)}`)).toBe(false);
  });
});
