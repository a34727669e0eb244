// Python's `re` syntax (str patterns, default flags) differs from
// JavaScript's in ways that change what matches: `\d`, `\w` and `\s` are
// Unicode-aware, `.` excludes only `\n`, `$` also matches before a final
// newline, and a `{` that is not a quantifier is a literal. OpenStack writes
// its patterns for Python (Nova's extra spec names, the `pattern` keywords of
// Ironic's and Placement's JSON schemas), so they are translated rather than
// handed to `new RegExp` as they are. A second dialect writes a pattern that
// means the same to Python and to ECMAScript with or without the `u` flag,
// for documents other engines read (a JSON Schema's `pattern`).
import { SpecError } from './errors.js';

/** Characters Python's `str.isspace()` (and so `\s` and `str.strip()`) treats as whitespace. */
export const PY_WHITESPACE =
  '\\t\\n\\v\\f\\r\\x1c-\\x1f \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000';
const WORD = '\\p{L}\\p{N}_';
const DIGIT = '\\p{Nd}';

/**
 * How each Python construct is written in the target dialect. A missing
 * entry means the dialect cannot express the construct, and translation
 * fails with {@link PythonRegexError}.
 */
interface Dialect {
  /** Class bodies for Python's class escapes inside `[...]`. */
  inClass: Readonly<Record<string, string>>;
  /** Atoms for Python's class escapes outside `[...]`. */
  atom: Readonly<Record<string, string>>;
  /** Python's `.`. */
  dot: string;
  /** Python's `$` (end, or before a final newline). */
  end: string;
  /** Python's `\Z` (the very end). */
  absoluteEnd: string;
  /** A code point written as an escape, outside or inside a class. */
  codePoint(cp: number, inClass: boolean): string | undefined;
  /** A literal character of the pattern outside a class (`undefined`: as is). */
  literal?(ch: string): string | undefined;
  /** Wraps a translated class `[...]`, given whether it is negated and used `\d`/`\w`. */
  wrapClass?(text: string, negated: boolean, wide: boolean): string;
  /** `(?P<name>` becomes this; `undefined` refuses named groups. */
  namedGroup?(name: string): string;
  /** `(?P=name)` becomes this; `undefined` refuses it. */
  namedReference?(name: string): string;
  /** `\b` and `\B`, or `undefined`. */
  boundary?(negated: boolean): string;
}

/** JavaScript with the `u` flag, exactly Python's meaning. */
const UNICODE_DIALECT: Dialect = {
  inClass: { d: DIGIT, w: WORD, s: PY_WHITESPACE, D: '\\P{Nd}' },
  atom: {
    d: DIGIT,
    D: '\\P{Nd}',
    w: `[${WORD}]`,
    W: `[^${WORD}]`,
    s: `[${PY_WHITESPACE}]`,
    S: `[^${PY_WHITESPACE}]`,
  },
  dot: '[^\\n]',
  end: '(?=\\n?$)',
  absoluteEnd: '$',
  codePoint: (cp) => `\\u{${cp.toString(16)}}`,
  namedGroup: (name) => `(?<${name}>`,
  namedReference: (name) => `\\k<${name}>`,
  boundary: (negated) => {
    const b = `(?:(?<=[${WORD}])(?![${WORD}])|(?<![${WORD}])(?=[${WORD}]))`;
    return negated ? `(?!${b})` : b;
  },
};

function hex4(cp: number): string {
  return `\\u${cp.toString(16).padStart(4, '0')}`;
}

/** Ranges of a Unicode property within the BMP (surrogates excluded), as a class body. */
function bmpClassBody(property: RegExp): string {
  let out = '';
  let start = -1;
  for (let c = 0; c <= 0x10000; c += 1) {
    const inside = c < 0x10000 && (c < 0xd800 || c > 0xdfff) && property.test(String.fromCharCode(c));
    if (inside && start < 0) start = c;
    if (!inside && start >= 0) {
      const last = c - 1;
      const one = (x: number) => (x >= 0x30 && x <= 0x39 ? String.fromCharCode(x) : hex4(x));
      out += start === last ? one(start) : `${one(start)}-${one(last)}`;
      start = -1;
    }
  }
  return out;
}

let portableDialect: Dialect | undefined;

// Any one supplementary-plane character: a surrogate pair where strings are
// UTF-16 code units (ECMA-262 without the `u` flag), one code point above the
// BMP where they are code points (Python, ECMA-262 with `u`).
const ANY_ASTRAL = '[\\ud800-\\udbff][\\udc00-\\udfff]|[^\\u0000-\\uffff]';
// Python's \w is a letter, a digit or `_` in any script; written without
// Unicode property escapes, it is widened to every character except ASCII
// non-word characters and Python's whitespace.
const LOOSE_WORD_BODY =
  '0-9A-Za-z_\\u0080-\\u0084\\u0086-\\u009f\\u00a1-\\u167f\\u1681-\\u1fff\\u200b-\\u2027' +
  '\\u202a-\\u202e\\u2030-\\u205e\\u2060-\\u2fff\\u3001-\\uffff';

/**
 * ECMA-262 without Unicode property escapes, `\u{…}` or named groups, which
 * means the same under Python's `re`, ECMAScript with and without the `u`
 * flag: `\d` lists the BMP's decimal digits and lets any supplementary
 * character through; `\w` is widened outside ASCII; `\s` and `\S` are exact.
 */
function portable(): Dialect {
  if (portableDialect) return portableDialect;
  const digits = bmpClassBody(/\p{Nd}/u);
  const wide = (cls: string) => `(?:${cls}|${ANY_ASTRAL})`;
  portableDialect = {
    inClass: { d: digits, w: LOOSE_WORD_BODY, s: PY_WHITESPACE },
    atom: {
      d: wide(`[${digits}]`),
      D: `(?:[^${digits}]|${ANY_ASTRAL})`,
      w: wide(`[${LOOSE_WORD_BODY}]`),
      s: `[${PY_WHITESPACE}]`,
      S: `(?:[^${PY_WHITESPACE}]|${ANY_ASTRAL})`,
    },
    dot: `(?:[^\\n]|${ANY_ASTRAL})`,
    end: '(?=\\n?$(?!\\n))',
    absoluteEnd: '$(?!\\n)',
    codePoint: (cp, inClass) => {
      if (cp <= 0xffff) return hex4(cp);
      return inClass ? undefined : `(?:${String.fromCodePoint(cp)})`;
    },
    literal: (ch) => (ch.length > 1 ? `(?:${ch})` : undefined),
    wrapClass: (text, negated, wideClass) => (negated || wideClass ? `(?:${text}|${ANY_ASTRAL})` : text),
  };
  return portableDialect;
}

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
 * A Python pattern that is malformed, or uses syntax with no equivalent in
 * the target dialect (code `python/bad-regex`, in core's error family).
 * `index` is where in the pattern the problem starts.
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

function hexEscape(
  src: string,
  i: number,
  len: number,
  kind: string,
  dialect: Dialect,
  inClass: boolean,
): { text: string; next: number } {
  const hex = src.slice(i, i + len);
  if (hex.length !== len || !/^[0-9a-fA-F]+$/.test(hex)) {
    throw new PythonRegexError(`incomplete escape \\${kind}${hex}`, i - 2);
  }
  const cp = Number.parseInt(hex, 16);
  if (cp > 0x10ffff) throw new PythonRegexError(`bad escape \\${kind}${hex}`, i - 2);
  const text = dialect.codePoint(cp, inClass);
  if (text === undefined) {
    throw new PythonRegexError(`\\${kind}${hex} cannot be written in this dialect`, i - 2);
  }
  return { text, next: i + len };
}

function unsupported(what: string, index: number): never {
  throw new PythonRegexError(`${what} cannot be written portably`, index);
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
  if (typeof source !== 'string') throw new PythonRegexError('the pattern is not a string', 0);
  return translate(source, UNICODE_DIALECT);
}

/**
 * Translates a Python regular expression into a pattern with the same
 * meaning in Python's `re` and in ECMAScript with or without the `u` flag,
 * for documents other engines read (JSON Schema). Python's Unicode `\\d`
 * lets any supplementary-plane character through and `\\w` accepts every
 * non-ASCII character but whitespace (both looser than Python, never
 * stricter); everything else is exact. Throws {@link PythonRegexError} where
 * {@link translatePythonRegex} does, and for `\\W`, `\\b`, `\\B`, named
 * back references and supplementary characters inside a class.
 */
export function translatePythonRegexPortable(source: string): string {
  return translate(source, portable());
}

function translate(source: string, dialect: Dialect): string {
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
      const atom = dialect.atom[next];
      if (atom !== undefined) out += atom;
      else if ('dDwWsS'.includes(next)) unsupported(`\\${next}`, i - 2);
      else if (next === 'A') {
        out += '^';
        lastWasAtom = false;
      } else if (next === 'Z') {
        out += dialect.absoluteEnd;
        lastWasAtom = false;
      } else if (next === 'b' || next === 'B') {
        if (!dialect.boundary) unsupported(`\\${next}`, i - 2);
        out += dialect.boundary(next === 'B');
        lastWasAtom = false;
      } else if (next in SIMPLE_ESCAPES) out += SIMPLE_ESCAPES[next];
      else if (next === 'x') {
        const r = hexEscape(source, i, 2, 'x', dialect, false);
        out += r.text;
        i = r.next;
      } else if (next === 'u') {
        const r = hexEscape(source, i, 4, 'u', dialect, false);
        out += r.text;
        i = r.next;
      } else if (next === 'U') {
        const r = hexEscape(source, i, 8, 'U', dialect, false);
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
      const r = translateClass(source, i, dialect);
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
          out += dialect.namedGroup ? dialect.namedGroup(m[1] as string) : '(';
          i += 2 + m[0].length;
        } else if (rest.startsWith('P=')) {
          const m = /^P=([A-Za-z_][A-Za-z0-9_]*)\)/.exec(rest);
          if (!m) throw new PythonRegexError('bad group reference', i);
          if (!dialect.namedReference) unsupported(`(?P=${m[1]})`, i);
          out += dialect.namedReference(m[1] as string);
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
      out += dialect.dot;
      i += 1;
      lastWasAtom = true;
      continue;
    }
    if (ch === '$') {
      // Python's `$` also matches just before a final newline.
      out += dialect.end;
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
    const literal = String.fromCodePoint(source.codePointAt(i) as number);
    out += dialect.literal?.(literal) ?? escapeLiteral(literal, false);
    i += literal.length;
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

function translateClass(source: string, start: number, dialect: Dialect): { text: string; next: number } {
  let i = start + 1;
  let out = '[';
  const negated = source[i] === '^';
  let wide = false;
  if (negated) {
    out += '^';
    i += 1;
  }
  let first = true;
  while (i < source.length) {
    const ch = source[i] as string;
    if (ch === ']' && !first) {
      const text = `${out}]`;
      return { text: dialect.wrapClass ? dialect.wrapClass(text, negated, wide) : text, next: i + 1 };
    }
    first = false;
    if (ch === '\\') {
      const next = source[i + 1];
      if (next === undefined) break;
      i += 2;
      const body = dialect.inClass[next];
      if (body !== undefined) {
        out += body;
        if (next === 'd' || next === 'w') wide = true;
      } else if ('DWS'.includes(next)) {
        throw new PythonRegexError(`\\${next} inside a character class is not supported`, i - 2);
      } else if (next in SIMPLE_ESCAPES) out += SIMPLE_ESCAPES[next];
      else if (next === 'b') out += '\\x08';
      else if (next === 'x') {
        const r = hexEscape(source, i, 2, 'x', dialect, true);
        out += r.text;
        i = r.next;
      } else if (next === 'u') {
        const r = hexEscape(source, i, 4, 'u', dialect, true);
        out += r.text;
        i = r.next;
      } else if (next === 'U') {
        const r = hexEscape(source, i, 8, 'U', dialect, true);
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
    if (cp > 0xffff && dialect.codePoint(cp, true) === undefined) unsupported(`'${text}' in a class`, i);
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
