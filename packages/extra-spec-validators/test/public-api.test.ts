// The public surface: what signatures and TSDoc refer to is exported (so
// typedoc documents it), and internals stay out of public types.
import { isStackspecError } from '@stackspec/core';
import { describe, expect, it } from 'vitest';
import * as api from '../src/index.js';
import {
  createExtraSpecRegistry,
  type ExtraSpecRegistry,
  type PythonInt,
  PythonRegexError,
  parsePythonInt,
  translatePythonRegex,
  validateExtraSpecs,
} from '../src/index.js';

describe('the package entry point', () => {
  it('exports the schemas its types are derived from', () => {
    const schemas = {
      IntValueSchema: api.IntValueSchema,
      BoolValueSchema: api.BoolValueSchema,
      StrValueSchema: api.StrValueSchema,
      ValueRuleSchema: api.ValueRuleSchema,
      ParameterSchema: api.ParameterSchema,
      SupportStatusSchema: api.SupportStatusSchema,
      DeprecationSchema: api.DeprecationSchema,
      DependencySchema: api.DependencySchema,
      HistoryEntrySchema: api.HistoryEntrySchema,
      ExtraSpecInputSchema: api.ExtraSpecInputSchema,
    };
    for (const [name, schema] of Object.entries(schemas)) {
      expect(typeof (schema as { safeParse?: unknown } | undefined)?.safeParse, name).toBe('function');
    }
    expect(api.DeprecationSchema.safeParse({ since: 'zed', reason: 'Use hw:y.' }).success).toBe(true);
    expect(
      api.SupportStatusSchema.safeParse({ added: 'zed', removed: { release: 'yoga', reason: 'x' } }).success,
    ).toBe(false);
    expect(api.ParameterSchema.parse({ name: 'num', type: 'int' })).toEqual({
      name: 'num',
      type: 'int',
      pattern: '\\d+',
    });
  });

  it('exports the result type of parsePythonInt', () => {
    const n: PythonInt = parsePythonInt(' -0_7 ');
    expect(n).toEqual({ negative: true, digits: '7' });
  });

  it("throws translation failures as core's SpecError, exported as PythonRegexError", () => {
    try {
      translatePythonRegex('(?i)abc');
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(PythonRegexError);
      expect(isStackspecError(e)).toBe(true);
      expect(e).toMatchObject({ code: 'python/bad-regex', index: 0, status: 400 });
    }
  });

  it('keeps the internal lookups out of the registry type, and refuses a registry it did not make', () => {
    const registry: ExtraSpecRegistry = createExtraSpecRegistry({ release: 'zed' });
    // @ts-expect-error internal, not part of the public type
    expect(typeof registry.novaLookup).toBe('function');
    // A registry written by hand has the public shape but none of the internals.
    const foreign: ExtraSpecRegistry = {
      release: registry.release,
      size: 0,
      entries: () => [],
      get: () => undefined,
      lookup: () => undefined,
      suggest: () => [],
      conflicts: [],
    };
    expect(() => validateExtraSpecs({ 'hw:cpu_policy': 'x' }, { registry: foreign })).toThrow(
      expect.objectContaining({ code: 'extra-specs/bad-registry' }),
    );
    // Refused whatever the specs hold, so a bad registry is not found only on the first non-empty flavor.
    expect(() => validateExtraSpecs({}, { registry: foreign, mode: 'nova' })).toThrow(
      expect.objectContaining({ code: 'extra-specs/bad-registry' }),
    );
  });
});

describe('every exported function on arguments of the wrong type', () => {
  const wrong: unknown[] = [undefined, null, 0, '', 'x', {}, [], true, Symbol('s'), { name: 1 }, () => 1];
  const functions = Object.entries(api).filter(
    ([name, value]) => typeof value === 'function' && /^[a-z]/.test(name),
  ) as [string, (...args: unknown[]) => unknown][];

  it('covers the functions of the entry point', () => {
    expect(functions.length).toBeGreaterThan(30);
  });

  it.each(functions)('%s returns or throws our error, never a TypeError', async (_name, fn) => {
    for (const a of wrong) {
      for (const b of [undefined, null, 1, {}, 'x']) {
        try {
          await fn(a, b);
        } catch (e) {
          expect(isStackspecError(e), `${String(e)} for (${String(typeof a)}, ${String(b)})`).toBe(true);
        }
      }
    }
  });
});
