import { isStackspecError } from '@stackspec/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createNameRegistry } from './name-registry.js';

function novaLike() {
  const r = createNameRegistry<string>();
  r.add({ name: 'hw:cpu_policy', value: 'policy' });
  r.add({ name: 'hw:cpu_thread_policy', value: 'thread' });
  r.add({ name: 'hw:numa_cpus.{num}', params: { num: '\\d+' }, value: 'numa_cpus' });
  r.add({ name: 'hw:numa_mem.{num}', params: { num: '\\d+' }, value: 'numa_mem' });
  r.add({
    name: 'resources{group}:{rc}',
    params: { group: '([a-zA-Z0-9_-]{1,64})?', rc: 'CUSTOM_[A-Z0-9_]+' },
    value: 'custom-rc',
  });
  r.add({ name: 'resources{group}:VCPU', params: { group: '([a-zA-Z0-9_-]{1,64})?' }, value: 'vcpu' });
  for (const t of ['HW_CPU_X86_AVX2', 'HW_CPU_X86_AVX512F', 'COMPUTE_STATUS_DISABLED']) {
    r.add({ name: `trait{group}:${t}`, params: { group: '([a-zA-Z0-9_-]{1,64})?' }, value: `trait:${t}` });
  }
  return r;
}

describe('createNameRegistry: lookup', () => {
  const r = novaLike();

  it('finds plain names exactly', () => {
    expect(r.lookup('hw:cpu_policy')).toMatchObject({ exact: true, params: {}, entry: { value: 'policy' } });
  });

  it('finds patterned names and returns their parameters', () => {
    expect(r.lookup('hw:numa_cpus.12')).toMatchObject({
      exact: false,
      params: { num: '12' },
      entry: { value: 'numa_cpus' },
    });
    expect(r.lookup('resources_GPU:VCPU')).toMatchObject({
      params: { group: '_GPU' },
      entry: { value: 'vcpu' },
    });
    expect(r.lookup('resources:CUSTOM_MAGIC')).toMatchObject({ params: { group: '', rc: 'CUSTOM_MAGIC' } });
    expect(r.lookup('trait1:HW_CPU_X86_AVX2')?.entry.value).toBe('trait:HW_CPU_X86_AVX2');
  });

  it('returns nothing for keys no entry matches', () => {
    expect(r.lookup('hw:numa_cpus.x')).toBeUndefined();
    expect(r.lookup('hw:cpu_polcy')).toBeUndefined();
    expect(r.lookup('trait:HW_CPU_X86_AVX3')).toBeUndefined();
    expect(r.lookup('')).toBeUndefined();
  });

  it('still finds a patterned name written literally, flagged exact', () => {
    expect(r.lookup('hw:numa_cpus.{num}')).toMatchObject({
      exact: true,
      entry: { name: 'hw:numa_cpus.{num}' },
    });
  });

  it('gets entries by their registered name', () => {
    expect(r.get('hw:numa_mem.{num}')?.value).toBe('numa_mem');
    expect(r.get('hw:numa_mem.0')).toBeUndefined();
    expect(r.size).toBe(9);
    expect(r.entries().map((e) => e.name)[0]).toBe('hw:cpu_policy');
  });
});

describe('createNameRegistry: layers', () => {
  it('keeps the built-in over a plugin and reports the shadowing', () => {
    const r = createNameRegistry<string>();
    r.add({ name: 'hw:cpu_policy', value: 'builtin' });
    const d = r.add({ name: 'hw:cpu_policy', value: 'plugin', layer: 'plugin', source: 'acme-filters' });
    expect(r.lookup('hw:cpu_policy')?.entry.value).toBe('builtin');
    expect(d).toMatchObject({ code: 'extra-specs/registry/shadowed', severity: 'warning' });
    expect(d?.message).toContain("plugin 'acme-filters'");
    expect(r.conflicts).toHaveLength(1);
  });

  it('lets a built-in registered later replace a plugin entry', () => {
    const r = createNameRegistry<string>();
    r.add({ name: 'x:{n}', params: { n: '\\d+' }, value: 'plugin', layer: 'plugin' });
    r.add({ name: 'x:{n}', params: { n: '\\d+' }, value: 'builtin' });
    expect(r.lookup('x:1')?.entry.value).toBe('builtin');
    expect(r.size).toBe(1);
  });

  it('keeps the first of two definitions in the same layer', () => {
    const r = createNameRegistry<string>();
    r.add({ name: 'a', value: '1' });
    expect(r.add({ name: 'a', value: '2' })?.code).toBe('extra-specs/registry/duplicate');
    expect(r.lookup('a')?.entry.value).toBe('1');
  });

  it('prefers the stronger layer when two patterns match', () => {
    const r = createNameRegistry<string>();
    r.add({ name: 'ns:{x}', params: { x: '.+' }, value: 'plugin-wide', layer: 'plugin' });
    r.add({ name: 'ns:a{y}', params: { y: '.*' }, value: 'builtin' });
    expect(r.lookup('ns:abc')?.entry.value).toBe('builtin');
    expect(r.lookup('ns:zzz')?.entry.value).toBe('plugin-wide');
  });

  it('lets a built-in pattern beat a plugin plain name, and says so whichever comes first', () => {
    const patternFirst = createNameRegistry<string>();
    patternFirst.add({ name: 'hw:numa_cpus.{num}', params: { num: '\\d+' }, value: 'builtin' });
    const d = patternFirst.add({ name: 'hw:numa_cpus.0', value: 'plugin', layer: 'plugin', source: 'acme' });
    expect(d).toMatchObject({
      code: 'extra-specs/registry/shadowed',
      severity: 'warning',
      path: '/hw:numa_cpus.0',
    });
    expect(d?.message).toContain('never used');
    expect(patternFirst.lookup('hw:numa_cpus.0')).toMatchObject({
      entry: { value: 'builtin' },
      params: { num: '0' },
      exact: false,
    });

    const plainFirst = createNameRegistry<string>();
    plainFirst.add({ name: 'hw:numa_cpus.0', value: 'plugin', layer: 'plugin', source: 'acme' });
    const late = plainFirst.add({ name: 'hw:numa_cpus.{num}', params: { num: '\\d+' }, value: 'builtin' });
    expect(late).toMatchObject({ code: 'extra-specs/registry/shadowed', path: '/hw:numa_cpus.0' });
    expect(plainFirst.lookup('hw:numa_cpus.0')?.entry.value).toBe('builtin');
  });

  it('lets a built-in plain name beat a plugin pattern for that key only', () => {
    const r = createNameRegistry<string>();
    r.add({ name: 'x:1', value: 'builtin' });
    const d = r.add({
      name: 'x:{n}',
      params: { n: '\\d+' },
      value: 'plugin',
      layer: 'plugin',
      source: 'acme',
    });
    expect(d).toMatchObject({ code: 'extra-specs/registry/overlap', severity: 'warning', path: '/x:{n}' });
    expect(d?.message).toContain("also matches 'x:1'");
    expect(r.lookup('x:1')).toMatchObject({ entry: { value: 'builtin' }, exact: true });
    expect(r.lookup('x:2')?.entry.value).toBe('plugin');
  });

  it('lets a plain name beat a pattern of its own layer without a report', () => {
    const r = createNameRegistry<string>();
    r.add({ name: 'x:{n}', params: { n: '\\d+' }, value: 'pattern', layer: 'plugin' });
    expect(r.add({ name: 'x:1', value: 'plain', layer: 'plugin' })).toBeUndefined();
    expect(r.lookup('x:1')?.entry.value).toBe('plain');
    expect(r.conflicts).toEqual([]);
  });

  it('refuses entries and keys that are not strings with our own errors', () => {
    const r = createNameRegistry<string>();
    for (const bad of [null, 42, { value: 'x' }]) {
      try {
        r.add(bad as never);
        expect.unreachable();
      } catch (e) {
        expect(isStackspecError(e) && e.code).toBe('extra-specs/registry/invalid-entry');
      }
    }
    try {
      r.suggest(42 as never);
      expect.unreachable();
    } catch (e) {
      expect(isStackspecError(e) && e.code).toBe('extra-specs/registry/invalid-key');
      expect(isStackspecError(e) && e.status).toBe(400);
    }
    expect(r.lookup(42 as never)).toBeUndefined();
  });

  it('reports an unknown layer', () => {
    const r = createNameRegistry<string>({ layers: ['core'] });
    expect(r.add({ name: 'a', value: 'x', layer: 'plugin' })?.code).toBe(
      'extra-specs/registry/unknown-layer',
    );
    expect(r.size).toBe(0);
  });

  it('throws on a malformed name', () => {
    const r = createNameRegistry<string>();
    expect(() => r.add({ name: 'a{b}', value: 'x' })).toThrowError(/no pattern/);
    try {
      r.add({ name: 'a{b}', value: 'x' });
    } catch (e) {
      expect(isStackspecError(e)).toBe(true);
    }
  });

  it('adds many and returns every clash', () => {
    const r = createNameRegistry<number>();
    expect(
      r.addAll([
        { name: 'a', value: 1 },
        { name: 'a', value: 2 },
        { name: 'b', value: 3 },
      ]),
    ).toHaveLength(1);
  });
});

describe('createNameRegistry: suggestions', () => {
  const r = novaLike();

  it('suggests close plain names', () => {
    expect(r.suggest('hw:cpu_polcy')).toEqual(['hw:cpu_policy']);
    expect(r.suggest('HW:CPU_POLICY')).toContain('hw:cpu_policy');
  });

  it('suggests patterned names filled in with the key', () => {
    expect(r.suggest('hw:numa_cpu.0')).toContain('hw:numa_cpus.0');
    expect(r.suggest('trait:HW_CPU_X86_AVX3')).toContain('trait:HW_CPU_X86_AVX2');
    // Several placeholders: the key's middle part is kept when it fits.
    expect(r.suggest('resource:CUSTOM_MAGIC')).toEqual(['resources:CUSTOM_MAGIC']);
  });

  it('suggests nothing for unrelated keys', () => {
    expect(r.suggest('quota:disk_read_bytes_sec')).toEqual([]);
  });
});

describe('createNameRegistry: properties', () => {
  const names = fc.uniqueArray(
    fc.record({
      head: fc.stringMatching(/^[a-z][a-z_:.]{0,8}$/),
      tail: fc.stringMatching(/^[a-z_:.]{0,6}$/),
      patterned: fc.boolean(),
    }),
    { maxLength: 30, selector: (n) => `${n.head}|${n.tail}|${n.patterned}` },
  );

  it('finds exactly what a linear scan finds, for any names and keys', () => {
    fc.assert(
      fc.property(names, fc.array(fc.string({ maxLength: 16 }), { maxLength: 20 }), (entries, keys) => {
        const r = createNameRegistry<string>();
        const compiled: { name: string; regex: RegExp; order: number }[] = [];
        entries.forEach((e, i) => {
          const name = e.patterned ? `${e.head}{n}${e.tail}` : `${e.head}${e.tail}`;
          if (r.get(name)) return;
          r.add({ name, value: name, ...(e.patterned ? { params: { n: '[0-9]+' } } : {}) });
          const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
          compiled.push({
            name,
            regex: new RegExp(`^${e.patterned ? `${esc(e.head)}[0-9]+${esc(e.tail)}` : esc(name)}$`),
            order: i,
          });
        });
        const probe = [...keys, ...compiled.map((c) => c.name.replace('{n}', '42'))];
        for (const key of probe) {
          const exact = compiled.find((c) => c.name === key && !c.name.includes('{n}'));
          const scan = exact ?? compiled.find((c) => c.regex.test(key));
          expect(r.lookup(key)?.entry.name).toBe(scan?.name);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('finds what a linear scan by layer finds, across layers, plain names and patterns', () => {
    const layers = ['builtin', 'site', 'plugin'] as const;
    const entries = fc.uniqueArray(
      fc.record({
        head: fc.stringMatching(/^[a-c][a-c:.]{0,3}$/),
        tail: fc.stringMatching(/^[a-c:.]{0,2}$/),
        patterned: fc.boolean(),
        layer: fc.constantFrom(...layers),
      }),
      { maxLength: 25, selector: (n) => `${n.head}|${n.tail}|${n.patterned}` },
    );
    fc.assert(
      fc.property(
        entries,
        fc.array(fc.stringMatching(/^[a-c:.0-9]{0,8}$/), { maxLength: 20 }),
        (list, keys) => {
          const r = createNameRegistry<string>({ layers });
          const model: { name: string; regex: RegExp; rank: number; plain: boolean; order: number }[] = [];
          const esc = (t: string) => t.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
          list.forEach((e, order) => {
            const name = e.patterned ? `${e.head}{n}${e.tail}` : `${e.head}${e.tail}`;
            if (model.some((m) => m.name === name)) return;
            r.add({ name, value: name, layer: e.layer, ...(e.patterned ? { params: { n: '[0-9]+' } } : {}) });
            model.push({
              name,
              regex: new RegExp(`^${e.patterned ? `${esc(e.head)}[0-9]+${esc(e.tail)}` : esc(name)}$`),
              rank: layers.indexOf(e.layer),
              plain: !e.patterned,
              order,
            });
          });
          const probe = [...keys, ...model.map((m) => m.name.replace('{n}', '7'))];
          for (const key of probe) {
            const winner = model
              .filter((m) => (m.plain ? m.name === key : m.regex.test(key)))
              .sort((a, b) => a.rank - b.rank || Number(b.plain) - Number(a.plain) || a.order - b.order)[0];
            expect(r.lookup(key)?.entry.name).toBe(winner?.name);
          }
          // Every overlap between layers was reported once, when its second half arrived:
          // a weaker plain name is shadowed, a weaker pattern overlaps.
          let shadowed = 0;
          let overlaps = 0;
          for (const p of model.filter((m) => !m.plain)) {
            for (const m of model) {
              if (!m.plain || m.rank === p.rank || !p.regex.test(m.name)) continue;
              if (m.rank > p.rank) shadowed += 1;
              else overlaps += 1;
            }
          }
          expect(r.conflicts.filter((d) => d.code === 'extra-specs/registry/shadowed')).toHaveLength(
            shadowed,
          );
          expect(r.conflicts.filter((d) => d.code === 'extra-specs/registry/overlap')).toHaveLength(overlaps);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('never throws on lookups or suggestions for any key', () => {
    const r = novaLike();
    fc.assert(
      fc.property(fc.string({ maxLength: 80 }), (key) => {
        r.lookup(key);
        expect(Array.isArray(r.suggest(key))).toBe(true);
      }),
      { numRuns: 1000 },
    );
  });
});
