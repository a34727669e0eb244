import type { JsonSchemaObject, Microversion } from '@stackspec/core';
import { atLeast } from './microversion.js';

// The JSON schemas Placement 8.0 checks query strings against, one per
// endpoint and microversion range. Only their text matters here: jsonschema's
// report of a failure prints the failing schema (see schema-report.ts), so
// these must hold the same keys and values as Placement's.

const STRING = () => ({ type: 'string' });
const STRING_LIST = () => ({ type: ['string'] });
const UUID = () => ({ type: 'string', format: 'uuid' });

/** The suffix pattern of request groups: digits before 1.33, names after. */
export const GROUP_SUFFIX_PATTERN = '[1-9][0-9]*';
/** The suffix pattern from microversion 1.33. */
export const GROUP_SUFFIX_PATTERN_1_33 = '[a-zA-Z0-9_-]{1,64}';

/** Placement's schema for the query of `GET /allocation_candidates` at a microversion (1.10 and up). */
export function allocationCandidatesQuerySchema(v: Microversion): JsonSchemaObject {
  const properties: Record<string, unknown> = {};
  if (!atLeast(v, 25)) properties.resources = STRING();
  if (atLeast(v, 16)) {
    // Placement accepts an integer too, although a query value is always a string.
    properties.limit = { type: ['integer', 'string'], pattern: '^[1-9][0-9]*$', minimum: 1, minLength: 1 };
  }
  if (atLeast(v, 17) && !atLeast(v, 25)) properties.required = STRING_LIST();
  if (atLeast(v, 21) && !atLeast(v, 25)) properties.member_of = STRING_LIST();
  const schema: Record<string, unknown> = { type: 'object', properties };
  if (atLeast(v, 25)) {
    properties.group_policy = { type: 'string', enum: ['none', 'isolate'] };
    if (atLeast(v, 35)) properties.root_required = STRING_LIST();
    if (atLeast(v, 36)) properties.same_subtree = STRING_LIST();
    const suffix = atLeast(v, 33) ? GROUP_SUFFIX_PATTERN_1_33 : GROUP_SUFFIX_PATTERN;
    const prefixes = ['resources', 'required', 'member_of', ...(atLeast(v, 31) ? ['in_tree'] : [])];
    schema.patternProperties = Object.fromEntries(prefixes.map((p) => [`^${p}(${suffix})?$`, STRING()]));
  } else schema.required = ['resources'];
  schema.additionalProperties = false;
  return schema as JsonSchemaObject;
}

/** Placement's schema for the query of `GET /resource_providers` at a microversion. */
export function resourceProvidersQuerySchema(v: Microversion): JsonSchemaObject {
  const properties: Record<string, unknown> = { name: STRING(), uuid: UUID() };
  if (atLeast(v, 3)) properties.member_of = STRING();
  if (atLeast(v, 4)) properties.resources = STRING();
  if (atLeast(v, 14)) properties.in_tree = UUID();
  if (atLeast(v, 18)) properties.required = STRING();
  return { type: 'object', properties, additionalProperties: false } as JsonSchemaObject;
}

/** Placement's schema for the query of `GET /traits`. */
export const TRAITS_QUERY_SCHEMA: JsonSchemaObject = {
  type: 'object',
  properties: { name: STRING(), associated: STRING() },
  additionalProperties: false,
} as JsonSchemaObject;

/** Placement's schema for the query of `GET /usages` (1.9 and up; `consumer_type` from 1.38). */
export function usagesQuerySchema(v: Microversion): JsonSchemaObject {
  const bounded = () => ({ type: 'string', minLength: 1, maxLength: 255 });
  const properties: Record<string, unknown> = { project_id: bounded(), user_id: bounded() };
  if (atLeast(v, 38)) {
    properties.consumer_type = {
      type: 'string',
      pattern: '^[A-Z0-9_]+$|^all|^unknown$',
      minLength: 1,
      maxLength: 255,
    };
  }
  return {
    type: 'object',
    properties,
    required: ['project_id'],
    additionalProperties: false,
  } as JsonSchemaObject;
}

/** A query as jsonschema sees it in Placement: each key with its last value (webob's `dict(req.GET)`). */
export function queryInstance(pairs: Iterable<readonly [string, string]>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of pairs) out[k] = v;
  return out;
}
