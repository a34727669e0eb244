import { isStackspecError } from '@stackspec/core';
import { describe, expect, it } from 'vitest';
import { compileNamePattern, matchNamePattern } from './name-pattern.js';

describe('compileNamePattern', () => {
  it('compiles a plain name to itself', () => {
    const p = compileNamePattern('hw:cpu_policy');
    expect(p).toMatchObject({
      isPattern: false,
      params: [],
      prefix: 'hw:cpu_policy',
      suffix: 'hw:cpu_policy',
    });
    expect(p.regex.test('hw:cpu_policy')).toBe(true);
    expect(p.regex.test('hw:cpu_policyX')).toBe(false);
  });

  it('compiles placeholders into named groups and records literal ends', () => {
    const p = compileNamePattern('resources{group}:{rc}', {
      params: { group: '[a-z0-9]*', rc: { pattern: /[A-Z_]+/ } },
    });
    expect(p).toMatchObject({ isPattern: true, params: ['group', 'rc'], prefix: 'resources', suffix: '' });
    expect(matchNamePattern(p, 'resources1:VCPU')).toEqual({ group: '1', rc: 'VCPU' });
    expect(matchNamePattern(p, 'resources:VCPU')).toEqual({ group: '', rc: 'VCPU' });
    expect(matchNamePattern(p, 'resources:vcpu')).toBeUndefined();
  });

  it('escapes literal text by default', () => {
    const p = compileNamePattern('hw:numa_cpus.{num}', { params: { num: '\\d+' } });
    expect(p.regex.test('hw:numa_cpus.0')).toBe(true);
    expect(p.regex.test('hw:numa_cpusX0')).toBe(false);
    expect(p.prefix).toBe('hw:numa_cpus.');
  });

  it('reads literal text as regex in regex mode, like Nova', () => {
    const p = compileNamePattern('hw:numa_cpus.{num}', { params: { num: '\\d+' }, literal: 'regex' });
    expect(p.regex.test('hw:numa_cpusX0')).toBe(true);
    expect(p.prefix).toBe('hw:numa_cpus');
  });

  it('keeps only certainly-literal ends in regex mode', () => {
    expect(compileNamePattern('ab?c{x}d\\.e', { params: { x: '.' }, literal: 'regex' })).toMatchObject({
      prefix: 'a',
      suffix: 'e',
    });
    expect(compileNamePattern('x{p}\\dab', { params: { p: '.' }, literal: 'regex' }).suffix).toBe('ab');
    expect(compileNamePattern('a|b{p}', { params: { p: '.' }, literal: 'regex' })).toMatchObject({
      prefix: '',
      suffix: '',
    });
    expect(compileNamePattern('a.b', { literal: 'regex' })).toMatchObject({
      isPattern: true,
      prefix: 'a',
      suffix: 'b',
    });
  });

  it('supports Unicode-aware parameter patterns', () => {
    const p = compileNamePattern('hw:numa_mem.{num}', { params: { num: '\\p{Nd}+' } });
    expect(p.regex.test('hw:numa_mem.٣')).toBe(true);
  });

  it('turns off the literal index for case-insensitive patterns', () => {
    expect(compileNamePattern('ab{x}cd', { params: { x: '.' }, flags: 'iu' })).toMatchObject({
      prefix: '',
      suffix: '',
    });
  });

  it.each([
    ['hw:numa_cpus.{num}', {}, 'has no pattern'],
    ['a{x}b{x}', { x: '.' }, 'more than once'],
    ['abc', { x: '.' }, 'is declared but'],
    ['a{x', {}, 'brace that is not part'],
    ['a{x}', { x: '(' }, 'does not compile'],
    ['', {}, 'non-empty string'],
  ])('rejects the malformed name %j', (name, params, message) => {
    try {
      compileNamePattern(name, { params });
      expect.unreachable();
    } catch (e) {
      expect(isStackspecError(e) && e.code).toBe('extra-specs/registry/bad-pattern');
      expect((e as Error).message).toContain(message);
    }
  });
});
