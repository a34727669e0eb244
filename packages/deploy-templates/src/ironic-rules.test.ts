import { isStackspecError } from '@stackspec/core';
import { describe, expect, it } from 'vitest';
import { parsePatchDocument, parsePatchedStep, parseTemplateBody } from './ironic-rules.js';
import { ironicProfile } from './profile.js';
import { MAX_NESTING } from './schema.js';

const latest = ironicProfile();
const old = ironicProfile('21.4');
const step = { interface: 'bios', step: 'apply_configuration', args: {}, priority: 10 };

function errorOf(fn: () => unknown): { code: string; status: number; message: string } {
  try {
    fn();
  } catch (e) {
    if (isStackspecError(e)) return { code: e.code, status: e.status, message: e.message };
    throw e;
  }
  throw new Error('expected a validation error');
}

function messageOf(fn: () => unknown): string {
  const e = errorOf(fn);
  return `${e.status} ${e.message}`;
}

describe('parseTemplateBody', () => {
  it('accepts a template and normalises digit-string priorities to integers', () => {
    const out = parseTemplateBody(
      { name: 'CUSTOM_A', steps: [{ ...step, priority: '42' }] },
      latest,
      'template',
    );
    expect(out).toEqual({ name: 'CUSTOM_A', steps: [{ ...step, priority: 42 }] });
  });

  it('keeps uuid and extra when given, including null', () => {
    const out = parseTemplateBody(
      { name: 'CUSTOM_A', steps: [step], uuid: null, extra: { a: 1 } },
      latest,
      'template',
    );
    expect(out.uuid).toBeNull();
    expect(out.extra).toEqual({ a: 1 });
  });

  it.each([
    [{}, "Schema error for template: 'steps' is a required property"],
    [{ steps: [step] }, "Schema error for template: 'name' is a required property"],
    [{ name: 'CUSTOM_A', steps: [] }, 'Schema error for template: [] is too short'],
    [{ name: 'CUSTOM_A', steps: 'x' }, "Schema error for template: 'x' is not of type 'array'"],
    [{ name: 7, steps: [step] }, "Schema error for template: 7 is not of type 'string'"],
    [{ name: null, steps: [step] }, "Schema error for template: None is not of type 'string'"],
    [{ name: '', steps: [step] }, "Schema error for template: '' is too short"],
    [
      { name: 'my-trait', steps: [step] },
      "Schema error for template: 'my-trait' is not valid under any of the given schemas. Possible root cause: 'my-trait' does not match '^CUSTOM_[A-Z0-9_]+$'",
    ],
    [
      { name: 'CUSTOM_A', steps: [step], colour: 1 },
      "Schema error for template: Additional properties are not allowed ('colour' was unexpected)",
    ],
    [
      { name: 'CUSTOM_A', steps: [step], extra: 'x' },
      "Schema error for template: 'x' is not of type 'object', 'null'",
    ],
    [
      { name: 'CUSTOM_A', steps: [{ ...step, args: [] }] },
      "Schema error for template: [] is not of type 'object'",
    ],
    [
      { name: 'CUSTOM_A', steps: [{ ...step, priority: -5 }] },
      'Schema error for template: -5 is less than the minimum of 0',
    ],
    [
      { name: 'CUSTOM_A', steps: [{ ...step, priority: true }] },
      "Schema error for template: True is not valid under any of the given schemas. Possible root cause: True is not of type 'integer'",
    ],
    [
      { name: 'CUSTOM_A', steps: [{ ...step, foo: 1 }] },
      "Schema error for template: Additional properties are not allowed ('foo' was unexpected)",
    ],
    ['text', "Schema error for template: 'text' is not of type 'object'"],
  ])('rejects %j with Ironic’s message', (body, message) => {
    expect(messageOf(() => parseTemplateBody(body, latest, 'template'))).toBe(`400 ${message}`);
  });

  it('lists the interfaces of the release in the enum message', () => {
    const body = { name: 'CUSTOM_A', steps: [{ ...step, interface: 'vendor' }] };
    expect(messageOf(() => parseTemplateBody(body, old, 'template'))).toBe(
      "400 Schema error for template: 'vendor' is not one of ['power', 'management', 'deploy', 'bios', 'raid']",
    );
    expect(parseTemplateBody(body, latest, 'template').steps[0]?.interface).toBe('vendor');
  });

  it('accepts a 255-character custom trait and rejects 256', () => {
    const ok = `CUSTOM_${'A'.repeat(248)}`;
    expect(parseTemplateBody({ name: ok, steps: [step] }, latest, 'template').name).toBe(ok);
    expect(messageOf(() => parseTemplateBody({ name: `${ok}A`, steps: [step] }, latest, 'template'))).toMatch(
      /is too long$/,
    );
  });

  it('rejects a standard trait that the release does not know', () => {
    expect(parseTemplateBody({ name: 'HW_NVME_BES', steps: [step] }, latest, 'template').name).toBe(
      'HW_NVME_BES',
    );
    expect(
      messageOf(() => parseTemplateBody({ name: 'HW_NVME_BES', steps: [step] }, old, 'template')),
    ).toContain('is not valid under any of the given schemas');
  });

  it('rejects duplicate steps whatever their args and priority', () => {
    const body = { name: 'CUSTOM_A', steps: [step, { ...step, args: { a: 1 }, priority: 0 }] };
    expect(messageOf(() => parseTemplateBody(body, latest, 'template'))).toBe(
      '400 Deploy template invalid: Duplicate deploy steps. A deploy template cannot have multiple deploy steps with the same interface and step. Duplicates: interface: bios, step: apply_configuration.',
    );
  });

  it('rejects a uuid that is not UUID-like', () => {
    expect(
      messageOf(() =>
        parseTemplateBody({ name: 'CUSTOM_A', steps: [step], uuid: 'abc' }, latest, 'template'),
      ),
    ).toBe('400 Expected UUID for uuid: abc');
  });

  it('refuses priorities beyond the 32-bit column instead of failing in the database', () => {
    expect(
      messageOf(() =>
        parseTemplateBody({ name: 'CUSTOM_A', steps: [{ ...step, priority: 2 ** 31 }] }, latest, 'template'),
      ),
    ).toContain('larger than the largest supported value 2147483647');
  });

  it.each([
    ['a name longer than 255 characters', 's'.repeat(256), 'step-name-too-long', 'is 256 characters long'],
    ['a NUL', 'a\u0000b', 'invalid-step-name', 'contains a NUL character'],
    ['an unpaired high surrogate', 'a\ud800', 'invalid-step-name', 'an unpaired surrogate'],
    ['an unpaired low surrogate', '\udc00a', 'invalid-step-name', 'an unpaired surrogate'],
  ])('refuses a step name with %s, which the database could not store', (_label, name, code, text) => {
    const body = { name: 'CUSTOM_A', steps: [step, { ...step, interface: 'raid', step: name }] };
    const error = errorOf(() => parseTemplateBody(body, latest, 'template'));
    expect(error.code).toBe(`deploy-templates/${code}`);
    expect(error.message).toMatch(/^Deploy template invalid: the name of step 1 \(raid\./);
    expect(error.message).toContain(text);
  });

  it('counts step name length in characters and accepts a paired surrogate', () => {
    const body = { name: 'CUSTOM_A', steps: [{ ...step, step: '😀'.repeat(255) }] };
    expect(parseTemplateBody(body, latest, 'template').steps[0]?.step).toHaveLength(510);
  });

  it('refuses nesting past the limit at any depth without overflowing the stack', () => {
    for (const depth of [MAX_NESTING - 3, 100_000]) {
      let args: unknown = 1;
      for (let i = 0; i < depth; i += 1) args = [args];
      const error = errorOf(() =>
        parseTemplateBody({ name: 'CUSTOM_A', steps: [{ ...step, args: { a: args } }] }, latest, 'template'),
      );
      expect(error).toMatchObject({ code: 'deploy-templates/too-deep', status: 400 });
    }
    let fits: unknown = 1;
    for (let i = 0; i < MAX_NESTING - 4; i += 1) fits = [fits];
    expect(() =>
      parseTemplateBody({ name: 'CUSTOM_A', steps: [{ ...step, args: { a: fits } }] }, latest, 'template'),
    ).not.toThrow();
  });

  it('refuses non-finite numbers anywhere in the template', () => {
    for (const body of [
      { name: 'CUSTOM_A', steps: [{ ...step, args: { x: Number.POSITIVE_INFINITY } }] },
      { name: 'CUSTOM_A', steps: [step], extra: { y: [Number.NaN] } },
    ]) {
      expect(errorOf(() => parseTemplateBody(body, latest, 'template')).code).toBe(
        'deploy-templates/number-too-large',
      );
    }
  });

  it('uses the patch prefix when validating a patched template', () => {
    expect(messageOf(() => parseTemplateBody({ steps: [step] }, latest, 'patch'))).toBe(
      "400 Schema error for patch: 'name' is a required property",
    );
  });
});

describe('parsePatchDocument', () => {
  it('accepts add, replace and remove operations', () => {
    const ops = [
      { op: 'add', path: '/extra/a', value: 1 },
      { op: 'remove', path: '/extra/a' },
    ];
    expect(parsePatchDocument(ops)).toBe(ops);
    expect(parsePatchDocument([])).toEqual([]);
  });

  it.each([
    [{ op: 'add' }, "Schema error for patch: {'op': 'add'} is not of type 'array'"],
    [
      [{ op: 'test', path: '/name' }],
      "Schema error for patch: 'test' is not one of ['add', 'replace', 'remove']",
    ],
    [
      [{ op: 'add', path: 'name', value: 1 }],
      "Schema error for patch: 'name' does not match '^(/[\\\\w-]+)+$'",
    ],
    [
      [{ op: 'move', from: '/a', path: '/b' }],
      "Schema error for patch: Additional properties are not allowed ('from' was unexpected)",
    ],
    [[{ path: '/name' }], "Schema error for patch: 'op' is a required property"],
  ])('rejects %j', (patch, message) => {
    expect(messageOf(() => parsePatchDocument(patch))).toBe(`400 ${message}`);
  });

  it('refuses a patch whose values nest past the limit', () => {
    let value: unknown = {};
    for (let i = 0; i < 50_000; i += 1) value = { a: value };
    expect(errorOf(() => parsePatchDocument([{ op: 'add', path: '/extra/x', value }]))).toMatchObject({
      code: 'deploy-templates/too-deep',
      message: 'Deploy template invalid: the patch nests objects and lists deeper than 200 levels.',
    });
  });
});

describe('parsePatchedStep', () => {
  it('validates one step with the patch prefix', () => {
    expect(() => parsePatchedStep(step, latest)).not.toThrow();
    expect(messageOf(() => parsePatchedStep({ ...step, step: '' }, latest))).toBe(
      "400 Schema error for patch: '' is too short",
    );
  });
});
