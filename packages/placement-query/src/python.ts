// Small helpers that reproduce how Python (and therefore Placement) reads text,
// so our 400s fire on exactly the inputs Placement rejects. The general ones
// (repr, strip, ordering) come from core.
import { pyCompare, pyStrip } from '@stackspec/core';

/** Python's `str.lstrip(chars)`. */
export function pyLstrip(text: string, chars: string): string {
  let start = 0;
  while (start < text.length && chars.includes(text.charAt(start))) start += 1;
  return text.slice(start);
}

const DECIMAL = /^\p{Nd}$/u;

function digitValue(ch: string): number {
  const cp = ch.codePointAt(0) ?? 0;
  if (cp >= 0x30 && cp <= 0x39) return cp - 0x30;
  // Unicode decimal digits come in contiguous runs of ten starting at zero.
  let start = cp;
  while (start > 0 && DECIMAL.test(String.fromCodePoint(start - 1))) start -= 1;
  return (cp - start) % 10;
}

/**
 * Python's `int(text)` for base 10: surrounding whitespace, one sign, any
 * Unicode decimal digits, single underscores between digits. Returns
 * `undefined` where Python raises `ValueError`.
 */
export function pyInt(text: string): bigint | undefined {
  const body = pyStrip(text);
  const chars = Array.from(body);
  let i = 0;
  let negative = false;
  if (chars[0] === '+' || chars[0] === '-') {
    negative = chars[0] === '-';
    i = 1;
  }
  if (i >= chars.length) return undefined;
  let value = 0n;
  let lastWasDigit = false;
  for (; i < chars.length; i += 1) {
    const ch = chars[i] as string;
    if (ch === '_') {
      if (!lastWasDigit) return undefined;
      lastWasDigit = false;
      continue;
    }
    if (!DECIMAL.test(ch)) return undefined;
    value = value * 10n + BigInt(digitValue(ch));
    lastWasDigit = true;
  }
  if (!lastWasDigit) return undefined;
  return negative ? -value : value;
}

/** `sorted(set(items))`. */
export function pySortedSet(items: Iterable<string>): string[] {
  return [...new Set(items)].sort(pyCompare);
}
