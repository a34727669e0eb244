import { isUuidLike, type JsonSchemaObject, pyRepr, schemaErrorMessage } from '@stackspec/core';
import { describe, expect, it } from 'vitest';
import { allocationSchema, PUT_INVENTORIES_SCHEMA, postProviderSchema } from './schemas.js';

// What the service does with a body: core's jsonschema evaluator, with
// Placement's uuid format check.
const schemaError = (value: unknown, schema: JsonSchemaObject) =>
  schemaErrorMessage(value, schema, { formats: { uuid: isUuidLike } });
const pyValueRepr = pyRepr;

describe("Placement's body schemas (jsonschema best_match wording)", () => {
  it('prefers a top-level problem over a nested one', () => {
    expect(schemaError({ name: 5, x: 1 }, postProviderSchema(39))).toBe(
      "Additional properties are not allowed ('x' was unexpected)",
    );
    expect(schemaError({ name: 5 }, postProviderSchema(39))).toBe("5 is not of type 'string'");
    expect(schemaError({}, postProviderSchema(39))).toBe("'name' is a required property");
  });

  it("reports additionalProperties before required where Placement's dict lists it first", () => {
    expect(schemaError({ x: 1 }, allocationSchema(28))).toBe(
      "Additional properties are not allowed ('x' was unexpected)",
    );
    expect(schemaError({ x: 1 }, postProviderSchema(28))).toBe("'name' is a required property");
  });

  it('words formats, limits, patterns and lists like jsonschema', () => {
    expect(schemaError({ name: 'a', uuid: 'nope' }, postProviderSchema(39))).toBe("'nope' is not a 'uuid'");
    expect(schemaError({ name: 'x'.repeat(201) }, postProviderSchema(39))).toMatch(/is too long$/);
    expect(
      schemaError(
        { resource_provider_generation: 0, inventories: { VCPU: { total: 0 } } },
        PUT_INVENTORIES_SCHEMA,
      ),
    ).toBe('0 is less than the minimum of 1');
    expect(
      schemaError(
        { resource_provider_generation: 0, inventories: { vcpu: { total: 1 } } },
        PUT_INVENTORIES_SCHEMA,
      ),
    ).toBeUndefined();
    expect(schemaError({ allocations: {}, project_id: 'p', user_id: 'u' }, allocationSchema(12))).toBe(
      '{} does not have enough properties',
    );
    expect(schemaError({ name: 'a', parent_provider_uuid: 5 }, postProviderSchema(14))).toBe(
      '5 is not valid under any of the given schemas',
    );
  });

  it('reprs values as Python does', () => {
    expect(pyValueRepr({ a: [1, true, null, 'x'] })).toBe("{'a': [1, True, None, 'x']}");
    expect(pyValueRepr(1.5)).toBe('1.5');
  });
});
