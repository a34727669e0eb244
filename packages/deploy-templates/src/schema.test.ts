import { isStackspecError, parseDocument } from '@stackspec/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkTemplate } from './ironic-rules.js';
import { ironicProfile } from './profile.js';
import {
  DeployStepSchema,
  deployTemplateJsonSchema,
  findDuplicateSteps,
  parseDeployTemplate,
  validateDeployTemplate,
} from './schema.js';

const step = { interface: 'raid', step: 'create_configuration', args: {}, priority: 10 };

describe('DeployStepSchema', () => {
  it('normalises a digit-string priority to an integer', () => {
    expect(DeployStepSchema.parse({ ...step, priority: '007' }).priority).toBe(7);
  });

  it('rejects negative, fractional and boolean priorities and unknown keys', () => {
    for (const priority of [-1, 1.5, true, '', '1e3']) {
      expect(DeployStepSchema.safeParse({ ...step, priority }).success).toBe(false);
    }
    expect(DeployStepSchema.safeParse({ ...step, foo: 1 }).success).toBe(false);
  });
});

describe('validateDeployTemplate', () => {
  it('accepts the spec’s mirror template', () => {
    const r = validateDeployTemplate({ name: 'CUSTOM_BM_CONFIG_RAID_DISK_MIRROR', steps: [step] });
    expect(r.ok).toBe(true);
  });

  it('points at the line of each problem in a YAML file', () => {
    const doc = parseDocument(
      [
        'name: raid-mirror',
        'steps:',
        '  - interface: raid',
        '    step: create_configuration',
        '    args: []',
        '    priority: -1',
        'colour: red',
        '',
      ].join('\n'),
      { filename: 'mirror.yaml' },
    );
    const r = validateDeployTemplate(doc);
    expect(r.ok).toBe(false);
    const byPath = Object.fromEntries(r.diagnostics.map((d) => [d.path, d]));
    expect(byPath['/name']).toMatchObject({
      code: 'deploy-templates/invalid-name',
      file: 'mirror.yaml',
      line: 1,
      hint: 'Did you mean CUSTOM_RAID_MIRROR?',
    });
    expect(byPath['/steps/0/args']).toMatchObject({ line: 5 });
    expect(byPath['/steps/0/priority']).toMatchObject({ line: 6 });
    expect(byPath['/colour']).toMatchObject({ code: 'deploy-templates/unknown-key', line: 7 });
  });

  it('reports a duplicate step at the repeated entry', () => {
    const r = validateDeployTemplate({ name: 'CUSTOM_A', steps: [step, { ...step, args: { a: 1 } }] });
    expect(r.ok).toBe(false);
    expect(r.diagnostics).toEqual([
      expect.objectContaining({ code: 'deploy-templates/duplicate-step', path: '/steps/1' }),
    ]);
    expect(r.diagnostics[0]?.message).toContain('raid.create_configuration');
  });

  it('suggests a close standard trait', () => {
    const r = validateDeployTemplate({ name: 'HW_CPU_X86_AVX3', steps: [step] });
    expect(r.diagnostics[0]?.hint).toMatch(/^Did you mean HW_CPU_X86_AVX/);
  });

  it('follows the os-traits release of the profile', () => {
    expect(validateDeployTemplate({ name: 'HW_NVME_BES', steps: [step] }).ok).toBe(true);
    expect(
      validateDeployTemplate({ name: 'HW_NVME_BES', steps: [step] }, { profile: ironicProfile('21.4') }).ok,
    ).toBe(false);
  });

  it('names the missing fields', () => {
    const r = validateDeployTemplate({});
    expect(r.diagnostics.map((d) => d.message)).toEqual([
      "The key 'name' is required.",
      "The key 'steps' is required.",
    ]);
  });
});

describe('parseDeployTemplate', () => {
  it('returns the template or throws a located ValidationError', () => {
    expect(
      parseDeployTemplate({ name: 'CUSTOM_A', steps: [{ ...step, priority: '3' }] }).steps[0]?.priority,
    ).toBe(3);
    try {
      parseDeployTemplate({ name: 'CUSTOM_A', steps: [] }, { file: 'x.json' });
      expect.unreachable();
    } catch (e) {
      expect(isStackspecError(e) && e.status).toBe(400);
      expect(isStackspecError(e) && e.diagnostics[0]).toMatchObject({
        path: '/steps',
        file: 'x.json',
        code: 'deploy-templates/too-few',
      });
    }
  });
});

describe('findDuplicateSteps', () => {
  it('lists each repeated pair once with every index', () => {
    expect(findDuplicateSteps([step, { ...step, interface: 'bios' }, step, step])).toEqual([
      { interface: 'raid', step: 'create_configuration', indexes: [0, 2, 3] },
    ]);
  });
});

describe('the zod schema and Ironic’s rules agree', () => {
  it('accepts exactly the templates Ironic accepts (property)', () => {
    const value = fc.oneof(
      fc.constant(null),
      fc.integer({ min: -2, max: 5 }),
      fc.constantFrom('', '5', 'x', 'CUSTOM_A', 'raid', 'bios'),
      fc.constant({}),
      fc.constant([]),
    );
    const stepArb = fc.record(
      {
        interface: fc.oneof(fc.constantFrom('raid', 'bios', 'vendor', 'boot'), value),
        step: fc.oneof(fc.constantFrom('a', 'b'), value),
        args: fc.oneof(fc.constant({}), fc.constant({ a: 1 }), value),
        priority: fc.oneof(fc.integer({ min: -1, max: 3 }), fc.constantFrom('1', '01', '-1', ''), value),
        other: value,
      },
      { requiredKeys: [] },
    );
    const body = fc.record(
      {
        name: fc.oneof(fc.constantFrom('CUSTOM_A', 'HW_CPU_X86_AVX2', 'nope', ''), value),
        steps: fc.oneof(fc.array(stepArb, { maxLength: 3 }), value),
        uuid: fc.oneof(fc.constantFrom('8221f906-208b-44a5-b575-f8e8a59c4a84', 'abc'), fc.constant(null)),
        extra: fc.oneof(fc.constant({ a: 1 }), value),
        other: value,
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(body, (b) => {
        let ironic = true;
        try {
          checkTemplate(structuredClone(b), ironicProfile(), 'template');
        } catch {
          ironic = false;
        }
        expect(validateDeployTemplate(b).ok).toBe(ironic);
      }),
      { numRuns: 2000, seed: 11 },
    );
  });
});

describe('deployTemplateJsonSchema', () => {
  it('matches the committed JSON Schema', async () => {
    await expect(`${JSON.stringify(deployTemplateJsonSchema(), null, 2)}\n`).toMatchFileSnapshot(
      './__snapshots__/deploy-template.schema.json',
    );
  });

  it('lists the interfaces and traits of the chosen release', () => {
    const old = deployTemplateJsonSchema(ironicProfile('21.4')) as {
      properties: {
        name: { anyOf: [unknown, { enum: string[] }] };
        steps: { items: { properties: { interface: { enum: string[] } } } };
      };
    };
    expect(old.properties.steps.items.properties.interface.enum).toEqual([
      'power',
      'management',
      'deploy',
      'bios',
      'raid',
    ]);
    expect(old.properties.name.anyOf[1].enum).toHaveLength(345);
  });
});
