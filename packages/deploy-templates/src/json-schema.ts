// A small JSON Schema evaluator that reproduces the error Ironic reports for
// a request body. Ironic validates with the Python `jsonschema` library and
// shows a single "best match" error (plus a "possible root cause" for
// anyOf failures); clients and scripts match on that text, so both the
// keyword messages and the choice of error follow jsonschema 4.10 (Debian 12).
// Only the keywords Ironic's deploy template schemas use are supported.
import { pyRepr } from '@stackspec/core';

/** The JSON Schema subset used by Ironic's deploy template and patch schemas. Keyword order matters. */
export interface MiniSchema {
  type?: string | readonly string[];
  properties?: Readonly<Record<string, MiniSchema>>;
  required?: readonly string[];
  additionalProperties?: boolean;
  items?: MiniSchema;
  minItems?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: RegExp;
  /** Python spelling of `pattern`, for messages. */
  patternSource?: string;
  enum?: readonly unknown[];
  anyOf?: readonly MiniSchema[];
  minimum?: number;
}

/** One schema violation, shaped like jsonschema's `ValidationError`. */
export interface SchemaViolation {
  message: string;
  keyword: string;
  /** Path relative to the parent violation (absolute for top-level ones). */
  path: (string | number)[];
  context: SchemaViolation[];
  schema: MiniSchema;
  instance: unknown;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isType(value: unknown, type: string): boolean {
  switch (type) {
    case 'object':
      return isObject(value);
    case 'array':
      return Array.isArray(value);
    case 'string':
      return typeof value === 'string';
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value);
    case 'number':
      return typeof value === 'number';
    case 'boolean':
      return typeof value === 'boolean';
    case 'null':
      return value === null;
    default:
      return false;
  }
}

function codePoints(text: string): number {
  let n = 0;
  for (const _ of text) n += 1;
  return n;
}

function pyEqual(a: unknown, b: unknown): boolean {
  if (typeof a !== typeof b) return false;
  return JSON.stringify(a) === JSON.stringify(b);
}

function violation(
  message: string,
  keyword: string,
  schema: MiniSchema,
  instance: unknown,
  context: SchemaViolation[] = [],
): SchemaViolation {
  return { message, keyword, path: [], context, schema, instance };
}

/** Every violation of `schema` by `instance`, in jsonschema's order (schema keyword order). */
export function iterViolations(instance: unknown, schema: MiniSchema): SchemaViolation[] {
  const out: SchemaViolation[] = [];
  const descend = (value: unknown, sub: MiniSchema, at?: string | number) => {
    for (const v of iterViolations(value, sub)) {
      if (at !== undefined) v.path.unshift(at);
      out.push(v);
    }
  };
  for (const keyword of Object.keys(schema)) {
    switch (keyword) {
      case 'type': {
        const types = typeof schema.type === 'string' ? [schema.type] : (schema.type ?? []);
        if (!types.some((t) => isType(instance, t))) {
          out.push(
            violation(
              `${pyRepr(instance)} is not of type ${types.map((t) => pyRepr(t)).join(', ')}`,
              'type',
              schema,
              instance,
            ),
          );
        }
        break;
      }
      case 'properties':
        if (isObject(instance)) {
          for (const [name, sub] of Object.entries(schema.properties ?? {})) {
            if (Object.hasOwn(instance, name)) descend(instance[name], sub, name);
          }
        }
        break;
      case 'required':
        if (isObject(instance)) {
          for (const name of schema.required ?? []) {
            if (!Object.hasOwn(instance, name)) {
              out.push(violation(`${pyRepr(name)} is a required property`, 'required', schema, instance));
            }
          }
        }
        break;
      case 'additionalProperties':
        if (isObject(instance) && schema.additionalProperties === false) {
          const known = schema.properties ?? {};
          const extras = Object.keys(instance).filter((k) => !Object.hasOwn(known, k));
          if (extras.length) {
            out.push(
              violation(
                `Additional properties are not allowed (${extras.map((e) => pyRepr(e)).join(', ')} ${extras.length === 1 ? 'was' : 'were'} unexpected)`,
                'additionalProperties',
                schema,
                instance,
              ),
            );
          }
        }
        break;
      case 'items':
        if (Array.isArray(instance) && schema.items) {
          const items = schema.items;
          instance.forEach((item, index) => {
            descend(item, items, index);
          });
        }
        break;
      case 'minItems':
        if (Array.isArray(instance) && instance.length < (schema.minItems ?? 0)) {
          out.push(violation(`${pyRepr(instance)} is too short`, 'minItems', schema, instance));
        }
        break;
      case 'minLength':
        if (typeof instance === 'string' && codePoints(instance) < (schema.minLength ?? 0)) {
          out.push(violation(`${pyRepr(instance)} is too short`, 'minLength', schema, instance));
        }
        break;
      case 'maxLength':
        if (
          typeof instance === 'string' &&
          codePoints(instance) > (schema.maxLength ?? Number.POSITIVE_INFINITY)
        ) {
          out.push(violation(`${pyRepr(instance)} is too long`, 'maxLength', schema, instance));
        }
        break;
      case 'pattern':
        if (typeof instance === 'string' && schema.pattern && !schema.pattern.test(instance)) {
          out.push(
            violation(
              `${pyRepr(instance)} does not match ${pyRepr(schema.patternSource ?? schema.pattern.source)}`,
              'pattern',
              schema,
              instance,
            ),
          );
        }
        break;
      case 'enum': {
        const values = schema.enum ?? [];
        if (!values.some((v) => pyEqual(v, instance))) {
          out.push(
            violation(`${pyRepr(instance)} is not one of ${pyRepr(values)}`, 'enum', schema, instance),
          );
        }
        break;
      }
      case 'anyOf': {
        const all: SchemaViolation[] = [];
        let matched = false;
        for (const sub of schema.anyOf ?? []) {
          const errs = iterViolations(instance, sub);
          if (!errs.length) {
            matched = true;
            break;
          }
          all.push(...errs);
        }
        if (!matched) {
          out.push(
            violation(
              `${pyRepr(instance)} is not valid under any of the given schemas`,
              'anyOf',
              schema,
              instance,
              all,
            ),
          );
        }
        break;
      }
      case 'minimum':
        if (typeof instance === 'number' && instance < (schema.minimum ?? Number.NEGATIVE_INFINITY)) {
          out.push(
            violation(
              `${pyRepr(instance)} is less than the minimum of ${pyRepr(schema.minimum)}`,
              'minimum',
              schema,
              instance,
            ),
          );
        }
        break;
      default:
        break;
    }
  }
  return out;
}

const WEAK = new Set(['anyOf', 'oneOf']);

function relevance(v: SchemaViolation): number[] {
  const type = v.schema.type;
  const matchesType =
    type === undefined
      ? false
      : (typeof type === 'string' ? [type] : type).some((t) => isType(v.instance, t));
  return [-v.path.length, WEAK.has(v.keyword) ? 0 : 1, 0, matchesType ? 0 : 1];
}

function compareKeys(a: number[], b: number[]): number {
  for (let i = 0; i < a.length; i += 1) {
    const d = (a[i] ?? 0) - (b[i] ?? 0);
    if (d) return d;
  }
  return 0;
}

/** jsonschema's `best_match`: the most relevant violation, descending into anyOf contexts. */
export function bestMatch(violations: readonly SchemaViolation[]): SchemaViolation | undefined {
  let best: SchemaViolation | undefined;
  for (const v of violations) {
    if (!best || compareKeys(relevance(v), relevance(best)) > 0) best = v;
  }
  while (best?.context.length) {
    const sorted = best.context
      .map((v, i) => ({ v, i, k: relevance(v) }))
      .sort((a, b) => compareKeys(a.k, b.k) || a.i - b.i);
    const [first, second] = sorted;
    if (first && second && compareKeys(first.k, second.k) === 0) return best;
    best = first?.v;
  }
  return best;
}

/**
 * The message Ironic puts in a 400 for a schema failure:
 * `Schema error for <name>: <best match>[. Possible root cause: <cause>]`,
 * or `undefined` when the value is valid.
 */
export function ironicSchemaMessage(instance: unknown, schema: MiniSchema, name: string): string | undefined {
  const best = bestMatch(iterViolations(instance, schema));
  if (!best) return undefined;
  let message = `Schema error for ${name}: ${best.message}`;
  let cause: string | undefined;
  let current: SchemaViolation | undefined = best;
  while (current?.context.length) {
    current = bestMatch(current.context);
    cause = current?.message;
  }
  if (cause !== undefined) message += `. Possible root cause: ${cause}`;
  return message;
}
