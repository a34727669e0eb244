import { describe, expect, it } from 'vitest';
import { postProviderSchema } from './http/schemas.js';
import { findSchemaFailure, pyPformat, schemaFailureText } from './schema-report.js';

// Inputs and what Python 3.11's pprint.pformat(value, width=72) printed for them.
const PFORMAT_CASES: [unknown, string][] = [
  [
    {
      a: 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx',
    },
    "{'a': 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx'}",
  ],
  [
    {
      resources: 'VCPU:1,MEMORY_MB:1024 and some words that make this string long enough to wrap around',
      x: '1',
    },
    "{'resources': 'VCPU:1,MEMORY_MB:1024 and some words that make this '\n              'string long enough to wrap around',\n 'x': '1'}",
  ],
  [
    'word word word word word word word word word word word word word word word word word word word word ',
    "('word word word word word word word word word word word word word '\n 'word word word word word word word ')",
  ],
  [
    [
      1,
      2.5,
      null,
      true,
      {
        b: [1, 2],
        a: "it's",
      },
    ],
    "[1, 2.5, None, True, {'a': \"it's\", 'b': [1, 2]}]",
  ],
  [
    {
      allocations: {
        x: {
          resources: {
            VCPU: 0,
          },
        },
      },
      consumer_generation: null,
      project_id: 'p',
      user_id: 'u',
    },
    "{'allocations': {'x': {'resources': {'VCPU': 0}}},\n 'consumer_generation': None,\n 'project_id': 'p',\n 'user_id': 'u'}",
  ],
  [
    {
      nested: {
        deeper: {
          deepest: [
            'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa',
            'bbbbbbbbbbbbbbbbbbbbbbbbbbbbbb',
            'cccccccccccccccccccccccccccccc',
          ],
        },
      },
    },
    "{'nested': {'deeper': {'deepest': ['aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa',\n                                   'bbbbbbbbbbbbbbbbbbbbbbbbbbbbbb',\n                                   'cccccccccccccccccccccccccccccc']}}}",
  ],
  [
    'line one\nline two that is long enough to need wrapping around the width of seventy-two',
    "('line one\\n'\n 'line two that is long enough to need wrapping around the width of '\n 'seventy-two')",
  ],
];

describe('pyPformat', () => {
  it.each(PFORMAT_CASES)('prints %j as pprint does', (value, expected) => {
    expect(pyPformat(value)).toBe(expected);
  });
});

describe('findSchemaFailure and schemaFailureText', () => {
  it('reports a failing property with its subschema and value, as Placement 8.0 answered', () => {
    const f = findSchemaFailure({ name: 5 }, postProviderSchema(39));
    expect(f && schemaFailureText(f)).toBe(
      "5 is not of type 'string'  Failed validating 'type' in schema['properties']['name']:     {'maxLength': 200, 'type': 'string'}  On instance['name']:     5",
    );
  });

  it('reports an anyOf failure on the property holding it', () => {
    const f = findSchemaFailure({ name: 'a', parent_provider_uuid: 5 }, postProviderSchema(14));
    expect(f && schemaFailureText(f)).toBe(
      "5 is not valid under any of the given schemas  Failed validating 'anyOf' in schema['properties']['parent_provider_uuid']:     {'anyOf': [{'format': 'uuid', 'type': 'string'}, {'type': 'null'}]}  On instance['parent_provider_uuid']:     5",
    );
  });

  it('is undefined for a valid instance', () => {
    expect(findSchemaFailure({ name: 'a' }, postProviderSchema(39))).toBeUndefined();
  });
});
