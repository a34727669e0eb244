import { isStackspecError } from '@stackspec/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { defineExtraSpec } from './define.js';
import { createExtraSpecRegistry } from './registry.js';
import { checkNovaExtraSpec, parseExtraSpecs, validateExtraSpecs } from './validate.js';

const codes = (r: { diagnostics: { code: string }[] }) => r.diagnostics.map((d) => d.code);

describe('validateExtraSpecs in strict mode', () => {
  it('accepts a valid flavor', () => {
    const r = validateExtraSpecs({
      'hw:cpu_policy': 'dedicated',
      'hw:numa_nodes': '2',
      'hw:numa_cpus.0': '0-3',
      'resources:VCPU': '0',
      'trait:HW_CPU_X86_AVX2': 'required',
      'aggregate_instance_extra_specs:ssd': 'true',
    });
    expect(r).toEqual({ ok: true, diagnostics: [] });
  });

  it('reports a typo in a key with the closest known key', () => {
    const r = validateExtraSpecs({ 'hw:cpu_polcy': 'dedicated' });
    expect(r.ok).toBe(false);
    expect(r.diagnostics[0]).toMatchObject({
      code: 'extra-specs/unknown-key',
      severity: 'error',
      path: '/hw:cpu_polcy',
      hint: 'Did you mean hw:cpu_policy?',
    });
  });

  it('reports a typo in a value with the closest allowed value', () => {
    const r = validateExtraSpecs({ 'hw:cpu_policy': 'deddddicated' });
    expect(r.diagnostics[0]).toMatchObject({
      code: 'extra-specs/invalid-value',
      message: expect.stringContaining('one of: dedicated, shared, mixed'),
      hint: 'Did you mean dedicated?',
    });
  });

  it('explains int, bool and pattern failures and suggests fixes', () => {
    const r = validateExtraSpecs({
      'hw:numa_nodes': '0',
      'hw:serial_port_count': '2.0',
      'hw:pmu': 'ture',
      'hw:mem_page_size': 'huge',
      'hw:redirected_usb_ports': '16',
    });
    const byPath = Object.fromEntries(r.diagnostics.map((d) => [d.path, d]));
    expect(byPath['/hw:numa_nodes']?.message).toContain('out of range; expected an integer of at least 1');
    expect(byPath['/hw:serial_port_count']?.hint).toBe('Did you mean 2?');
    expect(byPath['/hw:pmu']?.hint).toBe('Did you mean true?');
    expect(byPath['/hw:mem_page_size']?.message).toContain('expected a string matching');
    expect(byPath['/hw:redirected_usb_ports']?.message).toContain('from 0 to 15');
  });

  it('warns about deprecated keys and names the replacement', () => {
    const r = validateExtraSpecs({ hide_hypervisor_id: 'true' });
    expect(r.ok).toBe(true);
    expect(r.diagnostics[0]).toMatchObject({
      code: 'extra-specs/deprecated-key',
      severity: 'warning',
      hint: 'Use hw:hide_hypervisor_id instead.',
    });
  });

  it('warns when a later release renames a key, citing the reason', () => {
    const r = validateExtraSpecs({ 'hw:max_cpu_sockets': '2' }, { release: 'zed' });
    expect(r.ok).toBe(true);
    expect(r.diagnostics[0]).toMatchObject({
      code: 'extra-specs/renamed-key',
      severity: 'warning',
      message: expect.stringContaining(
        "replaced by 'hw:cpu_max_sockets' from flamingo (and in 30.3.0, 31.2.0)",
      ),
    });
    expect(
      validateExtraSpecs({ 'hw:max_cpu_sockets': '2' }, { release: 'zed', mode: 'nova' }).diagnostics,
    ).toEqual([]);
  });

  it('explains keys of other releases', () => {
    const renamed = validateExtraSpecs({ 'hw:max_cpu_sockets': '2' });
    expect(renamed.diagnostics[0]?.hint).toBe(
      "'hw:max_cpu_sockets' was renamed to 'hw:cpu_max_sockets' in flamingo.",
    );
    const removed = validateExtraSpecs({ 'os:monitors': '2' });
    expect(removed.diagnostics[0]?.hint).toContain('removed in caracal');
    const later = validateExtraSpecs({ 'hw:sound_model': 'ich9' }, { release: 'zed' });
    expect(later.diagnostics[0]?.hint).toContain('only available from flamingo');
    const respelt = validateExtraSpecs({ 'hw:numa_cpus.{num}': '0' }, { release: 'wallaby' });
    expect(codes(respelt)).toEqual(['extra-specs/invalid-key-syntax']);
  });

  it('refuses a template name written as a key, and says to fill it in', () => {
    const r = validateExtraSpecs({ 'aggregate_instance_extra_specs:{key}': 'x' });
    expect(codes(r)).toEqual(['extra-specs/invalid-key-syntax']);
    const numa = validateExtraSpecs(
      { 'hw:numa_cpus.{num}': '0', 'trait{group}:X': 'required' },
      { mode: 'permissive' },
    );
    expect(numa.diagnostics.map((d) => [d.code, d.hint])).toEqual([
      [
        'extra-specs/invalid-key-syntax',
        "'hw:numa_cpus.{num}' is a template: write a key for each value you set, replacing each {placeholder}, e.g. hw:numa_cpus.0.",
      ],
      [
        'extra-specs/invalid-key-syntax',
        "'trait{group}:X' is a template: write a key for each value you set, replacing each {placeholder}.",
      ],
    ]);
    expect(validateExtraSpecs({ 'hw/x': '1' }).diagnostics[0]?.hint).toBeUndefined();
  });

  it("names the flavor key for an image property's name", () => {
    const r = validateExtraSpecs({
      hw_numa_nodes: '2',
      'hw_numa_cpus.1': '0',
      img_hide_hypervisor_id: 'true',
    });
    expect(r.diagnostics.map((d) => [d.code, d.hint])).toEqual([
      [
        'extra-specs/unknown-key',
        "'hw_numa_nodes' is how an image spells it; a flavor takes 'hw:numa_nodes'.",
      ],
      [
        'extra-specs/unknown-key',
        "'hw_numa_cpus.1' is how an image spells it; a flavor takes 'hw:numa_cpus.1'.",
      ],
      [
        'extra-specs/unknown-key',
        "'img_hide_hypervisor_id' is how an image spells it; a flavor takes 'hw:hide_hypervisor_id'.",
      ],
    ]);
  });

  it('says to remove whitespace around a value that is right without it', () => {
    const r = validateExtraSpecs({
      'hw:cpu_policy': 'dedicated ',
      'hw:numa_cpus.0': '\t0-1',
      'hw:pmu': ' maybe',
    });
    expect(r.diagnostics.map((d) => d.hint)).toEqual([
      "Remove the surrounding whitespace: 'dedicated'.",
      "Remove the surrounding whitespace: '0-1'.",
      'Use true or false.',
    ]);
    expect(validateExtraSpecs({ 'hw:cpu_policy': 'dedicated ' }, { mode: 'nova' }).diagnostics[0]?.hint).toBe(
      "Remove the surrounding whitespace: 'dedicated'.",
    );
  });

  it("reads dots literally, unlike Nova's unescaped names", () => {
    expect(validateExtraSpecs({ 'hw:numa_cpusX0': '0' }).ok).toBe(false);
    expect(checkNovaExtraSpec('hw:numa_cpusX0', '0')).toBeUndefined();
  });

  it("refuses keys and values Nova's API would not store", () => {
    const r = validateExtraSpecs({ 'hw/x': '1', 'hw:cpu_policy': 'x'.repeat(256) });
    expect(codes(r)).toEqual(['extra-specs/invalid-key-syntax', 'extra-specs/value-too-long']);
  });

  it('counts characters as Nova does (code points), not UTF-16 units', () => {
    const emoji = '\u{1f600}';
    expect(validateExtraSpecs({ 'acme:label': emoji.repeat(255) }, { mode: 'permissive' }).ok).toBe(true);
    const r = validateExtraSpecs({ 'acme:label': `${emoji.repeat(255)}x` }, { mode: 'permissive' });
    expect(codes(r)).toEqual(['extra-specs/value-too-long']);
    expect(r.diagnostics[0]?.message).toContain('has 256 characters');
    // A lone surrogate is one character too.
    expect(validateExtraSpecs({ 'acme:label': '\ud800'.repeat(256) }, { mode: 'permissive' }).ok).toBe(false);
  });

  it('refuses values that are not strings, with a hint to quote them', () => {
    const r = validateExtraSpecs({ 'hw:numa_nodes': 2 } as unknown as Record<string, string>);
    expect(r.diagnostics[0]).toMatchObject({ code: 'extra-specs/invalid-type', hint: "Quote it: '2'." });
    expect(codes(validateExtraSpecs(null as unknown as Record<string, string>))).toEqual([
      'extra-specs/invalid-type',
    ]);
  });

  it('puts paths under basePath and escapes them as JSON pointers', () => {
    const r = validateExtraSpecs({ 'a/b:c': 'x' }, { basePath: '/flavors/0/extra_specs' });
    expect(r.diagnostics[0]?.path).toBe('/flavors/0/extra_specs/a~1b:c');
  });
});

describe('validateExtraSpecs in the other modes', () => {
  it('permissive: unknown keys are warnings, bad values still errors', () => {
    const r = validateExtraSpecs({ 'foo:bar': 'x', 'hw:cpu_policy': 'x' }, { mode: 'permissive' });
    expect(r.ok).toBe(false);
    expect(r.diagnostics.map((d) => [d.code, d.severity])).toEqual([
      ['extra-specs/unknown-key', 'warning'],
      ['extra-specs/invalid-value', 'error'],
    ]);
    expect(validateExtraSpecs({ 'foo:bar': 'x' }, { mode: 'permissive' }).ok).toBe(true);
  });

  it('off: nothing is checked', () => {
    expect(validateExtraSpecs({ 'hw:cpu_policy': 'x', 'x/y': 'z' }, { mode: 'off' })).toEqual({
      ok: true,
      diagnostics: [],
    });
  });

  it("nova: foreign namespaces pass, owned ones must be known, messages are Nova's", () => {
    const r = validateExtraSpecs(
      { 'foo:bar': 'x', 'hw:foo': '1', 'hw:cpu_policy': 'x', 'os:monitors': ' +09', novalidation: 'x' },
      { mode: 'nova', release: 'zed' },
    );
    expect(r.diagnostics.map((d) => d.message)).toEqual([
      "Validation failed; extra spec 'hw:foo' does not appear to be a valid extra spec.",
      "Validation failed; 'x' is not one of: dedicated, shared, mixed.",
      "Validation failed; '9' is greater than the max value of '8'.",
    ]);
    expect(r.diagnostics[1]?.hint).toBe('Use one of: dedicated, shared, mixed.');
  });

  it('nova: reproduces the literal-template and Unicode quirks', () => {
    expect(checkNovaExtraSpec('hw:numa_cpus.{num}', '0')).toBe(
      "Validation failed; expected a name of format 'hw:numa_cpus.{num}' but got 'hw:numa_cpus.{num}'.",
    );
    expect(checkNovaExtraSpec('aggregate_instance_extra_specs:{key}', 'x')).toBeUndefined();
    expect(checkNovaExtraSpec('hw:numa_cpus.\u0663', '0')).toBeUndefined();
    expect(checkNovaExtraSpec('hw:numa_cpus\n0', '0')).toMatch(/does not appear/);
    expect(checkNovaExtraSpec('hw:numa_cpus\r0', '0')).toBeUndefined();
    expect(checkNovaExtraSpec('capabilities:cpu_info:\u00fc', 'x')).toBeUndefined();
    expect(checkNovaExtraSpec(`trait${'a'.repeat(65)}:HW_CPU_X86_AVX2`, 'x')).toBeUndefined();
    expect(checkNovaExtraSpec('traits:HW_CPU_X86_AVX2', 'x')).toMatch(/not one of: required, forbidden/);
  });

  it('nova: the zed catalog keeps the misspelt hw:max_cpu_* keys, the newest the fixed ones', () => {
    const zed = validateExtraSpecs(
      { 'hw:max_cpu_sockets': '2', 'hw:cpu_max_sockets': '2' },
      {
        mode: 'nova',
        release: 'zed',
      },
    );
    expect(zed.diagnostics.map((d) => d.path)).toEqual(['/hw:cpu_max_sockets']);
    const latest = validateExtraSpecs(
      { 'hw:max_cpu_sockets': '2', 'hw:cpu_max_sockets': '2' },
      { mode: 'nova' },
    );
    expect(latest.diagnostics.map((d) => d.path)).toEqual(['/hw:max_cpu_sockets']);
  });

  it('refuses absurdly long values before running any pattern', () => {
    const r = validateExtraSpecs({ 'hw:pmem': 'a'.repeat(70_000) }, { mode: 'nova' });
    expect(codes(r)).toEqual(['extra-specs/value-too-long']);
  });
});

describe('parseExtraSpecs', () => {
  it('throws a ValidationError carrying every diagnostic', () => {
    try {
      parseExtraSpecs({ 'hw:cpu_polcy': 'x', 'hw:numa_nodes': 'x' });
      expect.unreachable();
    } catch (e) {
      expect(isStackspecError(e) && e.kind).toBe('validation');
      expect(isStackspecError(e) && e.code).toBe('extra-specs/unknown-key');
      expect(isStackspecError(e) && e.diagnostics).toHaveLength(2);
    }
  });

  it('returns a copy of the specs and their warnings when nothing is an error', () => {
    const input = { hide_hypervisor_id: '1', 'hw:cpu_policy': 'dedicated' };
    const parsed = parseExtraSpecs(input);
    expect(parsed.specs).toEqual(input);
    expect(parsed.specs).not.toBe(input);
    expect(parsed.warnings).toEqual([
      expect.objectContaining({ severity: 'warning', path: '/hide_hypervisor_id' }),
    ]);
  });
});

describe('validation with plugins', () => {
  const registry = createExtraSpecRegistry({
    release: 'zed',
    plugins: [
      {
        name: 'acme-filters',
        specs: [
          defineExtraSpec({
            name: 'acme:slices',
            description: 'Slices to reserve.',
            value: { type: 'int', min: 1 },
          }),
          defineExtraSpec({ name: 'hw:cpu_policy', description: 'A clash.', value: { type: 'str' } }),
        ],
      },
    ],
  });

  it('validates plugin keys and claims their namespace in nova mode', () => {
    expect(validateExtraSpecs({ 'acme:slices': '2' }, { registry }).ok).toBe(true);
    expect(validateExtraSpecs({ 'acme:slices': '0' }, { registry }).ok).toBe(false);
    expect(checkNovaExtraSpec('acme:other', '1', registry)).toMatch(/does not appear/);
  });

  it('keeps the built-in definition when a plugin redefines it', () => {
    expect(validateExtraSpecs({ 'hw:cpu_policy': 'anything' }, { registry }).ok).toBe(false);
    expect(registry.conflicts.map((d) => d.code)).toEqual(['extra-specs/registry/shadowed']);
  });
});

describe('robustness', () => {
  it('returns diagnostics for any input mapping and never throws', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string({ maxLength: 30 }), fc.string({ maxLength: 30 })), (specs) => {
        for (const mode of ['strict', 'permissive', 'nova'] as const) {
          const r = validateExtraSpecs(specs, { mode });
          expect(r.ok).toBe(!r.diagnostics.some((d) => d.severity === 'error'));
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe('bad input', () => {
  const thrown = (fn: () => unknown) => {
    try {
      fn();
    } catch (e) {
      return isStackspecError(e) ? { code: e.code, message: e.message, hint: e.diagnostics[0]?.hint } : e;
    }
    return undefined;
  };

  it('refuses a mode it does not know rather than checking less', () => {
    expect(thrown(() => validateExtraSpecs({ 'hw:cpu_polcy': 'x' }, { mode: 'strcit' as never }))).toEqual({
      code: 'extra-specs/bad-option',
      message: "The validation mode 'strcit' is not one of strict, permissive, off, nova.",
      hint: 'Did you mean strict?',
    });
    expect(thrown(() => parseExtraSpecs({}, { mode: 3 as never }))).toMatchObject({
      code: 'extra-specs/bad-option',
      hint: 'Use one of strict, permissive, off, nova.',
    });
  });

  it('takes null options as none and refuses options that are not an object', () => {
    expect(validateExtraSpecs({ 'hw:cpu_policy': 'x' }, null as never).ok).toBe(false);
    expect(thrown(() => validateExtraSpecs({}, 'nova' as never))).toMatchObject({
      code: 'extra-specs/bad-option',
    });
  });

  it('checkNovaExtraSpec refuses a key or value that is not a string', () => {
    expect(thrown(() => checkNovaExtraSpec(1 as never, 'x'))).toMatchObject({
      code: 'extra-specs/invalid-type',
      message: 'checkNovaExtraSpec takes a key and a value that are strings, but got number and string.',
    });
    expect(thrown(() => checkNovaExtraSpec('hw:cpu_policy', undefined as never))).toMatchObject({
      code: 'extra-specs/invalid-type',
    });
  });

  it('answers a 65,536-character unknown key at once, without a suggestion', () => {
    for (const key of [`capabilities:${'a'.repeat(65_536)}`, `hw:${'a'.repeat(65_536)}`]) {
      const r = validateExtraSpecs({ [key]: '1' }, { mode: 'nova' });
      expect(r.diagnostics).toHaveLength(1);
      expect(r.diagnostics[0]).toMatchObject({ code: 'extra-specs/unknown-key' });
      expect(r.diagnostics[0]?.hint).toBeUndefined();
    }
    const strict = validateExtraSpecs({ [`aggregate_instance_extra_specs:${'x'.repeat(65_536)}`]: '1' });
    expect(codes(strict)).toEqual(['extra-specs/invalid-key-syntax']);
  });
});
