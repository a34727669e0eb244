import { isStackspecError, parseDocument } from '@stackspec/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseTemplateBody } from './ironic-rules.js';
import { ironicProfile } from './profile.js';
import {
  DeployStepSchema,
  deployTemplateJsonSchema,
  findDuplicateSteps,
  findUnstorable,
  MAX_NESTING,
  parseDeployTemplate,
  stepNameProblem,
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

  it('says what a priority or args must be, with the code a tool can act on', () => {
    const r = validateDeployTemplate({
      name: 'CUSTOM_A',
      steps: [{ ...step, priority: 'ten', args: ['x'] }],
      uuid: 'not-a-uuid',
    });
    expect(r.diagnostics.map(({ code, path, message }) => ({ code, path, message }))).toEqual([
      {
        code: 'deploy-templates/invalid-type',
        path: '/steps/0/args',
        message: "'args' must be a mapping, but it is a list.",
      },
      {
        code: 'deploy-templates/invalid-type',
        path: '/steps/0/priority',
        message: "'priority' must be an integer of 0 or more, or a string of digits, but it is 'ten'.",
      },
      {
        code: 'deploy-templates/invalid-uuid',
        path: '/uuid',
        message: 'The uuid must be a UUID such as 8221f906-208b-44a5-b575-f8e8a59c4a84.',
      },
    ]);
    expect(r.diagnostics[1]?.hint).toMatch(/as a number, such as 10/);
  });

  it('quotes a bad priority when it is a scalar and names its type otherwise', () => {
    const said = (priority: unknown) =>
      validateDeployTemplate({ name: 'CUSTOM_A', steps: [{ ...step, priority }] }).diagnostics[0]?.message;
    const rule = "'priority' must be an integer of 0 or more, or a string of digits, but it is";
    expect(said([10])).toBe(`${rule} a list.`);
    expect(said({ value: 10 })).toBe(`${rule} a mapping.`);
    expect(said(null)).toBe(`${rule} null.`);
    expect(said(true)).toBe(`${rule} true.`);
    expect(said(1.5)).toBe(`${rule} 1.5.`);
    expect(said(Number.NaN)).toBe(`${rule} NaN (not a number).`);
  });

  it('refuses what the database could not store, at the line of the value', () => {
    const doc = parseDocument(
      [
        'name: CUSTOM_A',
        'steps:',
        '  - interface: raid',
        `    step: ${'s'.repeat(256)}`,
        '    args: {}',
        '    priority: 1',
        '  - {interface: bios, step: "a\\0b", args: {}, priority: 1}',
        '  - {interface: deploy, step: x, args: {size: .inf}, priority: 1}',
      ].join('\n'),
      { filename: 'bad.yaml' },
    );
    const r = validateDeployTemplate(doc);
    expect(r.diagnostics.map(({ code, path, line }) => ({ code, path, line }))).toEqual([
      { code: 'deploy-templates/step-name-too-long', path: '/steps/0/step', line: 4 },
      { code: 'deploy-templates/invalid-step-name', path: '/steps/1/step', line: 7 },
      { code: 'deploy-templates/number-too-large', path: '/steps/2/args/size', line: 8 },
    ]);
    expect(r.diagnostics[0]?.message).toBe(
      'The step name is 256 characters long; the longest allowed is 255.',
    );
    let deep: unknown = 1;
    for (let i = 0; i < 300; i += 1) deep = [deep];
    const tooDeep = validateDeployTemplate({ name: 'CUSTOM_A', steps: [step], extra: { deep } });
    expect(tooDeep.diagnostics).toMatchObject([
      {
        code: 'deploy-templates/too-deep',
        message: 'The value nests objects and lists deeper than 200 levels.',
      },
    ]);
    expect(tooDeep.diagnostics[0]?.path).toMatch(/^\/extra\/deep(\/0)+$/);
  });

  it('names the missing fields', () => {
    const r = validateDeployTemplate({});
    expect(r.diagnostics.map((d) => d.message)).toEqual([
      "The key 'name' is required.",
      "The key 'steps' is required.",
    ]);
  });
});

describe('findUnstorable and stepNameProblem', () => {
  it('finds the first value too deep or not finite, with its path, and nothing in a plain template', () => {
    expect(findUnstorable({ name: 'CUSTOM_A', steps: [step] })).toBeUndefined();
    expect(findUnstorable({ a: [1, { b: Number.NaN }] })).toMatchObject({
      code: 'deploy-templates/number-too-large',
      path: ['a', 1, 'b'],
    });
    let v: unknown = 'leaf';
    for (let i = 0; i < MAX_NESTING; i += 1) v = [v];
    expect(findUnstorable(v)).toBeUndefined();
    expect(findUnstorable([v])).toMatchObject({ code: 'deploy-templates/too-deep' });
    expect(findUnstorable([v])?.path).toHaveLength(MAX_NESTING);
  });

  it('reports the first problem in document order, and ends on a cycle', () => {
    expect(findUnstorable({ a: { b: Number.POSITIVE_INFINITY }, c: Number.NaN })).toEqual({
      code: 'deploy-templates/number-too-large',
      path: ['a', 'b'],
      message: 'holds a number too large to represent; numbers must be finite.',
    });
    const cycle: Record<string, unknown> = { steps: [] };
    cycle.self = cycle;
    expect(findUnstorable(cycle)).toMatchObject({
      code: 'deploy-templates/too-deep',
      message: 'nests objects and lists deeper than 200 levels.',
    });
  });

  it('measures step names in characters and refuses NUL and unpaired surrogates', () => {
    expect(stepNameProblem('😀'.repeat(255))).toBeUndefined();
    expect(stepNameProblem('x'.repeat(256))?.code).toBe('deploy-templates/step-name-too-long');
    for (const bad of ['a\u0000', '\ud800', 'x\udfff']) {
      expect(stepNameProblem(bad)?.code).toBe('deploy-templates/invalid-step-name');
    }
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
    // Values the database could not keep as written: deep nesting, non-finite numbers.
    const nested = (depth: number) => {
      let v: unknown = 1;
      for (let i = 0; i < depth; i += 1) v = { a: v };
      return v;
    };
    const hostile = fc.constantFrom(nested(MAX_NESTING + 10), Number.POSITIVE_INFINITY);
    // Mostly valid fields, so that a single bad one decides the outcome often enough.
    const mostly = <T>(good: fc.Arbitrary<T>, bad: fc.Arbitrary<unknown>) =>
      fc.oneof({ arbitrary: good, weight: 5 }, { arbitrary: bad, weight: 1 });
    const stepArb = fc
      .record({
        interface: mostly(fc.constantFrom('raid', 'bios', 'vendor'), fc.oneof(fc.constant('boot'), value)),
        step: mostly(
          fc.constantFrom('a', 'b', 's'.repeat(255), '😀'.repeat(255)),
          fc.oneof(fc.constantFrom('s'.repeat(256), 'a\u0000', '\ud800b', '\udc00'), value),
        ),
        args: mostly(
          fc.constantFrom({}, { a: 1 }, { a: nested(MAX_NESTING - 10) }),
          fc.oneof(fc.record({ a: hostile }), value),
        ),
        priority: mostly(
          fc.oneof(fc.integer({ min: 0, max: 3 }), fc.constantFrom('1', '01', 2 ** 31 - 1)),
          fc.oneof(fc.constantFrom(-1, '-1', '', 2 ** 31, '2147483648', Number.NaN, 1.5), value),
        ),
        other: fc.option(value, { freq: 8 }),
      })
      .map(({ other, ...s }) => (other === null ? s : { ...s, other }));
    const body = fc
      .record({
        name: mostly(
          fc.constantFrom('CUSTOM_A', 'HW_CPU_X86_AVX2'),
          fc.oneof(fc.constantFrom('nope', ''), value),
        ),
        steps: mostly(fc.array(stepArb, { minLength: 1, maxLength: 3 }), fc.oneof(fc.constant([]), value)),
        uuid: fc.constantFrom('8221f906-208b-44a5-b575-f8e8a59c4a84', null, undefined, 'abc'),
        extra: mostly(fc.constantFrom({ a: 1 }, undefined, null), fc.oneof(fc.record({ a: hostile }), value)),
        other: fc.option(value, { freq: 8 }),
      })
      .map(({ other, uuid, extra, ...b }) => ({
        ...b,
        ...(other === null ? {} : { other }),
        ...(uuid === undefined ? {} : { uuid }),
        ...(extra === undefined ? {} : { extra }),
      }));
    fc.assert(
      fc.property(body, (b) => {
        let ironic = true;
        try {
          parseTemplateBody(structuredClone(b), ironicProfile(), 'template');
        } catch {
          ironic = false;
        }
        expect(validateDeployTemplate(b).ok).toBe(ironic);
      }),
      { numRuns: 4000, seed: 11 },
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
