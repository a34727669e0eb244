import { createDiagnostic, type Diagnostic } from '@stackspec/core';
import { type Capabilities, readCapabilities } from './capabilities.js';
import { ENVIRONMENT_SECTIONS, REQUIRES_SECTION } from './environment.js';
import { isMapping, loadHeatText } from './load.js';
import { type Outline, type OutlineKey, outlineYaml } from './outline.js';
import { plainScalarKind } from './scalar.js';
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
}

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
  const loaded = loadHeatText(text, { kind: 'template', filename, maxTemplateSize: Number.MAX_SAFE_INTEGER });
  if (!loaded.ok) return { kind: 'invalid', keys: [], diagnostics: loaded.diagnostics, method: 'full' };
  const value = loaded.loaded.value;
  if (!isMapping(value)) return { kind: 'other', keys: [], diagnostics: [], method: 'full' };
  const keys = Object.keys(value);
  const kind = classifyKeys(keys);
  if (kind !== 'template') return { kind, keys, diagnostics: [], method: 'full' };
  const result: ScanResult = { kind, keys, ...templateFacts(value), diagnostics: [], method: 'full' };
  if (CAPABILITIES_SECTION in value) {
    const read = readCapabilities(value[CAPABILITIES_SECTION], { document: loaded.loaded.document });
    result.capabilities = read.capabilities;
    result.diagnostics = read.diagnostics;
  }
  return result;
}

/** Parses the text of one top-level entry on its own (a few lines), keeping the file's line numbers. */
function parseEntry(text: string, entry: OutlineKey, filename: string | undefined) {
  // Pad with empty lines so positions in diagnostics are the file's own.
  const padded = '\n'.repeat(entry.line - 1) + text.slice(entry.start, entry.end);
  return loadHeatText(padded, { kind: 'environment', filename });
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
    if (entry.plain !== undefined) {
      value = plainScalarKind(entry.plain) === 'string' ? entry.plain : null;
    } else {
      const parsed = parseEntry(text, entry, filename);
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
    const parsed = parseEntry(text, caps, filename);
    if (!parsed.ok || !isMapping(parsed.loaded.value)) return undefined;
    const read = readCapabilities(parsed.loaded.value[CAPABILITIES_SECTION], {
      document: parsed.loaded.document,
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
 * validate it.
 *
 * @example
 * scanDocument('heat_template_version: wallaby\ncapabilities: {deployment: puppet}\n').capabilities;
 * // { deployment: ['puppet'] }
 */
export function scanDocument(text: string, options: ScanOptions = {}): ScanResult {
  const filename = options.filename;
  if (options.mode !== 'full') {
    const outline = outlineYaml(text);
    if (outline) {
      const fast = scanFast(text, outline, filename);
      if (fast) return fast;
    }
  }
  return scanFull(text, filename);
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
