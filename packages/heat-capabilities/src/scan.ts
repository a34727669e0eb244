import { createDiagnostic, type Diagnostic, plainScalarKind } from '@stackspec/core';
import { type Capabilities, readCapabilities } from './capabilities.js';
import { ENVIRONMENT_SECTIONS, REQUIRES_SECTION } from './environment.js';
import { isMapping, loadHeatText } from './load.js';
import { type Outline, type OutlineKey, outlineYaml } from './outline.js';
import { CAPABILITIES_SECTION, isVersionKey, VERSION_KEYS, type VersionKey } from './versions.js';

/** What a file is, judged the way Heat would read it. */
export type DocumentKind = 'template' | 'environment' | 'other' | 'invalid';

/** Options of {@link scanDocument}. */
export interface ScanOptions {
  filename?: string | undefined;
  /**
   * `fast` (default) reads only the top level and the capabilities section
   * when the text allows it, and falls back to a full parse otherwise;
   * `full` always parses the whole document.
   */
  mode?: 'fast' | 'full' | undefined;
  /** Longer text is reported as `heat/find/too-large` without being read (default 10 MiB of characters). */
  maxChars?: number | undefined;
}

/** Default bound on the text {@link scanDocument} reads. */
export const MAX_SCAN_CHARS = 10 * 1024 * 1024;

/** What {@link scanDocument} learns about one file. */
export interface ScanResult {
  kind: DocumentKind;
  /** Top-level keys in document order. */
  keys: string[];
  /** For templates: the version key whose value is text, and that value. */
  versionKey?: VersionKey;
  version?: string;
  /** For templates: the declared capabilities (`undefined` when none are declared). */
  capabilities?: Capabilities | undefined;
  /** Problems with the capabilities section, or why the file could not be read. */
  diagnostics: Diagnostic[];
  /** How the answer was reached. */
  method: 'fast' | 'full';
}

const ENV_KEYS = new Set<string>([...ENVIRONMENT_SECTIONS, REQUIRES_SECTION]);

function classifyKeys(keys: readonly string[]): DocumentKind {
  if (keys.some((k) => isVersionKey(k))) return 'template';
  if (keys.every((k) => ENV_KEYS.has(k))) return 'environment';
  return 'other';
}

function templateFacts(value: Record<string, unknown>): Pick<ScanResult, 'versionKey' | 'version'> {
  for (const key of VERSION_KEYS) {
    const v = value[key];
    if (typeof v === 'string') return { versionKey: key, version: v };
  }
  return {};
}

function scanFull(text: string, filename: string | undefined): ScanResult {
  const loaded = loadHeatText(text, { kind: 'template', filename, maxTemplateSize: MAX_SCAN_CHARS });
  if (!loaded.ok) return { kind: 'invalid', keys: [], diagnostics: loaded.diagnostics, method: 'full' };
  const value = loaded.loaded.value;
  if (!isMapping(value)) return { kind: 'other', keys: [], diagnostics: [], method: 'full' };
  const keys = Object.keys(value);
  const kind = classifyKeys(keys);
  if (kind !== 'template') return { kind, keys, diagnostics: [], method: 'full' };
  const result: ScanResult = { kind, keys, ...templateFacts(value), diagnostics: [], method: 'full' };
  if (CAPABILITIES_SECTION in value) {
    const read = readCapabilities(value[CAPABILITIES_SECTION], {
      document: loaded.loaded.document,
      source: text,
    });
    result.capabilities = read.capabilities;
    result.diagnostics = read.diagnostics;
  }
  return result;
}

function lineBreaksBefore(text: string, offset: number): number {
  let n = 0;
  for (let i = text.indexOf('\n'); i >= 0 && i < offset; i = text.indexOf('\n', i + 1)) n += 1;
  return n;
}

/** Parses the text of one top-level entry on its own (a few lines), keeping the file's line numbers. */
function parseEntry(text: string, entry: OutlineKey, filename: string | undefined) {
  // Pad with empty lines so positions in diagnostics are the file's own.
  const padded = '\n'.repeat(lineBreaksBefore(text, entry.start)) + text.slice(entry.start, entry.end);
  return { padded, loaded: loadHeatText(padded, { kind: 'environment', filename }) };
}

const SIMPLE_KEY = /^[A-Za-z_][A-Za-z0-9_.:/-]*$/;
const SIMPLE_VALUE = /^[A-Za-z0-9_.:/+][A-Za-z0-9_.:/+\- ]*$/;
const DECIMAL = /^(?:0|[1-9][0-9]*)$/;

/** A plain scalar the quick reader may resolve itself: text, a boolean, or a decimal integer. */
function simpleScalar(raw: string): { value: string | boolean | number } | undefined {
  if (!SIMPLE_VALUE.test(raw) || raw.includes(': ') || raw.endsWith(':') || raw.endsWith(' '))
    return undefined;
  const kind = plainScalarKind(raw);
  if (kind === 'string') return { value: raw };
  if (kind === 'bool') return { value: /^(?:yes|true|on)$/i.test(raw) };
  if (kind === 'int' && DECIMAL.test(raw)) return { value: Number(raw) };
  return undefined;
}

function stripComment(line: string): string {
  const hash = line.search(/[ \t]#/);
  return (hash >= 0 ? line.slice(0, hash) : line).trimEnd();
}

/**
 * Reads the common shapes of a capabilities section without a YAML parser:
 * one level of `key: value`, `key: [a, b]` or `key:` followed by `- item`
 * lines, every value a simple plain scalar. Anything else (quotes, nulls,
 * nesting, duplicates, anchors) returns `undefined` and the entry is parsed
 * fully, which also gives located diagnostics.
 */
function quickCapabilities(entryText: string): Record<string, unknown> | undefined {
  const lines = entryText.split('\n');
  const head = stripComment((lines[0] ?? '').replace(/\r$/, ''));
  if (head !== `${CAPABILITIES_SECTION}:`) return undefined;
  const out: Record<string, unknown> = {};
  let indent = -1;
  let listKey: string | undefined;
  let listIndent = -1;
  for (let i = 1; i < lines.length; i += 1) {
    const line = stripComment((lines[i] as string).replace(/\r$/, ''));
    const content = line.trimStart();
    if (content === '' || content.startsWith('#')) continue;
    const n = line.length - content.length;
    if (line.slice(0, n).includes('\t')) return undefined;
    if (
      listKey !== undefined &&
      content.startsWith('- ') &&
      (listIndent < 0 || n === listIndent) &&
      n >= indent
    ) {
      listIndent = n;
      const item = simpleScalar(content.slice(2).trim());
      if (!item) return undefined;
      (out[listKey] as unknown[]).push(item.value);
      continue;
    }
    if (listKey !== undefined && (out[listKey] as unknown[]).length === 0) return undefined;
    listKey = undefined;
    listIndent = -1;
    if (indent < 0) indent = n;
    if (n !== indent || n === 0) return undefined;
    const colon = content.indexOf(': ');
    const key = colon < 0 ? (content.endsWith(':') ? content.slice(0, -1) : '') : content.slice(0, colon);
    if (!SIMPLE_KEY.test(key) || plainScalarKind(key) !== 'string' || key in out) return undefined;
    const rest = colon < 0 ? '' : content.slice(colon + 2).trim();
    if (rest === '') {
      out[key] = [];
      listKey = key;
      continue;
    }
    if (rest.startsWith('[') && rest.endsWith(']')) {
      const inner = rest.slice(1, -1).trim();
      const items = inner === '' ? [] : inner.split(',').map((x) => simpleScalar(x.trim()));
      if (items.some((x) => x === undefined)) return undefined;
      out[key] = items.map((x) => (x as { value: unknown }).value);
      continue;
    }
    const value = simpleScalar(rest);
    if (!value) return undefined;
    out[key] = value.value;
  }
  if (listKey !== undefined && (out[listKey] as unknown[]).length === 0) return undefined;
  // No entries means a null section: leave that to the full reader.
  return Object.keys(out).length ? out : undefined;
}

function scanFast(text: string, outline: Outline, filename: string | undefined): ScanResult | undefined {
  if (outline.root === 'sequence') return { kind: 'other', keys: [], diagnostics: [], method: 'fast' };
  const keys = outline.keys.map((k) => k.key);
  const kind = classifyKeys(keys);
  if (kind !== 'template') return { kind, keys, diagnostics: [], method: 'fast' };
  const result: ScanResult = { kind, keys, diagnostics: [], method: 'fast' };
  for (const versionKey of VERSION_KEYS) {
    const entry = outline.keys.find((k) => k.key === versionKey);
    if (!entry) continue;
    let value: unknown;
    // A lone `=` cannot be loaded at all; the full parse reports it.
    if (entry.plain !== undefined && plainScalarKind(entry.plain) !== 'value') {
      value = plainScalarKind(entry.plain) === 'string' ? entry.plain : null;
    } else {
      const parsed = parseEntry(text, entry, filename).loaded;
      if (!parsed.ok || !isMapping(parsed.loaded.value)) return undefined;
      value = parsed.loaded.value[versionKey];
    }
    if (typeof value === 'string') {
      result.versionKey = versionKey;
      result.version = value;
      break;
    }
  }
  const caps = outline.keys.find((k) => k.key === CAPABILITIES_SECTION);
  if (caps) {
    const quick = quickCapabilities(text.slice(caps.start, caps.end));
    if (quick) {
      const read = readCapabilities(quick);
      if (!read.diagnostics.length) {
        result.capabilities = read.capabilities;
        return result;
      }
    }
    const { padded, loaded: parsed } = parseEntry(text, caps, filename);
    if (!parsed.ok || !isMapping(parsed.loaded.value)) return undefined;
    const read = readCapabilities(parsed.loaded.value[CAPABILITIES_SECTION], {
      document: parsed.loaded.document,
      source: padded,
    });
    result.capabilities = read.capabilities;
    result.diagnostics = read.diagnostics;
  }
  return result;
}

/**
 * Classifies one file and reads its version and capabilities, as cheaply as
 * the text allows. A template is a mapping with a version key (what Heat's
 * parser requires), an environment a mapping whose keys are all
 * environment sections (or `requires`), anything else `other`; text that
 * cannot be read at all is `invalid`. In `fast` mode only the top level
 * and the capabilities section are read, so a template whose nested
 * content is broken still counts as a template; use `parseTemplate` to
 * validate it. Runs in time linear in the text; text over `maxChars` is
 * not read at all (`heat/find/too-large`).
 *
 * @example
 * scanDocument('heat_template_version: wallaby\ncapabilities: {deployment: puppet}\n').capabilities;
 * // { deployment: ['puppet'] }
 */
export function scanDocument(text: string, options: ScanOptions = {}): ScanResult {
  return scanText(text, options, false);
}

// Once a template's version is read, only a later version key, the
// capabilities section or a new document could change what a search needs.
const SEARCH_STOP = { keys: new Set<string>(VERSION_KEYS), watch: [...VERSION_KEYS, CAPABILITIES_SECTION] };

/**
 * {@link scanDocument} for a search over a tree, which needs a file's kind,
 * version and capabilities but not every top-level key: in `fast` mode a
 * template's text is read only until its version, when no later line could
 * hold another version key, the capabilities section or a new document, so
 * `keys` may stop there. Same kind, version and capabilities as
 * `scanDocument` for any document Heat can read.
 */
export function scanForSearch(text: string, options: ScanOptions = {}): ScanResult {
  return scanText(text, options, true);
}

function scanText(text: string, options: ScanOptions, search: boolean): ScanResult {
  const filename = options.filename;
  const limit = options.maxChars ?? MAX_SCAN_CHARS;
  if (text.length > limit) {
    return {
      kind: 'invalid',
      keys: [],
      diagnostics: [tooLargeDiagnostic(filename, text.length, limit, 'characters')],
      method: 'fast',
    };
  }
  if (options.mode !== 'full') {
    const outline = outlineYaml(text, search ? { stopAfter: SEARCH_STOP } : {});
    if (outline) {
      const fast = scanFast(text, outline, filename);
      if (fast) return fast;
    }
  }
  return scanFull(text, filename);
}

/** `heat/find/too-large`: a file over the scan bound, which is not read. */
export function tooLargeDiagnostic(
  file: string | undefined,
  size: number | undefined,
  limit: number,
  unit: 'characters' | 'bytes',
): Diagnostic {
  // The size is unknown (or stale) when the file changed after it was found too large.
  const holds = size !== undefined && size > limit ? `holds ${size} ${unit}, more than` : 'holds more than';
  return createDiagnostic({
    code: 'heat/find/too-large',
    message: `The file ${holds} the ${limit} ${unit} a template tree file may hold; it is not read.`,
    hint: 'Heat itself refuses templates over 524288 characters.',
    ...(file ? { file } : {}),
  });
}

/** A diagnostic for a file that could not be read from disk. */
export function unreadableDiagnostic(file: string, error: unknown): Diagnostic {
  const code = (error as { code?: string } | null)?.code;
  const reason =
    code === 'EACCES'
      ? 'permission denied'
      : code === 'ENOENT'
        ? 'it does not exist'
        : code === 'ELOOP'
          ? 'it is a symbolic link loop'
          : code === 'EISDIR'
            ? 'it is a directory'
            : error instanceof Error
              ? error.message
              : String(error);
  return createDiagnostic({
    code: code === 'ELOOP' ? 'heat/find/symlink-loop' : 'heat/find/unreadable',
    severity: 'warning',
    message: `The file cannot be read: ${reason}.`,
    file,
  });
}
