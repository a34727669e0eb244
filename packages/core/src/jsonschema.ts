// JSON Schema validation that reports what Python's `jsonschema` reports.
// Ironic and Placement validate request bodies with jsonschema (4.10 on
// Debian 12, Draft 2020-12 rules when a schema names no draft) and answer a
// bad body with the message of one "best match" error; clients and scripts
// match on that text. So this evaluator follows jsonschema's order of errors
// (the schema's keyword order, which is Python dict order), its messages
// (values written with Python's repr) and its choice of the best error.
import { SpecError } from './errors.js';
import { PyNumber, pyCompare, pyEquals, pyRepr } from './python.js';
import { compilePythonRegex } from './python-regex.js';

/** The JSON types a `type` keyword may name. */
export type JsonSchemaType = 'object' | 'array' | 'string' | 'integer' | 'number' | 'boolean' | 'null';

/**
 * A JSON Schema (object form). Keyword order matters: errors come out in
 * the order keywords are listed, as in Python, where the schema is a dict.
 * `pattern` and the keys of `patternProperties` are Python regular
 * expressions, applied with `re.search`.
 */
export interface JsonSchemaObject {
  readonly type?: JsonSchemaType | readonly JsonSchemaType[];
  readonly enum?: readonly unknown[];
  readonly const?: unknown;
  readonly properties?: Readonly<Record<string, JsonSchema>>;
  readonly patternProperties?: Readonly<Record<string, JsonSchema>>;
  readonly additionalProperties?: JsonSchema;
  readonly required?: readonly string[];
  readonly minProperties?: number;
  readonly maxProperties?: number;
  readonly items?: JsonSchema;
  readonly minItems?: number;
  readonly maxItems?: number;
  readonly uniqueItems?: boolean;
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly pattern?: string;
  readonly format?: string;
  readonly minimum?: number;
  readonly maximum?: number;
  readonly exclusiveMinimum?: number;
  readonly exclusiveMaximum?: number;
  readonly anyOf?: readonly JsonSchema[];
  readonly oneOf?: readonly JsonSchema[];
  readonly allOf?: readonly JsonSchema[];
  readonly not?: JsonSchema;
  readonly title?: string;
  readonly description?: string;
  readonly default?: unknown;
  readonly examples?: readonly unknown[];
  readonly $schema?: string;
  readonly $id?: string;
  readonly $comment?: string;
}

/** A JSON Schema: an object, or `true` (anything) / `false` (nothing). */
export type JsonSchema = boolean | JsonSchemaObject;

/** One failed keyword, shaped like jsonschema's `ValidationError`. */
export interface JsonSchemaError {
  /** jsonschema's message, values written with Python's repr. */
  message: string;
  /** The keyword that failed (`type`, `required`, `anyOf`…). */
  keyword: string;
  /**
   * Where in the instance, relative to the error this one is part of (the
   * `context` of an `anyOf`/`oneOf` error); absolute for top-level errors.
   */
  path: (string | number)[];
  /** The value that failed. */
  instance: unknown;
  /** The schema object holding the keyword (`{}` for a `false` schema). */
  schema: JsonSchemaObject;
  /** For `anyOf` and `oneOf`: the errors of every alternative, in order. */
  context: JsonSchemaError[];
}

/** Options for {@link iterSchemaErrors}. */
export interface JsonSchemaOptions {
  /**
   * Checks for the `format` keyword, by format name. Formats are not
   * checked unless listed here, as jsonschema checks none without a
   * format checker. A failing check reads `<value> is not a '<format>'`.
   */
  formats?: Readonly<Record<string, (value: unknown) => boolean>>;
}

// Keywords of Draft 2020-12 that this evaluator does not implement. A schema
// using one is refused rather than silently half-checked; other unknown
// keys are ignored, as jsonschema ignores them.
const UNSUPPORTED = new Set([
  '$ref',
  '$dynamicRef',
  'additionalItems',
  'contains',
  'dependencies',
  'dependentRequired',
  'dependentSchemas',
  'if',
  'maxContains',
  'minContains',
  'multipleOf',
  'prefixItems',
  'propertyNames',
  'unevaluatedItems',
  'unevaluatedProperties',
]);

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof PyNumber);
}

function isNumber(value: unknown): boolean {
  return typeof value === 'number' || typeof value === 'bigint' || value instanceof PyNumber;
}

function numberOf(value: unknown): number {
  return value instanceof PyNumber ? value.value : Number(value);
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
      // Draft 6 and later count an integral float (2.0) as an integer.
      return isNumber(value) && Number.isInteger(numberOf(value));
    case 'number':
      return isNumber(value);
    case 'boolean':
      return typeof value === 'boolean';
    case 'null':
      return value === null;
    default:
      throw new SpecError(`The schema names an unknown type ${pyRepr(type)}.`, {
        code: 'jsonschema/unknown-type',
      });
  }
}

function typesOf(schema: JsonSchemaObject): readonly string[] {
  const t = schema.type;
  return t === undefined ? [] : typeof t === 'string' ? [t] : t;
}

function codePointLength(text: string): number {
  let n = 0;
  for (const _ of text) n += 1;
  return n;
}

// jsonschema's `equal` (for const and uniqueItems): Python equality, except
// that booleans never equal numbers at any depth. Two values are equal
// exactly when their canonical keys are.
function canonical(value: unknown): string {
  if (typeof value === 'boolean') return value ? 'T' : 'F';
  if (value === null || value === undefined) return 'N';
  if (isNumber(value)) {
    const n = numberOf(value);
    return `n${n === 0 ? 0 : n}`;
  }
  if (typeof value === 'string') return `s${JSON.stringify(value)}`;
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (typeof value === 'object') {
    const keys = Object.keys(value).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`).join(',')}}`;
  }
  return `?${String(value)}`;
}

function enumContains(values: readonly unknown[], instance: unknown): boolean {
  // jsonschema keeps True apart from 1 (and False from 0) at the top level
  // only; deeper down it uses plain Python equality, where [True] == [1].
  const zeroOrOne =
    typeof instance === 'boolean' || (isNumber(instance) && [0, 1].includes(numberOf(instance)));
  if (!zeroOrOne) return values.some((v) => pyEquals(v, instance));
  return values.some((v) =>
    typeof instance === 'boolean' || typeof v === 'boolean' ? v === instance : pyEquals(v, instance),
  );
}

class Evaluator {
  readonly #patterns = new Map<string, RegExp>();
  readonly #formats: Readonly<Record<string, (value: unknown) => boolean>>;

  constructor(options: JsonSchemaOptions) {
    this.#formats = options.formats ?? {};
  }

  search(pattern: string, text: string): boolean {
    let re = this.#patterns.get(pattern);
    if (!re) {
      re = compilePythonRegex(pattern);
      this.#patterns.set(pattern, re);
    }
    return re.test(text);
  }

  isValid(instance: unknown, schema: JsonSchema): boolean {
    return this.errors(instance, schema).length === 0;
  }

  descend(out: JsonSchemaError[], instance: unknown, schema: JsonSchema, at?: string | number): void {
    for (const e of this.errors(instance, schema)) {
      if (at !== undefined) e.path.unshift(at);
      out.push(e);
    }
  }

  errors(instance: unknown, schema: JsonSchema): JsonSchemaError[] {
    if (schema === true) return [];
    if (schema === false) {
      return [
        {
          message: `False schema does not allow ${pyRepr(instance)}`,
          keyword: 'false',
          path: [],
          instance,
          schema: {},
          context: [],
        },
      ];
    }
    if (!isObject(schema)) {
      throw new SpecError(`A schema must be an object or a boolean, not ${pyRepr(schema)}.`, {
        code: 'jsonschema/bad-schema',
      });
    }
    const out: JsonSchemaError[] = [];
    const fail = (keyword: string, message: string, context: JsonSchemaError[] = []) =>
      out.push({ message, keyword, path: [], instance, schema, context });
    const s = schema as JsonSchemaObject & Record<string, unknown>;
    for (const keyword of Object.keys(s)) {
      if (UNSUPPORTED.has(keyword)) {
        throw new SpecError(`The JSON Schema keyword ${keyword} is not supported.`, {
          code: 'jsonschema/unsupported-keyword',
        });
      }
      switch (keyword) {
        case 'type': {
          const types = typesOf(s);
          if (!types.some((t) => isType(instance, t))) {
            fail('type', `${pyRepr(instance)} is not of type ${types.map((t) => pyRepr(t)).join(', ')}`);
          }
          break;
        }
        case 'enum': {
          const values = s.enum ?? [];
          if (!enumContains(values, instance))
            fail('enum', `${pyRepr(instance)} is not one of ${pyRepr(values)}`);
          break;
        }
        case 'const':
          if (canonical(instance) !== canonical(s.const)) fail('const', `${pyRepr(s.const)} was expected`);
          break;
        case 'properties':
          if (isObject(instance)) {
            for (const [name, sub] of Object.entries(s.properties ?? {})) {
              if (Object.hasOwn(instance, name)) this.descend(out, instance[name], sub, name);
            }
          }
          break;
        case 'patternProperties':
          if (isObject(instance)) {
            for (const [pattern, sub] of Object.entries(s.patternProperties ?? {})) {
              for (const [key, value] of Object.entries(instance)) {
                if (this.search(pattern, key)) this.descend(out, value, sub, key);
              }
            }
          }
          break;
        case 'additionalProperties':
          if (isObject(instance)) this.additional(out, instance, s, fail);
          break;
        case 'required':
          if (isObject(instance)) {
            for (const name of s.required ?? []) {
              if (!Object.hasOwn(instance, name)) fail('required', `${pyRepr(name)} is a required property`);
            }
          }
          break;
        case 'minProperties':
          if (isObject(instance) && Object.keys(instance).length < (s.minProperties ?? 0)) {
            fail('minProperties', `${pyRepr(instance)} does not have enough properties`);
          }
          break;
        case 'maxProperties':
          if (
            isObject(instance) &&
            Object.keys(instance).length > (s.maxProperties ?? Number.POSITIVE_INFINITY)
          ) {
            fail('maxProperties', `${pyRepr(instance)} has too many properties`);
          }
          break;
        case 'items':
          if (Array.isArray(instance)) {
            const items = s.items;
            if (Array.isArray(items)) {
              throw new SpecError(
                'The JSON Schema keyword items must be a schema; use prefixItems for tuples.',
                {
                  code: 'jsonschema/unsupported-keyword',
                },
              );
            }
            if (items === false && instance.length > 0) {
              fail('items', `Expected at most 0 items, but found ${instance.length}`);
            } else if (items !== undefined && items !== false) {
              instance.forEach((item, index) => {
                this.descend(out, item, items, index);
              });
            }
          }
          break;
        case 'minItems':
          if (Array.isArray(instance) && instance.length < (s.minItems ?? 0)) {
            fail('minItems', `${pyRepr(instance)} is too short`);
          }
          break;
        case 'maxItems':
          if (Array.isArray(instance) && instance.length > (s.maxItems ?? Number.POSITIVE_INFINITY)) {
            fail('maxItems', `${pyRepr(instance)} is too long`);
          }
          break;
        case 'uniqueItems':
          if (s.uniqueItems && Array.isArray(instance)) {
            const seen = new Set(instance.map(canonical));
            if (seen.size !== instance.length)
              fail('uniqueItems', `${pyRepr(instance)} has non-unique elements`);
          }
          break;
        case 'minLength':
          if (typeof instance === 'string' && codePointLength(instance) < (s.minLength ?? 0)) {
            fail('minLength', `${pyRepr(instance)} is too short`);
          }
          break;
        case 'maxLength':
          if (
            typeof instance === 'string' &&
            codePointLength(instance) > (s.maxLength ?? Number.POSITIVE_INFINITY)
          ) {
            fail('maxLength', `${pyRepr(instance)} is too long`);
          }
          break;
        case 'pattern':
          if (typeof instance === 'string' && s.pattern !== undefined && !this.search(s.pattern, instance)) {
            fail('pattern', `${pyRepr(instance)} does not match ${pyRepr(s.pattern)}`);
          }
          break;
        case 'format': {
          const check = s.format === undefined ? undefined : this.#formats[s.format];
          if (check && !check(instance)) fail('format', `${pyRepr(instance)} is not a ${pyRepr(s.format)}`);
          break;
        }
        case 'minimum':
        case 'maximum':
        case 'exclusiveMinimum':
        case 'exclusiveMaximum':
          if (isNumber(instance)) this.bound(keyword, numberOf(instance), instance, s[keyword], fail);
          break;
        case 'allOf':
          for (const sub of s.allOf ?? []) this.descend(out, instance, sub);
          break;
        case 'anyOf': {
          const all: JsonSchemaError[] = [];
          let matched = false;
          for (const sub of s.anyOf ?? []) {
            const errs = this.errors(instance, sub);
            if (!errs.length) {
              matched = true;
              break;
            }
            all.push(...errs);
          }
          if (!matched) fail('anyOf', `${pyRepr(instance)} is not valid under any of the given schemas`, all);
          break;
        }
        case 'oneOf':
          this.oneOf(instance, s.oneOf ?? [], fail);
          break;
        case 'not':
          if (s.not !== undefined && this.isValid(instance, s.not)) {
            fail('not', `${pyRepr(instance)} should not be valid under ${pyRepr(s.not)}`);
          }
          break;
        default:
          break;
      }
    }
    return out;
  }

  additional(
    out: JsonSchemaError[],
    instance: Record<string, unknown>,
    s: JsonSchemaObject,
    fail: (keyword: string, message: string) => void,
  ): void {
    const patterns = Object.keys(s.patternProperties ?? {});
    const extras = Object.keys(instance).filter(
      (k) => !Object.hasOwn(s.properties ?? {}, k) && !patterns.some((p) => this.search(p, k)),
    );
    const aP = s.additionalProperties;
    if (typeof aP === 'object' && aP !== null) {
      // Python walks a set of the extra names, in no fixed order; we keep the instance's.
      for (const k of extras) this.descend(out, instance[k], aP, k);
      return;
    }
    if (aP !== false || !extras.length) return;
    const names = [...extras].sort(pyCompare).map((e) => pyRepr(e));
    if (s.patternProperties !== undefined) {
      const regexes = [...patterns].sort(pyCompare).map((p) => pyRepr(p));
      fail(
        'additionalProperties',
        `${names.join(', ')} ${extras.length === 1 ? 'does' : 'do'} not match any of the regexes: ${regexes.join(', ')}`,
      );
    } else {
      fail(
        'additionalProperties',
        `Additional properties are not allowed (${names.join(', ')} ${extras.length === 1 ? 'was' : 'were'} unexpected)`,
      );
    }
  }

  bound(
    keyword: string,
    value: number,
    instance: unknown,
    limit: unknown,
    fail: (keyword: string, message: string) => void,
  ): void {
    if (typeof limit !== 'number') return;
    const v = pyRepr(instance);
    const l = pyRepr(limit);
    if (keyword === 'minimum' && value < limit) fail(keyword, `${v} is less than the minimum of ${l}`);
    if (keyword === 'maximum' && value > limit) fail(keyword, `${v} is greater than the maximum of ${l}`);
    if (keyword === 'exclusiveMinimum' && value <= limit) {
      fail(keyword, `${v} is less than or equal to the minimum of ${l}`);
    }
    if (keyword === 'exclusiveMaximum' && value >= limit) {
      fail(keyword, `${v} is greater than or equal to the maximum of ${l}`);
    }
  }

  oneOf(
    instance: unknown,
    alternatives: readonly JsonSchema[],
    fail: (keyword: string, message: string, context?: JsonSchemaError[]) => void,
  ): void {
    const all: JsonSchemaError[] = [];
    let first = -1;
    for (let i = 0; i < alternatives.length; i += 1) {
      const errs = this.errors(instance, alternatives[i] as JsonSchema);
      if (!errs.length) {
        first = i;
        break;
      }
      all.push(...errs);
    }
    if (first < 0) {
      fail('oneOf', `${pyRepr(instance)} is not valid under any of the given schemas`, all);
      return;
    }
    const more = alternatives.slice(first + 1).filter((alt) => this.isValid(instance, alt));
    if (more.length) {
      const reprs = [...more, alternatives[first]].map((alt) => pyRepr(alt)).join(', ');
      fail('oneOf', `${pyRepr(instance)} is valid under each of ${reprs}`);
    }
  }
}

/**
 * Every error of `instance` against `schema`, in the order jsonschema
 * yields them (keyword order, depth first); empty when the instance is
 * valid. `anyOf`/`oneOf` errors carry their alternatives' errors in
 * `context`.
 *
 * Throws `SpecError` for a schema this evaluator cannot apply faithfully:
 * `jsonschema/unsupported-keyword` (`$ref`, `if`, `prefixItems`,
 * `multipleOf`…), `jsonschema/unknown-type`, `jsonschema/bad-schema`, or
 * `python/bad-regex` for a pattern with no JavaScript equivalent.
 *
 * @example
 * iterSchemaErrors({ name: 5 }, { type: 'object', properties: { name: { type: 'string' } } })[0]?.message;
 * // "5 is not of type 'string'"
 */
export function iterSchemaErrors(
  instance: unknown,
  schema: JsonSchema,
  options: JsonSchemaOptions = {},
): JsonSchemaError[] {
  return new Evaluator(options).errors(instance, schema);
}

const WEAK = new Set(['anyOf', 'oneOf']);

// jsonschema's `relevance` key: shallower errors first, then errors that are
// not anyOf/oneOf, then errors about a value that does not even have the
// type its schema asks for.
function relevance(e: JsonSchemaError): [number, number, number] {
  const types = typesOf(e.schema);
  const matchesType = types.length > 0 && types.some((t) => isType(e.instance, t));
  return [-e.path.length, WEAK.has(e.keyword) ? 0 : 1, matchesType ? 0 : 1];
}

function compareRelevance(a: JsonSchemaError, b: JsonSchemaError): number {
  const ka = relevance(a);
  const kb = relevance(b);
  for (let i = 0; i < ka.length; i += 1) {
    const d = (ka[i] as number) - (kb[i] as number);
    if (d) return d;
  }
  return 0;
}

/**
 * jsonschema's `best_match`: the most relevant error (the first of equals),
 * then, while it has a `context`, the least relevant of that context (the
 * deepest alternative's error) unless the two least relevant tie. Returns
 * `undefined` for no errors.
 */
export function bestSchemaMatch(errors: readonly JsonSchemaError[]): JsonSchemaError | undefined {
  let best: JsonSchemaError | undefined;
  for (const e of errors) if (!best || compareRelevance(e, best) > 0) best = e;
  while (best?.context.length) {
    let first: JsonSchemaError | undefined;
    let second: JsonSchemaError | undefined;
    for (const e of best.context) {
      if (!first || compareRelevance(e, first) < 0) {
        second = first;
        first = e;
      } else if (!second || compareRelevance(e, second) < 0) second = e;
    }
    if (first && second && compareRelevance(first, second) === 0) return best;
    best = first;
  }
  return best;
}

/**
 * The message `jsonschema.validate` would raise for `instance`, or
 * `undefined` when it is valid: the message of {@link bestSchemaMatch} over
 * {@link iterSchemaErrors}. Throws as {@link iterSchemaErrors} does.
 *
 * @example
 * schemaErrorMessage({}, { type: 'object', required: ['name'] }); // "'name' is a required property"
 */
export function schemaErrorMessage(
  instance: unknown,
  schema: JsonSchema,
  options: JsonSchemaOptions = {},
): string | undefined {
  return bestSchemaMatch(iterSchemaErrors(instance, schema, options))?.message;
}
