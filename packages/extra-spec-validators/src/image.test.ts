import { describe, expect, it } from 'vitest';
import { findImageProperty, validateImageProperties } from './image.js';
import { builtinRegistry } from './validate.js';

describe('findImageProperty', () => {
  it('maps image properties to the extra spec with the same meaning', () => {
    expect(findImageProperty('hw_cpu_policy')?.spec.name).toBe('hw:cpu_policy');
    expect(findImageProperty('hw_numa_cpus.1')?.spec.name).toBe('hw:numa_cpus.{num}');
    expect(findImageProperty('img_hide_hypervisor_id')?.spec.name).toBe('hw:hide_hypervisor_id');
    expect(findImageProperty('os_secure_boot')?.spec.name).toBe('os:secure_boot');
    expect(findImageProperty('hw_cpu_max_sockets')?.spec.name).toBe('hw:cpu_max_sockets');
    expect(findImageProperty('hw_cpu_max_sockets', builtinRegistry('zed'))?.spec.name).toBe(
      'hw:max_cpu_sockets',
    );
    expect(findImageProperty('hw_emulator_threads_policy')).toBeUndefined();
    expect(findImageProperty('hw_disk_bus')).toBeUndefined();
  });
});

describe('validateImageProperties', () => {
  it('accepts valid properties and ignores image-only and foreign ones', () => {
    const r = validateImageProperties({
      hw_cpu_policy: 'dedicated',
      hw_numa_nodes: '2',
      'hw_numa_cpus.0': '0-1',
      hw_disk_bus: 'scsi',
      os_distro: 'ubuntu',
      owner_specified_thing: 'x',
      'trait:HW_CPU_X86_AVX2': 'required',
    });
    expect(r).toEqual({ ok: true, diagnostics: [] });
  });

  it("applies the extra spec's rule, bounds included, with a suggestion", () => {
    const r = validateImageProperties({ hw_cpu_policy: 'dedicatd', hw_numa_nodes: '0', hw_tpm_version: '3' });
    expect(r.ok).toBe(false);
    expect(r.diagnostics.map((d) => [d.path, d.code])).toEqual([
      ['/hw_cpu_policy', 'extra-specs/invalid-image-property'],
      ['/hw_numa_nodes', 'extra-specs/invalid-image-property'],
      ['/hw_tpm_version', 'extra-specs/invalid-image-property'],
    ]);
    expect(r.diagnostics[0]?.hint).toBe('Did you mean dedicated?');
    expect(r.diagnostics[1]?.message).toContain('at least 1');
  });

  it('reports likely typos of known properties (warnings when permissive)', () => {
    const strict = validateImageProperties({ hw_cpu_polcy: 'dedicated', hw_dsk_bus: 'scsi' });
    expect(strict.diagnostics.map((d) => d.hint)).toEqual([
      'Did you mean hw_cpu_policy?',
      'Did you mean hw_disk_bus?',
    ]);
    const permissive = validateImageProperties({ hw_cpu_polcy: 'dedicated' }, { mode: 'permissive' });
    expect(permissive.ok).toBe(true);
    expect(permissive.diagnostics[0]?.severity).toBe('warning');
  });

  it('tells that images can only require traits', () => {
    const r = validateImageProperties({ 'trait:HW_CPU_X86_AVX2': 'forbidden' });
    expect(r.diagnostics[0]?.message).toContain('only require traits');
  });

  it('nova mode: enums and integers are checked the way Nova reads images, bounds and booleans are not', () => {
    const r = validateImageProperties(
      {
        hw_cpu_policy: 'x',
        hw_numa_nodes: '0',
        hw_serial_port_count: 'two',
        hw_pmu: 'maybe',
        hw_cpu_polcy: 'x',
      },
      { mode: 'nova' },
    );
    expect(r.diagnostics.map((d) => d.message)).toEqual([
      'Field value x is invalid',
      "invalid literal for int() with base 10: 'two'",
    ]);
  });

  it('checks nothing when off, and refuses non-string values otherwise', () => {
    expect(validateImageProperties({ hw_cpu_policy: 'x' }, { mode: 'off' }).ok).toBe(true);
    const r = validateImageProperties({ hw_numa_nodes: 2 } as unknown as Record<string, string>);
    expect(r.diagnostics[0]?.code).toBe('extra-specs/invalid-type');
  });
});

describe('image functions on bad input', () => {
  it('reports properties that are not a mapping, as validateExtraSpecs does', () => {
    for (const properties of ['hw_cpu_policy=dedicated', [], null, 3]) {
      const r = validateImageProperties(properties as never);
      expect(r.ok).toBe(false);
      expect(r.diagnostics).toEqual([
        expect.objectContaining({
          code: 'extra-specs/invalid-type',
          path: '',
          message: 'Image properties must be a mapping of names to string values.',
        }),
      ]);
    }
    expect(validateImageProperties(null as never, { mode: 'off' }).ok).toBe(true);
  });

  it('refuses an unknown mode and a registry or name of the wrong kind', () => {
    expect(() => validateImageProperties({ hw_cpu_policy: 'x' }, { mode: 'loose' as never })).toThrow(
      expect.objectContaining({ code: 'extra-specs/bad-option' }),
    );
    expect(() => findImageProperty(7 as never)).toThrow(
      expect.objectContaining({ code: 'extra-specs/invalid-type' }),
    );
    expect(() => findImageProperty('hw_cpu_policy', null as never)).toThrow(
      expect.objectContaining({ code: 'extra-specs/bad-registry' }),
    );
  });
});
