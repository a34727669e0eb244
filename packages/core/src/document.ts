import {
  type Alias,
  Composer,
  type CST,
  type Document,
  isAlias,
  isMap,
  isScalar,
  isSeq,
  LineCounter,
  type Pair,
  Parser,
  parseDocument as parseYamlDocument,
  type YAMLError,
  type YAMLMap,
  type Node as YamlNode,
} from 'yaml';
import { optionsOf, requireString } from './arguments.js';
import { createDiagnostic, type Diagnostic, type DiagnosticInit } from './diagnostic.js';
import { describeError } from './errors.js';
import { type PathSegment, validateJsonPointer } from './json-pointer.js';
import { findJsonSyntaxProblem, findJsonTooDeep } from './json-syntax.js';
import { validationErrorOf } from './result.js';
import { pyYamlTags } from './yaml-schema.js';

/** Default size limit: 10 MiB of UTF-8. */
export const DEFAULT_MAX_BYTES = 10 * 1024 * 1024;
/** Default nesting limit for mappings and sequences. */
export const DEFAULT_MAX_DEPTH = 200;
/**
 * Default bound on alias expansion: how many nodes aliases and merge keys may
 * add to a document when expanded (see {@link ParseDocumentOptions.maxAliasCount}).
 */
export const DEFAULT_MAX_ALIAS_COUNT = 1_000_000;

// The `yaml` composer recurses a few frames per level and runs out of stack a
// little under 1,000 levels (fewer when the caller is already deep), so no
// option may let the parser go past this.
const DEPTH_CEILING = 400;
// After this many problems the loader stops looking and says so in a note.
const MAX_DIAGNOSTICS = 1000;
// Compact nesting (`- - - x`) costs two characters a level, and the parser's
// tree for a line of a million of them takes gigabytes. A run this long on
// one line is refused before parsing; shorter runs are measured exactly on
// the parser's tree. (As the continuation of a plain scalar such a run would
// be text, but no real document holds a thousand of them.)
const COMPACT_RUN_GUARD = 1000;

/** What a caller may tune when loading a document. */
export interface ParseDocumentOptions {
  /** Shown in every diagnostic; also picks the format when `format` is `auto`. */
  filename?: string;
  /** `auto` (default) reads `.json` files as JSON and everything else as YAML. */
  format?: 'auto' | 'yaml' | 'json';
  /**
   * YAML dialect. `1.1` (default) resolves scalars exactly like PyYAML's
   * SafeLoader (`yes`/`on` are booleans, `010` is octal, timestamps stay
   * strings) and, like it, refuses an anchor defined twice; `1.2` uses the
   * YAML 1.2 core schema.
   */
  yamlVersion?: '1.1' | '1.2';
  /** `error` (default), `warn` (last value kept, a warning), or `ignore` (last value kept silently). */
  duplicateKeys?: 'error' | 'warn' | 'ignore';
  /** Reject larger input (UTF-8 bytes). */
  maxBytes?: number;
  /**
   * Reject deeper nesting of mappings and sequences (default 200). Values
   * above 400 count as 400: deeper documents cannot be read without risking
   * the stack.
   */
  maxDepth?: number;
  /**
   * Bound on alias expansion: how many nodes aliases and merge keys may add
   * to the document when expanded, so that a program walking the loaded
   * value visits at most the document's own nodes plus this many. The cost is
   * counted, not paid, so a "billion laughs" file is refused at once. `0`
   * forbids aliases. Default {@link DEFAULT_MAX_ALIAS_COUNT}.
   */
  maxAliasCount?: number;
}

/** A span of source text, 1-based lines and columns, end exclusive. */
export interface SourceRange {
  line: number;
  column: number;
  endLine: number;
  endColumn: number;
}

/**
 * A scalar as the source wrote it, from {@link SourceDocument.scalar}: what
 * loaders would otherwise have to re-parse out of the text, such as whether
 * `1.0` was a float or `'1'` a quoted string, or what a mapping key was
 * before it became a property name.
 */
export interface SourceScalar {
  /**
   * The scalar's text exactly as written, quotes and escapes included, tag
   * and anchor not (`1.0`, `'1'`, `"a\tb"`, `yes`, `` for an empty value);
   * a block scalar from its `|` or `>` to the end of its last line.
   */
  readonly source: string;
  /**
   * The value the loader read from it. For a mapping key, the typed value
   * before it became a property name: `1`, `true` or `null` for the keys
   * `1`, `yes` and `~`.
   */
  readonly value: unknown;
  /** The tag written on it, resolved (`tag:yaml.org,2002:str` for `!!str`); absent when none was written. */
  readonly tag?: string;
  /** Where it is. */
  readonly range: SourceRange;
}

/** A parsed document that still knows where each value came from. */
export interface SourceDocument<T = unknown> {
  readonly value: T;
  readonly file: string | undefined;
  readonly format: 'yaml' | 'json';
  /** Non-fatal findings such as duplicate keys in `warn` mode. */
  readonly warnings: Diagnostic[];
  /**
   * The source range of the value at `path` (a JSON pointer or segments), or
   * of its nearest ancestor that exists. With `key: true`, the range of the
   * mapping key instead of its value, when there is one.
   */
  locate(path: string | readonly PathSegment[], options?: { key?: boolean }): SourceRange | undefined;
  /**
   * The scalar at `path` as written (with `key: true`, the mapping key at
   * `path`), or `undefined` when `path` does not lead to a scalar. Follows
   * aliases and merge keys to where the value was written, and picks the
   * value the loaded data holds where a key is repeated. The source is
   * looked at only when this is called; documents that never call it pay
   * nothing for it.
   *
   * @example
   * const doc = parseDocument('ratio: 2.0\n1: one\n');
   * doc.value; // { ratio: 2, '1': 'one' }
   * doc.scalar('/ratio')?.source; // '2.0'
   * doc.scalar('/1', { key: true })?.value; // 1
   */
  scalar(path: string | readonly PathSegment[], options?: { key?: boolean }): SourceScalar | undefined;
  /** A diagnostic about the value at `init.path`, with file and position filled in. */
  diagnostic(init: DiagnosticInit, options?: { key?: boolean }): Diagnostic;
}

/** Outcome of {@link validateDocument}: the document, or every problem found. */
export type ValidateDocumentResult<T = unknown> =
  | { ok: true; document: SourceDocument<T>; diagnostics: Diagnostic[] }
  | { ok: false; document?: undefined; diagnostics: Diagnostic[] };

const YAML_CODES: Partial<Record<string, string>> = {
  DUPLICATE_KEY: 'yaml/duplicate-key',
  TAG_RESOLVE_FAILED: 'yaml/unsupported-tag',
  MULTIPLE_DOCS: 'yaml/multiple-documents',
  BAD_ALIAS: 'yaml/bad-alias',
  // The composer reports a stack overflow under this code (its only use).
  RESOURCE_EXHAUSTION: 'yaml/too-deep',
};

const TOO_DEEP_HINT = 'Flatten the structure, or raise maxDepth if the nesting is intended.';

interface Locator {
  root: YamlNode | null | undefined;
  lines: LineCounter;
  /** The text the node ranges point into. */
  text: string;
  /** Whether `<<` keys merge (YAML 1.1), as they did when the value was built. */
  merge: boolean;
  /** The node an alias stands for; absent where aliases cannot occur (JSON). */
  resolve?: (alias: Alias) => YamlNode | undefined;
}

function rangeOf(lines: LineCounter, start: number, end: number): SourceRange {
  const a = lines.linePos(start);
  const b = lines.linePos(Math.max(start, end));
  return { line: a.line || 1, column: a.col, endLine: b.line || 1, endColumn: b.col };
}

/** The 1-based line and column of a UTF-16 offset, for problems found before any parser ran. */
function positionAt(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let start = 0;
  for (let i = text.indexOf('\n'); i >= 0 && i < offset; i = text.indexOf('\n', i + 1)) {
    line += 1;
    start = i + 1;
  }
  return { line, column: offset - start + 1 };
}

function locatedAt(text: string, offset: number, file: string | undefined, init: DiagnosticInit): Diagnostic {
  const { line, column } = positionAt(text, offset);
  return createDiagnostic({
    ...(file ? { file } : {}),
    line,
    column,
    endLine: line,
    endColumn: column + 1,
    ...init,
  });
}

function keyText(node: unknown): string | undefined {
  if (isScalar(node)) {
    const v = node.value;
    return v === null ? 'null' : String(v);
  }
  return undefined;
}

function nodeAt(locator: Locator, segments: readonly string[], key: boolean): YamlNode | undefined {
  let node: unknown = locator.root;
  let last: unknown = node;
  for (let i = 0; i < segments.length; i += 1) {
    const segment = segments[i] as string;
    if (isAlias(node)) break;
    if (isMap(node)) {
      const pair = node.items.find((p) => keyText(p.key) === segment);
      if (!pair) break;
      if (key && i === segments.length - 1 && pair.key) return pair.key as YamlNode;
      node = pair.value ?? pair.key;
    } else if (isSeq(node)) {
      const item = /^(0|[1-9][0-9]*)$/.test(segment) ? node.items[Number(segment)] : undefined;
      if (item === undefined) break;
      node = item;
    } else {
      break;
    }
    last = node;
  }
  return (last ?? undefined) as YamlNode | undefined;
}

/** The node an alias stands for, or the node itself. */
function deref(locator: Locator, node: unknown): unknown {
  return isAlias(node) ? locator.resolve?.(node) : node;
}

/** The property name a key becomes in the loaded value (as the value builder names it). */
function propertyName(locator: Locator, key: unknown): string | undefined {
  const node = deref(locator, key);
  if (key === null || key === undefined) return '';
  if (!isScalar(node)) return undefined;
  return node.value === null ? '' : String(node.value);
}

/**
 * The pair that holds the value of property `name` in the loaded mapping:
 * the mapping's own last pair of that name, else (YAML 1.1) the one its
 * merge keys bring in, with the value builder's precedence (a later `<<`
 * over an earlier one, an earlier source in a `<<` list over a later one).
 * The loader has bounded how far merges expand, so this search is bounded too.
 */
function findPair(locator: Locator, map: YAMLMap, name: string): Pair | undefined {
  let own: Pair | undefined;
  const merges: Pair[] = [];
  for (const pair of map.items) {
    if (locator.merge && isMergeKey(pair.key)) merges.push(pair);
    else if (propertyName(locator, pair.key) === name) own = pair;
  }
  if (own) return own;
  for (let i = merges.length - 1; i >= 0; i -= 1) {
    const target = deref(locator, (merges[i] as Pair).value);
    for (const source of isSeq(target) ? target.items : [target]) {
      const m = deref(locator, source);
      const found = isMap(m) ? findPair(locator, m, name) : undefined;
      if (found) return found;
    }
  }
  return undefined;
}

function scalarAt(locator: Locator, segments: readonly string[], key: boolean): YamlNode | undefined {
  let node = deref(locator, locator.root);
  for (let i = 0; i < segments.length; i += 1) {
    const segment = segments[i] as string;
    const last = i === segments.length - 1;
    if (isMap(node)) {
      const pair = findPair(locator, node, segment);
      if (!pair) return undefined;
      node = deref(locator, key && last ? pair.key : pair.value);
    } else if (isSeq(node) && !(key && last)) {
      const item = /^(0|[1-9][0-9]*)$/.test(segment) ? node.items[Number(segment)] : undefined;
      node = deref(locator, item);
    } else return undefined;
  }
  return isScalar(node) ? (node as YamlNode) : undefined;
}

class LocatedDocument<T> implements SourceDocument<T> {
  readonly warnings: Diagnostic[];
  #locator: (() => Locator | undefined) | undefined;
  #cached: Locator | undefined;

  constructor(
    readonly value: T,
    readonly file: string | undefined,
    readonly format: 'yaml' | 'json',
    locator: () => Locator | undefined,
    warnings: Diagnostic[],
  ) {
    this.#locator = locator;
    this.warnings = warnings;
  }

  #structure(): Locator | undefined {
    if (this.#locator) {
      this.#cached = this.#locator();
      this.#locator = undefined;
    }
    return this.#cached;
  }

  locate(path: string | readonly PathSegment[], options: { key?: boolean } = {}): SourceRange | undefined {
    const segments = typeof path === 'string' ? validateJsonPointer(path).value : path.map(String);
    if (!segments) return undefined;
    const locator = this.#structure();
    if (!locator) return undefined;
    const node = nodeAt(locator, segments, options.key === true);
    if (!node?.range) return undefined;
    return rangeOf(locator.lines, node.range[0], node.range[1]);
  }

  scalar(path: string | readonly PathSegment[], options: { key?: boolean } = {}): SourceScalar | undefined {
    const segments = typeof path === 'string' ? validateJsonPointer(path).value : path.map(String);
    if (!segments || (options.key === true && segments.length === 0)) return undefined;
    const locator = this.#structure();
    if (!locator) return undefined;
    const node = scalarAt(locator, segments, options.key === true);
    if (!node?.range || !isScalar(node)) return undefined;
    const [start, end] = node.range;
    return {
      source: locator.text.slice(start, end),
      value: node.value,
      ...(node.tag ? { tag: node.tag } : {}),
      range: rangeOf(locator.lines, start, end),
    };
  }

  diagnostic(init: DiagnosticInit, options: { key?: boolean } = {}): Diagnostic {
    const range = this.locate(init.path ?? '', options);
    return createDiagnostic({ ...(this.file ? { file: this.file } : {}), ...range, ...init });
  }
}

function pickFormat(options: ParseDocumentOptions): 'yaml' | 'json' {
  if (options.format && options.format !== 'auto') return options.format;
  return options.filename && /\.json$/i.test(options.filename) ? 'json' : 'yaml';
}

/**
 * Where the UTF-8 encoding of `text` first passes `max` bytes (the offset of
 * that character) and its full length, or `undefined` when it fits.
 */
function sizeOverflow(text: string, max: number): { offset: number; bytes: number } | undefined {
  // Cheap bound first: a UTF-16 unit is at most 3 UTF-8 bytes.
  if (text.length * 3 <= max) return undefined;
  let bytes = 0;
  let offset = -1;
  for (let i = 0; i < text.length; i += 1) {
    const start = i;
    const c = text.charCodeAt(i);
    if (c < 0x80) bytes += 1;
    else if (c < 0x800) bytes += 2;
    else if (c >= 0xd800 && c <= 0xdbff && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      bytes += 4;
      i += 1;
    } else bytes += 3; // a lone surrogate is written as U+FFFD
    if (offset < 0 && bytes > max) offset = start;
  }
  return offset < 0 ? undefined : { offset, bytes };
}

/**
 * The offset where nesting first passes `maxDepth`, found in one pass that
 * needs no parser: flow brackets outside quotes, comments, plain text and
 * block scalars, and very long runs of compact block
 * indicators (`- - - x`). Block nesting spread over lines is left to
 * {@link scanCst}, which is exact.
 */
function textNestingExceeds(text: string, maxDepth: number): number | undefined {
  // Most documents hold too few brackets and indicators to reach either limit.
  let brackets = 0;
  let indicators = 0;
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    if (c === 0x5b || c === 0x7b) brackets += 1;
    else if (c === 0x2d || c === 0x3f) indicators += 1;
  }
  if (brackets <= maxDepth && indicators <= COMPACT_RUN_GUARD) return undefined;
  let depth = 0;
  let quote = '';
  let plain = false;
  let lineIndent = 0;
  let lineStart = true;
  for (let i = 0; i < text.length; i += 1) {
    const c = text[i] as string;
    if (quote) {
      if (c === '\\' && quote === '"') i += 1;
      else if (c === quote) {
        if (quote === "'" && text[i + 1] === "'") i += 1;
        else quote = '';
      }
      continue;
    }
    if (c === '\n') {
      plain = false;
      lineStart = true;
      lineIndent = 0;
      while (text[i + 1 + lineIndent] === ' ') lineIndent += 1;
      continue;
    }
    if (c === ' ' || c === '\t' || c === '\r') {
      plain = false;
      continue;
    }
    if (lineStart && depth === 0 && (c === '-' || c === '?')) {
      let run = 0;
      let at = -1;
      for (let j = i; (text[j] === '-' || text[j] === '?') && ' \t\r\n'.includes(text[j + 1] ?? '\n'); ) {
        run += 1;
        if (run === maxDepth + 1) at = j;
        j += 1;
        while (text[j] === ' ' || text[j] === '\t') j += 1;
      }
      if (run > COMPACT_RUN_GUARD) return at;
    }
    lineStart = false;
    // Inside a plain scalar only flow indicators in flow context end it.
    if (plain && (depth === 0 || !',[]{}'.includes(c))) continue;
    plain = false;
    if (c === '"' || c === "'") quote = c;
    else if (c === '#') {
      const nl = text.indexOf('\n', i);
      i = nl < 0 ? text.length : nl - 1;
    } else if (c === '[' || c === '{') {
      depth += 1;
      if (depth > maxDepth) return i;
    } else if (c === ']' || c === '}') {
      if (depth > 0) depth -= 1;
    } else if ((c === '|' || c === '>') && depth === 0) {
      // A block scalar: skip its more-indented (or blank) lines, which are plain text.
      let next = text.indexOf('\n', i);
      while (next >= 0) {
        let indent = 0;
        while (text[next + 1 + indent] === ' ') indent += 1;
        const ch = text[next + 1 + indent];
        if (ch !== undefined && ch !== '\n' && ch !== '\r' && indent <= lineIndent) break;
        next = text.indexOf('\n', next + 1);
      }
      i = next < 0 ? text.length : next - 1;
    } else if (
      c !== ',' &&
      !((c === '-' || c === '?' || c === ':') && ' \t\r\n'.includes(text[i + 1] ?? ' '))
    ) {
      plain = true;
    }
  }
  return undefined;
}

/** A pair in the parser's tree that PyYAML would refuse (see {@link pairProblem}). */
interface PairProblem {
  offset: number;
  kind: 'keyless' | 'after-key' | 'misaligned-value' | 'flow-key-indicator' | 'flow-question';
  /** The column of the keys of the block mapping holding the pair; absent in flow collections. */
  indent?: number;
  /** Whether the parser gave the pair's (empty) key an anchor or a tag of its own. */
  keyProperties?: boolean;
}

/** What one walk over the parser's token tree found. */
interface CstFindings {
  /** The offset of the first collection nested deeper than the limit. */
  deep?: number;
  pairs: PairProblem[];
}

type CstItem = {
  start: CST.SourceToken[];
  key?: CST.Token | null;
  sep?: CST.SourceToken[];
  value?: CST.Token;
};

const isProperty = (t: CST.SourceToken) => t.type === 'anchor' || t.type === 'tag';

/**
 * Shapes the `yaml` parser accepts and PyYAML does not:
 * - a `:` with neither a key nor a `?` before it, read as a pair with an
 *   empty key (after a flow collection on the same line, `a: {}: x` even
 *   becomes two pairs);
 * - text right after an explicit key (`? "q"a`), kept as a value without
 *   any `:`, which the composer then drops;
 * - the `:` of an explicit key on a line of its own but not in the column of
 *   its `?`;
 * - a `?` in plain text inside a flow collection: PyYAML reads one in front
 *   as an explicit key (`[?x]` is `[{x: null}]`) and fails on one further in.
 */
function pairProblem(item: CstItem, blockIndent: number | undefined, text: string): PairProblem | undefined {
  const valueIndicator = item.sep?.find((t) => t.type === 'map-value-ind');
  const explicit = item.start.some((t) => t.type === 'explicit-key-ind');
  if (!item.key && valueIndicator && !explicit) {
    return {
      offset: valueIndicator.offset,
      kind: 'keyless',
      ...(blockIndent === undefined ? {} : { indent: blockIndent }),
      keyProperties: item.start.some(isProperty),
    };
  }
  if (blockIndent === undefined) {
    // PyYAML ends plain text at a '?' in a flow collection and reads one in front as an explicit key.
    for (const node of [item.key, item.value]) {
      const at = node?.type === 'scalar' ? node.source.indexOf('?') : -1;
      if (node && at >= 0)
        return { offset: node.offset + at, kind: at ? 'flow-question' : 'flow-key-indicator' };
    }
    return undefined;
  }
  if (!valueIndicator) {
    const stray = item.value ?? item.sep?.find(isProperty);
    return stray ? { offset: stray.offset, kind: 'after-key' } : undefined;
  }
  if (explicit) {
    // The ':' counts as on a line of its own when only anchors and tags stand before it.
    const lineStart = text.lastIndexOf('\n', valueIndicator.offset - 1) + 1;
    const lead = /^([ \t]*)(?:[&!][^ \t]*[ \t]+)*$/.exec(text.slice(lineStart, valueIndicator.offset));
    if (lead && (lead[1] as string).length !== blockIndent) {
      return { offset: valueIndicator.offset, kind: 'misaligned-value', indent: blockIndent };
    }
  }
  return undefined;
}

/**
 * Walks the parser's token tree once, without recursion: finds the first
 * collection nested deeper than `maxDepth` and, when `pyYaml` is set, every
 * pair PyYAML would refuse (up to the diagnostics limit), in document order.
 */
function scanCst(text: string, tokens: readonly CST.Token[], maxDepth: number, pyYaml: boolean): CstFindings {
  const found: CstFindings = { pairs: [] };
  const stack: [CST.Token, number][] = [];
  for (let i = tokens.length - 1; i >= 0; i -= 1) stack.push([tokens[i] as CST.Token, 0]);
  while (stack.length) {
    const [token, depth] = stack.pop() as [CST.Token, number];
    if (token.type === 'document') {
      if (token.value) stack.push([token.value, depth]);
    } else if (token.type === 'block-map' || token.type === 'block-seq' || token.type === 'flow-collection') {
      if (depth + 1 > maxDepth) return { ...found, deep: token.offset };
      const items = token.items as CstItem[];
      const check = pyYaml && token.type !== 'block-seq';
      const indent = token.type === 'block-map' ? token.indent : undefined;
      for (let j = items.length - 1; j >= 0; j -= 1) {
        const item = items[j] as CstItem;
        if (check && found.pairs.length < MAX_DIAGNOSTICS) {
          const problem = pairProblem(item, indent, text);
          if (problem) found.pairs.push(problem);
        }
        if (item.value) stack.push([item.value, depth + 1]);
        if (item.key) stack.push([item.key, depth + 1]);
      }
    }
  }
  found.pairs.sort((a, b) => a.offset - b.offset);
  return found;
}

/**
 * The diagnostic for a pair PyYAML refuses, or `undefined` when anchors or
 * tags of its own stand right before a keyless `:`: then the key is an empty
 * node carrying them, which PyYAML accepts where a key may start.
 */
function pairDiagnostic(
  text: string,
  problem: PairProblem,
  file: string | undefined,
): Diagnostic | undefined {
  const at = (init: { message: string; hint: string }) =>
    locatedAt(text, problem.offset, file, { code: 'yaml/syntax', ...init });
  if (problem.kind === 'after-key') {
    return at({
      message: "This text follows the key directly; a ':' was expected between the key and its value.",
      hint: "Write ': ' before the value, or quote the whole key.",
    });
  }
  if (problem.kind === 'flow-key-indicator') {
    return at({
      message: "Inside a flow collection PyYAML reads this '?' as the start of an explicit key, not as text.",
      hint: "Quote the text, or put a space after the '?' if it starts a key.",
    });
  }
  if (problem.kind === 'flow-question') {
    return at({
      message: "Inside a flow collection PyYAML ends plain text at a '?', so this text cannot be read.",
      hint: 'Quote the text.',
    });
  }
  if (problem.kind === 'misaligned-value') {
    return at({
      message: `This ':' is not in the column of its '?' (column ${(problem.indent ?? 0) + 1}).`,
      hint: "Align the ':' with the '?' of its key.",
    });
  }
  const blank = (i: number) => text[i] === ' ' || text[i] === '\t';
  let before = problem.offset - 1;
  let property = -1;
  for (;;) {
    while (before >= 0 && blank(before)) before -= 1;
    let word = before;
    while (word >= 0 && !' \t\n\r[{,'.includes(text[word] as string)) word -= 1;
    if (word === before || (text[word + 1] !== '&' && text[word + 1] !== '!')) break;
    property = word + 1;
    before = word;
  }
  if (property >= 0) {
    const column = property - (text.lastIndexOf('\n', property) + 1);
    if (problem.indent !== undefined && column !== problem.indent) {
      return at({
        message: 'This key is not aligned with the other keys of its mapping.',
        hint: 'Indent it like the keys above it.',
      });
    }
    if (problem.keyProperties) return undefined;
    // The parser would give the anchor or tag to the whole mapping, PyYAML to its empty key.
    return at({
      message: "This ':' has no key before it, only an anchor or a tag, which would apply to the wrong node.",
      hint: "Write the key before the ':'.",
    });
  }
  if (before >= 0 && !'\n\r-?,[{'.includes(text[before] as string)) {
    return at({
      message: "A mapping value is not allowed here: this ':' follows a value on the same line.",
      hint: "Put the key and its value on a line of their own, or quote the text if the ':' belongs to it.",
    });
  }
  return at({
    message: "This ':' has no key before it; an empty key is not allowed.",
    hint: "Write the key before the ':'.",
  });
}

interface WalkContext {
  maxDepth: number;
  /** Whether `<<` keys merge (YAML 1.1); several of them in one mapping are not duplicates. */
  merge: boolean;
  duplicateKeys: 'error' | 'warn' | 'ignore';
  lines: LineCounter;
  file: string | undefined;
  diagnostics: Diagnostic[];
}

function located(
  lines: LineCounter,
  file: string | undefined,
  node: YamlNode | null | undefined,
  init: DiagnosticInit,
): Diagnostic {
  const range = node?.range ? rangeOf(lines, node.range[0], node.range[1]) : undefined;
  return createDiagnostic({ ...(file ? { file } : {}), line: 1, column: 1, ...range, ...init });
}

function tooManyProblems(position: Partial<SourceRange>, file: string | undefined): Diagnostic {
  return createDiagnostic({
    code: 'yaml/too-many-problems',
    severity: 'info',
    message: `The loader stopped after ${MAX_DIAGNOSTICS} problems; more may follow from here on.`,
    hint: 'Fix these first, then load the document again.',
    ...(file ? { file } : {}),
    line: position.line ?? 1,
    column: position.column ?? 1,
  });
}

/** Adds `d`, or the closing note once the limit is reached; false when the caller should stop looking. */
function report(list: Diagnostic[], d: Diagnostic, file: string | undefined): boolean {
  if (list.length < MAX_DIAGNOSTICS) {
    list.push(d);
    return true;
  }
  if (list.length === MAX_DIAGNOSTICS) list.push(tooManyProblems(d, file));
  return false;
}

/** Checks depth, keys and `<<` misuse without following aliases (so bombs cost nothing here). */
function walk(ctx: WalkContext, node: unknown, depth: number, path: string): boolean {
  const push = (at: unknown, init: DiagnosticInit) =>
    report(ctx.diagnostics, located(ctx.lines, ctx.file, at as YamlNode, init), ctx.file);
  if (isScalar(node) && node.type === 'PLAIN' && node.source === '<<') {
    // `<<` only means something as a key; PyYAML refuses it anywhere else.
    push(node, {
      code: 'yaml/syntax',
      path,
      message: "The merge key '<<' can only be used as a mapping key; quote it to mean the text.",
    });
    return false;
  }
  if ((isMap(node) || isSeq(node)) && depth > ctx.maxDepth) {
    push(node, {
      code: 'yaml/too-deep',
      path,
      message: `The document nests deeper than the limit of ${ctx.maxDepth} levels.`,
      hint: TOO_DEEP_HINT,
    });
    return false;
  }
  if (isMap(node)) {
    const seen = new Map<string, YamlNode>();
    for (const pair of node.items) {
      if (isMap(pair.key) || isSeq(pair.key)) {
        // PyYAML refuses these (unhashable keys); JavaScript objects cannot hold them either.
        push(pair.key, {
          code: 'yaml/complex-key',
          path,
          message: 'A mapping key must be a scalar, not a mapping or a list.',
        });
        return false;
      }
      const k = keyText(pair.key);
      if (k !== undefined && ctx.duplicateKeys !== 'ignore' && !(ctx.merge && isMergeKey(pair.key))) {
        const first = seen.get(k);
        if (first) {
          const firstLine = first.range ? ctx.lines.linePos(first.range[0]).line : undefined;
          const more = push(pair.key, {
            code: 'yaml/duplicate-key',
            severity: ctx.duplicateKeys === 'warn' ? 'warning' : 'error',
            path: `${path}/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`,
            message:
              ctx.duplicateKeys === 'warn'
                ? `The key '${k}' appears more than once in this mapping; the last value is used.`
                : `The key '${k}' appears more than once in this mapping.`,
            ...(firstLine ? { hint: `It was first defined on line ${firstLine}.` } : {}),
          });
          if (!more) return false;
        } else {
          seen.set(k, pair.key as YamlNode);
        }
      }
      const child = `${path}/${(k ?? '').replace(/~/g, '~0').replace(/\//g, '~1')}`;
      if (!isScalar(pair.key) && !walk(ctx, pair.key, depth + 1, path)) return false;
      if (!walk(ctx, pair.value, depth + 1, child)) return false;
    }
  } else if (isSeq(node)) {
    for (let i = 0; i < node.items.length; i += 1) {
      if (!walk(ctx, node.items[i], depth + 1, `${path}/${i}`)) return false;
    }
  }
  return true;
}

function fromYamlError(e: YAMLError, lines: LineCounter, file: string | undefined): Diagnostic {
  const range = rangeOf(lines, e.pos[0], e.pos[1]);
  const code = YAML_CODES[e.code] ?? 'yaml/syntax';
  if (code === 'yaml/too-deep') {
    return createDiagnostic({
      code,
      message: 'The document nests too deeply to be read.',
      hint: TOO_DEEP_HINT,
      ...(file ? { file } : {}),
      ...range,
    });
  }
  const message = e.message.replace(/\s+at line \d+, column \d+[\s\S]*$/, '').trim();
  return createDiagnostic({
    code,
    message: /[.!?]$/.test(message) ? message : `${message}.`,
    ...(file ? { file } : {}),
    ...range,
  });
}

/** A problem found while building the value; carries its diagnostic out of the recursion. */
class LoadProblem extends Error {
  constructor(readonly diagnostic: Diagnostic) {
    super(diagnostic.message);
  }
}

/**
 * A converted node: its value and an upper bound on how many nodes a walk
 * over the value visits (a key given twice counts twice).
 */
interface Built {
  value: unknown;
  size: number;
  /** For mappings that may be merged elsewhere: the size of each final entry (key and value). */
  sizes?: Map<string, number>;
}

type Entry = [key: string, value: unknown, size: number];

function isMergeKey(key: unknown): boolean {
  if (!isScalar(key) || (key.type !== undefined && key.type !== 'PLAIN')) return false;
  const v = key.value;
  return v === '<<' || (typeof v === 'symbol' && v.description === '<<');
}

/**
 * Builds plain data from the composed tree the way PyYAML's SafeLoader does:
 * an alias yields the very value of its anchor (shared, not copied), `<<`
 * merges mappings with PyYAML's precedence and key order, an anchor may not
 * be defined twice (1.1). Expansion is counted against the alias budget as it
 * goes; aliases are resolved through a map, so the cost is linear.
 */
class ValueBuilder {
  readonly #anchors = new Map<string, YamlNode>();
  // Built nodes inside anchored subtrees, the only ones an alias or a merge can reach again.
  readonly #built = new Map<YamlNode, Built>();
  readonly #open = new Set<YamlNode>();
  #anchored = 0;
  #added = 0;

  constructor(
    private readonly text: string,
    private readonly lines: LineCounter,
    private readonly file: string | undefined,
    private readonly maxAliasCount: number,
    private readonly pyYaml: boolean,
  ) {}

  #fail(node: YamlNode | null | undefined, init: DiagnosticInit): never {
    throw new LoadProblem(located(this.lines, this.file, node, init));
  }

  build(node: unknown, wantSizes = false): Built {
    if (node === null || node === undefined) return { value: null, size: 1 };
    if (isAlias(node)) return this.#alias(node);
    const n = node as YamlNode;
    if (isScalar(n)) {
      const out = { value: n.value, size: 1 };
      if (n.anchor) {
        this.#define(n.anchor, n);
        this.#built.set(n, out);
      }
      return out;
    }
    const anchor = (n as { anchor?: string }).anchor;
    if (anchor) {
      this.#define(anchor, n);
      this.#open.add(n);
      this.#anchored += 1;
    }
    let out: Built;
    if (isSeq(n)) {
      const list: unknown[] = [];
      let size = 1;
      for (const item of n.items) {
        const b = this.build(item);
        list.push(b.value);
        size += b.size;
      }
      out = { value: list, size };
    } else if (isMap(n)) out = this.#map(n, wantSizes || this.#anchored > 0);
    else out = { value: null, size: 1 };
    if (anchor) {
      this.#open.delete(n);
      this.#anchored -= 1;
    }
    if (this.#anchored > 0 || anchor) this.#built.set(n, out);
    return out;
  }

  #define(anchor: string, node: YamlNode): void {
    const first = this.#anchors.get(anchor);
    if (first && this.pyYaml) {
      const start = node.range?.[0] ?? 0;
      const at = this.text.lastIndexOf(`&${anchor}`, start);
      const firstLine = first.range ? this.lines.linePos(first.range[0]).line : undefined;
      const pos = rangeOf(this.lines, at >= 0 ? at : start, at >= 0 ? at + anchor.length + 1 : start + 1);
      throw new LoadProblem(
        createDiagnostic({
          code: 'yaml/duplicate-anchor',
          message: `The anchor '&${anchor}' is already defined in this document; PyYAML refuses a second one.`,
          hint: `${firstLine ? `It was first defined on line ${firstLine}. ` : ''}Give this anchor another name.`,
          ...(this.file ? { file: this.file } : {}),
          ...pos,
        }),
      );
    }
    this.#anchors.set(anchor, node);
  }

  #alias(alias: Alias): Built {
    const node = alias as unknown as YamlNode;
    if (this.maxAliasCount === 0) {
      this.#fail(node, {
        code: 'yaml/alias-limit',
        message: `The alias '*${alias.source}' is not allowed: this loader forbids aliases (maxAliasCount is 0).`,
        hint: 'Write the repeated content out.',
      });
    }
    const target = this.#anchors.get(alias.source);
    if (!target) {
      this.#fail(node, {
        code: 'yaml/bad-alias',
        message: `The alias '*${alias.source}' refers to no anchor defined before it.`,
        hint: `Define '&${alias.source}' on an earlier node, or check the spelling.`,
      });
    }
    if (this.#open.has(target)) {
      this.#fail(node, {
        code: 'yaml/alias-limit',
        message: `The alias '*${alias.source}' sits inside the node it refers to, so the data would be infinitely deep.`,
        hint: 'Refer to the anchor only from outside the node that carries it.',
      });
    }
    const built = this.#built.get(target) as Built;
    this.#spend(node, built.size - 1);
    return built;
  }

  #spend(node: YamlNode, nodes: number): void {
    this.#added += nodes;
    if (this.#added > this.maxAliasCount) {
      this.#fail(node, {
        code: 'yaml/alias-limit',
        message: `The document's aliases expand to more than ${this.maxAliasCount} additional nodes (a "billion laughs" pattern).`,
        hint: 'Use fewer or smaller aliases, or write the repeated content out.',
      });
    }
  }

  #key(node: unknown): { text: string; size: number } {
    const b = this.build(node);
    if (b.value !== null && typeof b.value === 'object') {
      this.#fail(node as YamlNode, {
        code: 'yaml/complex-key',
        message: 'A mapping key must be a scalar, not a mapping or a list.',
      });
    }
    return { text: b.value === null ? '' : String(b.value), size: b.size };
  }

  /** One merge source's entries: a mapping, or an alias of one. */
  #source(node: unknown, at: YamlNode | null | undefined, what: string): Entry[] {
    // A mapping inside an aliased list was built with that list; build only inline ones.
    const b = isAlias(node)
      ? this.build(node)
      : isMap(node)
        ? (this.#built.get(node) ?? this.build(node, true))
        : undefined;
    if (!b?.sizes) {
      const target = isAlias(node) ? this.#anchors.get(node.source) : node;
      const found = isSeq(target)
        ? 'a list'
        : target === null || target === undefined
          ? 'nothing'
          : 'a scalar';
      this.#fail((node as YamlNode | null) ?? at, {
        code: 'yaml/bad-merge',
        message: `The merge key '<<' expects ${what}, but found ${found}.`,
        hint: 'Merge a mapping (`<<: *defaults`) or a list of mappings (`<<: [*a, *b]`).',
      });
    }
    const value = b.value as Record<string, unknown>;
    return [...b.sizes].map(([k, size]) => [k, value[k], size]);
  }

  #merge(value: unknown, key: YamlNode | null | undefined): Entry[] {
    let list: unknown = value;
    if (isAlias(value)) {
      const target = this.#anchors.get(value.source);
      if (isSeq(target)) {
        this.build(value); // counts the expansion; the items were built with the list
        list = target;
      }
    }
    if (!isSeq(list)) return this.#source(value, key, 'a mapping or a list of mappings');
    // PyYAML: earlier mappings in the list win, so they are applied last.
    const parts = list.items.map((item) => this.#source(item, key, 'a mapping in this list'));
    return parts.reverse().flat();
  }

  #map(node: YAMLMap, wantSizes: boolean): Built {
    const merged: Entry[] = [];
    const own: Entry[] = [];
    for (const pair of node.items) {
      if (this.pyYaml && isMergeKey(pair.key)) {
        merged.push(...this.#merge(pair.value, pair.key as YamlNode));
        continue;
      }
      const k = this.#key(pair.key);
      const v = this.build(pair.value);
      own.push([k.text, v.value, k.size + v.size]);
    }
    const value: Record<string, unknown> = {};
    const sizes = wantSizes ? new Map<string, number>() : undefined;
    let size = 1;
    // Merged keys come first, then the mapping's own, which win (PyYAML's order).
    for (const [k, v, s] of merged.length ? [...merged, ...own] : own) {
      // `__proto__`, `constructor` and the like become own data properties, never the prototype.
      if (k in value) {
        Object.defineProperty(value, k, { value: v, writable: true, enumerable: true, configurable: true });
      } else value[k] = v;
      sizes?.set(k, s);
      size += s;
    }
    return sizes ? { value, size, sizes } : { value, size };
  }
}

function parseYaml(text: string, options: ParseDocumentOptions, maxDepth: number): ValidateDocumentResult {
  const file = options.filename;
  const lines = new LineCounter();
  const v11 = (options.yamlVersion ?? '1.1') === '1.1';
  const diagnostics: Diagnostic[] = [];
  let contents: YamlNode | null;
  let composed: Document.Parsed | undefined;
  try {
    const tokens = Array.from(new Parser(lines.addNewLine).parse(text));
    const cst = scanCst(text, tokens, maxDepth, v11);
    if (cst.deep !== undefined) return { ok: false, diagnostics: [tooDeep(text, cst.deep, maxDepth, file)] };
    const composer = new Composer({
      prettyErrors: false,
      uniqueKeys: false,
      keepSourceTokens: false,
      logLevel: 'error',
      version: v11 ? '1.1' : '1.2',
      ...(v11 ? { schema: 'yaml-1.1', customTags: pyYamlTags, merge: true } : { schema: 'core' }),
    });
    const docs = [];
    for (const doc of composer.compose(tokens, true, text.length)) {
      docs.push(doc);
      if (docs.length > 1) break;
    }
    const [doc, extra] = docs;
    composed = doc;
    if (!doc) return { ok: false, diagnostics: [tooComplex(new Error('no document'), file)] };
    for (const problem of cst.pairs) {
      const d = pairDiagnostic(text, problem, file);
      if (d) report(diagnostics, d, file);
    }
    let deepReported = false;
    for (const e of [...doc.errors, ...doc.warnings]) {
      // An unknown tag would otherwise silently become a string; refuse it instead.
      if (e.name === 'YAMLWarning' && e.code !== 'TAG_RESOLVE_FAILED') continue;
      if (e.code === 'RESOURCE_EXHAUSTION') {
        if (deepReported) continue;
        deepReported = true;
      }
      if (!report(diagnostics, fromYamlError(e, lines, file), file)) break;
    }
    if (extra) {
      report(
        diagnostics,
        located(lines, file, extra.contents ?? undefined, {
          code: 'yaml/multiple-documents',
          message: 'The text holds more than one YAML document; only one is allowed.',
          hint: "Remove the '---' separator, or split the documents into files.",
          ...(extra.range ? rangeOf(lines, extra.range[0], extra.range[0] + 1) : {}),
        }),
        file,
      );
    }
    if (diagnostics.length) {
      // The two sources above each report in document order; merge them.
      if (cst.pairs.length)
        diagnostics.sort((a, b) => (a.line ?? 0) - (b.line ?? 0) || (a.column ?? 0) - (b.column ?? 0));
      return { ok: false, diagnostics };
    }
    contents = doc.contents as YamlNode | null;
  } catch (e) {
    return { ok: false, diagnostics: [tooComplex(e, file)] };
  }

  const walkCtx: WalkContext = {
    maxDepth,
    merge: v11,
    duplicateKeys: options.duplicateKeys ?? 'error',
    lines,
    file,
    diagnostics: [],
  };
  walk(walkCtx, contents, 1, '');
  if (walkCtx.diagnostics.some((d) => d.severity === 'error')) {
    return { ok: false, diagnostics: walkCtx.diagnostics.filter((d) => d.severity !== 'warning') };
  }

  let value: unknown;
  try {
    const builder = new ValueBuilder(
      text,
      lines,
      file,
      options.maxAliasCount ?? DEFAULT_MAX_ALIAS_COUNT,
      v11,
    );
    value = builder.build(contents).value;
  } catch (e) {
    return { ok: false, diagnostics: [e instanceof LoadProblem ? e.diagnostic : tooComplex(e, file)] };
  }
  const document = new LocatedDocument(
    value,
    file,
    'yaml',
    () => ({
      root: contents,
      lines,
      text,
      merge: v11,
      resolve: (alias: Alias) => (composed ? (alias.resolve(composed) as YamlNode | undefined) : undefined),
    }),
    walkCtx.diagnostics,
  );
  return { ok: true, document, diagnostics: walkCtx.diagnostics };
}

function tooDeep(text: string, offset: number, maxDepth: number, file: string | undefined): Diagnostic {
  return locatedAt(text, offset, file, {
    code: 'yaml/too-deep',
    message: `The document nests deeper than the limit of ${maxDepth} levels.`,
    hint: TOO_DEEP_HINT,
  });
}

function tooComplex(e: unknown, file: string | undefined): Diagnostic {
  const at = { ...(file ? { file } : {}), line: 1, column: 1 };
  if (e instanceof RangeError) {
    return createDiagnostic({
      code: 'yaml/too-deep',
      message: 'The document nests too deeply to be read.',
      hint: TOO_DEEP_HINT,
      ...at,
    });
  }
  return createDiagnostic({
    code: 'yaml/syntax',
    message: `The document could not be read: ${describeError(e)}`,
    ...at,
  });
}

function parseJson(text: string, options: ParseDocumentOptions, maxDepth: number): ValidateDocumentResult {
  const file = options.filename;
  // One pass over the brackets before anything builds a tree: cheap even for megabytes of `[`.
  const deep = findJsonTooDeep(text, maxDepth);
  if (deep !== undefined) return { ok: false, diagnostics: [tooDeep(text, deep, maxDepth, file)] };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    const problem = findJsonSyntaxProblem(text) ?? { offset: 0, message: 'The text is not valid JSON.' };
    return {
      ok: false,
      diagnostics: [locatedAt(text, problem.offset, file, { code: 'json/syntax', message: problem.message })],
    };
  }
  // JSON is valid YAML 1.2; re-read it with the YAML parser only for positions
  // and duplicate keys (which JSON.parse silently resolves to the last value).
  const lines = new LineCounter();
  const structure = () => {
    try {
      const doc = parseYamlDocument(text, {
        lineCounter: lines,
        uniqueKeys: false,
        schema: 'json',
        version: '1.2',
        logLevel: 'error',
      });
      return doc.errors.length
        ? undefined
        : { root: doc.contents as YamlNode | null, lines, text, merge: false };
    } catch {
      return undefined;
    }
  };
  const diagnostics: Diagnostic[] = [];
  const duplicateKeys = options.duplicateKeys ?? 'error';
  let locator: Locator | undefined;
  if (duplicateKeys !== 'ignore') {
    locator = structure();
    if (locator)
      walk({ maxDepth, merge: false, duplicateKeys, lines, file, diagnostics }, locator.root, 1, '');
  }
  if (diagnostics.some((d) => d.severity === 'error')) {
    return { ok: false, diagnostics: diagnostics.filter((d) => d.severity !== 'warning') };
  }
  const document = new LocatedDocument(value, file, 'json', () => locator ?? structure(), diagnostics);
  return { ok: true, document, diagnostics };
}

/**
 * Parses YAML or JSON text safely and keeps source positions for every value.
 *
 * Never executes code or builds custom objects: unknown tags, `!!binary`,
 * `!!set` and `!!omap` are rejected. Limits on size, depth and alias expansion
 * make hostile input fail fast, and after 1,000 problems the loader stops
 * with a final `yaml/too-many-problems` note (severity `info`). Returns every
 * problem instead of throwing; each carries a line and column.
 *
 * Codes: `yaml/syntax`, `json/syntax`, `yaml/duplicate-key`,
 * `yaml/duplicate-anchor`, `yaml/unsupported-tag`, `yaml/multiple-documents`,
 * `yaml/bad-alias`, `yaml/alias-limit`, `yaml/bad-merge`, `yaml/complex-key`,
 * `yaml/too-large`, `yaml/too-deep` (JSON too), `yaml/too-many-problems`.
 *
 * @example
 * const r = validateDocument('a: yes\n', { filename: 'x.yaml' });
 * if (r.ok) r.document.value; // { a: true }
 */
export function validateDocument<T = unknown>(
  text: string,
  options: ParseDocumentOptions = {},
): ValidateDocumentResult<T> {
  requireString(text, 'The text of validateDocument');
  options = optionsOf(options, 'validateDocument');
  const file = options.filename;
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  const over = sizeOverflow(text, maxBytes);
  if (over) {
    return {
      ok: false,
      diagnostics: [
        locatedAt(text, over.offset, file, {
          code: 'yaml/too-large',
          message: `The document is ${over.bytes} bytes, more than the limit of ${maxBytes} bytes; the limit is passed here.`,
          hint: 'Split the document, or raise maxBytes.',
        }),
      ],
    };
  }
  const maxDepth = Math.min(options.maxDepth ?? DEFAULT_MAX_DEPTH, DEPTH_CEILING);
  if (pickFormat(options) === 'yaml') {
    const deep = textNestingExceeds(text, maxDepth);
    if (deep !== undefined) return { ok: false, diagnostics: [tooDeep(text, deep, maxDepth, file)] };
    return parseYaml(text, options, maxDepth) as ValidateDocumentResult<T>;
  }
  // JSON.parse refuses a byte-order mark; Python's json.loads of decoded text does too, but files often carry one.
  const body = text.charCodeAt(0) === 0xfeff ? ` ${text.slice(1)}` : text;
  return parseJson(body, options, maxDepth) as ValidateDocumentResult<T>;
}

/**
 * Like {@link validateDocument} but throws a `ValidationError` carrying every
 * diagnostic when the text cannot be read.
 */
export function parseDocument<T = unknown>(
  text: string,
  options: ParseDocumentOptions = {},
): SourceDocument<T> {
  const result = validateDocument<T>(text, options);
  if (!result.ok) throw validationErrorOf(result.diagnostics);
  return result.document;
}
