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

describe('diagnosticsFromZod on unions of mappings', () => {
  const Int = z.strictObject({ type: z.literal('int'), min: z.number().optional() });
  const Str = z.strictObject({ type: z.literal('str'), pattern: z.string().optional() });
  const Rule = z.union([Int, Str]);
  const Tagged = z.discriminatedUnion('type', [Int, Str]);
  const Doc = z.object({ rules: z.array(Tagged) });

  it('names every value a discriminator may take, located, with a hint', () => {
    const doc = parseDocument('rules:\n  - type: int\n  - type: strr\n    pattern: x\n', {
      filename: 'r.yaml',
    });
    expect(validateWithSchema(Doc, doc).diagnostics).toEqual([
      expect.objectContaining({
        code: 'schema/invalid-value',
        path: '/rules/1/type',
        line: 3,
        column: 11,
        message: "'type' must be one of int, str, but it is 'strr'.",
        hint: 'Did you mean str?',
      }),
    ]);
  });

  it('says a missing discriminator is required and which values it takes', () => {
    expect(validateWithSchema(Doc, { rules: [{ min: 1 }] }).diagnostics).toEqual([
      expect.objectContaining({
        code: 'schema/missing-key',
        path: '/rules/0',
        message: "The key 'type' is required in item 0 of 'rules'; it must be one of int, str.",
      }),
    ]);
  });

  it('treats a plain union told apart by a literal field the same way', () => {
    for (const schema of [Rule, Tagged]) {
      expect(validateWithSchema(schema, { type: 'float' }).diagnostics).toEqual([
        expect.objectContaining({
          path: '/type',
          message: "'type' must be one of int, str, but it is 'float'.",
        }),
      ]);
      // An abbreviation counts as a near miss, and a case slip as the nearest.
      expect(validateWithSchema(schema, { type: 'integer' }).diagnostics[0]?.hint).toBe('Did you mean int?');
      expect(validateWithSchema(schema, { type: 'STR' }).diagnostics[0]?.hint).toBe('Did you mean str?');
    }
  });

  it("reports the matching alternative's own complaints, not the first alternative's", () => {
    for (const schema of [Rule, Tagged]) {
      expect(validateWithSchema(schema, { type: 'str', pattern: 3 }).diagnostics).toEqual([
        expect.objectContaining({
          path: '/pattern',
          message: "'pattern' must be a string, but it is an integer.",
        }),
      ]);
    }
  });

  it('without a literal field, picks the alternative that knows the most of the keys given', () => {
    const Either = z.union([z.object({ name: z.string() }), z.object({ id: z.number(), label: z.string() })]);
    expect(validateWithSchema(Either, { id: 'x', label: 'y' }).diagnostics).toEqual([
      expect.objectContaining({ path: '/id', message: "'id' must be a number, but it is a string." }),
    ]);
    expect(validateWithSchema(Either, { name: 1 }).diagnostics).toEqual([
      expect.objectContaining({ path: '/name', message: "'name' must be a string, but it is an integer." }),
    ]);
  });

  it('says a missing literal value is required instead of calling it undefined', () => {
    expect(validateWithSchema(Int, {}).diagnostics).toEqual([
      expect.objectContaining({
        code: 'schema/missing-key',
        path: '',
        message: "The key 'type' is required; it must be 'int'.",
      }),
    ]);
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
    [[1], 'a list'],
    [1, 'an integer'],
    [1.5, 'a number'],
    [{}, 'a mapping'],
    [undefined, 'missing'],
    [true, 'a boolean'],
    ['s', 'a string'],
    [Number.NaN, 'NaN (not a number)'],
    [Infinity, 'infinite'],
  ])('describes %j as %s', (v, text) => {
    expect(describeType(v)).toBe(text);
  });
});

describe('type names in messages', () => {
  // Each zod type a value can be expected to have, with the words a YAML or
  // JSON author knows and the value that breaks it.
  const cases: [string, z.ZodType, unknown, string][] = [
    ['record', z.record(z.string(), z.string()), [1], "'x' must be a mapping, but it is a list."],
    ['object', z.object({}), 'a', "'x' must be a mapping, but it is a string."],
    ['map', z.map(z.string(), z.string()), {}, "'x' must be a Map, but it is a mapping."],
    ['array', z.array(z.string()), {}, "'x' must be a list, but it is a mapping."],
    ['tuple', z.tuple([z.string()]), 3, "'x' must be a list, but it is an integer."],
    ['set', z.set(z.string()), [], "'x' must be a Set, but it is a list."],
    ['int', z.int(), 1.5, "'x' must be an integer, but it is a number."],
    ['bigint', z.bigint(), 'a', "'x' must be an integer, but it is a string."],
    ['number', z.number(), true, "'x' must be a number, but it is a boolean."],
    ['number', z.number(), Number.NaN, "'x' must be a number, but it is NaN (not a number)."],
    ['number', z.number(), -Infinity, "'x' must be a number, but it is infinite."],
    ['boolean', z.boolean(), 1.5, "'x' must be a boolean, but it is a number."],
    ['string', z.string(), null, "'x' must be a string, but it is null."],
    ['null', z.null(), 'a', "'x' must be null, but it is a string."],
    ['undefined', z.undefined(), 'a', "'x' must be absent, but it is a string."],
    ['never', z.never(), 'a', "'x' must be absent, but it is a string."],
    ['void', z.void(), 'a', "'x' must be absent, but it is a string."],
    ['date', z.date(), 'a', "'x' must be a date, but it is a string."],
    ['nan', z.nan(), 'a', "'x' must be NaN, but it is a string."],
    ['symbol', z.symbol(), 'a', "'x' must be a symbol, but it is a string."],
    ['function', z.function(), 'a', "'x' must be a function, but it is a string."],
    ['file', z.file(), 'a', "'x' must be a file, but it is a string."],
  ];

  it.each(cases)('says what a %s is', (_kind, schema, value, message) => {
    const r = validateWithSchema(z.strictObject({ x: schema }), { x: value });
    expect(r.ok).toBe(false);
    expect(r.diagnostics.map((d) => [d.code, d.message])).toEqual([['schema/invalid-type', message]]);
  });

  it('never shows a bare zod type name', () => {
    for (const [, schema, value] of cases) {
      const [d] = validateWithSchema(z.strictObject({ x: schema }), { x: value }).diagnostics;
      expect(d?.message).toMatch(/ must be (a|an|absent|null|NaN)\b/);
      expect(d?.message).not.toMatch(/must be ([^,]+), but it is \1\./);
    }
  });

  it('names a union of records and lists as mappings and lists', () => {
    const r = validateWithSchema(z.union([z.record(z.string(), z.string()), z.array(z.string())]), 'a');
    expect(r.diagnostics[0]?.message).toBe('The document must be a mapping or a list, but it is a string.');
  });

  it('says what a non-optional value must be when it is present but wrong', () => {
    const r = validateWithSchema(z.strictObject({ x: z.string().optional().nonoptional() }), { x: 1 });
    expect(r.diagnostics[0]?.message).toBe("'x' must be a string, but it is an integer.");
  });
});
