import type { ValueRule } from '../define.js';
import { translatePythonRegex } from '../python-regex.js';
import type { DocSource } from './text.js';

/** Options for {@link renderJsonSchema}. */
export interface RenderJsonSchemaOptions {
  /** Refuse keys the registry does not know (default `true`, like strict mode). */
  closed?: boolean;
  /** `$id` of the schema. */
  id?: string;
}

// Nova reads integers with Python's int(): optional Unicode whitespace and
// sign, digits with single underscores between them. JSON Schema cannot
// express bounds on a string, so they go to `x-minimum` / `x-maximum` and the
// description; our validator checks them.
const PY_SPACE = '[\\t\\n\\v\\f\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]';
const INT_SOURCE = `^${PY_SPACE}*[+-]?\\p{Nd}+(_\\p{Nd}+)*${PY_SPACE}*$`;
const BOOL_WORDS = ['1', 't', 'true', 'on', 'y', 'yes', '0', 'f', 'false', 'off', 'n', 'no'];

function anyCase(word: string): string {
  return [...word].map((c) => (/[a-z]/.test(c) ? `[${c}${c.toUpperCase()}]` : c)).join('');
}

function valueSchema(rule: ValueRule, description: string, deprecated: boolean): Record<string, unknown> {
  const out: Record<string, unknown> = { type: 'string', description };
  if (deprecated) out.deprecated = true;
  if (rule.type === 'int') {
    out.pattern = INT_SOURCE;
    if (rule.min !== undefined) out['x-minimum'] = rule.min;
    if (rule.max !== undefined) out['x-maximum'] = rule.max;
  } else if (rule.type === 'bool') {
    out.pattern = `^\\s*(${BOOL_WORDS.map(anyCase).join('|')})\\s*$`;
  } else if (rule.enum) {
    out.enum = [...rule.enum];
  } else if (rule.pattern) {
    out.pattern = `^(?:${translatePythonRegex(rule.pattern)})$`;
  }
  return out;
}

/**
 * A JSON Schema (2020-12) for a flavor's `extra_specs` mapping: plain keys
 * under `properties`, patterned keys under `patternProperties` (each
 * placeholder replaced by its pattern), value rules as string patterns and
 * enumerations (Python's Unicode `\d`, `\w` and `\s` written as `\p{…}`
 * classes, so validators must use Unicode-aware regular expressions, as
 * JSON Schema's ECMA-262 dialect allows). Integer bounds cannot be stated on
 * strings and are given as `x-minimum` / `x-maximum`.
 */
export function renderJsonSchema(
  source: DocSource,
  options: RenderJsonSchemaOptions = {},
): Record<string, unknown> {
  const properties: Record<string, unknown> = {};
  const patternProperties: Record<string, unknown> = {};
  for (const e of source.entries()) {
    const schema = valueSchema(e.value, e.definition.description, e.definition.deprecated !== undefined);
    if (!e.parameters.length) {
      properties[e.name] = schema;
      continue;
    }
    let key = e.name.replace(/[.*+?^$()[\]|\\/]/g, '\\$&');
    for (const p of e.parameters) key = key.replace(`{${p.name}}`, `(?:${translatePythonRegex(p.pattern)})`);
    patternProperties[`^${key}$`] = schema;
  }
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    ...(options.id ? { $id: options.id } : {}),
    title: `Flavor extra specs (Nova ${source.release.series}, ${source.release.name})`,
    type: 'object',
    propertyNames: { pattern: '^[a-zA-Z0-9_:. \\-]{1,255}$' },
    properties,
    patternProperties,
    additionalProperties: options.closed === false,
  };
}
