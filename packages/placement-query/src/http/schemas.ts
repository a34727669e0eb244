// Placement's request-body schemas (placement/schemas/*.py), per microversion.
// Key order follows Placement's dicts: jsonschema reports errors in that
// order, and best_match keeps the first of equally relevant ones.
import type { JsonSchemaObject as Schema } from '@stackspec/core';

const MAX_INT = 2147483647;
const SQL_SP_FLOAT_MAX = 3.40282e38;
const RC_PATTERN = '^[A-Z0-9_]+$';
const CUSTOM_RC_PATTERN = '^CUSTOM_[A-Z0-9_]+$';
const uuid: Schema = { type: 'string', format: 'uuid' };

export function postProviderSchema(minor: number): Schema {
  const properties: Record<string, Schema> = { name: { type: 'string', maxLength: 200 }, uuid };
  if (minor >= 14) properties.parent_provider_uuid = { anyOf: [uuid, { type: 'null' }] };
  return { type: 'object', properties, required: ['name'], additionalProperties: false };
}

export function putProviderSchema(minor: number): Schema {
  const properties: Record<string, Schema> = { name: { type: 'string', maxLength: 200 } };
  if (minor >= 14) properties.parent_provider_uuid = { anyOf: [uuid, { type: 'null' }] };
  return { type: 'object', properties, required: ['name'], additionalProperties: false };
}

function inventoryProperties(): Record<string, Schema> {
  const int = (min: number): Schema => ({ type: 'integer', maximum: MAX_INT, minimum: min });
  return {
    resource_provider_generation: { type: 'integer' },
    total: int(1),
    reserved: int(0),
    min_unit: int(1),
    max_unit: int(1),
    step_size: int(1),
    allocation_ratio: { type: 'number', maximum: SQL_SP_FLOAT_MAX },
  };
}

export const BASE_INVENTORY_SCHEMA: Schema = {
  type: 'object',
  properties: inventoryProperties(),
  required: ['total', 'resource_provider_generation'],
  additionalProperties: false,
};

export const POST_INVENTORY_SCHEMA: Schema = {
  type: 'object',
  properties: { ...inventoryProperties(), resource_class: { type: 'string', pattern: RC_PATTERN } },
  required: ['total', 'resource_class'],
  additionalProperties: false,
};

export const PUT_INVENTORIES_SCHEMA: Schema = {
  type: 'object',
  properties: {
    resource_provider_generation: { type: 'integer' },
    inventories: {
      type: 'object',
      patternProperties: {
        [RC_PATTERN]: {
          type: 'object',
          properties: inventoryProperties(),
          required: ['total'],
          additionalProperties: false,
        },
      },
    },
  },
  required: ['resource_provider_generation', 'inventories'],
  additionalProperties: false,
};

const aggregateList: Schema = { type: 'array', items: uuid, uniqueItems: true };
export const PUT_AGGREGATES_1_1: Schema = aggregateList;
export const PUT_AGGREGATES_1_19: Schema = {
  type: 'object',
  properties: { aggregates: aggregateList, resource_provider_generation: { type: 'integer' } },
  required: ['aggregates', 'resource_provider_generation'],
  additionalProperties: false,
};

export const SET_TRAITS_SCHEMA: Schema = {
  type: 'object',
  properties: {
    traits: { type: 'array', items: { type: 'string', minLength: 1, maxLength: 255 } },
    resource_provider_generation: { type: 'integer' },
  },
  required: ['traits', 'resource_provider_generation'],
  additionalProperties: false,
};

export const CUSTOM_TRAIT_SCHEMA: Schema = {
  type: 'string',
  minLength: 1,
  maxLength: 255,
  pattern: CUSTOM_RC_PATTERN,
};

export const RESOURCE_CLASS_SCHEMA: Schema = {
  type: 'object',
  properties: { name: { type: 'string', pattern: CUSTOM_RC_PATTERN, maxLength: 255 } },
  required: ['name'],
  additionalProperties: false,
};

const resources: Schema = {
  type: 'object',
  minProperties: 1,
  patternProperties: { [RC_PATTERN]: { type: 'integer', minimum: 1 } },
  additionalProperties: false,
};

/** PUT /allocations/{consumer} by microversion. */
export function allocationSchema(minor: number): Schema {
  if (minor < 12) {
    const properties: Record<string, Schema> = {
      allocations: {
        type: 'array',
        minItems: 1,
        items: {
          type: 'object',
          properties: {
            resource_provider: {
              type: 'object',
              properties: { uuid },
              additionalProperties: false,
              required: ['uuid'],
            },
            resources,
          },
          required: ['resource_provider', 'resources'],
          additionalProperties: false,
        },
      },
    };
    const required = ['allocations'];
    if (minor >= 8) {
      properties.project_id = { type: 'string', minLength: 1, maxLength: 255 };
      properties.user_id = { type: 'string', minLength: 1, maxLength: 255 };
      required.push('project_id', 'user_id');
    }
    return { type: 'object', properties, required, additionalProperties: false };
  }
  const perProvider: Schema = {
    type: 'object',
    properties: { generation: { type: 'integer' }, resources },
    required: ['resources'],
    additionalProperties: false,
  };
  const properties: Record<string, Schema> = {
    allocations: {
      type: 'object',
      minProperties: minor < 28 ? 1 : 0,
      patternProperties: { '^[0-9a-fA-F-]{36}$': perProvider },
      additionalProperties: false,
    },
    project_id: { type: 'string', minLength: 1, maxLength: 255 },
    user_id: { type: 'string', minLength: 1, maxLength: 255 },
  };
  const required = ['allocations', 'project_id', 'user_id'];
  if (minor >= 28) {
    // Placement's schema has additionalProperties here, meaningless on a number but printed in its reports.
    properties.consumer_generation = { type: ['integer', 'null'], additionalProperties: false };
    required.push('consumer_generation');
  }
  if (minor >= 34) {
    properties.mappings = {
      type: 'object',
      minProperties: 1,
      patternProperties: { '[a-zA-Z0-9_-]{1,64}': { type: 'array', minItems: 1, items: uuid } },
    };
  }
  if (minor >= 38) {
    properties.consumer_type = { type: 'string', pattern: RC_PATTERN, minLength: 1, maxLength: 255 };
    required.push('consumer_type');
  }
  return { type: 'object', properties, additionalProperties: false, required };
}
