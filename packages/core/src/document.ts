import {
  isAlias,
  isMap,
  isScalar,
  isSeq,
  LineCounter,
  parseDocument as parseYamlDocument,
  type YAMLError,
  type Node as YamlNode,
} from 'yaml';
import { createDiagnostic, type Diagnostic, type DiagnosticInit } from './diagnostic.js';
import { describeError, ValidationError } from './errors.js';
import { type PathSegment, parseJsonPointer } from './json-pointer.js';
import { findJsonSyntaxProblem } from './json-syntax.js';
import { pyYamlTags } from './yaml-schema.js';

/** Default size limit: 10 MiB of UTF-8. */
export const DEFAULT_MAX_BYTES = 10 * 1024 * 1024;
/** Default nesting limit for mappings and sequences. */
export const DEFAULT_MAX_DEPTH = 200;
/** Default bound on alias expansion (the `yaml` package's meaning: count × aliases per anchor). */
export const DEFAULT_MAX_ALIAS_COUNT = 1000;

/** What a caller may tune when loading a document. */
export interface ParseDocumentOptions {
  /** Shown in every diagnostic; also picks the format when `format` is `auto`. */
  filename?: string;
  /** `auto` (default) reads `.json` files as JSON and everything else as YAML. */
  format?: 'auto' | 'yaml' | 'json';
  /**
   * YAML dialect. `1.1` (default) resolves scalars exactly like PyYAML's
   * SafeLoader (`yes`/`on` are booleans, `010` is octal, timestamps stay
   * strings); `1.2` uses the YAML 1.2 core schema.
   */
  yamlVersion?: '1.1' | '1.2';
  /** `error` (default), `warn` (last value kept, a warning), or `ignore` (last value kept silently). */
  duplicateKeys?: 'error' | 'warn' | 'ignore';
  /** Reject larger input (UTF-8 bytes). */
  maxBytes?: number;
  /** Reject deeper nesting of mappings and sequences. */
  maxDepth?: number;
  /** Bound on alias expansion; `0` forbids aliases. */
  maxAliasCount?: number;
}

/** A span of source text, 1-based lines and columns, end exclusive. */
export interface SourceRange {
  line: number;
  column: number;
  endLine: number;
  endColumn: number;
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
  /** A diagnostic about the value at `init.path`, with file and position filled in. */
  diagnostic(init: DiagnosticInit, options?: { key?: boolean }): Diagnostic;
}

/** Outcome of {@link safeParseDocument}: the document, or every problem found. */
export type ParseDocumentResult<T = unknown> =
  | { ok: true; document: SourceDocument<T>; diagnostics: Diagnostic[] }
  | { ok: false; document?: undefined; diagnostics: Diagnostic[] };

const YAML_CODES: Partial<Record<string, string>> = {
  DUPLICATE_KEY: 'yaml/duplicate-key',
  TAG_RESOLVE_FAILED: 'yaml/unsupported-tag',
  MULTIPLE_DOCS: 'yaml/multiple-documents',
  BAD_ALIAS: 'yaml/bad-alias',
  RESOURCE_EXHAUSTION: 'yaml/alias-limit',
};

interface Locator {
  root: YamlNode | null | undefined;
  lines: LineCounter;
}

function rangeOf(lines: LineCounter, start: number, end: number): SourceRange {
  const a = lines.linePos(start);
  const b = lines.linePos(Math.max(start, end));
  return { line: a.line || 1, column: a.col, endLine: b.line || 1, endColumn: b.col };
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

  locate(path: string | readonly PathSegment[], options: { key?: boolean } = {}): SourceRange | undefined {
    const segments = typeof path === 'string' ? parseJsonPointer(path) : path.map(String);
    if (!segments) return undefined;
    if (this.#locator) {
      this.#cached = this.#locator();
      this.#locator = undefined;
    }
    const locator = this.#cached;
    if (!locator) return undefined;
    const node = nodeAt(locator, segments, options.key === true);
    if (!node?.range) return undefined;
    return rangeOf(locator.lines, node.range[0], node.range[1]);
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

function utf8Length(text: string, stopAfter: number): number {
  // Cheap upper bound first: a UTF-16 unit is at most 3 UTF-8 bytes.
  if (text.length * 3 <= stopAfter) return text.length;
  return Buffer.byteLength(text, 'utf8');
}

function flowDepthExceeds(text: string, maxDepth: number): boolean {
  // Only flow collections can nest deeply in little text; count brackets first.
  let brackets = 0;
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    if (c === 0x5b || c === 0x7b) brackets += 1;
  }
  if (brackets <= maxDepth) return false;
  let depth = 0;
  let quote = '';
  let plain = false;
  let lineIndent = 0;
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
      lineIndent = 0;
      while (text[i + 1 + lineIndent] === ' ') lineIndent += 1;
      continue;
    }
    if (c === ' ' || c === '\t' || c === '\r') {
      plain = false;
      continue;
    }
    // Inside a plain scalar only flow indicators in flow context end it.
    if (plain && (depth === 0 || !',[]{}'.includes(c))) continue;
    plain = false;
    if (c === '"' || c === "'") quote = c;
    else if (c === '#') {
      const nl = text.indexOf('\n', i);
      i = nl < 0 ? text.length : nl - 1;
    } else if (c === '[' || c === '{') {
      depth += 1;
      if (depth > maxDepth) return true;
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
  return false;
}

interface WalkContext {
  maxDepth: number;
  duplicateKeys: 'error' | 'warn' | 'ignore';
  lines: LineCounter;
  file: string | undefined;
  diagnostics: Diagnostic[];
}

function located(ctx: WalkContext, node: YamlNode | undefined, init: DiagnosticInit): Diagnostic {
  const range = node?.range ? rangeOf(ctx.lines, node.range[0], node.range[1]) : undefined;
  return createDiagnostic({ ...(ctx.file ? { file: ctx.file } : {}), ...range, ...init });
}

/** Checks depth and duplicate keys without following aliases (so bombs cost nothing here). */
function walk(ctx: WalkContext, node: unknown, depth: number, path: string): boolean {
  if (isScalar(node) && node.type === 'PLAIN' && node.source === '<<') {
    // `<<` only means something as a key; PyYAML refuses it anywhere else.
    ctx.diagnostics.push(
      located(ctx, node as YamlNode, {
        code: 'yaml/syntax',
        path,
        message: "The merge key '<<' can only be used as a mapping key; quote it to mean the text.",
      }),
    );
    return false;
  }
  if (isMap(node) || isSeq(node)) {
    if (depth > ctx.maxDepth) {
      ctx.diagnostics.push(
        located(ctx, node as YamlNode, {
          code: 'yaml/too-deep',
          path,
          message: `The document nests deeper than the limit of ${ctx.maxDepth} levels.`,
        }),
      );
      return false;
    }
  }
  if (isMap(node)) {
    const seen = new Map<string, YamlNode>();
    for (const pair of node.items) {
      if (isMap(pair.key) || isSeq(pair.key)) {
        // PyYAML refuses these (unhashable keys); JavaScript objects cannot hold them either.
        ctx.diagnostics.push(
          located(ctx, pair.key as YamlNode, {
            code: 'yaml/complex-key',
            path,
            message: 'A mapping key must be a scalar, not a mapping or a list.',
          }),
        );
        return false;
      }
      const k = keyText(pair.key);
      if (k !== undefined && ctx.duplicateKeys !== 'ignore') {
        const first = seen.get(k);
        if (first) {
          const firstLine = first.range ? ctx.lines.linePos(first.range[0]).line : undefined;
          ctx.diagnostics.push(
            located(ctx, pair.key as YamlNode, {
              code: 'yaml/duplicate-key',
              severity: ctx.duplicateKeys === 'warn' ? 'warning' : 'error',
              path: `${path}/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`,
              message:
                ctx.duplicateKeys === 'warn'
                  ? `The key '${k}' appears more than once in this mapping; the last value is used.`
                  : `The key '${k}' appears more than once in this mapping.`,
              ...(firstLine ? { hint: `It was first defined on line ${firstLine}.` } : {}),
            }),
          );
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
  const message = e.message.replace(/\s+at line \d+, column \d+[\s\S]*$/, '').trim();
  return createDiagnostic({
    code: YAML_CODES[e.code] ?? 'yaml/syntax',
    message: /[.!?]$/.test(message) ? message : `${message}.`,
    ...(file ? { file } : {}),
    ...range,
  });
}

function tooLarge(bytes: number, max: number, file: string | undefined): Diagnostic {
  return createDiagnostic({
    code: 'yaml/too-large',
    message: `The document is ${bytes} bytes, more than the limit of ${max} bytes.`,
    ...(file ? { file } : {}),
  });
}

function parseYaml(text: string, options: ParseDocumentOptions): ParseDocumentResult {
  const file = options.filename;
  const lines = new LineCounter();
  const v11 = (options.yamlVersion ?? '1.1') === '1.1';
  const diagnostics: Diagnostic[] = [];
  let doc: ReturnType<typeof parseYamlDocument>;
  try {
    doc = parseYamlDocument(text, {
      lineCounter: lines,
      prettyErrors: false,
      uniqueKeys: false,
      keepSourceTokens: false,
      logLevel: 'error',
      version: v11 ? '1.1' : '1.2',
      ...(v11 ? { schema: 'yaml-1.1', customTags: pyYamlTags, merge: true } : { schema: 'core' }),
    });
  } catch (e) {
    return { ok: false, diagnostics: [tooComplex(e, file)] };
  }
  for (const e of doc.errors) diagnostics.push(fromYamlError(e, lines, file));
  for (const w of doc.warnings) {
    // An unknown tag would otherwise silently become a string; refuse it instead.
    if (w.code === 'TAG_RESOLVE_FAILED') diagnostics.push(fromYamlError(w, lines, file));
  }
  if (diagnostics.length) return { ok: false, diagnostics };

  const walkCtx: WalkContext = {
    maxDepth: options.maxDepth ?? DEFAULT_MAX_DEPTH,
    duplicateKeys: options.duplicateKeys ?? 'error',
    lines,
    file,
    diagnostics: [],
  };
  walk(walkCtx, doc.contents, 1, '');
  const fatal = walkCtx.diagnostics.filter((d) => d.severity === 'error');
  if (fatal.length) return { ok: false, diagnostics: fatal };

  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: options.maxAliasCount ?? DEFAULT_MAX_ALIAS_COUNT });
  } catch (e) {
    const aliasLimit = e instanceof ReferenceError && /alias/i.test(e.message);
    return {
      ok: false,
      diagnostics: [
        aliasLimit
          ? createDiagnostic({
              code: 'yaml/alias-limit',
              message: 'The document expands aliases beyond the allowed limit (a "billion laughs" pattern).',
              hint: 'Use fewer or smaller aliases, or write the repeated content out.',
              ...(file ? { file } : {}),
            })
          : tooComplex(e, file),
      ],
    };
  }
  const root = doc.contents as YamlNode | null;
  const document = new LocatedDocument(value, file, 'yaml', () => ({ root, lines }), walkCtx.diagnostics);
  return { ok: true, document, diagnostics: walkCtx.diagnostics };
}

function tooComplex(e: unknown, file: string | undefined): Diagnostic {
  if (e instanceof RangeError) {
    return createDiagnostic({
      code: 'yaml/too-deep',
      message: 'The document nests too deeply to be read.',
      ...(file ? { file } : {}),
    });
  }
  return createDiagnostic({
    code: 'yaml/syntax',
    message: `The document could not be read: ${describeError(e)}`,
    ...(file ? { file } : {}),
  });
}

function parseJson(text: string, options: ParseDocumentOptions): ParseDocumentResult {
  const file = options.filename;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    const problem = findJsonSyntaxProblem(text) ?? { offset: 0, message: 'The text is not valid JSON.' };
    const lines = new LineCounter();
    lines.addNewLine(0);
    for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) lines.addNewLine(i + 1);
    const range = rangeOf(lines, problem.offset, problem.offset + 1);
    return {
      ok: false,
      diagnostics: [
        createDiagnostic({
          code: 'json/syntax',
          message: problem.message,
          ...(file ? { file } : {}),
          ...range,
        }),
      ],
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
      return doc.errors.length ? undefined : { root: doc.contents as YamlNode | null, lines };
    } catch {
      return undefined;
    }
  };
  const diagnostics: Diagnostic[] = [];
  const maxDepth = options.maxDepth ?? DEFAULT_MAX_DEPTH;
  const duplicateKeys = options.duplicateKeys ?? 'error';
  let locator: Locator | undefined;
  if (duplicateKeys !== 'ignore' || jsonDepth(value, maxDepth) > maxDepth) {
    locator = structure();
    if (locator) {
      const ctx: WalkContext = { maxDepth, duplicateKeys, lines, file, diagnostics };
      walk(ctx, locator.root, 1, '');
    } else if (jsonDepth(value, maxDepth) > maxDepth) {
      diagnostics.push(
        createDiagnostic({
          code: 'yaml/too-deep',
          message: `The document nests deeper than the limit of ${maxDepth} levels.`,
          ...(file ? { file } : {}),
        }),
      );
    }
  }
  const fatal = diagnostics.filter((d) => d.severity === 'error');
  if (fatal.length) return { ok: false, diagnostics: fatal };
  const document = new LocatedDocument(value, file, 'json', () => locator ?? structure(), diagnostics);
  return { ok: true, document, diagnostics };
}

function jsonDepth(value: unknown, stopAt: number): number {
  // Iterative: JSON.parse itself already accepted the nesting.
  let max = 0;
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length) {
    const [v, d] = stack.pop() as [unknown, number];
    if (v === null || typeof v !== 'object') continue;
    if (d > max) max = d;
    if (max > stopAt) return max;
    for (const child of Array.isArray(v) ? v : Object.values(v)) stack.push([child, d + 1]);
  }
  return max;
}

/**
 * Parses YAML or JSON text safely and keeps source positions for every value.
 *
 * Never executes code or builds custom objects: unknown tags, `!!binary`,
 * `!!set` and `!!omap` are rejected. Limits on size, depth and alias expansion
 * make hostile input fail fast. Returns every problem instead of throwing.
 *
 * Codes: `yaml/syntax`, `json/syntax`, `yaml/duplicate-key`,
 * `yaml/unsupported-tag`, `yaml/multiple-documents`, `yaml/alias-limit`,
 * `yaml/complex-key`, `yaml/too-large`, `yaml/too-deep`.
 *
 * @example
 * const r = safeParseDocument('a: yes\n', { filename: 'x.yaml' });
 * if (r.ok) r.document.value; // { a: true }
 */
export function safeParseDocument<T = unknown>(
  text: string,
  options: ParseDocumentOptions = {},
): ParseDocumentResult<T> {
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  const bytes = utf8Length(text, maxBytes);
  if (bytes > maxBytes) return { ok: false, diagnostics: [tooLarge(bytes, maxBytes, options.filename)] };
  const maxDepth = options.maxDepth ?? DEFAULT_MAX_DEPTH;
  const format = pickFormat(options);
  if (format === 'yaml' && flowDepthExceeds(text, maxDepth)) {
    return {
      ok: false,
      diagnostics: [
        createDiagnostic({
          code: 'yaml/too-deep',
          message: `The document nests deeper than the limit of ${maxDepth} levels.`,
          ...(options.filename ? { file: options.filename } : {}),
        }),
      ],
    };
  }
  if (format === 'yaml') return parseYaml(text, options) as ParseDocumentResult<T>;
  // JSON.parse refuses a byte-order mark; Python's json.loads of decoded text does too, but files often carry one.
  const body = text.charCodeAt(0) === 0xfeff ? ` ${text.slice(1)}` : text;
  return parseJson(body, options) as ParseDocumentResult<T>;
}

/**
 * Like {@link safeParseDocument} but throws a `ValidationError` carrying every
 * diagnostic when the text cannot be read.
 */
export function parseDocument<T = unknown>(
  text: string,
  options: ParseDocumentOptions = {},
): SourceDocument<T> {
  const result = safeParseDocument<T>(text, options);
  if (!result.ok) {
    throw new ValidationError(undefined, {
      code: result.diagnostics[0]?.code,
      diagnostics: result.diagnostics,
    });
  }
  return result.document;
}
