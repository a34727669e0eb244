import { isStackspecError, type StackspecError } from '@stackspec/core';
import { describe, expect, it } from 'vitest';
import { defineExtraSpec, type ExtraSpecInput, isExtraSpecDefinition, namespaceOf } from './define.js';

function failure(input: unknown): StackspecError {
  try {
    defineExtraSpec(input as ExtraSpecInput);
  } catch (e) {
    if (isStackspecError(e)) return e;
    throw e;
  }
  throw new Error('expected defineExtraSpec to throw');
}

const base: ExtraSpecInput = {
  name: 'acme:slices',
  description: 'How many slices.',
  value: { type: 'int', min: 1, max: 8 },
  status: { added: 'zed' },
};

describe('defineExtraSpec', () => {
  it('returns a frozen definition with defaults filled in', () => {
    const d = defineExtraSpec(base);
    expect(d.name).toBe('acme:slices');
    expect(d.parameters).toEqual([]);
    expect(Object.isFrozen(d)).toBe(true);
    expect(Object.isFrozen(d.value)).toBe(true);
    expect(isExtraSpecDefinition(d)).toBe(true);
  });

  it('gives an int parameter the pattern \\d+ when none is written', () => {
    const d = defineExtraSpec({
      ...base,
      name: 'acme:slot.{n}',
      parameters: [{ name: 'n', type: 'int' }],
    });
    expect(d.parameters[0]).toMatchObject({ name: 'n', type: 'int', pattern: '\\d+' });
  });

  it('accepts a definition without status (out-of-tree keys)', () => {
    const { status: _, ...rest } = base;
    expect(defineExtraSpec(rest).status).toBeUndefined();
  });

  it('rejects an unknown field and suggests the right one', () => {
    const e = failure({ ...base, descripton: 'x' });
    expect(e.kind).toBe('spec');
    expect(e.code).toBe('extra-specs/bad-definition');
    expect(e.diagnostics[0]).toMatchObject({ path: '/descripton', hint: 'Did you mean description?' });
  });

  it('counts the further problems in its message, and carries all of them', () => {
    const e = failure({ ...base, description: '', value: { type: 'int', min: 2, max: 1 }, bogus: 1 });
    expect(e.diagnostics).toHaveLength(3);
    expect(e.message).toMatch(
      /^The definition of 'acme:slices' is not valid: .+ \(and 2 more problems; see the diagnostics\)$/,
    );
    const one = failure({ ...base, name: 'acme:slot.{n}' });
    expect(one.message).not.toContain('more problem');
  });

  it('rejects a value type Nova does not support, naming the three it has', () => {
    const e = failure({ ...base, value: { type: 'float' } });
    expect(e.diagnostics).toEqual([
      expect.objectContaining({
        path: '/value/type',
        message: "'type' must be one of int, bool, str, but it is 'float'.",
        hint: "Nova has no float type; use 'str' with a pattern such as \\d+\\.\\d+.",
      }),
    ]);
    const integer = failure({ ...base, imageValue: { type: 'integer' } });
    expect(integer.diagnostics).toEqual([
      expect.objectContaining({ path: '/imageValue/type', hint: 'Did you mean int?' }),
    ]);
    const history = failure({
      ...base,
      history: [{ until: 'zed', change: 'Typed.', value: { type: 'Enum' } }],
    });
    expect(history.diagnostics).toEqual([
      expect.objectContaining({ path: '/history/0/value/type', hint: "Use 'str' with an enum." }),
    ]);
    // Within the right alternative, its own complaints are the ones reported.
    const bounds = failure({ ...base, value: { type: 'int', min: 'one' } });
    expect(bounds.diagnostics).toEqual([
      expect.objectContaining({ path: '/value/min', message: "'min' must be a number, but it is a string." }),
    ]);
  });

  it('rejects a placeholder that has no parameter', () => {
    const e = failure({ ...base, name: 'acme:slot.{n}' });
    expect(e.diagnostics[0]).toMatchObject({ path: '/name', message: expect.stringContaining('{n}') });
  });

  it('rejects a parameter that the name does not use', () => {
    const e = failure({ ...base, parameters: [{ name: 'n', type: 'int' }] });
    expect(e.diagnostics[0]?.path).toBe('/parameters/0');
  });

  it('rejects a str parameter without a pattern', () => {
    const e = failure({ ...base, name: 'acme:{x}', parameters: [{ name: 'x' }] });
    expect(e.diagnostics[0]?.path).toBe('/parameters/0/pattern');
  });

  it('rejects a value pattern that is not a usable regular expression', () => {
    expect(failure({ ...base, value: { type: 'str', pattern: '(a' } }).diagnostics[0]?.path).toBe(
      '/value/pattern',
    );
    expect(failure({ ...base, value: { type: 'str', pattern: '(?i)abc' } }).message).toContain('unsupported');
  });

  it('rejects a parameter pattern that does not compile', () => {
    const e = failure({ ...base, name: 'acme:{x}', parameters: [{ name: 'x', pattern: '[a-' }] });
    expect(e.diagnostics[0]?.path).toBe('/parameters/0/pattern');
  });

  it('rejects enum and pattern together, min above max, and repeated enum values', () => {
    expect(failure({ ...base, value: { type: 'str', enum: ['a'], pattern: 'a' } }).diagnostics[0]?.path).toBe(
      '/value/enum',
    );
    expect(failure({ ...base, value: { type: 'int', min: 5, max: 1 } }).diagnostics[0]?.path).toBe(
      '/value/min',
    );
    expect(failure({ ...base, value: { type: 'str', enum: ['a', 'a'] } }).diagnostics[0]?.path).toBe(
      '/value/enum',
    );
  });

  it('rejects a release that does not exist and a removal before the addition', () => {
    expect(failure({ ...base, status: { added: 'zedd' } }).diagnostics[0]?.path).toBe('/status/added');
    const e = failure({ ...base, status: { added: 'zed', removed: { release: 'yoga', reason: 'gone' } } });
    expect(e.diagnostics[0]?.path).toBe('/status/removed/release');
  });

  it('rejects characters Nova refuses in keys', () => {
    const e = failure({ ...base, name: 'acme/slices' });
    expect(e.diagnostics[0]).toMatchObject({ path: '/name', hint: expect.stringContaining('letters') });
  });

  it('rejects history entries out of order or older than the key', () => {
    const e = failure({
      ...base,
      status: { added: 'yoga' },
      history: [
        { until: 'zed', value: { type: 'int' }, change: 'a' },
        { until: 'yoga', value: { type: 'int' }, change: 'b' },
      ],
    });
    expect(e.diagnostics.map((d) => d.path)).toContain('/history/1/until');
    const older = failure({ ...base, history: [{ until: 'xena', value: { type: 'int' }, change: 'a' }] });
    expect(older.diagnostics[0]?.path).toBe('/history/0/until');
  });

  it('rejects input that is not an object at all', () => {
    expect(failure(null).kind).toBe('spec');
    expect(failure('hw:cpu_policy').kind).toBe('spec');
  });
});

describe('namespaceOf', () => {
  it('is the text before the first colon', () => {
    expect(namespaceOf('hw:cpu_policy')).toBe('hw');
    expect(namespaceOf('capabilities:cpu_info:a')).toBe('capabilities');
    expect(namespaceOf('group_policy')).toBe('');
  });
});

describe('defineExtraSpec and slow patterns', () => {
  it('refuses a value pattern that backtracks exponentially, saying how to fix it', () => {
    const e = failure({ ...base, value: { type: 'str', pattern: '(a+)+b' } });
    expect(e.diagnostics).toEqual([
      expect.objectContaining({
        code: 'extra-specs/bad-definition',
        path: '/value/pattern',
        message:
          "The value pattern '(a+)+b' lets '(a+)+' match the same text in more than one way, and so a text in exponentially many: a backtracking engine can take time exponential in the length of a value.",
        hint: expect.stringContaining('([a-z]+,?)+'),
      }),
    ]);
  });

  it('refuses a polynomial value pattern and slow parameter patterns, alone or side by side', () => {
    expect(failure({ ...base, value: { type: 'str', pattern: '.+@.+' } }).diagnostics[0]?.message).toContain(
      'time polynomial in the length of a value',
    );
    const param = failure({
      ...base,
      name: 'acme:{x}',
      parameters: [{ name: 'x', pattern: '(\\w|\\d)+' }],
    });
    expect(param.diagnostics[0]).toMatchObject({ path: '/parameters/0/pattern' });
    expect(param.diagnostics[0]?.message).toMatch(/^The pattern of parameter 'x', '\(\\w\|\\d\)\+', lets/);
    const pair = failure({
      ...base,
      name: 'acme:{a}{b}',
      parameters: [
        { name: 'a', pattern: '\\w+' },
        { name: 'b', pattern: '\\w+' },
      ],
    });
    expect(pair.diagnostics[0]).toMatchObject({
      path: '/name',
      message: expect.stringContaining("The name 'acme:{a}{b}', matched as 'acme:(?:\\w+)(?:\\w+)', has"),
    });
  });

  it("keeps Nova's own slow patterns, which run as proven rewrites", () => {
    const pmem = defineExtraSpec({ ...base, value: { type: 'str', pattern: '([a-zA-Z0-9_]+(,)?)+' } });
    expect(pmem.value).toEqual({ type: 'str', pattern: '([a-zA-Z0-9_]+(,)?)+' });
  });
});
