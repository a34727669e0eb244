import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isStackspecError } from './errors.js';
import {
  bestSchemaMatch,
  iterSchemaErrors,
  type JsonSchema,
  type JsonSchemaError,
  type JsonSchemaObject,
  schemaErrorMessage,
} from './jsonschema.js';
import { PyFloat } from './python.js';
import { isUuidLike } from './vocabulary/uuid.js';

// Ironic's deploy step schema, keyword order as Ironic writes it.
const STEP: JsonSchemaObject = {
  type: 'object',
  properties: {
    args: { type: 'object' },
    interface: { type: 'string', enum: ['power', 'management', 'deploy', 'bios', 'raid'] },
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

const messages = (instance: unknown, schema: JsonSchema) =>
  iterSchemaErrors(instance, schema).map((e) => e.message);

describe('iterSchemaErrors', () => {
  it('returns nothing for a valid instance and for the true schema', () => {
    expect(iterSchemaErrors({ interface: 'bios', step: 's', args: {}, priority: 10 }, STEP)).toEqual([]);
    expect(iterSchemaErrors(Symbol.iterator, true)).toEqual([]);
  });

  it('lists errors in keyword order with paths and the failing value', () => {
    const errors = iterSchemaErrors({ interface: 'x', step: '', priority: -1, y: 1 }, STEP);
    expect(errors.map((e) => [e.keyword, e.path, e.message])).toEqual([
      ['enum', ['interface'], "'x' is not one of ['power', 'management', 'deploy', 'bios', 'raid']"],
      ['anyOf', ['priority'], '-1 is not valid under any of the given schemas'],
      ['minLength', ['step'], "'' is too short"],
      ['required', [], "'args' is a required property"],
      ['additionalProperties', [], "Additional properties are not allowed ('y' was unexpected)"],
    ]);
    expect(errors[1]?.context.map((e) => e.message)).toEqual([
      '-1 is less than the minimum of 0',
      "-1 is not of type 'string'",
    ]);
    expect(errors[0]?.instance).toBe('x');
  });

  it('writes every keyword message as jsonschema 4.10 does', () => {
    expect(messages('a', { type: ['integer', 'null'] })).toEqual(["'a' is not of type 'integer', 'null'"]);
    expect(messages(2, { const: 'two' })).toEqual(["'two' was expected"]);
    expect(messages({}, { minProperties: 1 })).toEqual(['{} does not have enough properties']);
    expect(messages({ a: 1, b: 2 }, { maxProperties: 1 })).toEqual([
      "{'a': 1, 'b': 2} has too many properties",
    ]);
    expect(messages([1], { minItems: 2, maxItems: 0 })).toEqual(['[1] is too short', '[1] is too long']);
    expect(messages([1, 1.0], { uniqueItems: true })).toEqual(['[1, 1] has non-unique elements']);
    expect(messages('abc', { maxLength: 2, pattern: '^a$' })).toEqual([
      "'abc' is too long",
      "'abc' does not match '^a$'",
    ]);
    expect(messages(5, { minimum: 6, maximum: 4, exclusiveMinimum: 5, exclusiveMaximum: 5 })).toEqual([
      '5 is less than the minimum of 6',
      '5 is greater than the maximum of 4',
      '5 is less than or equal to the minimum of 5',
      '5 is greater than or equal to the maximum of 5',
    ]);
    expect(messages(1.5, { maximum: 1 })).toEqual(['1.5 is greater than the maximum of 1']);
    expect(messages([1], { items: false })).toEqual(['Expected at most 0 items, but found 1']);
    expect(messages(null, false)).toEqual(['False schema does not allow None']);
    expect(messages(3, { not: { type: 'integer' } })).toEqual([
      "3 should not be valid under {'type': 'integer'}",
    ]);
    expect(messages(3, { oneOf: [{ type: 'integer' }, { minimum: 1 }] })).toEqual([
      "3 is valid under each of {'minimum': 1}, {'type': 'integer'}",
    ]);
    expect(messages('x', { oneOf: [{ type: 'integer' }] })).toEqual([
      "'x' is not valid under any of the given schemas",
    ]);
    expect(messages(-1, { allOf: [{ minimum: 0 }, { maximum: -2 }] })).toEqual([
      '-1 is less than the minimum of 0',
      '-1 is greater than the maximum of -2',
    ]);
  });

  it('names extra properties sorted, and the regexes when patternProperties is present', () => {
    expect(messages({ z: 1, b: 2, a: 3 }, { properties: { b: {} }, additionalProperties: false })).toEqual([
      "Additional properties are not allowed ('a', 'z' were unexpected)",
    ]);
    const schema: JsonSchemaObject = {
      patternProperties: { '^[A-Z_]+$': { type: 'integer' }, '^CUSTOM_': {} },
      additionalProperties: false,
    };
    expect(messages({ VCPU: 'x', b: 1, a: 2 }, schema)).toEqual([
      "'x' is not of type 'integer'",
      "'a', 'b' do not match any of the regexes: '^CUSTOM_', '^[A-Z_]+$'",
    ]);
    expect(messages({ b: 1 }, schema)).toEqual([
      "'b' does not match any of the regexes: '^CUSTOM_', '^[A-Z_]+$'",
    ]);
    expect(messages({ a: 'x' }, { additionalProperties: { type: 'integer' } })).toEqual([
      "'x' is not of type 'integer'",
    ]);
  });

  it("applies patterns with Python's re.search: \\w is Unicode, $ allows a final newline", () => {
    const path = { type: 'string', pattern: '^(/[\\w-]+)+$' } as const;
    expect(messages('/steps\n', path)).toEqual([]);
    expect(messages('/é', path)).toEqual([]);
    expect(messages('/a\u0301', path)).toEqual(["'/a\u0301' does not match '^(/[\\\\w-]+)+$'"]);
    expect(messages('x/a', { pattern: '/a' })).toEqual([]);
  });

  it('counts string length in code points', () => {
    expect(messages('😀😀', { maxLength: 2 })).toEqual([]);
    expect(messages('😀😀😀', { maxLength: 2 })).toEqual(["'😀😀😀' is too long"]);
  });

  it("keeps True apart from 1 in enum at the top level only, as jsonschema's enum does", () => {
    expect(messages(true, { enum: [1] })).toEqual(['True is not one of [1]']);
    expect(messages(1, { enum: [true] })).toEqual(['1 is not one of [True]']);
    expect(messages(1, { enum: [1.0] })).toEqual([]);
    expect(messages([1], { enum: [[true]] })).toEqual([]);
    expect(messages({ a: 1, b: 2 }, { enum: [{ b: 2, a: 1 }] })).toEqual([]);
    expect(messages('1', { enum: [1] })).toEqual(["'1' is not one of [1]"]);
  });

  it('keeps booleans apart from numbers at any depth in const and uniqueItems', () => {
    expect(messages([true], { const: [1] })).toEqual(['[1] was expected']);
    expect(messages({ a: [1] }, { const: { a: [1.0] } })).toEqual([]);
    expect(messages([1, true, 0, false, [1], [true]], { uniqueItems: true })).toEqual([]);
    expect(
      messages(
        [
          { a: 1, b: 2 },
          { b: 2, a: 1 },
        ],
        { uniqueItems: true },
      ),
    ).toHaveLength(1);
  });

  it('treats integral floats as integers and booleans as neither integers nor numbers', () => {
    expect(messages(new PyFloat(2), { type: 'integer' })).toEqual([]);
    expect(messages(2.5, { type: 'integer' })).toEqual(["2.5 is not of type 'integer'"]);
    expect(messages(true, { type: 'number' })).toEqual(["True is not of type 'number'"]);
    expect(messages(new PyFloat(2), { type: 'object' })).toEqual(["2.0 is not of type 'object'"]);
    expect(messages(3n, { type: 'integer', maximum: 2 })).toEqual(['3 is greater than the maximum of 2']);
  });

  it('checks formats only when a checker is given', () => {
    const schema: JsonSchemaObject = { type: 'string', format: 'uuid' };
    expect(iterSchemaErrors('nope', schema)).toEqual([]);
    expect(iterSchemaErrors('nope', schema, { formats: { uuid: isUuidLike } }).map((e) => e.message)).toEqual(
      ["'nope' is not a 'uuid'"],
    );
    expect(iterSchemaErrors('x', { format: 'email' }, { formats: { uuid: isUuidLike } })).toEqual([]);
  });

  it('ignores annotations and unknown keys, as jsonschema does', () => {
    const schema = {
      title: 't',
      description: 'd',
      default: 1,
      'x-note': true,
      type: 'string',
    } as JsonSchemaObject;
    expect(messages('a', schema)).toEqual([]);
  });

  it.each([
    [[1], { $ref: '#/x' }, 'jsonschema/unsupported-keyword'],
    [4, { multipleOf: 2 }, 'jsonschema/unsupported-keyword'],
    [[1], { items: [{}] }, 'jsonschema/unsupported-keyword'],
    [1, { type: 'float' }, 'jsonschema/unknown-type'],
    [{ a: 1 }, { properties: { a: 3 } }, 'jsonschema/bad-schema'],
    ['a', { pattern: '(?i)a' }, 'python/bad-regex'],
  ])('refuses to check %j against schema %j with a spec error (%s)', (instance, schema, code) => {
    try {
      iterSchemaErrors(instance, schema as JsonSchema);
      expect.unreachable();
    } catch (e) {
      expect(isStackspecError(e) && e.kind).toBe('spec');
      expect(isStackspecError(e) && e.code).toBe(code);
    }
  });

  it('yields errors or a spec error for any value and schema, never a foreign exception', () => {
    const schema = fc.letrec((tie) => ({
      schema: fc.oneof(
        { depthSize: 'small' },
        fc.boolean(),
        fc.record(
          {
            type: fc.constantFrom('object', 'array', 'string', 'integer', 'number', 'boolean', 'null'),
            minimum: fc.integer(),
            maxLength: fc.nat(5),
            pattern: fc.constantFrom('^a', '[0-9]+$', '\\d'),
            enum: fc.array(fc.jsonValue(), { maxLength: 3 }),
            items: tie('schema'),
            properties: fc.dictionary(fc.constantFrom('a', 'b'), tie('schema'), { maxKeys: 2 }),
            additionalProperties: tie('schema'),
            anyOf: fc.array(tie('schema'), { minLength: 1, maxLength: 2 }),
            required: fc.array(fc.constantFrom('a', 'b'), { maxLength: 2 }),
            uniqueItems: fc.boolean(),
          },
          { requiredKeys: [] },
        ),
      ),
    })).schema;
    fc.assert(
      fc.property(fc.jsonValue(), schema, (value, s) => {
        let errors: JsonSchemaError[];
        try {
          errors = iterSchemaErrors(value, s as JsonSchema);
        } catch (e) {
          expect(isStackspecError(e) && e.kind).toBe('spec');
          return;
        }
        for (const e of errors) expect(typeof e.message).toBe('string');
        if (errors.length) expect(bestSchemaMatch(errors)?.message).toEqual(expect.any(String));
        else expect(bestSchemaMatch(errors)).toBeUndefined();
      }),
    );
  });
});

describe('bestSchemaMatch', () => {
  it('prefers a shallow error, and a strong keyword over anyOf at the same depth', () => {
    const schema: JsonSchemaObject = {
      properties: { a: { type: 'string' } },
      anyOf: [{ type: 'array' }],
      required: ['b'],
    };
    expect(schemaErrorMessage({ a: 1 }, schema)).toBe("'b' is a required property");
    expect(schemaErrorMessage({ a: 1, b: 2 }, schema)).toBe("{'a': 1, 'b': 2} is not of type 'array'");
  });

  it('descends into the deepest alternative of an anyOf', () => {
    expect(schemaErrorMessage({ interface: 'bios', step: 's', args: {}, priority: 'x' }, STEP)).toBe(
      "'x' does not match '^[0-9]+$'",
    );
    const errors = iterSchemaErrors([{ interface: 'bios', step: 's', args: {}, priority: -1 }], {
      type: 'array',
      items: STEP,
    });
    expect(bestSchemaMatch(errors)?.message).toBe('-1 is less than the minimum of 0');
  });

  it('stops at the anyOf error when its two least relevant alternatives tie', () => {
    const schema: JsonSchemaObject = { anyOf: [{ type: 'string' }, { type: 'integer' }] };
    expect(schemaErrorMessage(null, schema)).toBe('None is not valid under any of the given schemas');
  });

  it('shows the alternative whose type the value has', () => {
    const schema: JsonSchemaObject = {
      anyOf: [
        { type: 'string', minLength: 3 },
        { type: 'integer', minimum: 5 },
      ],
    };
    expect(schemaErrorMessage('ab', schema)).toBe("'ab' is too short");
  });

  it('returns undefined without errors', () => {
    expect(bestSchemaMatch([])).toBeUndefined();
    expect(schemaErrorMessage(1, { type: 'integer' })).toBeUndefined();
  });
});
