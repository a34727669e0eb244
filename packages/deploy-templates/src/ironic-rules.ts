// Ironic's request validation for deploy templates, reproduced with its exact
// messages: the jsonschema documents of the POST body, of one step and of a
// JSON Patch, the duplicate-step rule and the uuid check.
//
// Why a second schema beside the zod one in schema.ts: the API must answer
// with Ironic's own words, and those come from running Ironic's JSON Schema
// documents through jsonschema's best-match rules, which depend on the exact
// shape of those documents (`required` listing `steps` before `name`, the
// `anyOf` of a trait pattern and an enum, the priority's integer-or-digits
// `anyOf`, no upper bounds). A schema generated from zod has another shape
// and would pick other errors. The zod schema stays the source of truth for
// types, files and JSON Schema for editors; the two are held to accepting
// exactly the same templates by a property test (schema.test.ts), which
// generates wrong types, lengths, NUL, deep nesting and huge numbers.
import {
  isUuidLike,
  type JsonSchemaObject,
  MAX_TRAIT_LENGTH,
  pyRepr,
  standardTraits,
  ValidationError,
} from '@stackspec/core';
import { ironicSchemaMessage } from './json-schema.js';
import type { IronicProfile } from './profile.js';
import {
  type DeployStep,
  findDuplicateSteps,
  findUnstorable,
  MAX_STEP_PRIORITY,
  stepNameProblem,
} from './schema.js';

const cache = new Map<IronicProfile, { template: JsonSchemaObject; step: JsonSchemaObject }>();

/** Ironic's jsonschema documents for a template and one step, for a release profile. */
export function ironicSchemas(profile: IronicProfile): {
  template: JsonSchemaObject;
  step: JsonSchemaObject;
} {
  const hit = cache.get(profile);
  if (hit) return hit;
  const trait: JsonSchemaObject = {
    type: 'string',
    minLength: 1,
    maxLength: MAX_TRAIT_LENGTH,
    anyOf: [{ pattern: '^CUSTOM_[A-Z0-9_]+$' }, { enum: [...standardTraits(profile.traitsRelease)] }],
  };
  const step: JsonSchemaObject = {
    type: 'object',
    properties: {
      args: { type: 'object' },
      interface: { type: 'string', enum: profile.interfaces },
      priority: {
        anyOf: [
          { type: 'integer', minimum: 0 },
          { type: 'string', minLength: 1, pattern: '^[0-9]+$' },
        ],
      },
      step: { type: 'string', minLength: 1 },
    },
    required: ['interface', 'step', 'args', 'priority'],
    additionalProperties: false,
  };
  const template: JsonSchemaObject = {
    type: 'object',
    properties: {
      description: { type: ['string', 'null'], maxLength: 255 },
      extra: { type: ['object', 'null'] },
      name: trait,
      steps: { type: 'array', items: step, minItems: 1 },
      uuid: { type: ['string', 'null'] },
    },
    required: ['steps', 'name'],
    additionalProperties: false,
  };
  const out = { template, step };
  cache.set(profile, out);
  return out;
}

/** Ironic's schema for a JSON Patch document (RFC 6902, restricted to add/replace/remove). */
export const PATCH_SCHEMA: JsonSchemaObject = {
  type: 'array',
  items: {
    type: 'object',
    properties: {
      path: { type: 'string', pattern: '^(/[\\w-]+)+$' },
      op: { type: 'string', enum: ['add', 'replace', 'remove'] },
      value: {},
    },
    additionalProperties: false,
    required: ['op', 'path'],
  },
};

/** A JSON Patch operation that passed {@link PATCH_SCHEMA}. */
export interface PatchOperation {
  op: 'add' | 'replace' | 'remove';
  path: string;
  value?: unknown;
}

function invalid(message: string, code: string): ValidationError {
  return new ValidationError(message, { code: `deploy-templates/${code}` });
}

function checkStorable(value: unknown, what: string): void {
  const problem = findUnstorable(value);
  if (problem) {
    throw new ValidationError(`Deploy template invalid: the ${what} ${problem.message}`, {
      code: problem.code,
    });
  }
}

/** The step name checks Ironic leaves to the database (where they end in a 500). */
function checkStepName(s: Record<string, unknown>, index: number): void {
  const name = String(s.step);
  const problem = stepNameProblem(name);
  if (!problem) return;
  const shown = name.length > 40 ? `${name.slice(0, 40)}…` : name;
  throw new ValidationError(
    `Deploy template invalid: the name of step ${index} (${String(s.interface)}.${shown}) ${problem.message}`,
    { code: problem.code },
  );
}

/** The fields a template keeps after validation, priorities as integers. */
export interface CheckedTemplate {
  name: string;
  steps: DeployStep[];
  uuid?: string | null;
  extra?: Record<string, unknown> | null;
}

/**
 * Validates a template the way Ironic validates a POST body (`name` =
 * `template`) or a patched template (`name` = `patch`), and returns it with
 * unknown keys dropped and priorities as integers. Throws `ValidationError`
 * (400) carrying Ironic's message: the best-matching jsonschema error, the
 * duplicate-step error, or `Expected UUID for uuid: …`. What Ironic leaves to
 * its database is refused here too, as a 400 instead of a storage failure:
 * nesting deeper than `MAX_NESTING` (`deploy-templates/too-deep`),
 * non-finite numbers (`…/number-too-large`), step names longer than 255
 * characters (`…/step-name-too-long`) or holding NUL or an unpaired
 * surrogate (`…/invalid-step-name`), priorities past 2³¹−1
 * (`…/priority-too-large`).
 */
export function parseTemplateBody(
  value: unknown,
  profile: IronicProfile,
  name: 'template' | 'patch',
): CheckedTemplate {
  checkStorable(value, name === 'template' ? 'template' : 'patched template');
  const schemas = ironicSchemas(profile);
  const schemaMessage = ironicSchemaMessage(value, schemas.template, name);
  if (schemaMessage) throw invalid(schemaMessage, 'schema');
  const body = value as Record<string, unknown> & { steps: Record<string, unknown>[] };
  const duplicates = findDuplicateSteps(body.steps as { interface: string; step: string }[]);
  if (duplicates.length) {
    throw invalid(
      `Deploy template invalid: Duplicate deploy steps. A deploy template cannot have multiple deploy steps with the same interface and step. Duplicates: ${duplicates
        .map((d) => `interface: ${d.interface}, step: ${d.step}`)
        .join('; ')}.`,
      'duplicate-steps',
    );
  }
  if (body.uuid !== undefined && body.uuid !== null && !isUuidLike(body.uuid)) {
    throw invalid(`Expected UUID for uuid: ${String(body.uuid)}`, 'invalid-uuid');
  }
  body.steps.forEach(checkStepName);
  const steps = body.steps.map((s) => {
    const priority = typeof s.priority === 'string' ? Number(s.priority) : (s.priority as number);
    // Ironic leaves the bound to the database (a 500 on PostgreSQL); refuse it cleanly instead.
    if (!Number.isSafeInteger(priority) || priority > MAX_STEP_PRIORITY) {
      throw invalid(
        `Deploy template invalid: priority ${pyRepr(s.priority)} of step ${String(s.interface)}.${String(s.step)} is larger than the largest supported value ${MAX_STEP_PRIORITY}.`,
        'priority-too-large',
      );
    }
    return {
      interface: s.interface as string,
      step: s.step as string,
      args: s.args as Record<string, unknown>,
      priority,
    };
  });
  const out: CheckedTemplate = { name: body.name as string, steps };
  if ('uuid' in body) out.uuid = body.uuid as string | null;
  if ('extra' in body) out.extra = body.extra as Record<string, unknown> | null;
  return out;
}

/**
 * Checks one patched step with Ironic's step schema and returns it; throws
 * Ironic's 400 (message prefix `Schema error for patch:`) otherwise.
 */
export function parsePatchedStep<T>(step: T, profile: IronicProfile): T {
  const message = ironicSchemaMessage(step, ironicSchemas(profile).step, 'patch');
  if (message) throw invalid(message, 'schema');
  return step;
}

/** Checks a JSON Patch document with Ironic's patch schema (and the nesting limit) and returns its operations; throws Ironic's 400 otherwise. */
export function parsePatchDocument(patch: unknown): PatchOperation[] {
  checkStorable(patch, 'patch');
  const message = ironicSchemaMessage(patch, PATCH_SCHEMA, 'patch');
  if (message) throw invalid(message, 'schema');
  return patch as PatchOperation[];
}
