// Python's string rules that services apply to input before anything else:
// which characters are whitespace, what strip() removes, how sorted() orders.

/**
 * True for a UTF-16 code unit that Python's `str.isspace()` accepts: the
 * ASCII controls TAB to CR, the separators U+001C to U+001F, space, NEL,
 * NBSP and the Unicode spaces and line separators. Every such character is
 * in the BMP, so one unit is one character. (A BOM or a zero-width space is
 * not whitespace.) The same set as core's `PY_WHITESPACE` regex class.
 */
export function isPySpaceCode(c: number): boolean {
  return (
    (c >= 0x09 && c <= 0x0d) ||
    (c >= 0x1c && c <= 0x20) ||
    c === 0x85 ||
    c === 0xa0 ||
    c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 ||
    c === 0x2029 ||
    c === 0x202f ||
    c === 0x205f ||
    c === 0x3000
  );
}

/** True for a single character Python's `str.isspace()` accepts (a BOM or zero-width space is not one). */
export function isPySpace(ch: string): boolean {
  return ch.length === 1 && isPySpaceCode(ch.charCodeAt(0));
}

// The width in UTF-16 units of the character strip() would remove at one
// end of text[start, end), or 0 when it stays: whitespace, or a code point of `chars`.
type Strippable = (text: string, start: number, end: number, fromEnd: boolean) => number;

const whitespace: Strippable = (text, start, end, fromEnd) =>
  isPySpaceCode(text.charCodeAt(fromEnd ? end - 1 : start)) ? 1 : 0;

function charSet(chars: string): Strippable {
  const set = new Set<number>();
  for (const ch of chars) set.add(ch.codePointAt(0) as number);
  return (text, start, end, fromEnd) => {
    // Python strings are code points: a surrogate pair is one character.
    let cp = text.charCodeAt(fromEnd ? end - 1 : start);
    let width = 1;
    if (fromEnd && cp >= 0xdc00 && cp <= 0xdfff && end - 2 >= start) {
      const hi = text.charCodeAt(end - 2);
      if (hi >= 0xd800 && hi <= 0xdbff) {
        cp = (hi - 0xd800) * 0x400 + (cp - 0xdc00) + 0x10000;
        width = 2;
      }
    } else if (!fromEnd && cp >= 0xd800 && cp <= 0xdbff && start + 1 < end) {
      const lo = text.charCodeAt(start + 1);
      if (lo >= 0xdc00 && lo <= 0xdfff) {
        cp = (cp - 0xd800) * 0x400 + (lo - 0xdc00) + 0x10000;
        width = 2;
      }
    }
    return set.has(cp) ? width : 0;
  };
}

function strip(text: string, chars: string | undefined, left: boolean, right: boolean): string {
  const match = chars === undefined ? whitespace : charSet(chars);
  let start = 0;
  let end = text.length;
  while (left && start < end) {
    const width = match(text, start, end, false);
    if (width === 0) break;
    start += width;
  }
  while (right && end > start) {
    const width = match(text, start, end, true);
    if (width === 0) break;
    end -= width;
  }
  return start === 0 && end === text.length ? text : text.slice(start, end);
}

/**
 * Python's `str.strip(chars=None)`: without `chars`, removes what
 * `str.isspace()` accepts from both ends; with `chars`, removes any of its
 * characters (code points, not UTF-16 units).
 *
 * @example
 * pyStrip('\u3000 5\x85'); // '5'
 * pyStrip('xxhixx', 'x'); // 'hi'
 */
export function pyStrip(text: string, chars?: string): string {
  if (chars === undefined) {
    // The common case without closures: called on every extra spec value.
    let start = 0;
    let end = text.length;
    while (start < end && isPySpaceCode(text.charCodeAt(start))) start += 1;
    while (end > start && isPySpaceCode(text.charCodeAt(end - 1))) end -= 1;
    return start === 0 && end === text.length ? text : text.slice(start, end);
  }
  return strip(text, chars, true, true);
}

/** Python's `str.lstrip(chars=None)`: {@link pyStrip} at the start only. */
export function pyLstrip(text: string, chars?: string): string {
  return strip(text, chars, true, false);
}

/** Python's `str.rstrip(chars=None)`: {@link pyStrip} at the end only. */
export function pyRstrip(text: string, chars?: string): string {
  return strip(text, chars, false, true);
}

/**
 * Python's ordering of `str` values, for `sorted()`: by code point, so
 * astral characters sort after every BMP character (JavaScript's default
 * sort compares UTF-16 units and gets that wrong).
 */
export function pyCompare(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i += 1) {
    const x = a.codePointAt(i) as number;
    const y = b.codePointAt(i) as number;
    if (x !== y) return x - y;
    if (x > 0xffff) i += 1;
  }
  return a.length - b.length;
}

/** Python's `sorted(set(items))` for strings: each once, in code point order. */
export function pySortedSet(items: Iterable<string>): string[] {
  return [...new Set(items)].sort(pyCompare);
}
