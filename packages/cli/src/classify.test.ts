import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ARTIFACT_KINDS, classifyDocument, findNearMiss } from './classify.js';

describe('classifyDocument', () => {
  it.each([
    [{ heat_template_version: '2018-08-31' }, 'heat-template'],
    [{ validators: [] }, 'image-spec'],
    [{ driver_steps: [] }, 'driver-steps'],
    [{ name: 'm1', extra_specs: {} }, 'flavor'],
    [{ flavors: [{ extra_specs: {} }] }, 'flavor'],
    [[{ name: 'a', extra_specs: {} }], 'flavor'],
    [{ name: 'm1.small', vcpus: 1, ram: 512, properties: "hw:cpu_policy='dedicated'" }, 'flavor'],
    [{ name: 'CUSTOM_X', steps: [] }, 'deploy-template'],
    [{ deploy_templates: [{ name: 'CUSTOM_X', steps: [] }] }, 'deploy-template'],
    [[{ name: 'CUSTOM_X', steps: [] }], 'deploy-template'],
    [{ resource_registry: {}, parameter_defaults: {} }, 'heat-environment'],
    [{ requires: { deployment: 'puppet' } }, 'heat-environment'],
    [{ providers: [{ name: 'cn1' }], aggregates: {} }, 'placement-inventory'],
  ])('recognises %j as %s', (value, kind) => {
    expect(classifyDocument(value, 'x.yaml')).toBe(kind);
  });

  it.each([[null], ['text'], [[1, 2]], [{ parameters: {}, other: 1 }], [{}], [{ name: 'x' }]])(
    'leaves %j unrecognised',
    (value) => {
      expect(classifyDocument(value, 'x.yaml')).toBeUndefined();
    },
  );

  it('recognises the config file by name', () => {
    expect(classifyDocument({ ignore: [] }, 'proj/stackspec.config.yaml')).toBe('stackspec-config');
  });
});

describe('findNearMiss', () => {
  it.each([
    [{ name: 'm1', extra_spec: { 'hw:cpu_policy': 'dedicated' } }, 'flavor', 'extra_spec', 'extra_specs'],
    [{ name: 'm1', Extra_Specs: {} }, 'flavor', 'Extra_Specs', 'extra_specs'],
    [{ flavours: [{ name: 'm1', extra_specs: {} }] }, 'flavor', 'flavours', 'flavors'],
    [
      { heat_template_verison: '2021-04-16', resources: {} },
      'heat-template',
      'heat_template_verison',
      'heat_template_version',
    ],
    [{ validator: [{ package: 'x' }] }, 'image-spec', 'validator', 'validators'],
    [{ name: 'CUSTOM_X', step: [] }, 'deploy-template', 'step', 'steps'],
    [{ provider: [{ name: 'cn1' }] }, 'placement-inventory', 'provider', 'providers'],
    [{ driver_step: [] }, 'driver-steps', 'driver_step', 'driver_steps'],
    [
      { resource_registy: { 'OS::X': 'x.yaml' } },
      'heat-environment',
      'resource_registy',
      'resource_registry',
    ],
    [
      { parameter_default: {}, resource_registry: {} },
      'heat-environment',
      'parameter_default',
      'parameter_defaults',
    ],
  ])('takes %j for a %s (%s → %s)', (value, kind, key, expected) => {
    expect(classifyDocument(value, 'x.yaml')).toBeUndefined();
    expect(findNearMiss(value)).toEqual({ kind, key, expected });
  });

  it.each([
    [{ jobs: { build: {} } }],
    [{ parameters: {}, other: 1 }],
    // The right spelling with the wrong shape is not a misspelling.
    [{ validator: 'yes' }],
    [{ step: [], other: 1 }],
    [{}],
    [[1, 2]],
    ['text'],
    [null],
  ])('finds nothing close in %j', (value) => {
    expect(findNearMiss(value)).toBeUndefined();
  });
});

describe('classification of any value', () => {
  it('returns a known kind or undefined, never throws', () => {
    const kinds = new Set<string>(ARTIFACT_KINDS);
    const keys = fc.constantFrom(
      'extra_specs',
      'extra_spec',
      'name',
      'steps',
      'step',
      'validators',
      'providers',
      'flavors',
      'resource_registry',
      'resource_registy',
      'heat_template_version',
      'driver_steps',
      '__proto__',
      'constructor',
    );
    const doc = fc.letrec((tie) => ({
      value: fc.oneof(
        { depthSize: 'small' },
        fc.jsonValue(),
        fc.dictionary(fc.oneof(keys, fc.string()), tie('value')),
        fc.array(tie('value'), { maxLength: 3 }),
      ),
    })).value;
    fc.assert(
      fc.property(doc, fc.string(), (value, file) => {
        const kind = classifyDocument(value, file);
        expect(kind === undefined || kinds.has(kind)).toBe(true);
        const miss = findNearMiss(value);
        if (miss) {
          expect(kinds.has(miss.kind)).toBe(true);
          expect(miss.key).not.toBe(miss.expected);
        }
      }),
    );
  });
});
