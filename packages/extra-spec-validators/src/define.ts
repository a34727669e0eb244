import {
  compilePythonRegex,
  createDiagnostic,
  type Diagnostic,
  diagnosticsFromZod,
  PythonRegexError,
  SpecError,
} from '@stackspec/core';
import { z } from 'zod';
import { requireString } from './guards.js';
import { type BacktrackingRisk, findBacktrackingRisk } from './regex-safety.js';
import { compareReleases, ReleaseNameSchema } from './releases.js';
import { effectivePattern } from './value-check.js';

const description = z.string().trim().min(1, 'must not be empty');

/** An integer value: Python `int()` rules, optional inclusive bounds. */
export const IntValueSchema = z
  .object({
    type: z.literal('int'),
    description: description.optional(),
    min: z.number().int().optional(),
    max: z.number().int().optional(),
  })
  .strict()
  .refine((v) => v.min === undefined || v.max === undefined || v.min <= v.max, {
    message: 'min must not be greater than max',
    path: ['min'],
  });

/** A boolean-like value: oslo's words (`true`, `yes`, `on`, `1` and their opposites). */
export const BoolValueSchema = z
  .object({ type: z.literal('bool'), description: description.optional() })
  .strict();

/** A string value: anything, one of an enumeration, or a Python regular expression matching the whole value. */
export const StrValueSchema = z
  .object({
    type: z.literal('str'),
    description: description.optional(),
    enum: z.array(z.string()).min(1).optional(),
    pattern: z.string().min(1).optional(),
  })
  .strict()
  .refine((v) => v.enum === undefined || v.pattern === undefined, {
    message: 'declare either enum or pattern, not both (Nova would silently ignore the enum)',
    path: ['enum'],
  })
  .refine((v) => v.enum === undefined || new Set(v.enum).size === v.enum.length, {
    message: 'enum values must be unique',
    path: ['enum'],
  });

/** The rule for a value: `int`, `bool` or `str` (the three types Nova supports). */
export const ValueRuleSchema = z.union([IntValueSchema, BoolValueSchema, StrValueSchema]);
/** The rule a value must follow (see {@link ValueRuleSchema}). */
export type ValueRule = z.infer<typeof ValueRuleSchema>;
/** An `int` value rule. */
export type IntValueRule = z.infer<typeof IntValueSchema>;
/** A `str` value rule. */
export type StrValueRule = z.infer<typeof StrValueSchema>;

const PARAM_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** One `{placeholder}` of a patterned name. */
export const ParameterSchema = z
  .object({
    name: z.string().regex(PARAM_NAME, 'must be an identifier such as num or group'),
    /** What the placeholder holds; `int` defaults the pattern to `\d+`. */
    type: z.enum(['int', 'str']).default('str'),
    /** Python regular expression for the text the placeholder stands for. */
    pattern: z.string().min(1).optional(),
    description: description.optional(),
  })
  .strict()
  .refine((p) => p.pattern !== undefined || p.type === 'int', {
    message: 'a str parameter needs a pattern',
    path: ['pattern'],
  })
  .transform((p) => ({ ...p, pattern: p.pattern ?? '\\d+' }));
/** A placeholder of a patterned name, its pattern filled in. */
export type ExtraSpecParameter = z.output<typeof ParameterSchema>;

/** Releases in which a definition exists, and what happened to it. */
export const SupportStatusSchema = z
  .object({
    /** First Nova series with this key. */
    added: ReleaseNameSchema,
    /** The key is gone from this series on. */
    removed: z.object({ release: ReleaseNameSchema, reason: description }).strict().optional(),
    /** The key was replaced by another name from this series on. */
    renamed: z
      .object({
        release: ReleaseNameSchema,
        to: z.string().min(1),
        /** Point releases of older series that received the rename as a fix. */
        backported: z.array(z.string().min(1)).optional(),
        reason: description.optional(),
      })
      .strict()
      .optional(),
    /** The name this key replaced. */
    renamedFrom: z.string().min(1).optional(),
    /** Point releases of older series that received this key as a fix. */
    backported: z.array(z.string().min(1)).optional(),
  })
  .strict()
  .refine((s) => !(s.removed && s.renamed), { message: 'a key is either removed or renamed, not both' })
  .refine((s) => !s.removed || compareReleases(s.removed.release, s.added) > 0, {
    message: 'removed.release must be newer than added',
    path: ['removed', 'release'],
  })
  .refine((s) => !s.renamed || compareReleases(s.renamed.release, s.added) > 0, {
    message: 'renamed.release must be newer than added',
    path: ['renamed', 'release'],
  });
/** When a key appeared, and whether it was renamed or removed. */
export type SupportStatus = z.infer<typeof SupportStatusSchema>;

/** Deprecation: still accepted, but operators should move away from it. */
export const DeprecationSchema = z
  .object({
    since: ReleaseNameSchema,
    reason: description,
    /** The key to use instead. */
    replacement: z.string().min(1).optional(),
  })
  .strict();
/** Why and since when a key is deprecated. */
export type Deprecation = z.infer<typeof DeprecationSchema>;

/** A documented dependency on another extra spec (never enforced, as the spec asks). */
export const DependencySchema = z
  .object({
    key: z.string().min(1),
    /** The value the other key needs, when it matters. */
    value: z.string().optional(),
    description: description.optional(),
  })
  .strict();
/** Another key a key relies on (documented, not enforced). */
export type ExtraSpecDependency = z.infer<typeof DependencySchema>;

/** How an older series defined the key, before a change. */
export const HistoryEntrySchema = z
  .object({
    /** The last series that used this older form. */
    until: ReleaseNameSchema,
    /** The key's name template in those series (when a placeholder was renamed). */
    name: z.string().min(1).optional(),
    parameters: z.array(ParameterSchema).optional(),
    value: ValueRuleSchema.optional(),
    /** What changed afterwards, for the docs. */
    change: description,
  })
  .strict();
/** An older form of a key. */
export type HistoryEntry = z.output<typeof HistoryEntrySchema>;

/** Nova's virt drivers, for documentation. */
export const VirtDriverSchema = z
  .string()
  .regex(/^[a-z][a-z0-9-]*$/, 'must be a lower-case driver name such as libvirt');

/** Input of {@link defineExtraSpec}. */
export const ExtraSpecInputSchema = z
  .object({
    /** The key (`hw:cpu_policy`) or a template with placeholders (`hw:numa_cpus.{num}`). */
    name: z.string().min(1).max(255),
    /** Operator-facing explanation (reStructuredText inline markup is fine). */
    description,
    value: ValueRuleSchema,
    parameters: z.array(ParameterSchema).default([]),
    /** Release history; required for Nova's own keys, optional for out-of-tree ones (then always available). */
    status: SupportStatusSchema.optional(),
    deprecated: DeprecationSchema.optional(),
    /** Virt drivers that honour the key; documentation only. */
    virtDrivers: z.array(VirtDriverSchema).optional(),
    /** Other keys this one relies on; documentation only. */
    dependencies: z.array(DependencySchema).optional(),
    /** The Glance image property with the same meaning (`hw_cpu_policy`). */
    imageProperty: z
      .string()
      .regex(/^[a-z][a-z0-9_]*(\.\{[a-z_]+\})?$/, 'must look like hw_cpu_policy or hw_numa_cpus.{num}')
      .optional(),
    /** The rule of the image property when it differs from the extra spec's (images may allow more values). */
    imageValue: ValueRuleSchema.optional(),
    /** Older forms of the key, oldest first. */
    history: z.array(HistoryEntrySchema).optional(),
  })
  .strict();

/** What {@link defineExtraSpec} accepts (defaults may be left out). */
export type ExtraSpecInput = z.input<typeof ExtraSpecInputSchema>;
/** A validated, frozen extra spec definition. */
export type ExtraSpecDefinition = Readonly<z.output<typeof ExtraSpecInputSchema>>;

const PLACEHOLDER = /\{([A-Za-z_][A-Za-z0-9_]*)\}/g;
/** Characters Nova's API allows in a key, which the literal part of a name must stay within. */
const KEY_CHARS = /^[a-zA-Z0-9\-_:. ]*$/;

function placeholders(name: string): string[] {
  return [...name.matchAll(PLACEHOLDER)].map((m) => m[1] as string);
}

/** Problems in a name template against its parameters; empty when sound. */
function checkName(name: string, parameters: readonly ExtraSpecParameter[], at: string): Diagnostic[] {
  const out: Diagnostic[] = [];
  const fail = (message: string, path = at, hint?: string) =>
    out.push(
      createDiagnostic({ code: 'extra-specs/bad-definition', path, message, ...(hint ? { hint } : {}) }),
    );
  const used = placeholders(name);
  const declared = parameters.map((p) => p.name);
  const seen = new Set<string>();
  for (const p of used) {
    if (seen.has(p)) fail(`The name '${name}' uses the placeholder {${p}} more than once.`);
    seen.add(p);
    if (!declared.includes(p)) {
      fail(
        `The placeholder {${p}} in '${name}' has no parameter.`,
        at,
        `Add { name: '${p}', pattern: '…' }.`,
      );
    }
  }
  parameters.forEach((p, i) => {
    if (!seen.has(p.name))
      fail(`The parameter '${p.name}' does not appear in '${name}'.`, `/parameters/${i}`);
  });
  if (new Set(declared).size !== declared.length)
    fail(`The parameters of '${name}' repeat a name.`, '/parameters');
  const literal = name.replace(PLACEHOLDER, '');
  if (!KEY_CHARS.test(literal)) {
    fail(
      `The name '${name}' has characters Nova's API refuses in keys.`,
      at,
      'Outside placeholders use only letters, digits, and - _ : . or space.',
    );
  }
  let patternsUsable = true;
  parameters.forEach((p, i) => {
    try {
      compilePythonRegex(p.pattern, 'fullmatch');
    } catch (e) {
      patternsUsable = false;
      fail(
        `The pattern of parameter '${p.name}' is not a usable regular expression: ${(e as Error).message}.`,
        `/parameters/${i}/pattern`,
      );
      return;
    }
    const risk = findBacktrackingRisk(p.pattern);
    if (risk)
      fail(
        slowPattern(`The pattern of parameter '${p.name}', '${p.pattern}',`, risk, 'key'),
        `/parameters/${i}/pattern`,
        risk.hint,
      );
  });
  // Placeholders side by side can be slow together, as Nova matches the whole name.
  if (patternsUsable && !out.length && parameters.length > 1) {
    let regex = name;
    for (const p of parameters) regex = regex.split(`{${p.name}}`).join(`(?:${p.pattern})`);
    const risk = findBacktrackingRisk(regex);
    if (risk) fail(slowPattern(`The name '${name}', matched as '${regex}',`, risk, 'key'), at, risk.hint);
  }
  return out;
}

function slowPattern(what: string, risk: BacktrackingRisk, against: 'key' | 'value'): string {
  return `${what} ${risk.reason}: a backtracking engine can take time ${risk.growth} in the length of a ${against}.`;
}

function checkValue(value: ValueRule, at: string): Diagnostic[] {
  if (value.type !== 'str' || value.pattern === undefined) return [];
  try {
    compilePythonRegex(value.pattern, 'fullmatch');
    // Nova's own slow patterns run as proven linear rewrites; others must be safe as written.
    const risk = findBacktrackingRisk(effectivePattern(value.pattern));
    if (!risk) return [];
    return [
      createDiagnostic({
        code: 'extra-specs/bad-definition',
        path: `${at}/pattern`,
        message: slowPattern(`The value pattern '${value.pattern}'`, risk, 'value'),
        hint: risk.hint,
      }),
    ];
  } catch (e) {
    const reason = e instanceof PythonRegexError ? e.message : String(e);
    return [
      createDiagnostic({
        code: 'extra-specs/bad-definition',
        path: `${at}/pattern`,
        message: `The value pattern '${value.pattern}' is not a usable regular expression: ${reason}.`,
      }),
    ];
  }
}

// Type names people reach for that Nova's three (int, bool, str) do not
// resemble closely enough for core's "did you mean" (which already turns
// `integer` into int, `boolean` into bool and `string` into str).
const VALUE_TYPE_HINTS: Readonly<Record<string, string>> = {
  float: "Nova has no float type; use 'str' with a pattern such as \\d+\\.\\d+.",
  number: "Use 'int', or 'str' with a pattern for other numbers.",
  enum: "Use 'str' with an enum.",
};

/** A hint for a value rule's unsupported `type`, when core has none to give. */
function valueTypeHint(input: unknown, d: Diagnostic): { hint: string } | undefined {
  if (d.hint || !/^(\/value|\/imageValue|\/history\/\d+\/value)\/type$/.test(d.path)) return undefined;
  let type: unknown = input;
  for (const seg of d.path.split('/').slice(1)) type = (type as Record<string, unknown> | undefined)?.[seg];
  const hint = typeof type === 'string' ? VALUE_TYPE_HINTS[type.toLowerCase()] : undefined;
  return hint ? { hint } : undefined;
}

/** The error message: the first problem, and how many more the diagnostics hold. */
function invalidMessage(label: string, problems: readonly Diagnostic[]): string {
  const more = problems.length - 1;
  const rest = more > 0 ? ` (and ${more} more problem${more > 1 ? 's' : ''}; see the diagnostics)` : '';
  return `The definition of ${label} is not valid: ${problems[0]?.message ?? ''}${rest}`;
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

/**
 * Declares one extra spec: its name (plain or with typed placeholders), what
 * it means, the values it takes, when it appeared, changed, was deprecated,
 * renamed or removed, and (for the docs only) the virt drivers and other
 * keys it depends on.
 *
 * Everything is checked here, once: a malformed definition throws
 * `SpecError` (code `extra-specs/bad-definition`) whose diagnostics point at
 * each problem (unknown fields, placeholders without parameters, regular
 * expressions that do not compile, enum and pattern together, min above
 * max…). The result is frozen.
 *
 * Patterns are written in Python's syntax, as Nova's are, and matched with
 * Python's semantics (`\d` is any Unicode digit, the whole value must match).
 *
 * @example
 * const spec = defineExtraSpec({
 *   name: 'acme:gpu_slices',
 *   description: 'How many GPU slices the ACME scheduler filter reserves.',
 *   value: { type: 'int', min: 1, max: 8 },
 *   status: { added: 'zed' },
 * });
 */
export function defineExtraSpec(input: ExtraSpecInput): ExtraSpecDefinition {
  const label = typeof (input as { name?: unknown })?.name === 'string' ? `'${input.name}'` : 'an extra spec';
  const parsed = ExtraSpecInputSchema.safeParse(input);
  if (!parsed.success) {
    const diagnostics = diagnosticsFromZod(parsed.error, {
      value: input,
      schema: ExtraSpecInputSchema,
      area: 'extra-specs',
    }).map((d) => ({ ...d, code: 'extra-specs/bad-definition', ...valueTypeHint(input, d) }));
    throw new SpecError(invalidMessage(label, diagnostics), {
      code: 'extra-specs/bad-definition',
      diagnostics,
    });
  }
  const def = parsed.data;
  const problems = [...checkName(def.name, def.parameters, '/name'), ...checkValue(def.value, '/value')];
  if (def.imageValue) problems.push(...checkValue(def.imageValue, '/imageValue'));
  def.history?.forEach((h, i) => {
    if (h.name !== undefined || h.parameters !== undefined) {
      problems.push(...checkName(h.name ?? def.name, h.parameters ?? def.parameters, `/history/${i}/name`));
    }
    if (h.value) problems.push(...checkValue(h.value, `/history/${i}/value`));
    if (def.status && compareReleases(h.until, def.status.added) < 0) {
      problems.push(
        createDiagnostic({
          code: 'extra-specs/bad-definition',
          path: `/history/${i}/until`,
          message: `History entry ${i} of '${def.name}' ends before the key was added (${def.status?.added}).`,
        }),
      );
    }
    const prev = def.history?.[i - 1];
    if (prev && compareReleases(h.until, prev.until) <= 0) {
      problems.push(
        createDiagnostic({
          code: 'extra-specs/bad-definition',
          path: `/history/${i}/until`,
          message: `The history of '${def.name}' must be ordered oldest first.`,
        }),
      );
    }
  });
  if (problems.length) {
    throw new SpecError(invalidMessage(label, problems), {
      code: 'extra-specs/bad-definition',
      diagnostics: problems,
    });
  }
  return deepFreeze(def);
}

/**
 * True for a value made by {@link defineExtraSpec} (by this or another copy
 * of the package): frozen and shaped like a definition. A plain object of
 * the same shape is not one; pass it through `defineExtraSpec` to check it.
 */
export function isExtraSpecDefinition(value: unknown): value is ExtraSpecDefinition {
  return (
    typeof value === 'object' &&
    value !== null &&
    Object.isFrozen(value) &&
    typeof (value as ExtraSpecDefinition).name === 'string' &&
    typeof (value as ExtraSpecDefinition).value === 'object' &&
    Array.isArray((value as ExtraSpecDefinition).parameters)
  );
}

/** The namespace of a key or name: the text before the first `:`, or `''` when there is none. */
export function namespaceOf(name: string): string {
  requireString(name, 'The name given to namespaceOf');
  const i = name.indexOf(':');
  return i < 0 ? '' : name.slice(0, i);
}
