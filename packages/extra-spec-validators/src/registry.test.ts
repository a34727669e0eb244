import { isStackspecError } from '@stackspec/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { defineExtraSpec } from './define.js';
import { createExtraSpecRegistry } from './registry.js';
import { validateExtraSpecs } from './validate.js';

const zed = createExtraSpecRegistry({ release: 'zed' });

function thrown(fn: () => unknown): { code: string; message: string; paths: string[] } | unknown {
  try {
    fn();
  } catch (e) {
    return isStackspecError(e)
      ? { code: e.code, message: e.message, paths: e.diagnostics.map((d) => d.path) }
      : e;
  }
  return undefined;
}

describe('createExtraSpecRegistry: lookup and get', () => {
  it('finds plain and patterned keys, with the placeholder values', () => {
    expect(zed.lookup('hw:cpu_policy')).toMatchObject({
      spec: { name: 'hw:cpu_policy' },
      params: {},
      template: false,
    });
    expect(zed.lookup('hw:numa_cpus.12')).toMatchObject({
      spec: { name: 'hw:numa_cpus.{num}' },
      params: { num: '12' },
      template: false,
    });
    expect(zed.lookup('trait_gpu:HW_CPU_X86_AVX2')).toMatchObject({ params: { group: '_gpu' } });
  });

  it('finds a template name written as a key, marked as such', () => {
    const m = zed.lookup('hw:numa_cpus.{num}');
    expect(m?.template).toBe(true);
    expect(m?.spec.name).toBe('hw:numa_cpus.{num}');
  });

  it('reads names literally: a dot is a dot, and case counts', () => {
    expect(zed.lookup('hw:numa_cpusX0')).toBeUndefined();
    expect(zed.lookup('HW:CPU_POLICY')).toBeUndefined();
    expect(zed.lookup('')).toBeUndefined();
    expect(zed.lookup(`hw:${'a'.repeat(70_000)}`)).toBeUndefined();
    expect(zed.lookup(42 as never)).toBeUndefined();
  });

  it('get takes registered names only', () => {
    expect(zed.get('hw:cpu_policy')?.origin).toBe('builtin');
    expect(zed.get('hw:numa_cpus.{num}')?.parameters.map((p) => p.name)).toEqual(['num']);
    expect(zed.get('hw:numa_cpus.0')).toBeUndefined();
    expect(zed.get('nope')).toBeUndefined();
    expect(zed.get(undefined as never)).toBeUndefined();
  });

  it('lists built-ins, then plugins, and counts them', () => {
    expect(zed.size).toBe(490);
    expect(zed.entries()).toHaveLength(490);
    const spec = defineExtraSpec({ name: 'acme:slices', description: 'Slices.', value: { type: 'int' } });
    const both = createExtraSpecRegistry({ release: 'zed', plugins: [spec] });
    expect(both.size).toBe(491);
    expect(both.entries().at(-1)).toMatchObject({ name: 'acme:slices', origin: 'plugin', source: 'code' });
    const only = createExtraSpecRegistry({ builtins: false, plugins: [spec] });
    expect(only.entries().map((e) => e.name)).toEqual(['acme:slices']);
    expect(only.lookup('hw:cpu_policy')).toBeUndefined();
    expect(createExtraSpecRegistry({ builtins: false }).size).toBe(0);
  });
});

describe('createExtraSpecRegistry: suggest', () => {
  it('puts the closest names first and honours the limit', () => {
    expect(zed.suggest('hw:cpu_polcy')[0]).toBe('hw:cpu_policy');
    expect(zed.suggest('hw:cpu_polcy').length).toBeLessThanOrEqual(3);
    expect(zed.suggest('hw:cpu_polcy', 1)).toEqual(['hw:cpu_policy']);
    expect(zed.suggest('hw:cpu_polcy', 0)).toEqual([]);
    expect(zed.suggest('HW:CPU_POLICY')).toContain('hw:cpu_policy');
    expect(zed.suggest('zzzzzzzzzzzzzzzz')).toEqual([]);
  });

  it('gives nothing for keys Nova could not store, at once', () => {
    expect(zed.suggest(`aggregate_instance_extra_specs:${'x'.repeat(65_536)}`)).toEqual([]);
    expect(zed.suggest('a'.repeat(256))).toEqual([]);
    expect(zed.suggest(null as never)).toEqual([]);
  });

  it('refuses a limit that is not a whole number of 0 or more', () => {
    for (const limit of [-1, 1.5, Number.NaN, '2']) {
      expect(thrown(() => zed.suggest('hw:cpu_polcy', limit as never))).toMatchObject({
        code: 'extra-specs/bad-option',
      });
    }
  });
});

describe('createExtraSpecRegistry: plugins given in code', () => {
  it('checks plain objects as defineExtraSpec does, pointing into the plugins option', () => {
    expect(
      thrown(() =>
        createExtraSpecRegistry({
          plugins: [{ name: 'acme:x', description: 'X.', value: { type: 'float' }, parameters: [] } as never],
        }),
      ),
    ).toMatchObject({
      code: 'extra-specs/bad-definition',
      message:
        "plugins[0]: The definition of 'acme:x' is not valid: 'type' must be one of int, bool, str, but it is 'float'.",
      paths: ['/plugins/0/value/type'],
    });
    expect(
      thrown(() =>
        createExtraSpecRegistry({
          plugins: [
            {
              name: 'acme',
              specs: [{ name: 'acme:x', description: 'X.', value: { type: 'int', min: 5, max: 1 } } as never],
            },
          ],
        }),
      ),
    ).toMatchObject({
      code: 'extra-specs/bad-definition',
      message: expect.stringMatching(/^plugins\[0\]\.specs\[0\]: The definition of 'acme:x'/),
      paths: ['/plugins/0/specs/0/value/min'],
    });
    expect(
      thrown(() =>
        createExtraSpecRegistry({
          plugins: [
            { name: 'acme:x.{n}', description: 'X.', value: { type: 'int' }, parameters: [] } as never,
          ],
        }),
      ),
    ).toMatchObject({
      code: 'extra-specs/bad-definition',
      message: expect.stringContaining('The placeholder {n} in'),
    });
  });

  it('accepts a sound plain object and validates with it', () => {
    const registry = createExtraSpecRegistry({
      builtins: false,
      plugins: [{ name: 'acme:x', description: 'X.', value: { type: 'int', max: 3 } } as never],
    });
    expect(validateExtraSpecs({ 'acme:x': '4' }, { registry }).diagnostics[0]?.message).toBe(
      "The value 4 of 'acme:x' is out of range; expected an integer of at most 3.",
    );
  });

  it('refuses plugins without a name and a plugins option that is not a list', () => {
    expect(thrown(() => createExtraSpecRegistry({ plugins: [{ specs: [] } as never] }))).toMatchObject({
      code: 'extra-specs/bad-plugin',
      paths: ['/plugins/0/name'],
    });
    expect(thrown(() => createExtraSpecRegistry({ plugins: {} as never }))).toMatchObject({
      code: 'extra-specs/bad-plugin',
    });
    expect(thrown(() => createExtraSpecRegistry(7 as never))).toMatchObject({
      code: 'extra-specs/bad-option',
    });
  });

  it('reports a plugin redefining a built-in, and two plugins one name', () => {
    const again = defineExtraSpec({ name: 'hw:cpu_policy', description: 'Mine.', value: { type: 'str' } });
    const twice = defineExtraSpec({ name: 'acme:x', description: 'X.', value: { type: 'str' } });
    const r = createExtraSpecRegistry({
      release: 'zed',
      plugins: [
        { name: 'a', specs: [again, twice] },
        { name: 'b', specs: [twice] },
      ],
    });
    expect(r.conflicts.map((d) => d.code)).toEqual([
      'extra-specs/registry/shadowed',
      'extra-specs/registry/duplicate',
    ]);
    expect(r.get('hw:cpu_policy')?.origin).toBe('builtin');
    expect(r.get('acme:x')?.source).toBe('a');
  });
});

describe('createExtraSpecRegistry: properties', () => {
  const key = fc.oneof(
    fc.string({ maxLength: 40 }),
    fc.constantFrom(...zed.entries().map((e) => e.name)),
    fc
      .tuple(fc.constantFrom(...zed.entries().map((e) => e.name)), fc.string({ maxLength: 8 }))
      .map(([name, fill]) => name.replace(/\{[^}]*\}/g, fill)),
    fc.string({ minLength: 200, maxLength: 400 }),
  );

  it('lookup and suggest answer any key with an entry, nothing or names, never an exception', () => {
    const names = new Set(zed.entries().map((e) => e.name));
    fc.assert(
      fc.property(key, fc.integer({ min: 0, max: 5 }), (k, limit) => {
        const m = zed.lookup(k);
        if (m) expect(names.has(m.spec.name)).toBe(true);
        if (m?.template) expect(m.spec.name).toBe(k);
        const s = zed.suggest(k, limit);
        expect(s.length).toBeLessThanOrEqual(limit);
        for (const name of s) expect(typeof name).toBe('string');
      }),
      { numRuns: 400 },
    );
  });

  it('builds from any plugin input or throws our error', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            fc.anything(),
            fc.record({
              name: fc.string({ maxLength: 20 }),
              description: fc.string({ maxLength: 5 }),
              value: fc.record({ type: fc.constantFrom('int', 'bool', 'str', 'float') }),
            }),
          ),
          { maxLength: 4 },
        ),
        (specs) => {
          try {
            const r = createExtraSpecRegistry({
              builtins: false,
              plugins: [{ name: 'p', specs: specs as never }],
            });
            expect(r.size).toBeLessThanOrEqual(specs.length);
          } catch (e) {
            expect(isStackspecError(e)).toBe(true);
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
