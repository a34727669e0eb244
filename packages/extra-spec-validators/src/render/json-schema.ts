import { PY_WHITESPACE, PythonRegexError, translatePythonRegexPortable } from '@stackspec/core';
import type { ValueRule } from '../define.js';
import { BOOL_WORDS } from '../python-values.js';
import { effectivePattern } from '../value-check.js';
import { assertDocSource } from './common.js';
import { rstToPlain } from './inline.js';
import type { DocSource } from './text.js';

/** Options for {@link renderJsonSchema}. */
export interface RenderJsonSchemaOptions {
  /** Refuse keys the registry does not know (default `true`, like strict mode). */
  closed?: boolean;
  /** `$id` of the schema. */
  id?: string;
}

/** Longest value Nova's API stores (its own schema's `maxLength`). */
const MAX_VALUE = 255;

// Every pattern below is written for three engines at once: Python's `re`
// (jsonschema and most validators outside JavaScript), ECMA-262 with the `u`
// flag (Ajv) and without it. Hence no `\p{…}`, no `\u{…}`, no named groups;
// `$(?!\n)` ends a match because Python's `$` also matches before a final
// newline; `\d` lists the BMP's decimal digits.

/** The end of the text, in every engine. */
const END = '$(?!\\n)';

// Python's int() skips whitespace around the number (but not U+001C to
// U+001F, which str.isspace() counts), takes one sign, and digits from any
// script with single underscores between them.
const INT_SPACE = '[\\t\\n\\v\\f\\r \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]';

function anyCase(word: string): string {
  return [...word].map((c) => (/[a-z]/.test(c) ? `[${c}${c.toUpperCase()}]` : c)).join('');
}

function definitions(): Record<string, Record<string, unknown>> {
  // `\d` in Python's sense, as one portable atom.
  const d = translatePythonRegexPortable('\\d');
  return {
    'python-int': {
      type: 'string',
      maxLength: MAX_VALUE,
      pattern: `^${INT_SPACE}*[+-]?${d}+(?:_${d}+)*${INT_SPACE}*${END}`,
      description:
        "An integer as Python's int() reads it: optional whitespace and sign, decimal digits of any script " +
        `with single underscores between them. Bounds are given as x-minimum and x-maximum (JSON Schema ` +
        'cannot bound a number written as a string). Any character outside the Basic Multilingual Plane ' +
        'passes for a digit here.',
    },
    'python-bool': {
      type: 'string',
      maxLength: MAX_VALUE,
      pattern: `^[${PY_WHITESPACE}]*(?:${BOOL_WORDS.map(anyCase).join('|')})[${PY_WHITESPACE}]*${END}`,
      description: "A boolean word oslo accepts, in any case, with Python's whitespace around it.",
    },
  };
}

/**
 * A value pattern anchored at both ends for validators that search (JSON
 * Schema, Glance metadefs): Nova's pattern (or its linear rewrite) in the
 * portable dialect. Throws `PythonRegexError` where there is no portable form.
 */
export function portableFullMatch(pattern: string): string {
  return `^(?:${translatePythonRegexPortable(effectivePattern(pattern))})${END}`;
}

function valueSchema(rule: ValueRule, description: string, deprecated: boolean): Record<string, unknown> {
  const flags = deprecated ? { deprecated: true } : {};
  if (rule.type === 'int') {
    return {
      $ref: '#/$defs/python-int',
      description,
      ...flags,
      ...(rule.min !== undefined ? { 'x-minimum': rule.min } : {}),
      ...(rule.max !== undefined ? { 'x-maximum': rule.max } : {}),
    };
  }
  if (rule.type === 'bool') return { $ref: '#/$defs/python-bool', description, ...flags };
  const out: Record<string, unknown> = { type: 'string', description, ...flags };
  if (rule.enum) {
    out.enum = [...rule.enum];
    return out;
  }
  out.maxLength = MAX_VALUE;
  if (rule.pattern) {
    try {
      out.pattern = portableFullMatch(rule.pattern);
    } catch (e) {
      if (!(e instanceof PythonRegexError)) throw e;
      out.description = `${description} (The value must match the Python pattern ${rule.pattern}, which has no portable form: ${e.message}; this schema does not check it.)`;
      out['x-python-pattern'] = rule.pattern;
    }
  }
  return out;
}

function escapeName(text: string): string {
  return text.replace(/[.*+?^$()[\]{}|\\/]/g, '\\$&');
}

/** The key regex of a patterned name, or a looser one (placeholders as `.*`) with `exact: false`. */
function keyPattern(
  name: string,
  parameters: readonly { name: string; pattern: string }[],
): { pattern: string; exact: boolean } {
  const parts = name.split(/(\{[A-Za-z_][A-Za-z0-9_]*\})/);
  let exact = true;
  const body = parts
    .map((part, i) => {
      if (i % 2 === 0) return escapeName(part);
      const param = parameters.find((p) => `{${p.name}}` === part);
      if (!param) return escapeName(part);
      try {
        return `(?:${translatePythonRegexPortable(param.pattern)})`;
      } catch (e) {
        if (!(e instanceof PythonRegexError)) throw e;
        exact = false;
        return '.*';
      }
    })
    .join('');
  return { pattern: `^${body}${END}`, exact };
}

/**
 * A JSON Schema (2020-12) for a flavor's `extra_specs` mapping: plain keys
 * under `properties`, patterned keys under `patternProperties` (each
 * placeholder replaced by its pattern), values as strings of at most 255
 * characters with their rule as an enumeration or a pattern. Integers and
 * booleans refer to `$defs/python-int` and `$defs/python-bool`, which follow
 * Python's parsing; integer bounds cannot be stated on strings and are given
 * as `x-minimum` / `x-maximum`.
 *
 * Patterns are portable: they mean the same in Python's `re` (so Python's
 * `jsonschema` can use the document) and in ECMA-262 with or without the `u`
 * flag. Where Nova's pattern uses Unicode classes they are exact within the
 * Basic Multilingual Plane and let other characters through; a value pattern
 * with no portable form is left out (its description says so, and
 * `x-python-pattern` keeps it), and a key pattern with none is loosened to
 * `.*` with its value left unchecked — never stricter than the validator.
 */
export function renderJsonSchema(
  source: DocSource,
  options: RenderJsonSchemaOptions = {},
): Record<string, unknown> {
  assertDocSource(source, 'renderJsonSchema');
  const properties: Record<string, unknown> = {};
  const patternProperties: Record<string, unknown> = {};
  for (const e of source.entries()) {
    const schema = valueSchema(
      e.value,
      rstToPlain(e.definition.description),
      e.definition.deprecated !== undefined,
    );
    if (!e.parameters.length) {
      properties[e.name] = schema;
      continue;
    }
    const key = keyPattern(e.name, e.parameters);
    patternProperties[key.pattern] = key.exact
      ? schema
      : {
          type: 'string',
          maxLength: MAX_VALUE,
          description: `${rstToPlain(e.definition.description)} (Keys of the form ${e.name}; their parameter patterns have no portable form, so this schema matches them loosely and does not check their values.)`,
        };
  }
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    ...(options.id ? { $id: options.id } : {}),
    title: `Flavor extra specs (Nova ${source.release.series}, ${source.release.name})`,
    description:
      "A flavor's extra_specs as Nova's API stores them: string values of at most 255 characters, keys of " +
      "letters, digits, '-', '_', ':', '.' and space. Patterns work in Python's re and in ECMA-262 with or " +
      'without the u flag.',
    type: 'object',
    propertyNames: { pattern: `^[a-zA-Z0-9_:. \\-]{1,255}${END}` },
    properties,
    patternProperties,
    additionalProperties: options.closed === false,
    $defs: definitions(),
  };
}
