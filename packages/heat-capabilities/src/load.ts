import {
  createDiagnostic,
  type Diagnostic,
  plainScalarKind,
  type SourceDocument,
  type ValidateDocumentResult,
  validateDocument,
} from '@stackspec/core';

/** Heat's default `max_template_size`: the longest template text it accepts, in characters. */
export const MAX_TEMPLATE_SIZE = 524288;

/**
 * Size bound for environment files. Heat has no limit of its own for them
 * beyond the request body (`max_json_body_size`, 1 MiB); files read from
 * disk get a more generous bound that still stops hostile input.
 */
export const MAX_ENVIRONMENT_BYTES = 10 * 1024 * 1024;

/** A document loaded the way Heat loads it, with positions kept. */
export interface LoadedText {
  value: unknown;
  document: SourceDocument;
  format: 'json' | 'yaml';
  warnings: Diagnostic[];
}

/** Result of {@link loadHeatText}. */
export type LoadResult = { ok: true; loaded: LoadedText } | { ok: false; diagnostics: Diagnostic[] };

/** Options of {@link loadHeatText}. */
export interface LoadOptions {
  filename?: string | undefined;
  /** Templates try strict JSON first; environments are read as YAML only (as Heat does). */
  kind: 'template' | 'environment';
  /** Character limit for templates (default {@link MAX_TEMPLATE_SIZE}). */
  maxTemplateSize?: number | undefined;
}

/** Number of Unicode code points, which is what Python's `len` counts on text. */
export function codePointLength(text: string): number {
  let n = text.length;
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n -= 1;
        i += 1;
      }
    }
  }
  return n;
}

function located(result: ValidateDocumentResult): LoadResult {
  if (!result.ok) return { ok: false, diagnostics: result.diagnostics };
  const doc = result.document;
  return {
    ok: true,
    loaded: { value: doc.value, document: doc, format: doc.format, warnings: doc.warnings },
  };
}

/**
 * Reads template or environment text with Heat's rules: the template size
 * limit first, then (templates only) strict JSON, then YAML 1.1 as PyYAML
 * reads it, with dates kept as their text and a repeated key keeping its
 * last value (reported as a warning). An empty YAML document becomes `{}`.
 *
 * Codes: `heat/template/too-large` and the `yaml/*`, `json/*` codes of core.
 */
export function loadHeatText(text: string, options: LoadOptions): LoadResult {
  const file = options.filename;
  if (options.kind === 'template') {
    const limit = options.maxTemplateSize ?? MAX_TEMPLATE_SIZE;
    // Cheap bound first: code points never outnumber UTF-16 units.
    if (text.length > limit) {
      const size = codePointLength(text);
      if (size > limit) {
        return {
          ok: false,
          diagnostics: [
            createDiagnostic({
              code: 'heat/template/too-large',
              message: `Template size (${size} bytes) exceeds maximum allowed size (${limit} bytes).`,
              hint: 'Heat counts characters here although the message says bytes; split the template into nested templates.',
              ...(file ? { file } : {}),
            }),
          ],
        };
      }
    }
    if (looksLikeJson(text)) {
      const json = validateDocument(text, {
        format: 'json',
        duplicateKeys: 'warn',
        maxBytes: limit * 4,
        ...(file ? { filename: file } : {}),
      });
      // Anything that is not strict JSON falls through to YAML, as in Heat.
      if (json.ok) return located(json);
    }
  }
  const yaml = validateDocument(text, {
    format: 'yaml',
    yamlVersion: '1.1',
    duplicateKeys: 'warn',
    maxBytes:
      options.kind === 'template'
        ? (options.maxTemplateSize ?? MAX_TEMPLATE_SIZE) * 4
        : MAX_ENVIRONMENT_BYTES,
    ...(file ? { filename: file } : {}),
  });
  const result = located(yaml);
  if (result.ok && (result.loaded.value === null || result.loaded.value === undefined)) {
    result.loaded.value = {};
  }
  return result;
}

function looksLikeJson(text: string): boolean {
  // JSON.parse would fail anyway on anything else; skipping it saves a pass.
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) continue;
    return (
      c === 0x7b ||
      c === 0x5b ||
      c === 0x22 ||
      c === 0x2d ||
      (c >= 0x30 && c <= 0x39) ||
      c === 0x74 ||
      c === 0x66 ||
      c === 0x6e
    );
  }
  return false;
}

/** Python's name for the type of a JSON value, as Heat prints it in messages (`<class 'str'>`). */
export function pythonTypeName(value: unknown): string {
  if (value === null || value === undefined) return 'NoneType';
  if (typeof value === 'string') return 'str';
  if (typeof value === 'boolean') return 'bool';
  if (typeof value === 'number') return Number.isInteger(value) ? 'int' : 'float';
  if (Array.isArray(value)) return 'list';
  return 'dict';
}

/** True for a plain mapping (not a list, not null). */
export function isMapping(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Python truthiness of a JSON value (`''`, `0`, `[]`, `{}`, `null` and `false` are false). */
export function isTruthy(value: unknown): boolean {
  if (value === null || value === undefined || value === false || value === 0 || value === '') return false;
  if (Array.isArray(value)) return value.length > 0;
  if (typeof value === 'object') return Object.keys(value).length > 0;
  return true;
}

/**
 * How Python prints a mapping key that YAML 1.1 read as something other
 * than text (`yes:` is the key `True`, `~:` is `None`), so messages quote
 * keys the way Heat does. `raw` is the key as written in the source.
 */
export function pythonKeyText(key: string, raw: string | undefined): string {
  if (raw === undefined || raw.startsWith('"') || raw.startsWith("'")) return key;
  const kind = plainScalarKind(raw.trim());
  if (kind === 'bool') return key === 'true' ? 'True' : 'False';
  if (kind === 'null') return 'None';
  return key;
}

/**
 * The source text of the scalar at `path` (a JSON pointer) in `document`:
 * the key there with `key: true`, else the value; `undefined` when there is
 * no scalar there or it spans several lines. Used where the spelling
 * carries meaning the loaded value lost (`1.0`, a float, loads as 1).
 */
export function rawTextAt(
  document: SourceDocument,
  path: string,
  options: { key?: boolean } = {},
): string | undefined {
  const scalar = document.scalar(path, options);
  if (!scalar || scalar.range.line !== scalar.range.endLine) return undefined;
  return scalar.source;
}
