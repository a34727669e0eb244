import { describe, expect, it } from 'vitest';
import { classifyDocument } from './classify.js';

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
