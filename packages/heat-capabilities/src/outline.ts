import { plainScalarKind } from '@stackspec/core';

// A fast, conservative reader of the top level of a YAML document.
//
// Introspection over a large template tree only needs each file's top-level
// keys, its version and its capabilities section. Building whole documents
// for that is what makes a PyYAML scan slow, so this reader walks the text
// once, tracking just enough YAML (block scalars, quoted scalars and flow
// collections that span lines) to find the lines that start a top-level key.
// Whenever it meets something it does not fully understand (directives,
// anchors or tags at the top level, complex keys, a multi-line construct
// reaching column 0, tabs in indentation, unusual line breaks) it gives up
// and the caller parses the document fully. It never judges whether the
// nested content is valid YAML; full validation is a separate step.

/** One top-level key and the text span of its entry. */
export interface OutlineKey {
  key: string;
  /** Offset of the key's first character. */
  start: number;
  /** Offset where the entry ends (the start of the next top-level line that is not part of it). */
  end: number;
  /** The value when it is a simple plain scalar written on the key's line, else `undefined`. */
  plain: string | undefined;
}

/** The top level of a document, or `undefined` when the caller must parse it fully. */
export interface Outline {
  root: 'mapping' | 'sequence' | 'empty';
  /** Keys in first-appearance order; a repeated key keeps the span of its last appearance. */
  keys: OutlineKey[];
  duplicates: string[];
  /** Set when the reader stopped early (see {@link OutlineOptions.stopAfter}): `keys` are those up to there. */
  partial?: true;
}

/** Options of {@link outlineYaml}. */
export interface OutlineOptions {
  /**
   * Stop after the first of `keys` whose value is a plain scalar on its own
   * line, when no later line could start one of `watch`, a new document, or
   * a key this reader cannot read plainly (quoted, complex, an alias or a
   * tag). A caller that needs only those keys then skips the rest.
   */
  stopAfter?: { keys: ReadonlySet<string>; watch: readonly string[] } | undefined;
}

const SPACE = 0x20;
const TAB = 0x09;
const CR = 0x0d;
const HASH = 0x23;
const DQUOTE = 0x22;
const SQUOTE = 0x27;
const BACKSLASH = 0x5c;
const LBRACKET = 0x5b;
const RBRACKET = 0x5d;
const LBRACE = 0x7b;
const RBRACE = 0x7d;
const COMMA = 0x2c;
const DASH = 0x2d;
const COLON = 0x3a;

// Characters that cannot start a plain top-level key we are willing to read.
const KEY_START_REJECT = new Set('?%&*!|>\'"[]{},@`:#-~'.split('').map((c) => c.charCodeAt(0)));
// YAML 1.1 line breaks besides LF (and CRLF), and characters PyYAML refuses: a reason to parse fully.
// biome-ignore lint/complexity/useRegexLiterals: a literal would trip the control-character rule; these characters are the point.
const UNUSUAL = new RegExp(
  '\\r(?!\\n)|[\\u0085\\u2028\\u2029\\u0000-\\u0008\\u000b\\u000c\\u000e-\\u001f\\u007f-\\u0084\\u0086-\\u009f\\ufffe\\uffff]',
);
const SIMPLE_PLAIN = /^[A-Za-z0-9_.:/+-][A-Za-z0-9_.:/+\- ]*$/;
const BLOCK_HEADER = /^[|>][-+1-9]{0,2}$/;

interface State {
  /** Pending multi-line quoted scalar: the quote character, or 0. */
  quote: number;
  /** Depth of an open flow collection. */
  flow: number;
  /** Inside a block scalar: content lines are those indented more than this; -1 when not. */
  blockParent: number;
}

// Indented or blank lines that leave the reader's state as it was: whatever
// quotes and flow collections they open also close on the same line, and they
// do not end in a block scalar header. The pattern mirrors scanLine's rules
// (a quote or bracket only opens at the start of a token, `''` and `\x` inside
// quotes), so a line it accepts is one scanLine would leave unchanged; any
// other line goes through scanLine. Letting the regex engine skip these lines
// keeps the scan fast from its first call, before the JIT has warmed up.
// Each body is written as runs of plain characters between special tokens
// (`P*(?:S P*)*`): every token starts with a character a run cannot hold, and
// lookbehinds keep the token alternatives apart, so there is one way to match
// a line, runs go through the engine's fast character loop, and a line that
// does not match fails in linear time.
const DQ = String.raw`"[^"\\\n]*(?:\\[^\n][^"\\\n]*)*"`;
const SQ = String.raw`'[^'\n]*(?:''[^'\n]*)*'(?!')`;
function flowBody(depth: number): string {
  const plain = String.raw`[^"'[\]{}#\n]*`;
  const nested = depth > 0 ? String.raw`|[[{]${flowBody(depth - 1)}[\]}]` : '';
  return String.raw`${plain}(?:(?:(?<![ \t[{,])["'#]|(?<=[ \t[{,])(?:${DQ}|${SQ})${nested})${plain})*`;
}
const PLAIN = String.raw`[^"'[\]{}#\n]*`;
const LINE_BODY = String.raw`${PLAIN}(?:(?:[\]}]|(?<![ \t])["'#[{]|(?<=[ \t])(?:${DQ}|${SQ})|(?<=[ \t])[[{]${flowBody(2)}[\]}])${PLAIN})*`;
const LINE_COMMENT = String.raw`(?:(?<=[ \t])#[^\n]*)?`;
// After a line's content (before its comment): not a block scalar header as the last token.
const NOT_HEADER_BEFORE = String.raw`(?<![ \t][|>][-+1-9]{0,2}[ \t]*\r?)`;
const QUIET_LINES = new RegExp(
  String.raw`(?:[ \t]*\r?\n|[ ]+(?![ \t])${LINE_BODY}${NOT_HEADER_BEFORE}${LINE_COMMENT}\n)*`,
  'y',
);
const BLANK_LINES = /(?:[ \t]*\r?\n)*/y;
const FLOW_VALUE = new RegExp(String.raw`^[[{]${flowBody(2)}[\]}]$`);
// Lines inside a block scalar whose owner sits at column `parent`: blank, or indented deeper.
const BLOCK_CONTENT: RegExp[] = [];
function blockContent(parent: number): RegExp {
  let re = BLOCK_CONTENT[parent];
  if (!re) {
    re = new RegExp(String.raw`(?:[ ]{${parent + 1}}[^\n]*\n|[ \t]*\r?\n)*`, 'y');
    BLOCK_CONTENT[parent] = re;
  }
  return re;
}
// Characters that matter on an indented line; everything else is skipped by the regex engine.
const BORING = /[^"'[\]{}|>#\n]*/y;

/**
 * Scans `text[from, to)` (one line's content) for quotes, flow brackets,
 * comments and a trailing block-scalar header, updating `state`.
 */
function scanLine(text: string, from: number, to: number, lineIndent: number, state: State): void {
  let i = from;
  let blockChar = false;
  let contentEnd = to;
  while (i < to) {
    if (state.quote !== 0) {
      if (state.quote === DQUOTE) {
        while (i < to) {
          const c = text.charCodeAt(i);
          if (c === BACKSLASH) i += 2;
          else if (c === DQUOTE) {
            state.quote = 0;
            i += 1;
            break;
          } else i += 1;
        }
      } else {
        while (i < to) {
          const c = text.charCodeAt(i);
          if (c === SQUOTE) {
            if (text.charCodeAt(i + 1) === SQUOTE) i += 2;
            else {
              state.quote = 0;
              i += 1;
              break;
            }
          } else i += 1;
        }
      }
      continue;
    }
    BORING.lastIndex = i;
    BORING.test(text);
    const j = BORING.lastIndex;
    if (j >= to) break;
    const c = text.charCodeAt(j);
    const prev = j > from ? text.charCodeAt(j - 1) : SPACE;
    const tokenStart =
      prev === SPACE ||
      prev === TAB ||
      (state.flow > 0 && (prev === LBRACKET || prev === LBRACE || prev === COMMA));
    i = j + 1;
    if (c === HASH) {
      if (tokenStart) {
        contentEnd = j;
        break;
      }
    } else if (c === DQUOTE || c === SQUOTE) {
      if (tokenStart) state.quote = c;
    } else if (c === LBRACKET || c === LBRACE) {
      if (tokenStart || state.flow > 0) state.flow += 1;
    } else if (c === RBRACKET || c === RBRACE) {
      if (state.flow > 0) state.flow -= 1;
    } else {
      blockChar = true;
    }
  }
  if (blockChar && state.quote === 0 && state.flow === 0) {
    // A block scalar header is the last token on its line.
    let e = contentEnd;
    while (e > from && (text.charCodeAt(e - 1) === SPACE || text.charCodeAt(e - 1) === TAB)) e -= 1;
    let b = e;
    while (b > from && text.charCodeAt(b - 1) !== SPACE && text.charCodeAt(b - 1) !== TAB) b -= 1;
    const first = text.charCodeAt(b);
    if ((first === 0x7c || first === 0x3e) && BLOCK_HEADER.test(text.slice(b, e))) {
      state.blockParent = parentIndent(text, from, b, lineIndent);
    }
  }
}

/** Indentation a block scalar's content must exceed: the column of the key (or dash) that owns it. */
function parentIndent(text: string, lineFrom: number, header: number, lineIndent: number): number {
  // Walk "- " prefixes; the owner is the last key start before the header.
  let p = lineFrom;
  let owner = lineIndent;
  while (p < header && text.charCodeAt(p) === DASH && text.charCodeAt(p + 1) === SPACE) {
    owner = p - (lineFrom - lineIndent);
    p += 2;
    while (p < header && text.charCodeAt(p) === SPACE) p += 1;
  }
  if (p < header) owner = p - (lineFrom - lineIndent);
  return owner;
}

// Top-level keys repeat across a tree (heat_template_version, resources…): judge each spelling once.
const KEY_SHAPE = /^[A-Za-z_][A-Za-z0-9_:.\-/]*$/;
const TEXT_KEYS = new Map<string, boolean>();
function isPlainTextKey(key: string): boolean {
  let ok = TEXT_KEYS.get(key);
  if (ok === undefined) {
    ok = KEY_SHAPE.test(key) && plainScalarKind(key) === 'string';
    if (TEXT_KEYS.size < 4096) TEXT_KEYS.set(key, ok);
  }
  return ok;
}

/** Whether the quiet-line pattern takes `line` (one indented line, without its break) whole. For tests. */
export function isQuietLine(line: string): boolean {
  QUIET_LINES.lastIndex = 0;
  QUIET_LINES.test(`${line}\n`);
  return QUIET_LINES.lastIndex === line.length + 1;
}

/** The state scanLine leaves after one indented line read from a clean state. For tests. */
export function stateAfterLine(line: string): { quote: number; flow: number; blockParent: number } {
  const state: State = { quote: 0, flow: 0, blockParent: -1 };
  let p = 0;
  while (line.charCodeAt(p) === SPACE) p += 1;
  scanLine(line, p, line.length, p, state);
  return state;
}

/**
 * Reads the top level of a YAML document without building it. Returns
 * `undefined` whenever a full parse is needed to be sure.
 */
export function outlineYaml(source: string, options: OutlineOptions = {}): Outline | undefined {
  const text = source.charCodeAt(0) === 0xfeff ? source.slice(1) : source;
  if (UNUSUAL.test(text)) return undefined;
  const stop = options.stopAfter;
  const later = stop ? laterPattern(stop.watch) : undefined;
  const offset = source.length - text.length;
  const keys: OutlineKey[] = [];
  const index = new Map<string, number>();
  const duplicates: string[] = [];
  const state: State = { quote: 0, flow: 0, blockParent: -1 };
  let root: Outline['root'] = 'empty';
  let current: OutlineKey | undefined;
  let currentBlockValue = false;
  let sawContent = false;
  let afterEmptyFlow = false;
  let pos = 0;
  const n = text.length;
  let first = true;
  while (pos < n || (pos === n && first)) {
    first = false;
    if (state.blockParent >= 0) {
      const skip = blockContent(state.blockParent);
      skip.lastIndex = pos;
      skip.test(text);
      pos = skip.lastIndex;
      if (pos >= n) break;
    } else if (
      (current || (root === 'sequence' && !afterEmptyFlow)) &&
      state.quote === 0 &&
      state.flow === 0
    ) {
      QUIET_LINES.lastIndex = pos;
      QUIET_LINES.test(text);
      pos = QUIET_LINES.lastIndex;
      if (pos >= n) break;
    }
    let eol = text.indexOf('\n', pos);
    if (eol < 0) eol = n;
    let end = eol;
    if (end > pos && text.charCodeAt(end - 1) === CR) end -= 1;
    let p = pos;
    while (p < end && text.charCodeAt(p) === SPACE) p += 1;
    const indent = p - pos;
    const blank = p === end || (text.charCodeAt(p) === TAB && /^[ \t]*$/.test(text.slice(p, end)));
    if (state.blockParent >= 0) {
      if (blank || indent > state.blockParent) {
        pos = eol + 1;
        continue;
      }
      state.blockParent = -1;
    }
    if (state.quote !== 0 || state.flow > 0) {
      // A multi-line scalar or flow collection continues; column 0 would need the full rules.
      if (indent === 0 && !blank) return undefined;
      scanLine(text, p, end, indent, state);
      pos = eol + 1;
      continue;
    }
    if (blank) {
      pos = eol + 1;
      continue;
    }
    const c = text.charCodeAt(p);
    if (c === HASH) {
      pos = eol + 1;
      continue;
    }
    if (afterEmptyFlow) return undefined;
    if (indent > 0) {
      if (c === TAB) return undefined;
      if (!current && root !== 'sequence') return undefined;
      scanLine(text, p, end, indent, state);
      pos = eol + 1;
      continue;
    }
    if (c === TAB) return undefined;
    // Column 0.
    if (c === DASH && text.charCodeAt(p + 1) === DASH && text.charCodeAt(p + 2) === DASH) {
      const rest = text.slice(p + 3, end).trim();
      if (sawContent || (rest !== '' && !rest.startsWith('#'))) return undefined;
      sawContent = true;
      pos = eol + 1;
      continue;
    }
    if (c === DASH && (p + 1 === end || text.charCodeAt(p + 1) === SPACE)) {
      if (root === 'empty' && !current) {
        root = 'sequence';
        sawContent = true;
        scanLine(text, p + 1, end, 0, state);
        pos = eol + 1;
        continue;
      }
      if (root === 'sequence') {
        scanLine(text, p + 1, end, 0, state);
        pos = eol + 1;
        continue;
      }
      // A block sequence may sit at the key's own indentation as its value.
      if (current && currentBlockValue) {
        scanLine(text, p + 1, end, 0, state);
        pos = eol + 1;
        continue;
      }
      return undefined;
    }
    if (!sawContent && (c === LBRACKET || c === LBRACE)) {
      // An empty flow collection as the whole document (`[]`, `{}`), as data files often hold.
      const rest = text
        .slice(p, end)
        .replace(/\s+#.*$/, '')
        .trim();
      if (rest === '[]' || rest === '{}') {
        root = rest === '[]' ? 'sequence' : 'mapping';
        sawContent = true;
        afterEmptyFlow = true;
        pos = eol + 1;
        continue;
      }
    }
    if (root === 'sequence' || afterEmptyFlow || KEY_START_REJECT.has(c)) return undefined;
    // A plain key: up to the first ':' followed by a space or the end of the line.
    let colon = -1;
    for (let q = p; q < end; q += 1) {
      const ch = text.charCodeAt(q);
      if (ch === COLON) {
        const next = q + 1 < end ? text.charCodeAt(q + 1) : SPACE;
        if (next === SPACE || next === TAB) {
          colon = q;
          break;
        }
      } else if (ch === HASH && q > p) {
        const prev = text.charCodeAt(q - 1);
        if (prev === SPACE || prev === TAB) return undefined;
      }
    }
    if (colon < 0) return undefined;
    const key = text.slice(p, colon).trimEnd();
    if (!isPlainTextKey(key)) return undefined;
    root = 'mapping';
    sawContent = true;
    if (current) current.end = pos + offset;
    // The value on the key's line.
    let v = colon + 1;
    while (v < end && (text.charCodeAt(v) === SPACE || text.charCodeAt(v) === TAB)) v += 1;
    let plain: string | undefined;
    currentBlockValue = false;
    if (v === end || text.charCodeAt(v) === HASH) {
      currentBlockValue = true;
    } else {
      const vc = text.charCodeAt(v);
      if (
        vc === 0x26 ||
        vc === 0x2a ||
        vc === 0x21 ||
        vc === 0x25 ||
        vc === 0x40 ||
        vc === 0x60 ||
        vc === 0x3f
      ) {
        return undefined;
      }
      let valueEnd = end;
      for (let q = v + 1; q < end; q += 1) {
        if (text.charCodeAt(q) === HASH) {
          const prev = text.charCodeAt(q - 1);
          if (prev === SPACE || prev === TAB) {
            valueEnd = q;
            break;
          }
        }
      }
      const raw = text.slice(v, valueEnd).trimEnd();
      if (SIMPLE_PLAIN.test(raw) && !raw.includes(': ') && !raw.endsWith(':')) {
        plain = raw;
      } else if (
        vc !== DQUOTE &&
        vc !== SQUOTE &&
        vc !== LBRACKET &&
        vc !== LBRACE &&
        vc !== 0x7c &&
        vc !== 0x3e
      ) {
        // Any other plain value: a ': ' inside would be a syntax error PyYAML reports.
        if (raw.includes(': ') || raw.endsWith(':')) return undefined;
      }
      scanLine(text, v, end, 0, state);
      // A flow collection closed on its line must end the value there: PyYAML refuses `{}: x`,
      // which the parser in core would read as another key; leave such lines to the full parse.
      if ((vc === LBRACKET || vc === LBRACE) && state.flow === 0 && !FLOW_VALUE.test(raw)) return undefined;
      if (plain !== undefined) {
        // An indented line after it (blank lines aside) may continue the scalar: leave that to the parser.
        BLANK_LINES.lastIndex = eol + 1;
        BLANK_LINES.test(text);
        const next = text.charCodeAt(BLANK_LINES.lastIndex);
        if (next === SPACE || next === TAB) plain = undefined;
      }
    }
    const entry: OutlineKey = { key, start: p + offset, end: n + offset, plain };
    const seen = index.get(key);
    if (seen !== undefined) {
      duplicates.push(key);
      keys[seen] = entry;
    } else {
      index.set(key, keys.length);
      keys.push(entry);
    }
    current = entry;
    pos = eol + 1;
    if (later && stop?.keys.has(key) && plain !== undefined && state.quote === 0 && state.flow === 0) {
      later.lastIndex = pos;
      if (!later.test(text)) return { root, keys, duplicates, partial: true };
    }
  }
  if (state.quote !== 0 || state.flow > 0) return undefined;
  return { root, keys, duplicates };
}

const LATER = new Map<string, RegExp>();
/** A line further on that could still matter to a caller stopping early. */
function laterPattern(watch: readonly string[]): RegExp {
  const id = watch.join('\n');
  let re = LATER.get(id);
  if (!re) {
    const names = watch.map((k) => k.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|');
    re = new RegExp(String.raw`^(?:[?"'*&!]|(?:${names})[ \t]*:|(?:---|\.\.\.)(?:[ \t]|\r?$))`, 'gm');
    LATER.set(id, re);
  }
  return re;
}
