// Small helpers that reproduce how Python (and therefore Placement) reads text,
// so our 400s fire on exactly the inputs Placement rejects.

// Characters str.strip() removes by default (str.isspace() in CPython).
const PY_SPACE =
  ' \t\n\r\x0b\x0c\x1c\x1d\x1e\x1f\x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000';

function isPySpace(ch: string): boolean {
  return PY_SPACE.includes(ch);
}

/** Python's `str.strip()` with no argument. */
export function pyStrip(text: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && isPySpace(text.charAt(start))) start += 1;
  while (end > start && isPySpace(text.charAt(end - 1))) end -= 1;
  return text.slice(start, end);
}

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

const NON_PRINTABLE = /[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}]|[^\P{Zs} ]/u;

/** Python's `repr()` of a `str`, used where Placement formats lists into messages. */
export function pyRepr(text: string): string {
  const quote = text.includes("'") && !text.includes('"') ? '"' : "'";
  let out = quote;
  for (const ch of text) {
    const cp = ch.codePointAt(0) ?? 0;
    if (ch === quote || ch === '\\') out += `\\${ch}`;
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (cp < 0x20 || cp === 0x7f) out += `\\x${cp.toString(16).padStart(2, '0')}`;
    else if (NON_PRINTABLE.test(ch)) {
      if (cp <= 0xff) out += `\\x${cp.toString(16).padStart(2, '0')}`;
      else if (cp <= 0xffff) out += `\\u${cp.toString(16).padStart(4, '0')}`;
      else out += `\\U${cp.toString(16).padStart(8, '0')}`;
    } else out += ch;
  }
  return out + quote;
}

/** Python's `repr()` of a list of strings: `['a', 'b']`. */
export function pyListRepr(items: readonly string[]): string {
  return `[${items.map(pyRepr).join(', ')}]`;
}

/**
 * Whether a regular expression anchored with Python's `$` matches: Python's
 * `$` also matches just before one trailing newline, so `resources1\n`
 * passes `^resources([1-9][0-9]*)?$`. Returns the text without that newline.
 */
export function pyDollarBody(text: string): string {
  return text.endsWith('\n') ? text.slice(0, -1) : text;
}

/** Python's ordering of `str` values (by code point), for `sorted()`. */
export function pyCompare(a: string, b: string): number {
  const ca = Array.from(a);
  const cb = Array.from(b);
  for (let i = 0; i < Math.min(ca.length, cb.length); i += 1) {
    const d = (ca[i]?.codePointAt(0) ?? 0) - (cb[i]?.codePointAt(0) ?? 0);
    if (d) return d;
  }
  return ca.length - cb.length;
}

/** `sorted(set(items))`. */
export function pySortedSet(items: Iterable<string>): string[] {
  return [...new Set(items)].sort(pyCompare);
}

/**
 * Python's `text.split(None, 1)`: the first whitespace-separated word and
 * the rest (leading whitespace removed), or just the word.
 */
export function pySplitOnce(text: string): string[] {
  let i = 0;
  while (i < text.length && isPySpace(text.charAt(i))) i += 1;
  let j = i;
  while (j < text.length && !isPySpace(text.charAt(j))) j += 1;
  if (i === j) return [];
  let k = j;
  while (k < text.length && isPySpace(text.charAt(k))) k += 1;
  return k < text.length ? [text.slice(i, j), text.slice(k)] : [text.slice(i, j)];
}
