import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createKeyIndex, type KeyIndexEntry } from './key-index.js';
import { compileNamePattern } from './name-pattern.js';

function entry(name: string, params: Record<string, string>, rank = 0): KeyIndexEntry<string> {
  const p = compileNamePattern(name, { params, literal: 'escape' });
  const names = Object.keys(params);
  const single = names.length === 1 && name === `${p.prefix}{${names[0]}}${p.suffix}`;
  const middle = single ? new RegExp(`^(?:${params[names[0] as string]})$`, 'u') : undefined;
  return { value: name, head: p.prefix, tail: p.suffix, regex: p.regex, rank, ...(middle ? { middle } : {}) };
}

const GROUP = '([a-zA-Z0-9_-]{1,64})?';
const entries = [
  entry('trait{group}:HW_CPU_X86_AVX2', { group: GROUP }),
  entry('trait{group}:HW_CPU_X86_AVX', { group: GROUP }),
  entry('trait{group}:CUSTOM_{t}', { group: GROUP, t: '[A-Z0-9_]+' }),
  entry('resources{group}:VCPU', { group: GROUP }),
  entry('hw:numa_cpus.{num}', { num: '\\d+' }),
  entry('hw:numa_mem.{num}', { num: '\\d+' }),
  entry('capabilities:cpu_info{filter}', { filter: '(:\\w+)*' }),
  entry('{any}', { any: 'x+' }),
];

describe('createKeyIndex', () => {
  const index = createKeyIndex(entries);

  it('finds the entry whose head, tail and pattern fit', () => {
    expect(index.size).toBe(entries.length);
    expect(index.find('trait:HW_CPU_X86_AVX2')).toBe('trait{group}:HW_CPU_X86_AVX2');
    expect(index.find('trait1:HW_CPU_X86_AVX')).toBe('trait{group}:HW_CPU_X86_AVX');
    expect(index.find('trait_a:CUSTOM_FOO')).toBe('trait{group}:CUSTOM_{t}');
    expect(index.find('resources:VCPU')).toBe('resources{group}:VCPU');
    expect(index.find('hw:numa_cpus.12')).toBe('hw:numa_cpus.{num}');
    expect(index.find('capabilities:cpu_info:a:b')).toBe('capabilities:cpu_info{filter}');
    expect(index.find('xxx')).toBe('{any}');
  });

  it('finds nothing for keys no pattern matches', () => {
    for (const k of ['', 'trait:HW', 'hw:numa_cpus.', 'hw:numa_cpusX0', 'resources:VCPUS', 'trai:VCPU']) {
      expect(index.find(k), k).toBeUndefined();
    }
  });

  it('prefers the stronger rank, then the earlier entry', () => {
    const ranked = createKeyIndex([
      entry('a:{x}', { x: '.+' }, 1),
      entry('a:{y}', { y: '\\d+' }, 0),
      entry('a:{z}', { z: '\\d+' }, 0),
    ]);
    expect(ranked.find('a:1')).toBe('a:{y}');
    expect(ranked.find('a:b')).toBe('a:{x}');
  });

  it('agrees with testing every pattern in turn', () => {
    const pieces = [
      'trait',
      'resources',
      ':',
      'HW_CPU_X86_AVX',
      '2',
      'CUSTOM_',
      'FOO',
      'hw:numa_',
      'cpus.',
      'mem.',
      '1',
      'x',
      'capabilities:cpu_info',
      ':a',
      '_',
    ];
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...pieces), { maxLength: 6 }), (parts) => {
        const key = parts.join('');
        const linear = entries.find((e) => e.regex.test(key))?.value;
        expect(index.find(key)).toBe(linear);
      }),
      { numRuns: 5000 },
    );
  });
});
