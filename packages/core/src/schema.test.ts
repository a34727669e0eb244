import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { parseDocument } from './document.js';
import { isStackspecError } from './errors.js';
import { describeType, diagnosticsFromZod, parseWithSchema, validateWithSchema } from './schema.js';

const Step = z.strictObject({
  interface: z.enum(['bios', 'raid', 'deploy']),
  step: z.string().min(1),
  priority: z.number().int().min(0),
});
const Template = z.strictObject({
  name: z.string().max(10),
  steps: z.array(Step).min(1),
  extra: z.record(z.string(), z.unknown()).optional(),
  tag: z.union([z.string(), z.number()]).optional(),
  code: z
    .string()
    .regex(/^[A-Z]+$/)
    .optional(),
});

const TEXT = `name: CUSTOM_RAID_TOO_LONG
steps:
  - interface: bois
    step: apply
    priority: -1
    prority: 3
tag: true
nmae: x
`;

describe('validateWithSchema on a source document', () => {
  const doc = parseDocument(TEXT, { filename: 'tpl.yaml' });
  const r = validateWithSchema(Template, doc);
  const byPath = Object.fromEntries(r.diagnostics.map((d) => [d.path, d]));

  it('fails and reports every problem', () => {
    expect(r.ok).toBe(false);
    expect(r.diagnostics).toHaveLength(6);
  });

  it('points a bad value at its line and says what was expected', () => {
    expect(byPath['/steps/0/priority']).toMatchObject({
      code: 'schema/too-small',
      file: 'tpl.yaml',
      line: 5,
      column: 15,
      message: "'priority' must be at least 0, but it is -1.",
    });
  });

  it('suggests the closest enum value', () => {
    expect(byPath['/steps/0/interface']).toMatchObject({
      code: 'schema/invalid-value',
      line: 3,
      message: "'interface' must be one of bios, raid, deploy, but it is 'bois'.",
      hint: 'Did you mean bios?',
    });
  });

  it('points an unknown key at the key and suggests a known one', () => {
    expect(byPath['/steps/0/prority']).toMatchObject({
      code: 'schema/unknown-key',
      line: 6,
      column: 5,
      hint: 'Did you mean priority?',
    });
    expect(byPath['/nmae']).toMatchObject({
      code: 'schema/unknown-key',
      line: 8,
      column: 1,
      hint: 'Did you mean name?',
    });
  });

  it('describes a union of types in one sentence', () => {
    expect(byPath['/tag']?.message).toBe("'tag' must be a string or a number, but it is a boolean.");
  });

  it('says how long a string may be', () => {
    expect(byPath['/name']?.message).toBe("'name' must be at most 10 characters long, but it has 20.");
  });
});

describe('diagnosticsFromZod', () => {
  it('reports a missing key at the mapping that lacks it', () => {
    const doc = parseDocument('steps:\n  - interface: bios\n    priority: 1\n', { filename: 'm.yaml' });
    const ds = validateWithSchema(Template, doc).diagnostics;
    expect(ds).toContainEqual(
      expect.objectContaining({
        code: 'schema/missing-key',
        path: '',
        message: "The key 'name' is required.",
        line: 1,
      }),
    );
    expect(ds).toContainEqual(
      expect.objectContaining({
        code: 'schema/missing-key',
        path: '/steps/0',
        message: "The key 'step' is required in item 0 of 'steps'.",
        line: 2,
      }),
    );
  });

  it('works on plain values with a base path and a custom area', () => {
    const parsed = Step.safeParse({ interface: 'bios', step: '', priority: 1.5 });
    expect(parsed.success).toBe(false);
    if (parsed.success) return;
    const ds = diagnosticsFromZod(parsed.error, {
      value: { interface: 'bios', step: '', priority: 1.5 },
      area: 'deploy-templates',
      basePath: ['steps', 3],
      file: 'x.json',
    });
    expect(ds.map((d) => [d.code, d.path])).toEqual([
      ['deploy-templates/too-short', '/steps/3/step'],
      ['deploy-templates/invalid-type', '/steps/3/priority'],
    ]);
    expect(ds[1]?.message).toBe("'priority' must be an integer, but it is a number.");
    expect(ds[0]?.file).toBe('x.json');
  });

  it('reads the value at the base path inside a document to describe what was found', () => {
    const doc = parseDocument('outer:\n  a: 5\n', { filename: 'o.yaml' });
    const inner = z.object({ a: z.string() });
    const parsed = inner.safeParse((doc.value as { outer: unknown }).outer);
    if (parsed.success) throw new Error('expected a failure');
    const [d, ...rest] = diagnosticsFromZod(parsed.error, { document: doc, basePath: ['outer'] });
    expect(rest).toEqual([]);
    expect(d).toMatchObject({
      code: 'schema/invalid-type',
      path: '/outer/a',
      file: 'o.yaml',
      line: 2,
      column: 6,
    });
    expect(d?.message).toBe("'a' must be a string, but it is an integer.");
    // A key missing under the base path is still missing, located at its mapping.
    const missing = z.object({ b: z.string() }).safeParse({ a: 5 });
    if (missing.success) throw new Error('expected a failure');
    expect(diagnosticsFromZod(missing.error, { document: doc, basePath: ['outer'] })[0]).toMatchObject({
      code: 'schema/missing-key',
      path: '/outer',
      line: 2,
    });
  });

  it('describes a regex mismatch', () => {
    const r = validateWithSchema(Template, {
      name: 'a',
      steps: [{ interface: 'raid', step: 's', priority: 0 }],
      code: 'abc',
    });
    expect(r.diagnostics[0]?.message).toBe("'code' must match the pattern /^[A-Z]+$/, but it is 'abc'.");
  });

  it('keeps custom messages as sentences', () => {
    const S = z.string().refine((s) => s.startsWith('CUSTOM_'), { message: 'must start with CUSTOM_' });
    const r = validateWithSchema(S, 'x');
    expect(r.diagnostics[0]).toMatchObject({ code: 'schema/custom', message: 'must start with CUSTOM_.' });
  });

  it('reports an empty document', () => {
    const r = validateWithSchema(Template, parseDocument('', { filename: 'e.yaml' }));
    expect(r.diagnostics[0]?.code).toBe('schema/invalid-type');
    expect(r.diagnostics[0]?.message).toBe('The document must be a mapping, but it is null.');
  });
});

describe('parseWithSchema', () => {
  it('returns the parsed value', () => {
    expect(parseWithSchema(Step, { interface: 'raid', step: 'x', priority: 0 })).toEqual({
      interface: 'raid',
      step: 'x',
      priority: 0,
    });
  });

  it('throws a ValidationError with the diagnostics', () => {
    try {
      parseWithSchema(Step, { interface: 'raid' });
      expect.unreachable();
    } catch (e) {
      expect(isStackspecError(e) && e.status).toBe(400);
      expect(isStackspecError(e) && e.diagnostics.length).toBe(2);
    }
  });
});

describe('describeType', () => {
  it.each([
    [null, 'null'],
    [[1], 'an array'],
    [1, 'an integer'],
    [1.5, 'a number'],
    [{}, 'a mapping'],
    [undefined, 'missing'],
    [true, 'a boolean'],
    ['s', 'a string'],
  ])('describes %j as %s', (v, text) => {
    expect(describeType(v)).toBe(text);
  });
});
