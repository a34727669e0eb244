import {
  createDiagnostic,
  type Diagnostic,
  didYouMean,
  hasErrors,
  pyInt,
  pyStrip,
  SpecError,
  suggest,
  toJsonPointer,
  validationErrorOf,
} from '@stackspec/core';
import { isDeprecatedIn } from './catalog/index.js';
import type { ValueRule } from './define.js';
import { optionsOf } from './guards.js';
import { findImageProperty, flavorKeyOf } from './image.js';
import { BOOL_WORDS } from './python-values.js';
import {
  type CompiledEntry,
  createExtraSpecRegistry,
  type ExtraSpecRegistry,
  findInAnyRelease,
  type InternalRegistry,
  internals,
  MAX_KEY_LENGTH,
} from './registry.js';
import { describeRelease, type NovaRelease, resolveRelease } from './releases.js';
import { compileValueRule, describeValueRule, novaValueMessage, ValueVerdict } from './value-check.js';

/**
 * How strictly to check:
 * - `strict` (default): an unknown key or a bad value is an error.
 * - `permissive`: a bad value is an error; an unknown key is a warning.
 * - `off`: nothing is checked.
 * - `nova`: exactly what Nova does since API microversion 2.86 — keys in a
 *   namespace Nova owns must be known and valid, other keys pass — with
 *   Nova's value coercion and its messages.
 */
export type ValidationMode = 'strict' | 'permissive' | 'off' | 'nova';

/** The modes, for option parsers. */
export const VALIDATION_MODES: readonly ValidationMode[] = ['strict', 'permissive', 'off', 'nova'];

/** Options for {@link validateExtraSpecs}. */
export interface ValidateExtraSpecsOptions {
  /** Default `strict`. */
  mode?: ValidationMode;
  /** Nova release to check against (default: the newest). Ignored when `registry` is given. */
  release?: string | NovaRelease;
  /** A prepared registry (with plugins); default: the cached built-in registry of `release`. */
  registry?: ExtraSpecRegistry;
  /** Prefix for diagnostic paths (`/flavors/0/extra_specs`), so they point into a larger document. */
  basePath?: string;
}

/** Result of {@link validateExtraSpecs}. */
export interface ValidateExtraSpecsResult {
  /** False when any diagnostic is an error. */
  ok: boolean;
  diagnostics: Diagnostic[];
}

/** Nova's API refuses keys outside this set (every microversion). */
const API_KEY = /^[a-zA-Z0-9\-_:. ]{1,255}$/;
/** Longest value Nova's API stores. */
const API_MAX_VALUE = 255;
/**
 * Longest value any mode evaluates. Nova's API never passes more than 255
 * characters; the library refuses absurd lengths before running patterns.
 */
export const MAX_VALUE_LENGTH = 65_536;

const registries = new Map<string, ExtraSpecRegistry>();

/** The cached built-in registry of a release. */
export function builtinRegistry(release?: string | NovaRelease): ExtraSpecRegistry {
  const r = resolveRelease(release);
  let reg = registries.get(r.name);
  if (!reg) {
    reg = createExtraSpecRegistry({ release: r });
    registries.set(r.name, reg);
  }
  return reg;
}

/**
 * The mode asked for, or `strict` when none was; throws `SpecError`
 * (`extra-specs/bad-option`) for anything else, so a misspelt mode is never
 * read as a weaker one.
 */
export function modeOption(mode: unknown): ValidationMode {
  if (mode === undefined) return 'strict';
  if (typeof mode === 'string' && (VALIDATION_MODES as readonly string[]).includes(mode)) {
    return mode as ValidationMode;
  }
  const hint = typeof mode === 'string' ? didYouMean(suggest(mode, VALIDATION_MODES)) : undefined;
  const message = `The validation mode ${typeof mode === 'string' ? `'${mode}'` : String(mode)} is not one of ${VALIDATION_MODES.join(', ')}.`;
  throw new SpecError(message, {
    code: 'extra-specs/bad-option',
    diagnostics: [
      createDiagnostic({
        code: 'extra-specs/bad-option',
        path: '/mode',
        message,
        hint: hint ?? `Use one of ${VALIDATION_MODES.join(', ')}.`,
      }),
    ],
  });
}

/** `base` plus the JSON pointer segment of `key`. */
function pathOf(base: string, key: string): string {
  return `${base}${toJsonPointer([key])}`;
}

/** What validation needs of a registry beyond the registry itself, worked out once per registry. */
interface Prepared {
  inner: InternalRegistry;
  /** The end of the unknown-key message: ` is not a known extra spec in zed (…).` */
  unknownTail: string;
  /** Hints of recent unknown keys (see {@link unknownKeyHint}). */
  hints: Map<string, string | undefined>;
}

const preparedRegistries = new WeakMap<ExtraSpecRegistry, Prepared>();

function prepare(registry: ExtraSpecRegistry): Prepared {
  let p = preparedRegistries.get(registry);
  if (!p) {
    p = {
      inner: internals(registry),
      unknownTail: `' is not a known extra spec in ${describeRelease(registry.release)}.`,
      hints: new Map(),
    };
    preparedRegistries.set(registry, p);
  }
  return p;
}

const NOVA_PREFIX = 'Validation failed; ';

/**
 * Nova's verdict on one pair, as its `validate(name, value)` gives it since
 * microversion 2.86: `undefined` when accepted, else Nova's exact message
 * (`Validation failed; …`). Allocation-free on the accepting path.
 *
 * @example
 * checkNovaExtraSpec('hw:cpu_policy', 'dedicatd');
 * // "Validation failed; 'dedicatd' is not one of: dedicated, shared, mixed."
 */
export function checkNovaExtraSpec(
  key: string,
  value: string,
  registry: ExtraSpecRegistry = builtinRegistry(),
): string | undefined {
  if (typeof key !== 'string' || typeof value !== 'string') {
    throw new SpecError(
      `checkNovaExtraSpec takes a key and a value that are strings, but got ${typeof key} and ${typeof value}.`,
      { code: 'extra-specs/invalid-type' },
    );
  }
  return novaRefusal(registry, internals(registry), key, value)?.message;
}

/** Why Nova refuses a pair, with its message; `undefined` (nothing allocated) when it accepts. */
type NovaRefusal =
  | { kind: 'template' | 'unknown'; message: string }
  | { kind: 'value'; message: string; rule: ValueRule };

function novaRefusal(
  registry: ExtraSpecRegistry,
  inner: InternalRegistry,
  key: string,
  value: string,
): NovaRefusal | undefined {
  const entry = inner.novaLookup(key);
  if (entry === 'template') {
    const spec = registry.get(key) as CompiledEntry;
    return {
      kind: 'template',
      message: `${NOVA_PREFIX}expected a name of format '${spec.name}' but got '${key}'.`,
    };
  }
  if (entry !== undefined) {
    const verdict = entry.checker.check(value);
    if (verdict === ValueVerdict.Ok) return undefined;
    return {
      kind: 'value',
      message: NOVA_PREFIX + novaValueMessage(entry.value, value, verdict),
      rule: entry.value,
    };
  }
  const colon = key.indexOf(':');
  if (colon < 0 || !inner.isOwnedNamespace(key.slice(0, colon))) return undefined;
  return {
    kind: 'unknown',
    message: `${NOVA_PREFIX}extra spec '${key}' does not appear to be a valid extra spec.`,
  };
}

function valueHint(rule: ValueRule, value: string): string | undefined {
  if (rule.type === 'str') {
    // Nova does not trim strings (it does trim numbers and booleans).
    const trimmed = pyStrip(value);
    if (trimmed !== value && compileValueRule(rule).check(trimmed) === ValueVerdict.Ok) {
      return `Remove the surrounding whitespace: '${trimmed}'.`;
    }
  }
  if (rule.type === 'str' && rule.enum) {
    const s = suggest(pyStrip(value), rule.enum);
    return didYouMean(s) ?? `Use one of: ${rule.enum.join(', ')}.`;
  }
  if (rule.type === 'bool') {
    const s = suggest(pyStrip(value).toLowerCase(), BOOL_WORDS);
    return didYouMean(s) ?? 'Use true or false.';
  }
  if (rule.type === 'int') {
    const trimmed = value.trim();
    if (/^[+-]?\d+\.0*$/.test(trimmed)) return `Did you mean ${trimmed.replace(/\.0*$/, '')}?`;
  }
  return undefined;
}

function valueMessage(key: string, rule: ValueRule, value: string, verdict: ValueVerdict): string {
  const shown = `'${value}'`;
  switch (verdict) {
    case ValueVerdict.NotInteger:
      return `The value ${shown} of '${key}' is not an integer; expected ${describeValueRule(rule)}.`;
    case ValueVerdict.AboveMax:
    case ValueVerdict.BelowMin: {
      const n = pyInt(value);
      const text = n.ok ? n.value.toString() : value;
      return `The value ${text} of '${key}' is out of range; expected ${describeValueRule(rule)}.`;
    }
    case ValueVerdict.NotBoolean:
      return `The value ${shown} of '${key}' is not a boolean; expected ${describeValueRule(rule)}.`;
    case ValueVerdict.NotInEnum:
      return `The value ${shown} of '${key}' is not allowed; expected ${describeValueRule(rule)}.`;
    default:
      return `The value ${shown} of '${key}' does not have the expected format; expected ${describeValueRule(rule)}.`;
  }
}

/**
 * The hint for an unknown key. Services validate the same flavors again and
 * again, and a typo travels with its flavor, so each registry keeps the
 * hints of its last few thousand unknown keys.
 */
function unknownKeyHint(registry: ExtraSpecRegistry, prepared: Prepared, key: string): string | undefined {
  // Nova stores no longer key, and comparing one with every name costs the square of its length.
  if (key.length > MAX_KEY_LENGTH) return undefined;
  const memo = prepared.hints;
  const hit = memo.get(key);
  if (hit !== undefined || memo.has(key)) return hit;
  const hint = computeUnknownKeyHint(registry, key);
  if (memo.size >= HINT_MEMO_SIZE) memo.clear();
  memo.set(key, hint);
  return hint;
}

const HINT_MEMO_SIZE = 4096;

function computeUnknownKeyHint(registry: ExtraSpecRegistry, key: string): string | undefined {
  const elsewhere = findInAnyRelease(key);
  if (elsewhere) {
    const s = elsewhere.status;
    const release = registry.release;
    if (s?.renamed) return `'${key}' was renamed to '${s.renamed.to}' in ${s.renamed.release}.`;
    if (s?.removed) return `'${key}' was removed in ${s.removed.release}: ${s.removed.reason}`;
    if (s) {
      const matched = registry.entries().find((e) => e.definition === elsewhere);
      if (matched) return `In ${release.name} this key is written '${matched.name}'.`;
      return `'${key}' is only available from ${s.added} on; this check uses ${describeRelease(release)}.`;
    }
  }
  const image = findImageProperty(key, registry);
  if (image) {
    const flavorKey = flavorKeyOf(image, key);
    return `'${key}' is how an image spells it; a flavor takes '${flavorKey}'.`;
  }
  return didYouMean(registry.suggest(key));
}

/** What Nova's API refuses at every microversion: a key outside its character set, an overlong value. */
function apiProblem(
  registry: ExtraSpecRegistry,
  key: string,
  value: string,
  path: string,
): Diagnostic | undefined {
  if (!API_KEY.test(key)) {
    return createDiagnostic({
      code: 'extra-specs/invalid-key-syntax',
      path,
      message: `The key '${key}' cannot be stored by Nova: keys are 1 to 255 characters from letters, digits, '-', '_', ':', '.' and space.`,
      hint: templateHint(registry, key),
    });
  }
  // Nova's API schema counts code points, as Python's len() does; a string
  // counts at least as many UTF-16 units, so short values skip the count.
  const length = value.length > API_MAX_VALUE ? codePoints(value) : value.length;
  if (length > API_MAX_VALUE) {
    return createDiagnostic({
      code: 'extra-specs/value-too-long',
      path,
      message: `The value of '${key}' has ${length} characters; Nova stores at most ${API_MAX_VALUE}.`,
    });
  }
  return undefined;
}

/** Our verdict (`strict`, `permissive`) on a pair Nova's API would store. */
function checkOurs(
  registry: ExtraSpecRegistry,
  prepared: Prepared,
  key: string,
  value: string,
  severity: 'error' | 'warning',
  path: string,
  out: Diagnostic[],
): void {
  // A template name holds braces, which the key check above refuses, so
  // only real keys get here.
  const spec = prepared.inner.find(key);
  if (spec === undefined || spec === 'template') {
    out.push(
      createDiagnostic({
        code: 'extra-specs/unknown-key',
        severity,
        path,
        message: `'${key}${prepared.unknownTail}`,
        hint: unknownKeyHint(registry, prepared, key),
      }),
    );
    return;
  }
  const verdict = spec.checker.check(value);
  if (verdict !== ValueVerdict.Ok) {
    out.push(
      createDiagnostic({
        code: 'extra-specs/invalid-value',
        path,
        message: valueMessage(key, spec.value, value, verdict),
        hint: valueHint(spec.value, value),
      }),
    );
    return;
  }
  const renamed = spec.definition.status?.renamed;
  if (renamed) {
    const backports = renamed.backported?.length ? ` (and in ${renamed.backported.join(', ')})` : '';
    out.push(
      createDiagnostic({
        code: 'extra-specs/renamed-key',
        severity: 'warning',
        path,
        message: `'${key}' is replaced by '${renamed.to}' from ${renamed.release}${backports}.${renamed.reason ? ` ${renamed.reason}` : ''}`,
        hint: `Plan to use ${renamed.to} when moving to ${renamed.release}.`,
      }),
    );
  }
  const dep = spec.definition.deprecated;
  if (dep && isDeprecatedIn(spec.definition, registry.release)) {
    out.push(
      createDiagnostic({
        code: 'extra-specs/deprecated-key',
        severity: 'warning',
        path,
        message: `'${key}' is deprecated since ${dep.since}: ${dep.reason}`,
        hint: dep.replacement ? `Use ${dep.replacement} instead.` : undefined,
      }),
    );
  }
}

/** Nova's verdict on one pair (`nova` mode), with our hint, or nothing when Nova accepts it. */
function checkNova(
  registry: ExtraSpecRegistry,
  prepared: Prepared,
  key: string,
  value: string,
  path: string,
  out: Diagnostic[],
): void {
  const refusal = novaRefusal(registry, prepared.inner, key, value);
  if (!refusal) return;
  out.push(
    createDiagnostic({
      code: refusal.kind === 'value' ? 'extra-specs/invalid-value' : 'extra-specs/unknown-key',
      path,
      message: refusal.message,
      hint:
        refusal.kind === 'value'
          ? valueHint(refusal.rule, value)
          : refusal.kind === 'template'
            ? templateHint(registry, key)
            : unknownKeyHint(registry, prepared, key),
    }),
  );
}

function codePoints(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    // A low surrogate after a high one completes a character already counted.
    if (c >= 0xdc00 && c <= 0xdfff && i > 0) {
      const prev = text.charCodeAt(i - 1);
      if (prev >= 0xd800 && prev <= 0xdbff) continue;
    }
    n += 1;
  }
  return n;
}

const PLACEHOLDER = /\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/** A hint for a template name written as a key (`hw:numa_cpus.{num}`), with a key it stands for where one is known. */
function templateHint(registry: ExtraSpecRegistry, key: string): string | undefined {
  if (key.length > MAX_KEY_LENGTH || !PLACEHOLDER.test(key)) return undefined;
  const example = key.replace(PLACEHOLDER, (_, p: string) =>
    p === 'group' || p === 'filter' ? '' : p === 'num' || p === 'id' ? '0' : 'X',
  );
  const known = registry.lookup(example) ? `, e.g. ${example}` : '';
  return `'${key}' is a template: write a key for each value you set, replacing each {placeholder}${known}.`;
}

/**
 * Checks a flavor's extra specs and returns every problem found.
 *
 * Codes: `extra-specs/unknown-key` (error in `strict` and `nova`, warning in
 * `permissive`), `extra-specs/invalid-value`, `extra-specs/deprecated-key`
 * (warning), `extra-specs/renamed-key` (warning: a later release renames the
 * key), `extra-specs/invalid-key-syntax` and `extra-specs/value-too-long`
 * (what Nova's API refuses at every microversion; not in `nova` mode, which
 * mirrors only the 2.86 validation step), and `extra-specs/invalid-type` for a
 * value that is not a string. Each diagnostic's `path` is the JSON pointer
 * of the key; hints suggest the closest key or value.
 *
 * In `nova` mode messages are Nova's own (`Validation failed; …`) and every
 * failing key is reported (Nova's API stops at the first one).
 *
 * @example
 * validateExtraSpecs({ 'hw:cpu_polcy': 'dedicated' });
 * // { ok: false, diagnostics: [{ code: 'extra-specs/unknown-key', hint: 'Did you mean hw:cpu_policy?', … }] }
 */
export function validateExtraSpecs(
  specs: Readonly<Record<string, string>>,
  options: ValidateExtraSpecsOptions = {},
): ValidateExtraSpecsResult {
  options = optionsOf(options, 'validateExtraSpecs');
  const mode = modeOption(options.mode);
  const diagnostics: Diagnostic[] = [];
  if (mode === 'off') return { ok: true, diagnostics };
  const base = options.basePath ?? '';
  if (specs === null || typeof specs !== 'object' || Array.isArray(specs)) {
    diagnostics.push(
      createDiagnostic({
        code: 'extra-specs/invalid-type',
        path: base,
        message: 'Extra specs must be a mapping of keys to string values.',
      }),
    );
    return { ok: false, diagnostics };
  }
  const registry = options.registry ?? builtinRegistry(options.release);
  // Checks the registry too: one not made by createExtraSpecRegistry throws here.
  const prepared = prepare(registry);
  const severity = mode === 'permissive' ? 'warning' : 'error';
  for (const key of Object.keys(specs)) {
    const value = specs[key] as unknown;
    const path = pathOf(base, key);
    if (typeof value !== 'string') {
      diagnostics.push(
        createDiagnostic({
          code: 'extra-specs/invalid-type',
          path,
          message: `The value of '${key}' must be a string, but it is ${value === null ? 'null' : typeof value}.`,
          hint:
            typeof value === 'number' || typeof value === 'boolean'
              ? `Quote it: '${String(value)}'.`
              : undefined,
        }),
      );
    } else if (value.length > MAX_VALUE_LENGTH) {
      diagnostics.push(
        createDiagnostic({
          code: 'extra-specs/value-too-long',
          path,
          message: `The value of '${key}' has ${value.length} characters; at most ${MAX_VALUE_LENGTH} are checked.`,
        }),
      );
    } else if (mode === 'nova') {
      checkNova(registry, prepared, key, value, path, diagnostics);
    } else {
      const problem = apiProblem(registry, key, value, path);
      if (problem) {
        diagnostics.push(problem);
        continue;
      }
      checkOurs(registry, prepared, key, value, severity, path, diagnostics);
    }
  }
  return { ok: !hasErrors(diagnostics), diagnostics };
}

/** What {@link parseExtraSpecs} returns for extra specs without errors. */
export interface ParsedExtraSpecs {
  /** A copy of the extra specs that passed. */
  specs: Record<string, string>;
  /** What passed with a warning (a deprecated key, an unknown key in permissive mode…). */
  warnings: Diagnostic[];
}

/**
 * Like {@link validateExtraSpecs} but throws `ValidationError` (code of the
 * first error) carrying every diagnostic when anything is an error; returns
 * the specs and their warnings otherwise.
 */
export function parseExtraSpecs(
  specs: Readonly<Record<string, string>>,
  options: ValidateExtraSpecsOptions = {},
): ParsedExtraSpecs {
  const result = validateExtraSpecs(specs, options);
  if (!result.ok) throw validationErrorOf(result.diagnostics);
  return { specs: { ...specs }, warnings: result.diagnostics };
}
