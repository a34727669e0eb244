// A small JSON-schema checker that reports the one message Python's
// jsonschema (4.10, best_match) would report for Placement's body schemas,
// so 400 bodies read the same as Placement's.
import { isUuidLike } from '@stackspec/core';
import { pyCompare, pyRepr } from '../python.js';

/** The subset of JSON Schema Placement's request schemas use. */
export interface Schema {
  type?: string | string[];
  properties?: Record<string, Schema>;
  patternProperties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: boolean;
  /** Python dict order put `additionalProperties` before `required` in this schema. */
  additionalFirst?: boolean;
  items?: Schema;
  minItems?: number;
  minProperties?: number;
  uniqueItems?: boolean;
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  format?: 'uuid';
  enum?: unknown[];
  anyOf?: Schema[];
}

interface SchemaError {
  path: number;
  message: string;
  weak: boolean;
}

/** Python's repr() of a JSON value. */
export function pyValueRepr(value: unknown): string {
  if (value === null || value === undefined) return 'None';
  if (value === true) return 'True';
  if (value === false) return 'False';
  if (typeof value === 'string') return pyRepr(value);
  if (typeof value === 'number') {
    if (Number.isInteger(value) && Math.abs(value) < 1e16) return String(value);
    if (!Number.isFinite(value)) return value > 0 ? 'inf' : value < 0 ? '-inf' : 'nan';
    const s = String(value);
    return s.includes('e')
      ? s.replace(/e\+?(-?)(\d)$/, 'e$1+0$2').replace('e+-', 'e-')
      : s.includes('.')
        ? s
        : `${s}.0`;
  }
  if (Array.isArray(value)) return `[${value.map(pyValueRepr).join(', ')}]`;
  if (typeof value === 'object') {
    return `{${Object.entries(value as Record<string, unknown>)
      .map(([k, v]) => `${pyRepr(k)}: ${pyValueRepr(v)}`)
      .join(', ')}}`;
  }
  return String(value);
}

function typeMatches(value: unknown, type: string): boolean {
  switch (type) {
    case 'string':
      return typeof value === 'string';
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value);
    case 'number':
      return typeof value === 'number';
    case 'object':
      return typeof value === 'object' && value !== null && !Array.isArray(value);
    case 'array':
      return Array.isArray(value);
    case 'null':
      return value === null;
    case 'boolean':
      return typeof value === 'boolean';
    default:
      return true;
  }
}

function pySearch(pattern: string, text: string): boolean {
  const re = new RegExp(pattern);
  return re.test(text) || (text.endsWith('\n') && re.test(text.slice(0, -1)));
}

function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

function* check(value: unknown, schema: Schema, depth: number): Generator<SchemaError> {
  const err = (message: string): SchemaError => ({ path: depth, message, weak: false });
  // Keywords in the order Placement's schema dicts list them (type first).
  if (schema.type !== undefined) {
    const types = Array.isArray(schema.type) ? schema.type : [schema.type];
    if (!types.some((t) => typeMatches(value, t))) {
      yield err(`${pyValueRepr(value)} is not of type ${types.map((t) => pyRepr(t)).join(', ')}`);
      return;
    }
  }
  if (schema.anyOf) {
    if (!schema.anyOf.some((s) => check(value, s, depth).next().done)) {
      yield {
        path: depth,
        message: `${pyValueRepr(value)} is not valid under any of the given schemas`,
        weak: true,
      };
    }
  }
  if (schema.enum && !schema.enum.some((e) => sameJson(e, value))) {
    yield err(`${pyValueRepr(value)} is not one of ${pyValueRepr(schema.enum)}`);
  }
  if (typeof value === 'string') {
    if (schema.pattern !== undefined && !pySearch(schema.pattern, value)) {
      yield err(`${pyValueRepr(value)} does not match ${pyRepr(schema.pattern)}`);
    }
    const length = Array.from(value).length;
    if (schema.maxLength !== undefined && length > schema.maxLength)
      yield err(`${pyValueRepr(value)} is too long`);
    if (schema.minLength !== undefined && length < schema.minLength)
      yield err(`${pyValueRepr(value)} is too short`);
    if (schema.format === 'uuid' && !isUuidLike(value)) yield err(`${pyValueRepr(value)} is not a 'uuid'`);
  }
  if (typeof value === 'number') {
    if (schema.minimum !== undefined && value < schema.minimum) {
      yield err(`${pyValueRepr(value)} is less than the minimum of ${pyValueRepr(schema.minimum)}`);
    }
    if (schema.maximum !== undefined && value > schema.maximum) {
      yield err(`${pyValueRepr(value)} is greater than the maximum of ${pyValueRepr(schema.maximum)}`);
    }
  }
  if (Array.isArray(value)) {
    if (schema.minItems !== undefined && value.length < schema.minItems)
      yield err(`${pyValueRepr(value)} is too short`);
    if (schema.items) for (const item of value) yield* check(item, schema.items, depth + 1);
    if (schema.uniqueItems) {
      const seen = new Set(value.map((v) => JSON.stringify(v)));
      if (seen.size !== value.length) yield err(`${pyValueRepr(value)} has non-unique elements`);
    }
  }
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    const obj = value as Record<string, unknown>;
    if (schema.minProperties !== undefined && Object.keys(obj).length < schema.minProperties) {
      yield err(`${pyValueRepr(value)} does not have enough properties`);
    }
    for (const [name, sub] of Object.entries(schema.properties ?? {})) {
      if (Object.hasOwn(obj, name)) yield* check(obj[name], sub, depth + 1);
    }
    const missing = function* (): Generator<SchemaError> {
      for (const name of schema.required ?? []) {
        if (!Object.hasOwn(obj, name)) yield err(`${pyRepr(name)} is a required property`);
      }
    };
    if (!schema.additionalFirst) yield* missing();
    const patterns = Object.entries(schema.patternProperties ?? {});
    for (const [key, item] of Object.entries(obj)) {
      for (const [pattern, sub] of patterns) if (pySearch(pattern, key)) yield* check(item, sub, depth + 1);
    }
    if (schema.additionalProperties === false) {
      const extras = Object.keys(obj)
        .filter((k) => !(schema.properties && Object.hasOwn(schema.properties, k)))
        .filter((k) => !patterns.some(([p]) => pySearch(p, k)))
        .sort(pyCompare);
      if (extras.length) {
        if (schema.patternProperties) {
          const regexes = patterns
            .map(([p]) => p)
            .sort(pyCompare)
            .map((p) => pyRepr(p))
            .join(', ');
          yield err(
            `${extras.map((e) => pyRepr(e)).join(', ')} ${extras.length === 1 ? 'does' : 'do'} not match any of the regexes: ${regexes}`,
          );
        } else {
          yield err(
            `Additional properties are not allowed (${extras.map((e) => pyRepr(e)).join(', ')} ${extras.length === 1 ? 'was' : 'were'} unexpected)`,
          );
        }
      }
    }
    if (schema.additionalFirst) yield* missing();
  }
}

/**
 * The message jsonschema's `best_match` would raise for `value`, or
 * `undefined` when it is valid: the shallowest error wins, then the first
 * found; `anyOf` failures lose to others at the same depth.
 */
export function schemaError(value: unknown, schema: Schema): string | undefined {
  let best: SchemaError | undefined;
  for (const e of check(value, schema, 0)) {
    if (!best || e.path < best.path || (e.path === best.path && best.weak && !e.weak)) best = e;
  }
  return best?.message;
}
