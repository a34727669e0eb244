// Conformance of core's JSON Schema evaluator with Python's jsonschema (the
// Debian 12 release Ironic and Placement run): on the real request schemas of
// Ironic and Placement, plus schemas that use the remaining keywords, the
// best match, the "possible root cause" Ironic adds, and the set of all
// messages must equal what jsonschema reports for the same JSON.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { oracleAvailable, runPython } from '../../../test-support/python.js';
import {
  bestSchemaMatch,
  iterSchemaErrors,
  type JsonSchema,
  type JsonSchemaObject,
} from '../src/jsonschema.js';
import { isUuidLike } from '../src/vocabulary/uuid.js';

const PY_SCHEMAS = `
import json, pkgutil, importlib
from ironic.api.controllers.v1 import utils as api_utils, deploy_template
from ironic.common import args
import placement.schemas as ps
out = {
    'ironic.template': deploy_template.TEMPLATE_SCHEMA,
    'ironic.step': api_utils.DEPLOY_STEP_SCHEMA,
    'ironic.patch': args.patch.keywords['schema'],
}
for m in pkgutil.iter_modules(ps.__path__):
    mod = importlib.import_module('placement.schemas.' + m.name)
    for name, value in vars(mod).items():
        if isinstance(value, dict) and name.isupper():
            out['placement.%s.%s' % (m.name, name)] = value
print(json.dumps(out))
`;

const PY_CHECK = `
import json, sys
import jsonschema
from jsonschema.exceptions import best_match
from oslo_utils import uuidutils
schemas = json.loads(sys.stdin.readline())
checker = jsonschema.FormatChecker(formats=())
checker.checks('uuid')(uuidutils.is_uuid_like)
validators = {}
for line in sys.stdin:
    name, instance = json.loads(line)
    if name not in validators:
        cls = jsonschema.validators.validator_for(schemas[name])
        validators[name] = cls(schemas[name], format_checker=checker if name.startswith('placement') else None)
    errors = list(validators[name].iter_errors(instance))
    best = best_match(errors)
    cause = None
    current = best
    while current is not None and current.context:
        current = best_match(current.context)
        cause = current.message
    print(json.dumps([best.message if best else None, cause, sorted(e.message for e in errors)]))
`;

// Schemas for the keywords the services' schemas do not use.
const EXTRA: Record<string, JsonSchema> = {
  'extra.combinators': {
    type: 'object',
    properties: {
      a: { oneOf: [{ type: 'integer' }, { minimum: 3 }, { type: 'string', maxLength: 2 }] },
      b: { allOf: [{ type: 'number' }, { exclusiveMinimum: 0, exclusiveMaximum: 10 }] },
      c: { not: { type: 'string' } },
      d: { const: [1, { x: true }] },
      e: { type: 'array', maxItems: 2, items: false },
      f: false,
    },
    maxProperties: 3,
    additionalProperties: { type: 'array', uniqueItems: true },
  },
  'extra.patterns': {
    patternProperties: { '^\\d+$': { type: 'integer' }, '^x_\\w+$': { enum: [true, 0, 'a', null] } },
    additionalProperties: false,
    minProperties: 1,
  },
};

const strings = fc.constantFrom(
  'CUSTOM_X',
  'CUSTOM_x',
  'HW_CPU_X86_AVX2',
  'bios',
  'deploy',
  'apply_configuration',
  '',
  'x',
  '12',
  '012',
  '1.5',
  '/steps',
  '/steps/0/args',
  '/a\n',
  '/a\u0301',
  '/é',
  'add',
  'remove',
  'VCPU',
  'MEMORY_MB',
  'resources:VCPU=1',
  'in_tree:true',
  'required:HW_CPU_X86_AVX',
  '3fa85f64-5717-4562-b3fc-2c963f66afa6',
  '3fa85f645717-4562b3fc2c963f66afa6',
  'é😀',
  'a'.repeat(256),
);
const keys = fc.constantFrom(
  'name',
  'steps',
  'uuid',
  'extra',
  'description',
  'interface',
  'step',
  'args',
  'priority',
  'op',
  'path',
  'value',
  'resources',
  'inventories',
  'allocations',
  'consumer_generation',
  'project_id',
  'user_id',
  'generation',
  'total',
  'reserved',
  'traits',
  'resource_provider_generation',
  'x',
  '7',
  'x_a',
  'a',
  'b',
  'c',
  'd',
  'e',
  'f',
  'VCPU',
  'CUSTOM_A',
);
const scalars = fc.oneof(
  strings,
  fc.constantFrom(-1, 0, 1, 2, 5, 7, 10, 255, 2 ** 31, 1.5, 0.5, true, false, null),
);

// Values shaped by the schema (so that most errors are deep ones), mixed with
// arbitrary small values.
function instanceOf(schema: JsonSchema, depth: number): fc.Arbitrary<unknown> {
  const loose = fc.oneof(scalars, fc.constant({}), fc.constant([]));
  if (depth > 4 || typeof schema !== 'object') return loose;
  const s = schema as JsonSchemaObject;
  const shaped: fc.Arbitrary<unknown>[] = [];
  if (s.enum?.length) shaped.push(fc.constantFrom(...s.enum.slice(0, 20)));
  const alternatives = [...(s.anyOf ?? []), ...(s.oneOf ?? []), ...(s.allOf ?? [])];
  for (const alt of alternatives) shaped.push(instanceOf(alt, depth + 1));
  const types = s.type === undefined ? [] : typeof s.type === 'string' ? [s.type] : s.type;
  if (types.includes('object') || s.properties || s.patternProperties) {
    const props = Object.entries(s.properties ?? {});
    const named = fc.record(
      Object.fromEntries(props.map(([k, sub]) => [k, instanceOf(sub, depth + 1)])) as Record<
        string,
        fc.Arbitrary<unknown>
      >,
      { requiredKeys: [] },
    );
    const extra = fc.dictionary(keys, fc.oneof(loose, instanceOf(s.additionalProperties ?? {}, depth + 1)), {
      maxKeys: 2,
    });
    shaped.push(fc.tuple(named, extra).map(([a, b]) => ({ ...b, ...a })));
  }
  if (types.includes('array') || s.items !== undefined) {
    shaped.push(fc.array(instanceOf(s.items ?? {}, depth + 1), { maxLength: 3 }));
  }
  if (!shaped.length) return loose;
  return fc.oneof({ arbitrary: fc.oneof(...shaped), weight: 4 }, { arbitrary: loose, weight: 1 });
}

describe.runIf(
  oracleAvailable('jsonschema with Ironic and Placement', [
    'jsonschema',
    'ironic.api.controllers.v1.utils',
    'placement',
  ]),
)('JSON Schema conformance with Python jsonschema', () => {
  it('reports the best match, its root cause and every message as jsonschema does', () => {
    const schemas = {
      ...(JSON.parse(runPython(PY_SCHEMAS)) as Record<string, JsonSchema>),
      ...EXTRA,
    };
    expect(Object.keys(schemas).length).toBeGreaterThan(50);
    const cases: [string, unknown][] = [];
    for (const [name, schema] of Object.entries(schemas)) {
      for (const instance of fc.sample(instanceOf(schema, 0), { numRuns: 40, seed: name.length * 7919 })) {
        cases.push([name, JSON.parse(JSON.stringify(instance))]);
      }
    }
    const input = [JSON.stringify(schemas), ...cases.map((c) => JSON.stringify(c))].join('\n');
    const answers = runPython(PY_CHECK, input)
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as [string | null, string | null, string[]]);
    expect(answers).toHaveLength(cases.length);
    let invalid = 0;
    answers.forEach(([best, cause, all], i) => {
      const [name, instance] = cases[i] as [string, unknown];
      const errors = iterSchemaErrors(instance, schemas[name] as JsonSchema, {
        formats: name.startsWith('placement') ? { uuid: isUuidLike } : {},
      });
      const ours = bestSchemaMatch(errors);
      let current = ours;
      let ourCause: string | null = null;
      while (current?.context.length) {
        current = bestSchemaMatch(current.context);
        ourCause = current?.message ?? null;
      }
      const label = `${name} ${JSON.stringify(instance)}`;
      expect(ours?.message ?? null, label).toBe(best);
      expect(ourCause, label).toBe(cause);
      expect(errors.map((e) => e.message).sort(), label).toEqual([...all].sort());
      if (best !== null) invalid += 1;
    });
    // Most generated values must be invalid for the comparison to mean much, but not all.
    expect(invalid).toBeGreaterThan(cases.length / 3);
    expect(invalid).toBeLessThan(cases.length);
  });
});
