import { isDeepStrictEqual } from 'node:util';
import { ValidationError, validationErrorOf } from '@stackspec/core';
import { stringify } from 'yaml';
import { isMapping } from './load.js';
import { type ParseTemplateOptions, validateTemplate } from './template.js';
import { CAPABILITIES_SECTION } from './versions.js';

/** Outcome of {@link stripCapabilities}. */
export interface StripCapabilitiesResult {
  /** The template text without its `capabilities` section (the input itself when there was none). */
  text: string;
  /** Whether a section was removed. */
  removed: boolean;
  /** `text` keeps the original lines and comments, `reserialized` had to write the template anew. */
  method: 'unchanged' | 'text' | 'reserialized';
}

function withoutCapabilities(value: Record<string, unknown>): Record<string, unknown> {
  const { [CAPABILITIES_SECTION]: _dropped, ...rest } = value;
  return rest;
}

/**
 * Returns a copy of a template without its `capabilities` section, for
 * handing annotated templates to real Heat (which rejects the section).
 * YAML templates keep every other line, comment and blank line as written;
 * the result is re-read to prove it holds exactly the same data minus the
 * section, and written anew (YAML 1.1-safe quoting) when the text cannot be
 * cut cleanly. JSON templates are written anew with two-space indentation.
 *
 * Throws `ValidationError` when the input is not a valid template.
 *
 * @example
 * stripCapabilities('heat_template_version: wallaby\ncapabilities:\n  deployment: puppet\nresources: {}\n').text;
 * // 'heat_template_version: wallaby\nresources: {}\n'
 */
export function stripCapabilities(
  source: string,
  options: ParseTemplateOptions = {},
): StripCapabilitiesResult {
  const parsed = validateTemplate(source, options);
  if (!parsed.ok) throw validationErrorOf(parsed.diagnostics);
  const template = parsed.template;
  if (!(CAPABILITIES_SECTION in template.value)) return { text: source, removed: false, method: 'unchanged' };
  const expected = withoutCapabilities(template.value);
  if (template.syntax === 'json') {
    return { text: `${JSON.stringify(expected, null, 2)}\n`, removed: true, method: 'reserialized' };
  }
  const key = template.document.locate([CAPABILITIES_SECTION], { key: true });
  const body = template.document.locate([CAPABILITIES_SECTION]);
  if (key && body && key.column === 1) {
    const lines = source.split(/(?<=\n)/);
    let last = Math.max(key.line, body.endLine);
    // A range that ends at the start of a line stops before it.
    if (body.endLine > key.line && body.endColumn === 1) last -= 1;
    const text = [...lines.slice(0, key.line - 1), ...lines.slice(last)].join('');
    const check = validateTemplate(text, { ...options, allowCapabilities: true });
    if (check.ok && isDeepStrictEqual(check.template.value, expected)) {
      return { text, removed: true, method: 'text' };
    }
  }
  const text = stringify(expected, { version: '1.1', lineWidth: 0 });
  const check = validateTemplate(text, options);
  if (!check.ok || !isMapping(check.template.value) || !isDeepStrictEqual(check.template.value, expected)) {
    throw new ValidationError('The template could not be written back without its capabilities section.', {
      code: 'heat/strip/failed',
    });
  }
  return { text, removed: true, method: 'reserialized' };
}
