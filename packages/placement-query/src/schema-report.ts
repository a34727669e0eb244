// jsonschema's full report of a failed validation, as Placement puts it in its
// 400 details: the message, then "Failed validating '<keyword>' in
// schema[...]:" with the failing (sub)schema pretty-printed, then "On
// instance[...]:" with the failing value pretty-printed, both the way
// Python's pprint.pformat(width=72) writes them. Placement's error body
// turns the report's newlines into spaces.
import {
  bestSchemaMatch,
  iterSchemaErrors,
  type JsonSchema,
  type JsonSchemaError,
  type JsonSchemaObject,
  type JsonSchemaOptions,
  pyCompare,
  pyRepr,
} from '@stackspec/core';

const WIDTH = 72;

const isDict = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

const length = (text: string): number => {
  let n = 0;
  for (const _ of text) n += 1;
  return n;
};

function sortedEntries(o: Record<string, unknown>): [string, unknown][] {
  return Object.entries(o).sort(([a], [b]) => pyCompare(a, b));
}

/** pprint's one-line repr: Python's repr, with dict keys sorted. */
function safeRepr(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(safeRepr).join(', ')}]`;
  if (isDict(value))
    return `{${sortedEntries(value)
      .map(([k, v]) => `${pyRepr(k)}: ${safeRepr(v)}`)
      .join(', ')}}`;
  return pyRepr(value);
}

// str.splitlines(keepends=True): Python also breaks lines at \x1c-\x1e, on purpose here.
const BREAKS = '\\n\\r\\v\\f\\x1c-\\x1e\\x85\\u2028\\u2029';
const LINE = new RegExp(`[^${BREAKS}]*(?:\\r\\n|[${BREAKS}])?`, 'g');

class Printer {
  out = '';

  format(value: unknown, indent: number, allowance: number, level: number): void {
    const rep = safeRepr(value);
    if (length(rep) > WIDTH - indent - allowance) {
      if (isDict(value) && Object.keys(value).length) {
        this.dict(value, indent, allowance, level + 1);
        return;
      }
      if (Array.isArray(value) && value.length) {
        this.list(value, indent, allowance, level + 1);
        return;
      }
      if (typeof value === 'string' && value.length) {
        this.str(value, indent, allowance, level + 1);
        return;
      }
    }
    this.out += rep;
  }

  dict(value: Record<string, unknown>, indent: number, allowance: number, level: number): void {
    this.out += '{';
    const items = sortedEntries(value);
    const inner = indent + 1;
    items.forEach(([key, entry], i) => {
      const last = i === items.length - 1;
      const rep = pyRepr(key);
      this.out += `${rep}: `;
      this.format(entry, inner + length(rep) + 2, last ? allowance + 1 : 1, level);
      if (!last) this.out += `,\n${' '.repeat(inner)}`;
    });
    this.out += '}';
  }

  list(value: unknown[], indent: number, allowance: number, level: number): void {
    this.out += '[';
    const inner = indent + 1;
    value.forEach((entry, i) => {
      const last = i === value.length - 1;
      if (i) this.out += `,\n${' '.repeat(inner)}`;
      this.format(entry, inner, last ? allowance + 1 : 1, level);
    });
    this.out += ']';
  }

  // Long strings are split at whitespace into adjacent literals, in
  // parentheses at the top level.
  str(value: string, indent: number, allowance: number, level: number): void {
    const lines = (value.match(LINE) ?? []).filter((l) => l !== '');
    let ind = indent;
    let allow = allowance;
    if (level === 1) {
      ind += 1;
      allow += 1;
    }
    const chunks: string[] = [];
    let maxWidth1 = WIDTH - ind;
    let rep = '';
    lines.forEach((line, i) => {
      rep = pyRepr(line);
      if (i === lines.length - 1) maxWidth1 -= allow;
      if (length(rep) <= maxWidth1) {
        chunks.push(rep);
        return;
      }
      const parts = (line.match(/\S*\s*/g) ?? []).slice(0, -1);
      let maxWidth2 = WIDTH - ind;
      let current = '';
      parts.forEach((part, j) => {
        const candidate = current + part;
        if (j === parts.length - 1 && i === lines.length - 1) maxWidth2 -= allow;
        if (length(pyRepr(candidate)) > maxWidth2) {
          if (current) chunks.push(pyRepr(current));
          current = part;
        } else current = candidate;
      });
      if (current) chunks.push(pyRepr(current));
    });
    if (chunks.length === 1) {
      this.out += rep;
      return;
    }
    if (level === 1) this.out += '(';
    this.out += chunks.join(`\n${' '.repeat(ind)}`);
    if (level === 1) this.out += ')';
  }
}

/**
 * Python's `pprint.pformat(value, width=72)` for JSON-like values: the
 * one-line repr (dict keys sorted) when it fits, otherwise one item per line
 * with pprint's hanging indents, long strings split at whitespace.
 *
 * @example
 * pyPformat({ type: 'string', enum: ['none', 'isolate'] }); // "{'enum': ['none', 'isolate'], 'type': 'string'}"
 */
export function pyPformat(value: unknown): string {
  const p = new Printer();
  p.format(value, 0, 0, 0);
  return p.out;
}

/** One failed keyword, located the way jsonschema's `ValidationError` is. */
export interface SchemaFailure {
  message: string;
  keyword: string;
  /** Path to the schema holding the keyword (relative to the parent error's schema for an anyOf alternative). */
  schemaPath: readonly (string | number)[];
  schema: unknown;
  /** Path to the failing value (relative likewise). */
  instancePath: readonly (string | number)[];
  instance: unknown;
}

const index = (word: string, path: readonly (string | number)[]) =>
  path.length ? `${word}[${path.map((p) => pyRepr(p)).join('][')}]` : word;

const indented = (text: string) => text.split('\n').join('\n    ');

/**
 * `str(ValidationError)` of jsonschema 4.10 (Debian 12's), on one line as
 * Placement's error bodies show it: the message, two spaces, "Failed
 * validating 'pattern' in schema['properties']['limit']:", the schema
 * pretty-printed, "On instance['limit']:", the value pretty-printed; every
 * newline of the report becomes a space.
 */
export function schemaFailureText(f: SchemaFailure): string {
  const text = `${f.message}\n\nFailed validating ${pyRepr(f.keyword)} in ${index('schema', f.schemaPath)}:\n    ${indented(pyPformat(f.schema))}\n\nOn ${index('instance', f.instancePath)}:\n    ${indented(pyPformat(f.instance))}`;
  return text.replace(/\r/g, '').replace(/\n/g, ' ');
}

// The paths (by identity) from `root` to `target` through the keywords that hold subschemas.
function pathsTo(
  root: unknown,
  target: unknown,
  at: (string | number)[] = [],
  out: (string | number)[][] = [],
) {
  if (root === target) out.push(at);
  if (!isDict(root)) return out;
  for (const [k, v] of Object.entries(root)) {
    if (k === 'properties' || k === 'patternProperties' || k === '$defs' || k === 'definitions') {
      if (isDict(v)) for (const [name, sub] of Object.entries(v)) pathsTo(sub, target, [...at, k, name], out);
    } else if (k === 'anyOf' || k === 'oneOf' || k === 'allOf' || k === 'prefixItems') {
      if (Array.isArray(v)) v.forEach((sub, i) => void pathsTo(sub, target, [...at, k, i], out));
    } else if (k === 'items' || k === 'additionalProperties' || k === 'not' || k === 'propertyNames') {
      if (isDict(v)) pathsTo(v, target, [...at, k], out);
    }
  }
  return out;
}

// Of several places one subschema object sits, the one whose property names follow the instance path.
function locate(
  root: unknown,
  target: unknown,
  instancePath: readonly (string | number)[],
): (string | number)[] {
  const all = pathsTo(root, target);
  const names = instancePath.filter((p) => typeof p === 'string').join('/');
  return all.find((p) => p.filter((_, i) => p[i - 1] === 'properties').join('/') === names) ?? all[0] ?? [];
}

/**
 * The failure `jsonschema.validate` would raise for `instance` (its
 * `best_match`), located for {@link schemaFailureText}; `undefined` when
 * the instance is valid. Throws as core's `iterSchemaErrors` does for a
 * schema it cannot apply.
 */
export function findSchemaFailure(
  instance: unknown,
  schema: JsonSchema,
  options: JsonSchemaOptions = {},
): SchemaFailure | undefined {
  const errors = iterSchemaErrors(instance, schema, options);
  const best = bestSchemaMatch(errors);
  if (!best) return undefined;
  // Find which error's context `best` came from (best_match returns an
  // alternative's error, whose paths are relative to that anyOf/oneOf).
  let parent: JsonSchemaError | undefined;
  const visit = (list: readonly JsonSchemaError[], owner: JsonSchemaError | undefined): boolean => {
    for (const e of list) {
      if (e === best) {
        parent = owner;
        return true;
      }
      if (visit(e.context, e)) return true;
    }
    return false;
  };
  visit(errors, undefined);
  let schemaPath: (string | number)[];
  if (parent) {
    const alternatives = (parent.schema as JsonSchemaObject)[parent.keyword as 'anyOf'] as unknown[];
    schemaPath = [];
    alternatives.some((alt, i) => {
      const found = pathsTo(alt, best.schema);
      if (found.length) schemaPath = [i, ...(found[0] as (string | number)[])];
      return found.length > 0;
    });
  } else schemaPath = locate(schema, best.schema, best.path);
  return {
    message: best.message,
    keyword: best.keyword,
    schemaPath,
    schema: best.schema,
    instancePath: best.path,
    instance: best.instance,
  };
}
