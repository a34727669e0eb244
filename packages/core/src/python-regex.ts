// Python's `re` syntax (str patterns, default flags) differs from
// JavaScript's in ways that change what matches: `\d`, `\w` and `\s` are
// Unicode-aware, `.` excludes only `\n`, `$` also matches before a final
// newline, and a `{` that is not a quantifier is a literal. OpenStack writes
// its patterns for Python (Nova's extra spec names, the `pattern` keywords of
// Ironic's and Placement's JSON schemas), so they are translated rather than
// handed to `new RegExp` as they are.
import { SpecError } from './errors.js';

/** Characters Python's `str.isspace()` (and so `\s`) accepts, as the body of a JavaScript character class. */
export const PY_WHITESPACE =
  '\\t\\n\\v\\f\\r\\x1c-\\x1f \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000';
const WORD = '\\p{L}\\p{N}_';
const DIGIT = '\\p{Nd}';

/** JS class bodies for Python's class escapes (inside `[...]`). */
const IN_CLASS: Record<string, string> = { d: DIGIT, w: WORD, s: PY_WHITESPACE, D: '\\P{Nd}' };
/** JS atoms for Python's class escapes (outside `[...]`). */
const ATOM: Record<string, string> = {
  d: DIGIT,
  D: '\\P{Nd}',
  w: `[${WORD}]`,
  W: `[^${WORD}]`,
  s: `[${PY_WHITESPACE}]`,
  S: `[^${PY_WHITESPACE}]`,
};
const SYNTAX = new Set(['^', '$', '\\', '.', '*', '+', '?', '(', ')', '[', ']', '{', '}', '|', '/']);
const SIMPLE_ESCAPES: Record<string, string> = {
  n: '\\n',
  t: '\\t',
  r: '\\r',
  f: '\\f',
  v: '\\v',
  a: '\\x07',
};

/**
 * A Python pattern that is malformed or uses syntax with no JavaScript
 * equivalent here (`python/bad-regex`). `index` is where in the pattern the
 * problem starts.
 */
export class PythonRegexError extends SpecError {
  readonly index: number;
  constructor(message: string, index: number) {
    super(message, { code: 'python/bad-regex' });
    this.name = 'PythonRegexError';
    this.index = index;
  }
}

function escapeLiteral(ch: string, inClass: boolean): string {
  if (SYNTAX.has(ch) || (inClass && ch === '-')) return `\\${ch}`;
  return ch;
}

function hexEscape(src: string, i: number, len: number, kind: string): { text: string; next: number } {
  const hex = src.slice(i, i + len);
  if (hex.length !== len || !/^[0-9a-fA-F]+$/.test(hex)) {
    throw new PythonRegexError(`incomplete escape \\${kind}${hex}`, i - 2);
  }
  const cp = Number.parseInt(hex, 16);
  if (cp > 0x10ffff) throw new PythonRegexError(`bad escape \\${kind}${hex}`, i - 2);
  return { text: `\\u{${cp.toString(16)}}`, next: i + len };
}

/**
 * Translates a Python regular expression into JavaScript source with the same
 * meaning under the `u` flag (never `s`, `i` or `m`). Supports what extra spec
 * patterns use: literals, `.`, classes and the `\d \w \s` families, groups
 * (capturing, `(?:…)`, `(?P<name>…)`, lookarounds), `(?P=name)`, alternation,
 * greedy and lazy quantifiers (Python's `{,n}` included), `\A`, `\Z`, `^`,
 * `$`, `\b`, `\B`, and `\x`/`\u`/`\U` escapes.
 *
 * Throws {@link PythonRegexError} for syntax that has no JavaScript
 * equivalent here (inline flags, atomic groups, possessive quantifiers,
 * conditional groups, `\N{…}`, octal escapes) and for malformed patterns.
 */
export function translatePythonRegex(source: string): string {
  let out = '';
  let i = 0;
  const n = source.length;
  let depth = 0;
  let lastWasAtom = false;
  while (i < n) {
    const ch = source[i] as string;
    if (ch === '\\') {
      const next = source[i + 1];
      if (next === undefined) throw new PythonRegexError('bad escape (end of pattern)', i);
      i += 2;
      lastWasAtom = true;
      if (next in ATOM) out += ATOM[next];
      else if (next === 'A') {
        out += '^';
        lastWasAtom = false;
      } else if (next === 'Z') {
        out += '$';
        lastWasAtom = false;
      } else if (next === 'b' || next === 'B') {
        const boundary = `(?:(?<=[${WORD}])(?![${WORD}])|(?<![${WORD}])(?=[${WORD}]))`;
        out += next === 'b' ? boundary : `(?!${boundary})`;
        lastWasAtom = false;
      } else if (next in SIMPLE_ESCAPES) out += SIMPLE_ESCAPES[next];
      else if (next === 'x') {
        const r = hexEscape(source, i, 2, 'x');
        out += r.text;
        i = r.next;
      } else if (next === 'u') {
        const r = hexEscape(source, i, 4, 'u');
        out += r.text;
        i = r.next;
      } else if (next === 'U') {
        const r = hexEscape(source, i, 8, 'U');
        out += r.text;
        i = r.next;
      } else if (next >= '1' && next <= '9') {
        let num = next;
        if (/[0-9]/.test(source[i] ?? '')) {
          num += source[i];
          i += 1;
        }
        out += `\\${num}`;
      } else if (/[0-9A-Za-z]/.test(next)) {
        throw new PythonRegexError(`unsupported escape \\${next}`, i - 2);
      } else out += escapeLiteral(next, false);
      continue;
    }
    if (ch === '[') {
      const r = translateClass(source, i);
      out += r.text;
      i = r.next;
      lastWasAtom = true;
      continue;
    }
    if (ch === '(') {
      if (source[i + 1] === '?') {
        const rest = source.slice(i + 2);
        if (rest.startsWith('P<')) {
          const m = /^P<([A-Za-z_][A-Za-z0-9_]*)>/.exec(rest);
          if (!m) throw new PythonRegexError('bad group name', i);
          out += `(?<${m[1]}>`;
          i += 2 + m[0].length;
        } else if (rest.startsWith('P=')) {
          const m = /^P=([A-Za-z_][A-Za-z0-9_]*)\)/.exec(rest);
          if (!m) throw new PythonRegexError('bad group reference', i);
          out += `\\k<${m[1]}>`;
          i += 2 + m[0].length;
          lastWasAtom = true;
          continue;
        } else if (rest.startsWith('#')) {
          const end = source.indexOf(')', i);
          if (end < 0) throw new PythonRegexError('missing ), unterminated comment', i);
          i = end + 1;
          continue;
        } else if (/^(:|=|!|<=|<!)/.test(rest)) {
          const m = /^(:|=|!|<=|<!)/.exec(rest) as RegExpExecArray;
          out += `(?${m[1]}`;
          i += 2 + (m[1] as string).length;
        } else {
          throw new PythonRegexError(`unsupported group syntax (?${rest.slice(0, 2)}`, i);
        }
      } else {
        out += '(';
        i += 1;
      }
      depth += 1;
      lastWasAtom = false;
      continue;
    }
    if (ch === ')') {
      if (depth === 0) throw new PythonRegexError('unbalanced parenthesis', i);
      depth -= 1;
      out += ')';
      i += 1;
      lastWasAtom = true;
      continue;
    }
    if (ch === '{') {
      const m = /^\{(\d*)(,(\d*))?\}/.exec(source.slice(i));
      const isQuantifier = m !== null && (m[1] !== '' || m[2] !== undefined);
      if (isQuantifier && m) {
        if (!lastWasAtom) throw new PythonRegexError('nothing to repeat', i);
        const lo = m[1] === '' ? '0' : (m[1] as string);
        const hi = m[2] === undefined ? undefined : (m[3] as string);
        if (hi !== undefined && hi !== '' && Number(hi) < Number(lo)) {
          throw new PythonRegexError('min repeat greater than max repeat', i);
        }
        out += hi === undefined ? `{${lo}}` : `{${lo},${hi}}`;
        i += m[0].length;
        i = lazySuffix(source, i, (s) => {
          out += s;
        });
        lastWasAtom = false;
        continue;
      }
      out += '\\{';
      i += 1;
      lastWasAtom = true;
      continue;
    }
    if (ch === '*' || ch === '+' || ch === '?') {
      if (!lastWasAtom) throw new PythonRegexError('nothing to repeat', i);
      out += ch;
      i += 1;
      i = lazySuffix(source, i, (s) => {
        out += s;
      });
      lastWasAtom = false;
      continue;
    }
    if (ch === '.') {
      out += '[^\\n]';
      i += 1;
      lastWasAtom = true;
      continue;
    }
    if (ch === '$') {
      // Python's `$` also matches just before a final newline.
      out += '(?=\\n?$)';
      i += 1;
      lastWasAtom = false;
      continue;
    }
    if (ch === '^' || ch === '|') {
      out += ch;
      i += 1;
      lastWasAtom = false;
      continue;
    }
    out += escapeLiteral(ch, false);
    i += ch.length;
    lastWasAtom = true;
  }
  if (depth !== 0) throw new PythonRegexError('missing ), unterminated subpattern', n);
  return out;
}

function lazySuffix(source: string, i: number, emit: (s: string) => void): number {
  if (source[i] === '?') {
    emit('?');
    return i + 1;
  }
  if (source[i] === '+') throw new PythonRegexError('possessive quantifiers are not supported', i);
  if (source[i] === '*' || source[i] === '{') {
    if (source[i] === '*' || /^\{\d*(,\d*)?\}/.test(source.slice(i))) {
      throw new PythonRegexError('multiple repeat', i);
    }
  }
  return i;
}

function translateClass(source: string, start: number): { text: string; next: number } {
  let i = start + 1;
  let out = '[';
  if (source[i] === '^') {
    out += '^';
    i += 1;
  }
  let first = true;
  while (i < source.length) {
    const ch = source[i] as string;
    if (ch === ']' && !first) return { text: `${out}]`, next: i + 1 };
    first = false;
    if (ch === '\\') {
      const next = source[i + 1];
      if (next === undefined) break;
      i += 2;
      if (next in IN_CLASS) out += IN_CLASS[next];
      else if (next === 'W' || next === 'S') {
        throw new PythonRegexError(`\\${next} inside a character class is not supported`, i - 2);
      } else if (next in SIMPLE_ESCAPES) out += SIMPLE_ESCAPES[next];
      else if (next === 'b') out += '\\x08';
      else if (next === 'x') {
        const r = hexEscape(source, i, 2, 'x');
        out += r.text;
        i = r.next;
      } else if (next === 'u') {
        const r = hexEscape(source, i, 4, 'u');
        out += r.text;
        i = r.next;
      } else if (next === 'U') {
        const r = hexEscape(source, i, 8, 'U');
        out += r.text;
        i = r.next;
      } else if (/[0-9A-Za-z]/.test(next)) {
        throw new PythonRegexError(`unsupported escape \\${next} in a character class`, i - 2);
      } else out += escapeLiteral(next, true);
      continue;
    }
    if (ch === '-') {
      // A dash is a range operator only between two single characters.
      const prev = source[i - 1];
      const after = source[i + 1];
      const atEdge = i === start + 1 || (i === start + 2 && source[start + 1] === '^') || after === ']';
      out += atEdge || prev === undefined ? '\\-' : '-';
      i += 1;
      continue;
    }
    const cp = source.codePointAt(i) as number;
    const text = String.fromCodePoint(cp);
    out += text === '[' || text === ']' || text === '\\' || text === '^' ? `\\${text}` : text;
    i += text.length;
  }
  throw new PythonRegexError('unterminated character set', start);
}

/** How a compiled pattern is applied, after Python's `re.search`, `re.match` and `re.fullmatch`. */
export type PythonRegexMode = 'search' | 'match' | 'fullmatch';

/**
 * Compiles a Python pattern into a JavaScript `RegExp` (flag `u`) whose
 * `test()` answers as Python's `re.search` (default), `re.match` (anchored
 * at the start) or `re.fullmatch` (the whole string, a final newline
 * included) would. Throws {@link PythonRegexError} as
 * {@link translatePythonRegex} does, or when the JavaScript engine rejects
 * the translation.
 *
 * @example
 * compilePythonRegex('^(/[\\w-]+)+$').test('/steps\n'); // true, as re.search finds
 * compilePythonRegex('[0-9]+', 'fullmatch').test('12'); // true
 */
export function compilePythonRegex(source: string, mode: PythonRegexMode = 'search'): RegExp {
  const js = translatePythonRegex(source);
  const wrapped = mode === 'fullmatch' ? `^(?:${js})$` : mode === 'match' ? `^(?:${js})` : js;
  try {
    return new RegExp(wrapped, 'u');
  } catch (e) {
    throw new PythonRegexError((e as Error).message, 0);
  }
}
