import { SpecError } from '@stackspec/core';

/** One `{placeholder}` of a patterned name. */
export interface NameParameter {
  /** Regular expression (source text or RegExp) for the text the placeholder stands for. */
  pattern: string | RegExp;
  description?: string;
}

/** How the text around placeholders is read. */
export type LiteralMode = 'escape' | 'regex';

/** Options for {@link compileNamePattern}. */
export interface NamePatternOptions {
  /** Pattern per placeholder name. Every placeholder in the name needs one. */
  params?: Readonly<Record<string, string | RegExp | NameParameter>>;
  /**
   * `escape` (default): text outside placeholders matches literally.
   * `regex`: it is regular-expression source, as in Nova, where the `.` of
   * `hw:numa_cpus.{num}` matches any character.
   */
  literal?: LiteralMode;
  /** Regular-expression flags (default `u`). */
  flags?: string;
}

/** A name, possibly with placeholders, compiled for matching and indexing. */
export interface NamePattern {
  /** The name as written, placeholders included. */
  readonly name: string;
  /** Placeholder names in order of appearance; empty for a plain name. */
  readonly params: readonly string[];
  /** Matches whole keys; placeholders become named groups. */
  readonly regex: RegExp;
  /** Text every matching key starts with (may be empty). */
  readonly prefix: string;
  /** Text every matching key ends with (may be empty). */
  readonly suffix: string;
  /** Whether this name can match more than one key. */
  readonly isPattern: boolean;
}

const PLACEHOLDER = /\{([A-Za-z_][A-Za-z0-9_]*)\}/g;
const META = new Set(['\\', '^', '$', '.', '|', '?', '*', '+', '(', ')', '[', ']', '{', '}']);
const QUANTIFIERS = new Set(['?', '*', '+', '{']);

function escapeRegex(text: string): string {
  return text.replace(/[\\^$.|?*+()[\]{}/-]/g, '\\$&');
}

/** Leading text of a regex fragment that is certainly literal. */
function literalHead(source: string): string {
  let i = 0;
  while (i < source.length && !META.has(source[i] as string)) i += 1;
  // A quantifier applies to the character before it, which is then optional.
  if (i < source.length && QUANTIFIERS.has(source[i] as string)) i = Math.max(0, i - 1);
  return source.slice(0, i);
}

/** Trailing text of a regex fragment that is certainly literal. */
function literalTail(source: string): string {
  let i = source.length;
  while (i > 0 && !META.has(source[i - 1] as string)) i -= 1;
  // A character right after a backslash is an escape (`\d`), not a literal.
  if (i > 0 && source[i - 1] === '\\') i += 1;
  return source.slice(Math.min(i, source.length));
}

function paramSource(spec: string | RegExp | NameParameter): string {
  const p = typeof spec === 'object' && !(spec instanceof RegExp) ? spec.pattern : spec;
  return p instanceof RegExp ? p.source : p;
}

/**
 * Compiles a name such as `hw:numa_cpus.{num}` or
 * `resources{group}:{resource_class}` into a matcher.
 *
 * Throws `SpecError` (`extra-specs/registry/bad-pattern`) when a placeholder has no
 * pattern, a declared parameter is unused or repeated, or a pattern is not a
 * valid regular expression.
 */
export function compileNamePattern(name: string, options: NamePatternOptions = {}): NamePattern {
  const mode = options.literal ?? 'escape';
  const flags = options.flags ?? 'u';
  const params = options.params ?? {};
  const fail = (message: string): never => {
    throw new SpecError(message, { code: 'extra-specs/registry/bad-pattern' });
  };
  if (typeof name !== 'string' || name.length === 0) fail('A registry name must be a non-empty string.');

  const literals: string[] = [];
  const names: string[] = [];
  let last = 0;
  for (const m of name.matchAll(PLACEHOLDER)) {
    literals.push(name.slice(last, m.index));
    names.push(m[1] as string);
    last = (m.index ?? 0) + m[0].length;
  }
  literals.push(name.slice(last));

  const seen = new Set<string>();
  for (const p of names) {
    if (seen.has(p)) fail(`The name '${name}' uses the placeholder {${p}} more than once.`);
    seen.add(p);
    if (!Object.hasOwn(params, p)) {
      fail(`The placeholder {${p}} in '${name}' has no pattern; declare it under params.`);
    }
  }
  for (const p of Object.keys(params)) {
    if (!seen.has(p)) fail(`The parameter '${p}' is declared but '${name}' has no {${p}} placeholder.`);
  }
  if (mode === 'escape') {
    for (const lit of literals) {
      if (/[{}]/.test(lit)) {
        fail(`The name '${name}' has a brace that is not part of a {placeholder}.`);
      }
    }
  }

  let source = '';
  literals.forEach((lit, i) => {
    source += mode === 'escape' ? escapeRegex(lit) : lit;
    const p = names[i];
    if (p !== undefined) source += `(?<${p}>${paramSource(params[p] as string)})`;
  });
  let regex: RegExp;
  try {
    regex = new RegExp(`^(?:${source})$`, flags);
  } catch (e) {
    return fail(`The name '${name}' does not compile to a regular expression: ${(e as Error).message}.`);
  }

  const indexable = !flags.includes('i') && !(mode === 'regex' && literals.some((l) => l.includes('|')));
  const first = literals[0] ?? '';
  const lastLit = literals[literals.length - 1] ?? '';
  const prefix = !indexable ? '' : mode === 'escape' ? first : literalHead(first);
  const suffix = !indexable ? '' : mode === 'escape' ? lastLit : literalTail(lastLit);
  const isPattern = names.length > 0 || (mode === 'regex' && [...name].some((c) => META.has(c)));
  return {
    name,
    params: names,
    regex,
    prefix: isPattern ? prefix : name,
    suffix: !isPattern ? name : names.length > 0 || !indexable ? suffix : literalTail(first),
    isPattern,
  };
}

/** The placeholder values of `key` under `pattern`, or `undefined` when it does not match. */
export function matchNamePattern(pattern: NamePattern, key: string): Record<string, string> | undefined {
  const m = pattern.regex.exec(key);
  if (!m) return undefined;
  const out: Record<string, string> = {};
  for (const p of pattern.params) out[p] = m.groups?.[p] ?? '';
  return out;
}
