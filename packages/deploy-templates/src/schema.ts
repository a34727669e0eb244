import {
  createDiagnostic,
  DEFAULT_MAX_DEPTH,
  type Diagnostic,
  describeType,
  didYouMean,
  isTraitName,
  isUuidLike,
  MAX_TRAIT_LENGTH,
  type PathSegment,
  pyRepr,
  type SourceDocument,
  standardTraits,
  suggest,
  unwrapResult,
  type ValidationResult,
  validateJsonPointer,
  validateWithSchema,
} from '@stackspec/core';
import { z } from 'zod';
import { findJsonValueProblem } from './json-value.js';
import { DEPLOY_INTERFACES, type IronicProfile, ironicProfile } from './profile.js';

/** Largest priority a step may have: the storage column is a 32-bit signed integer. */
export const MAX_STEP_PRIORITY = 2_147_483_647;

/** Largest length of a step name (the storage column size). */
export const MAX_STEP_NAME_LENGTH = 255;

/** Largest length of a template name (a trait). */
export const MAX_TEMPLATE_NAME_LENGTH = MAX_TRAIT_LENGTH;

/** Deepest nesting of objects and lists a template or patch may have (the outermost level is 1). */
export const MAX_NESTING = DEFAULT_MAX_DEPTH;

/** Why a value cannot be stored as JSON, from {@link findUnstorable}. */
export interface StorageProblem {
  /** `deploy-templates/too-deep` or `deploy-templates/number-too-large`. */
  code: string;
  /** Where, as a path below the value. */
  path: PathSegment[];
  /** What is wrong, as the end of a sentence ("nests … deeper than 200 levels."). */
  message: string;
}

/**
 * The first part of a value no store can keep as written, in document
 * order, or `undefined`: nesting deeper than {@link MAX_NESTING} (Ironic
 * itself fails with a 500 somewhat below 1000 levels) or a number JSON
 * cannot carry (`1e400` parses as Infinity; Ironic would echo `Infinity`,
 * which is not JSON). `findJsonValueProblem` (json-value.ts) walks the value (without
 * recursion, so any depth ends here); this names what it finds in the
 * package's codes.
 */
export function findUnstorable(value: unknown): StorageProblem | undefined {
  const problem = findJsonValueProblem(value, { maxDepth: MAX_NESTING });
  if (!problem) return undefined;
  return problem.kind === 'not-finite'
    ? {
        code: 'deploy-templates/number-too-large',
        path: problem.path,
        message: 'holds a number too large to represent; numbers must be finite.',
      }
    : {
        code: 'deploy-templates/too-deep',
        path: problem.path,
        message: `nests objects and lists deeper than ${MAX_NESTING} levels.`,
      };
}

// Unpaired surrogates, which, like NUL, a PostgreSQL text column cannot hold.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * Why a step name cannot be stored, or `undefined`: longer than
 * {@link MAX_STEP_NAME_LENGTH} characters (code points, as the database
 * counts them) or holding NUL or an unpaired surrogate.
 */
export function stepNameProblem(name: string): { code: string; message: string } | undefined {
  const length = [...name].length;
  if (length > MAX_STEP_NAME_LENGTH) {
    return {
      code: 'deploy-templates/step-name-too-long',
      message: `is ${length} characters long; the longest allowed is ${MAX_STEP_NAME_LENGTH}.`,
    };
  }
  if (name.includes('\0') || LONE_SURROGATE.test(name)) {
    return {
      code: 'deploy-templates/invalid-step-name',
      message: 'contains a NUL character or an unpaired surrogate, which cannot be stored.',
    };
  }
  return undefined;
}

/** A step priority: an integer ≥ 0 or a string of digits, normalised to an integer. */
export const StepPrioritySchema = z
  .union([
    z.number().int().min(0).max(MAX_STEP_PRIORITY),
    z
      .string()
      .regex(/^[0-9]+$/, 'must be an integer ≥ 0 or a string of digits')
      .transform(Number)
      .pipe(z.number().max(MAX_STEP_PRIORITY)),
  ])
  .describe('Priority: 0 disables the step, higher runs earlier.');

function stepSchema(interfaces: readonly string[]) {
  return z
    .object({
      interface: z
        .enum(interfaces as [string, ...string[]])
        .describe('The driver interface that owns the step.'),
      step: z
        .string()
        .min(1)
        .superRefine((name, ctx) => {
          const problem = stepNameProblem(name);
          if (problem)
            ctx.addIssue({ code: 'custom', message: `The step name ${problem.message}`, params: problem });
        })
        .describe('The step method name.'),
      args: z.record(z.string(), z.unknown()).describe('Keyword arguments passed to the step.'),
      priority: StepPrioritySchema,
    })
    .strict();
}

/** One step of a deploy template, as stored: exactly these four keys. */
export const DeployStepSchema = stepSchema(DEPLOY_INTERFACES);
/** A template step after validation (priority normalised to an integer). */
export type DeployStep = z.output<typeof DeployStepSchema>;
/** A template step as written by a user (priority may be a digit string). */
export type DeployStepInput = z.input<typeof DeployStepSchema>;

function nameSchema(release: string) {
  return z
    .string()
    .min(1)
    .max(MAX_TEMPLATE_NAME_LENGTH)
    .refine((s) => isTraitName(s, release), {
      message: `The template name must be a standard trait of os-traits ${release} or CUSTOM_ followed by A-Z, 0-9 and _`,
    });
}

/** The `(interface, step)` pairs that occur more than once, in order of first repetition. */
export function findDuplicateSteps(
  steps: readonly { interface: string; step: string }[],
): { interface: string; step: string; indexes: number[] }[] {
  const seen = new Map<string, number[]>();
  for (const [i, s] of steps.entries()) {
    const key = `${s.interface}\u0000${s.step}`;
    seen.set(key, [...(seen.get(key) ?? []), i]);
  }
  return [...seen.values()]
    .filter((idx) => idx.length > 1)
    .map((idx) => {
      const first = steps[idx[0] ?? 0];
      return { interface: first?.interface ?? '', step: first?.step ?? '', indexes: idx };
    });
}

function templateInputSchema(profile: IronicProfile) {
  return z
    .object({
      name: nameSchema(profile.traitsRelease),
      steps: z.array(stepSchema(profile.interfaces)).min(1),
      uuid: z
        .string()
        .refine(isUuidLike, {
          message: 'The uuid must be a UUID such as 8221f906-208b-44a5-b575-f8e8a59c4a84',
        })
        .nullable()
        .optional(),
      extra: z.record(z.string(), z.unknown()).nullable().optional(),
      /** Accepted and ignored, as Ironic does. */
      description: z.string().max(255).nullable().optional(),
    })
    .strict()
    .superRefine((value, ctx) => {
      const unstorable = findUnstorable(value);
      if (unstorable) {
        ctx.addIssue({
          code: 'custom',
          path: unstorable.path,
          message: `The value ${unstorable.message}`,
          params: unstorable,
        });
      }
      for (const dup of findDuplicateSteps(value.steps)) {
        for (const index of dup.indexes.slice(1)) {
          ctx.addIssue({
            code: 'custom',
            path: ['steps', index],
            message: `The step ${dup.interface}.${dup.step} appears more than once; a template may name each interface and step only once`,
            params: { duplicate: true },
          });
        }
      }
    });
}

/**
 * A deploy template as a user writes it (POST body or a YAML/JSON file):
 * `name` (a trait), `steps` (at least one), optional `uuid` and `extra`.
 * Uses the newest Ironic's interfaces and os-traits; see
 * {@link deployTemplateInputSchema} for another release.
 */
export const DeployTemplateInputSchema = templateInputSchema(ironicProfile());
/** A validated template input. */
export type DeployTemplateInput = z.output<typeof DeployTemplateInputSchema>;

/** {@link DeployTemplateInputSchema} for an Ironic release profile. */
export function deployTemplateInputSchema(profile: IronicProfile = ironicProfile()) {
  return profile.release === 'latest' ? DeployTemplateInputSchema : templateInputSchema(profile);
}

/** A stored deploy template as the API returns it (before masking and links). */
export const DeployTemplateSchema = z.object({
  uuid: z.string(),
  name: z.string(),
  steps: z.array(DeployStepSchema),
  extra: z.record(z.string(), z.unknown()),
  created_at: z.string().describe('ISO 8601 UTC with microseconds, e.g. 2026-11-22T22:57:23.115865+00:00'),
  updated_at: z.string().nullable(),
});
/** A stored deploy template. */
export type DeployTemplate = z.output<typeof DeployTemplateSchema>;

/** Options for {@link validateDeployTemplate}. */
export interface ValidateTemplateOptions {
  /** Release whose interfaces and traits apply (default: newest). */
  profile?: IronicProfile;
  /** File name for diagnostics when the input is not a parsed document. */
  file?: string;
}

function nameHint(value: unknown, release: string): string | undefined {
  if (typeof value !== 'string' || !value) return undefined;
  const upper = value.toUpperCase().replace(/[^A-Z0-9_]/g, '_');
  const close = didYouMean(suggest(value, [...standardTraits(release)]));
  if (close) return close;
  const custom = upper.startsWith('CUSTOM_') ? upper : `CUSTOM_${upper}`;
  return /^CUSTOM_[A-Z0-9_]+$/.test(custom) && custom.length <= MAX_TRAIT_LENGTH
    ? `Did you mean ${custom}?`
    : undefined;
}

/**
 * Validates a deploy template (a plain value or a document from core's
 * `parseDocument`) and collects every problem: each diagnostic names the
 * field (`path`, and line/column for documents) and what was expected.
 * Duplicate steps are `deploy-templates/duplicate-step` at the repeated
 * step; a bad name carries a hint (`did you mean CUSTOM_RAID_MIRROR?`).
 *
 * @example
 * const r = validateDeployTemplate({ name: 'CUSTOM_X', steps: [] });
 * r.ok; // false: '/steps' must have at least 1 item
 */
export function validateDeployTemplate(
  input: SourceDocument | unknown,
  options: ValidateTemplateOptions = {},
): ValidationResult<DeployTemplateInput> {
  const profile = options.profile ?? ironicProfile();
  const result = validateWithSchema(deployTemplateInputSchema(profile), input, {
    area: 'deploy-templates',
    ...(options.file ? { file: options.file } : {}),
  });
  if (result.ok) return result as ValidationResult<DeployTemplateInput>;
  const value = isDocument(input) ? input.value : input;
  const diagnostics: Diagnostic[] = result.diagnostics.map((d) => {
    const at = () => valueAt(value, d.path);
    if (d.code === 'deploy-templates/custom') {
      if (/^\/steps\/\d+$/.test(d.path)) return { ...d, code: 'deploy-templates/duplicate-step' };
      if (/^\/steps\/\d+\/step$/.test(d.path)) {
        return { ...d, code: stepNameProblem(String(at()))?.code ?? 'deploy-templates/invalid-step-name' };
      }
      if (d.path === '/uuid') return { ...d, code: 'deploy-templates/invalid-uuid' };
      if (d.path === '/name') {
        const name = at();
        const hint = nameHint(name, profile.traitsRelease);
        return {
          ...d,
          code: 'deploy-templates/invalid-name',
          message: `The template name ${JSON.stringify(name)} is not a trait: it must be a standard trait of os-traits ${profile.traitsRelease} or CUSTOM_ followed by A-Z, 0-9 and _.`,
          ...(hint ? { hint } : {}),
        };
      }
      return { ...d, code: findUnstorable(value)?.code ?? d.code };
    }
    return d;
  });
  return { ok: false, diagnostics: clarifyDiagnostics(diagnostics, value) };
}

/**
 * Rewords zod's message for a priority of the wrong type so that it says
 * what a priority may be and quotes the value found. `value` is what was
 * validated.
 */
export function clarifyDiagnostics(diagnostics: readonly Diagnostic[], value: unknown): Diagnostic[] {
  return diagnostics.map((d) => {
    if (d.code === 'deploy-templates/invalid-type' && /\/priority$/.test(d.path)) {
      return {
        ...d,
        message: `'priority' must be an integer of 0 or more, or a string of digits, but it is ${showValue(valueAt(value, d.path))}.`,
        hint: 'Write the priority as a number, such as 10; 0 disables the step.',
      };
    }
    return d;
  });
}

/** Like {@link validateDeployTemplate} but returns the template or throws core's `ValidationError`. */
export function parseDeployTemplate(
  input: SourceDocument | unknown,
  options: ValidateTemplateOptions = {},
): DeployTemplateInput {
  return unwrapResult(validateDeployTemplate(input, options));
}

function valueAt(root: unknown, pointer: string): unknown {
  let v = root;
  for (const key of validateJsonPointer(pointer).value ?? []) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<string, unknown>)[key];
  }
  return v;
}

/** A scalar as written (a string quoted), anything else by its type in a document's words ('a list'). */
function showValue(v: unknown): string {
  if (typeof v === 'string') return pyRepr(v);
  if (typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v))) return String(v);
  return describeType(v);
}

function isDocument(value: unknown): value is SourceDocument {
  return (
    typeof value === 'object' && value !== null && typeof (value as SourceDocument).locate === 'function'
  );
}

/** A diagnostic for problems found outside the zod schema. */
export function templateDiagnostic(code: string, message: string, path = '', hint?: string): Diagnostic {
  return createDiagnostic({ code: `deploy-templates/${code}`, message, path, ...(hint ? { hint } : {}) });
}

/**
 * A JSON Schema (draft 2020-12) for template files, for editors and other
 * tools: the zod schema's shape, plus the trait rule for `name` (a custom
 * trait pattern or one of the release's standard traits), which zod cannot
 * express as JSON Schema. The duplicate-step rule is not expressible and is
 * left out.
 */
export function deployTemplateJsonSchema(profile: IronicProfile = ironicProfile()): Record<string, unknown> {
  const schema = z.toJSONSchema(deployTemplateInputSchema(profile), {
    io: 'input',
    unrepresentable: 'any',
  }) as {
    properties: Record<string, Record<string, unknown>>;
    [key: string]: unknown;
  };
  schema.title = 'Ironic deploy template';
  schema.properties.name = {
    ...schema.properties.name,
    description: `A trait: CUSTOM_ followed by A-Z, 0-9 and _, or a standard trait of os-traits ${profile.traitsRelease}.`,
    anyOf: [{ pattern: '^CUSTOM_[A-Z0-9_]+$' }, { enum: [...standardTraits(profile.traitsRelease)].sort() }],
  };
  // The step name rule is a refinement in zod (it counts characters, not UTF-16 units); JSON Schema's
  // maxLength counts characters too.
  const step = (schema.properties.steps as { items: { properties: Record<string, Record<string, unknown>> } })
    .items.properties;
  step.step = { ...step.step, maxLength: MAX_STEP_NAME_LENGTH };
  return schema;
}
