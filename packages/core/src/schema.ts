import type { z } from 'zod';
import { INVALID_ARGUMENT, kindOf, optionsOf } from './arguments.js';
import { createDiagnostic, type Diagnostic } from './diagnostic.js';
import type { SourceDocument } from './document.js';
import { SpecError } from './errors.js';
import { type PathSegment, toJsonPointer } from './json-pointer.js';
import { unwrapResult, type ValidationResult } from './result.js';
import { didYouMean, suggest } from './suggest.js';

/** Options for turning zod issues into diagnostics. */
export interface SchemaDiagnosticOptions {
  /** The document the value came from: diagnostics then carry file, line and column. */
  document?: SourceDocument;
  /** The validated value, when there is no document (used to describe what was found). */
  value?: unknown;
  /** The schema, to suggest known keys for unknown ones. */
  schema?: z.ZodType;
  /** Code area, default `schema` (`schema/invalid-type`, `schema/unknown-key`…). */
  area?: string;
  /** Path prepended to every issue path (when the value sits inside a larger document). */
  basePath?: readonly PathSegment[];
  /** File name, when there is no document. */
  file?: string;
}

type Issue = z.core.$ZodIssue;

function valueAt(root: unknown, path: readonly PropertyKey[]): { found: boolean; value: unknown } {
  let cur: unknown = root;
  for (const seg of path) {
    if (cur === null || typeof cur !== 'object') return { found: false, value: undefined };
    const key = typeof seg === 'symbol' ? seg : String(seg);
    if (!Object.hasOwn(cur as object, key)) return { found: false, value: undefined };
    cur = (cur as Record<string | symbol, unknown>)[key];
  }
  return { found: true, value: cur };
}

/**
 * A short English description of a JSON value's type in the words of a YAML
 * or JSON document: `a string`, `null`, `a list`, `a mapping`.
 */
export function describeType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'number') {
    // YAML's .nan and .inf load as numbers that no schema number accepts.
    if (Number.isNaN(value)) return 'NaN (not a number)';
    if (!Number.isFinite(value)) return 'infinite';
    return Number.isInteger(value) ? 'an integer' : 'a number';
  }
  if (typeof value === 'object') return 'a mapping';
  if (typeof value === 'undefined') return 'missing';
  return `a ${typeof value === 'boolean' ? 'boolean' : typeof value}`;
}

function show(value: unknown): string {
  if (typeof value === 'string') return `'${value.length > 60 ? `${value.slice(0, 57)}...` : value}'`;
  try {
    const text = JSON.stringify(value);
    if (text === undefined) return String(value);
    return text.length > 60 ? `${text.slice(0, 57)}...` : text;
  } catch {
    return String(value);
  }
}

function label(path: readonly PropertyKey[]): string {
  if (!path.length) return 'The document';
  const last = path[path.length - 1];
  if (typeof last === 'number') {
    const parent = path[path.length - 2];
    return parent === undefined ? `Item ${last}` : `Item ${last} of '${String(parent)}'`;
  }
  return `'${String(last)}'`;
}

function lower(text: string): string {
  return text.startsWith('Item ') ? `item ${text.slice(5)}` : text;
}

// What zod calls a type (`expected` of an invalid_type issue), in the words of
// a YAML or JSON document: zod's records, maps and objects are all mappings.
const EXPECTED: Readonly<Record<string, string>> = {
  string: 'a string',
  number: 'a number',
  int: 'an integer',
  integer: 'an integer',
  bigint: 'an integer',
  boolean: 'a boolean',
  object: 'a mapping',
  record: 'a mapping',
  // JavaScript's Map and Set: no YAML or JSON document yields them.
  map: 'a Map',
  set: 'a Set',
  array: 'a list',
  tuple: 'a list',
  null: 'null',
  undefined: 'absent',
  void: 'absent',
  never: 'absent',
  nonoptional: 'a value',
  nan: 'NaN',
  date: 'a date',
  symbol: 'a symbol',
  function: 'a function',
  file: 'a file',
};

function article(type: string): string {
  if (Object.hasOwn(EXPECTED, type)) return EXPECTED[type] as string;
  return `${/^[aeiou]/i.test(type) ? 'an' : 'a'} ${type}`;
}

function kebab(code: string): string {
  return code.replace(/_/g, '-');
}

/** Unwraps optional/nullable/default/pipe wrappers and walks the schema along `path`. */
function schemaAt(schema: z.ZodType | undefined, path: readonly PropertyKey[]): z.ZodType | undefined {
  let cur: unknown = schema;
  const unwrap = (s: unknown): unknown => {
    for (let i = 0; i < 20; i += 1) {
      const def = (s as { _zod?: { def?: Record<string, unknown> } })?._zod?.def;
      if (!def) return s;
      if (def.innerType) s = def.innerType;
      else if (def.type === 'pipe' && def.in) s = def.in;
      else if (def.type === 'lazy' && typeof def.getter === 'function') s = (def.getter as () => unknown)();
      else return s;
    }
    return s;
  };
  for (const seg of path) {
    cur = unwrap(cur);
    const def = (cur as { _zod?: { def?: Record<string, unknown> } })?._zod?.def;
    if (!def) return undefined;
    if (def.type === 'object' && typeof seg === 'string') cur = (def.shape as Record<string, unknown>)[seg];
    else if (def.type === 'array' && typeof seg === 'number') cur = def.element;
    else if (def.type === 'record') cur = def.valueType;
    else return undefined;
  }
  return unwrap(cur) as z.ZodType | undefined;
}

function knownKeys(schema: z.ZodType | undefined, path: readonly PropertyKey[]): string[] {
  const def = (schemaAt(schema, path) as { _zod?: { def?: Record<string, unknown> } } | undefined)?._zod?.def;
  return def?.type === 'object' ? Object.keys(def.shape as Record<string, unknown>) : [];
}

/** A value that is absent: the key its mapping lacks (`expected` said too when `sayExpected`), or an empty document. */
function missingDraft(path: readonly PropertyKey[], expected: string, sayExpected: boolean): Draft {
  const parent = path.slice(0, -1);
  const key = path[path.length - 1];
  const where = parent.length ? ` in ${lower(label(parent))}` : '';
  return {
    code: 'missing-key',
    path: parent,
    message:
      key === undefined
        ? `The document is empty; expected ${expected}.`
        : `The key '${String(key)}' is required${where}${sayExpected ? `; it must be ${expected}` : ''}.`,
  };
}

/**
 * A value that must be one of a few fixed ones (an enum, a literal, a
 * discriminator): the choices, and a "did you mean" hint for a near miss or
 * an abbreviation (`integer` for `int`).
 */
function choiceProblem(
  path: readonly PropertyKey[],
  at: { found: boolean; value: unknown },
  choices: readonly unknown[],
): Draft[] {
  const words = [
    ...new Set(choices.map((v) => (typeof v === 'string' ? v : (JSON.stringify(v) ?? String(v))))),
  ];
  const expected = words.length === 1 ? show(choices[0]) : `one of ${words.join(', ')}`;
  if (!at.found || at.value === undefined) return [missingDraft(path, expected, true)];
  let hint: string | undefined;
  if (typeof at.value === 'string') {
    const typed = at.value.toLowerCase();
    const suggested = suggest(at.value, words);
    const sameLetters = suggested.filter((w) => w.toLowerCase() === typed);
    const near = sameLetters.length ? sameLetters : suggested;
    hint = didYouMean(
      near.length ? near : words.filter((w) => w.length > 1 && typed.startsWith(w.toLowerCase())).slice(0, 3),
    );
  }
  return [
    {
      code: 'invalid-value',
      path,
      message: `${label(path)} must be ${expected}, but it is ${show(at.value)}.`,
      ...(hint ? { hint } : {}),
    },
  ];
}

/** A union alternative's complaint that a literal field (relative path) holds another value, if it has one. */
function literalMismatch(
  branch: readonly Issue[],
): { path: readonly PropertyKey[]; values: readonly unknown[] } | undefined {
  for (const issue of branch) {
    if (issue.code === 'invalid_value' && issue.values.length === 1 && issue.path.length > 0)
      return { path: issue.path as readonly PropertyKey[], values: issue.values };
  }
  return undefined;
}

function samePath(a: readonly PropertyKey[], b: readonly PropertyKey[]): boolean {
  return a.length === b.length && a.every((seg, i) => seg === b[i]);
}

/**
 * The union alternative the value came closest to, whose complaints are the
 * useful ones: an alternative whose literal field (`type: int`) the value
 * does not match comes last, then the one that knows fewer of the value's
 * keys, then the one with more complaints; ties go to the deeper complaint,
 * then to the earlier alternative.
 */
function closestBranch(
  branches: readonly (readonly Issue[])[],
  value: unknown,
  union: z.ZodType | undefined,
): readonly Issue[] {
  const options = (union as { _zod?: { def?: { type?: string; options?: unknown[] } } } | undefined)?._zod
    ?.def;
  const keys = value !== null && typeof value === 'object' && !Array.isArray(value) ? Object.keys(value) : [];
  const unknownKeys = (i: number): number => {
    if (options?.type !== 'union' || !keys.length) return 0;
    const known = new Set(knownKeys(options.options?.[i] as z.ZodType | undefined, []));
    return known.size ? keys.filter((k) => !known.has(k)).length : 0;
  };
  const scored = branches.map((issues, i) => ({
    issues,
    i,
    mismatch: literalMismatch(issues) ? 1 : 0,
    unknown: unknownKeys(i),
    depth: Math.max(0, ...issues.map((x) => x.path.length)),
  }));
  scored.sort(
    (a, b) =>
      a.mismatch - b.mismatch ||
      a.unknown - b.unknown ||
      a.issues.length - b.issues.length ||
      b.depth - a.depth ||
      a.i - b.i,
  );
  return scored[0]?.issues ?? [];
}

interface Draft {
  code: string;
  path: readonly PropertyKey[];
  message: string;
  hint?: string;
  key?: boolean;
}

function describeIssue(issue: Issue, root: unknown, schema: z.ZodType | undefined): Draft[] {
  const path = issue.path as readonly PropertyKey[];
  const at = valueAt(root, path);
  const name = label(path);
  switch (issue.code) {
    case 'invalid_type': {
      if (!at.found || at.value === undefined) return [missingDraft(path, article(issue.expected), false)];
      return [
        {
          code: 'invalid-type',
          path,
          message: `${name} must be ${article(issue.expected)}, but it is ${describeType(at.value)}.`,
        },
      ];
    }
    case 'unrecognized_keys': {
      const known = knownKeys(schema, path);
      return issue.keys.map((k) => {
        const hint = didYouMean(suggest(k, known));
        return {
          code: 'unknown-key',
          path: [...path, k],
          key: true,
          message: `The key '${k}' is not allowed ${path.length ? `in ${lower(label(path))}` : 'at the top level'}.`,
          ...(hint ? { hint } : known.length ? { hint: `Allowed keys: ${known.join(', ')}.` } : {}),
        };
      });
    }
    case 'invalid_value':
      return choiceProblem(path, at, issue.values);
    case 'too_small':
    case 'too_big': {
      const small = issue.code === 'too_small';
      const bound = small ? issue.minimum : issue.maximum;
      const inclusive = issue.inclusive !== false;
      const origin = issue.origin;
      let rule: string;
      if (origin === 'array' || origin === 'set') {
        rule = `${small ? 'at least' : 'at most'} ${String(bound)} item${Number(bound) === 1 ? '' : 's'}`;
        return [{ code: small ? 'too-few' : 'too-many', path, message: `${name} must have ${rule}.` }];
      }
      if (origin === 'string') {
        rule = `${small ? 'at least' : 'at most'} ${String(bound)} character${Number(bound) === 1 ? '' : 's'}`;
        return [
          {
            code: small ? 'too-short' : 'too-long',
            path,
            message: `${name} must be ${rule} long, but it has ${typeof at.value === 'string' ? at.value.length : '?'}.`,
          },
        ];
      }
      rule = small
        ? inclusive
          ? `at least ${String(bound)}`
          : `greater than ${String(bound)}`
        : inclusive
          ? `at most ${String(bound)}`
          : `less than ${String(bound)}`;
      return [
        {
          code: small ? 'too-small' : 'too-big',
          path,
          message: `${name} must be ${rule}, but it is ${show(at.value)}.`,
        },
      ];
    }
    case 'invalid_format': {
      const fmt =
        issue.format === 'regex' && issue.pattern
          ? `the pattern ${issue.pattern}`
          : `a valid ${issue.format}`;
      return [
        { code: 'invalid-format', path, message: `${name} must match ${fmt}, but it is ${show(at.value)}.` },
      ];
    }
    case 'invalid_union': {
      const branches = issue.errors;
      // z.discriminatedUnion: no alternative has the discriminator's value.
      const tagged = issue as { discriminator?: unknown; options?: readonly unknown[] };
      if (!branches.length) {
        if (tagged.discriminator !== undefined && tagged.options)
          return choiceProblem(path, at, tagged.options);
        return [{ code: 'invalid-value', path, message: `${name} is not valid: ${issue.message}.` }];
      }
      const topTypes = branches.map((b) =>
        b.length === 1 && b[0]?.code === 'invalid_type' && b[0].path.length === 0 ? b[0].expected : undefined,
      );
      if (topTypes.every((t) => t !== undefined) && at.found) {
        const unique = [...new Set(topTypes.map((t) => article(t as string)))];
        return [
          {
            code: 'invalid-type',
            path,
            message: `${name} must be ${unique.join(' or ')}, but it is ${describeType(at.value)}.`,
          },
        ];
      }
      // A union of mappings told apart by a literal field (`type: int` or
      // `type: str`…) that matches none of them: name the values it may take.
      const tags = branches.map(literalMismatch);
      const tagPath = tags[0]?.path;
      if (tagPath !== undefined && tags.every((t) => t && samePath(t.path, tagPath))) {
        const values = tags.flatMap((t) => (t as { values: readonly unknown[] }).values);
        return choiceProblem([...path, ...tagPath], valueAt(root, [...path, ...tagPath]), values);
      }
      const best = closestBranch(branches, at.value, schemaAt(schema, path));
      return best.flatMap((inner) =>
        describeIssue({ ...inner, path: [...path, ...inner.path] } as Issue, root, schemaAt(schema, path)),
      );
    }
    case 'not_multiple_of':
      return [
        {
          code: 'not-multiple-of',
          path,
          message: `${name} must be a multiple of ${String(issue.divisor)}, but it is ${show(at.value)}.`,
        },
      ];
    default: {
      const text = issue.message.trim();
      return [
        {
          code: kebab(issue.code),
          path,
          message: /[.!?]$/.test(text) ? text : `${text}.`,
        },
      ];
    }
  }
}

/**
 * Turns zod issues into core diagnostics with our wording: what is wrong,
 * what was expected, and (for unknown keys and enum values) a "did you mean"
 * hint. With a document, each diagnostic points at its source line; unknown
 * keys point at the key, missing keys at the mapping that lacks them.
 */
export function diagnosticsFromZod(
  issues: readonly z.core.$ZodIssue[] | z.ZodError,
  options: SchemaDiagnosticOptions = {},
): Diagnostic[] {
  const list = Array.isArray(issues) ? issues : (issues as z.ZodError).issues;
  const area = options.area ?? 'schema';
  const base = options.basePath ?? [];
  const document = options.document;
  // With a document and a base path, the validated value is the one at that path.
  const root = options.value === undefined && document ? valueAt(document.value, base).value : options.value;
  const out: Diagnostic[] = [];
  for (const issue of list) {
    for (const draft of describeIssue(issue, root, options.schema)) {
      const segments = [...base, ...draft.path.map((p) => (typeof p === 'symbol' ? String(p) : p))];
      const path = toJsonPointer(segments);
      const init = {
        code: `${area}/${draft.code}`,
        message: draft.message,
        path,
        ...(draft.hint ? { hint: draft.hint } : {}),
      };
      out.push(
        document
          ? document.diagnostic(init, { key: draft.key === true })
          : createDiagnostic({ ...init, ...(options.file ? { file: options.file } : {}) }),
      );
    }
  }
  return out;
}

/**
 * Validates a value (or a parsed document's value) against a zod schema and
 * returns located diagnostics instead of throwing.
 *
 * @example
 * const doc = parseDocument(text, { filename: 'tpl.yaml' });
 * const r = validateWithSchema(TemplateSchema, doc);
 */
export function validateWithSchema<S extends z.ZodType>(
  schema: S,
  input: SourceDocument | unknown,
  options: Omit<SchemaDiagnosticOptions, 'document' | 'value' | 'schema'> = {},
): ValidationResult<z.output<S>> {
  if (typeof (schema as { safeParse?: unknown } | null)?.safeParse !== 'function') {
    throw new SpecError(`validateWithSchema takes a zod schema, but got ${kindOf(schema)}.`, {
      code: INVALID_ARGUMENT,
    });
  }
  options = optionsOf(options, 'validateWithSchema');
  const document = isSourceDocument(input) ? input : undefined;
  const value = document ? document.value : input;
  const parsed = schema.safeParse(value);
  if (parsed.success)
    return { ok: true, value: parsed.data, diagnostics: document ? [...document.warnings] : [] };
  return {
    ok: false,
    diagnostics: diagnosticsFromZod(parsed.error, {
      ...options,
      schema,
      value,
      ...(document ? { document } : {}),
    }),
  };
}

/** Like {@link validateWithSchema} but throws a `ValidationError` with the diagnostics. */
export function parseWithSchema<S extends z.ZodType>(
  schema: S,
  input: SourceDocument | unknown,
  options: Omit<SchemaDiagnosticOptions, 'document' | 'value' | 'schema'> = {},
): z.output<S> {
  return unwrapResult(validateWithSchema(schema, input, options));
}

function isSourceDocument(value: unknown): value is SourceDocument {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as SourceDocument).locate === 'function' &&
    typeof (value as SourceDocument).diagnostic === 'function' &&
    'value' in value
  );
}
