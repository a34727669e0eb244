import { compilePythonRegex } from '@stackspec/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BUILTIN_EXTRA_SPECS } from './catalog/index.js';
import { findBacktrackingRisk } from './regex-safety.js';
import { effectivePattern } from './value-check.js';

describe('findBacktrackingRisk', () => {
  it.each([
    ['(a+)+b', 'exponential'],
    ['(a*)*', 'exponential'],
    ['(?:a?){20}', 'exponential'],
    ['(a|a)*', 'exponential'],
    ['(a|aa)+', 'exponential'],
    ['(\\d|\\w)+', 'exponential'],
    ['(\\w+\\s?)*', 'exponential'],
    ['(a+a)+', 'exponential'],
    ['((ab)+)+', 'exponential'],
    ['(.*,)*', 'exponential'],
    ['(a{1,30}){1,30}', 'polynomial'],
    ['(?=(a+)+b)c', 'exponential'],
    ['([a-zA-Z0-9_]+(,)?)+', 'exponential'],
    ['\\d+\\d+', 'polynomial'],
    ['\\w*\\s*\\w+', 'polynomial'],
    ['.*a.*', 'polynomial'],
    ['.+@.+', 'polynomial'],
    ['[^:]+:\\d+(?:\\s*,\\s*[^:]+:\\d+)*', 'polynomial'],
  ])('finds %s %s', (pattern, growth) => {
    const risk = findBacktrackingRisk(pattern);
    expect(risk?.growth).toBe(growth);
    expect(risk?.reason).toMatch(/^(repeats|has|lets) '/);
    expect(risk?.hint).toBeTruthy();
  });

  it.each([
    '[a-z]+(,[a-z]+)*',
    '(,[a-z]+)*',
    'a+b+c+',
    '[^@]+@.+',
    '(foo|bar)*',
    '(on|off)*',
    '(a|ab)*',
    '\\d+(\\.\\d+)?',
    '\\s*\\d+\\s*',
    '[0-9]{1,3}(\\.[0-9]{1,3}){3}',
    '(?:[A-Z][a-z]+)+',
    '(?P<x>a)(?P=x)',
    '[\\d-]+',
    '(?#note)[\\]a-]+',
    '\\x41+\\u00e9*[\\u0100-\\u017f]+',
  ])('accepts %s', (pattern) => {
    expect(findBacktrackingRisk(pattern)).toBeUndefined();
  });

  it("accepts every pattern of Nova's catalog as it is run (slow ones through their rewrites)", () => {
    const patterns = new Set<string>();
    for (const d of BUILTIN_EXTRA_SPECS) {
      for (const rule of [d.value, d.imageValue, ...(d.history ?? []).map((h) => h.value)]) {
        if (rule?.type === 'str' && rule.pattern) patterns.add(effectivePattern(rule.pattern));
      }
      for (const p of [...d.parameters, ...(d.history ?? []).flatMap((h) => h.parameters ?? [])]) {
        patterns.add(p.pattern);
      }
    }
    expect(patterns.size).toBeGreaterThan(8);
    for (const p of patterns) expect(findBacktrackingRisk(p), p).toBeUndefined();
  });

  // Patterns over a, b and ',' built at random; each one the check accepts is
  // run on long texts made to make a backtracking engine try hard. A pattern
  // accepted wrongly would not finish (the test's time limit catches it).
  const atom = fc.constantFrom('a', 'b', ',', '[ab]', '[^,]', '.', '\\w', '\\d');
  const pattern = fc.letrec<{ node: string }>((tie) => ({
    node: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      atom,
      fc.tuple(tie('node'), tie('node')).map(([x, y]) => `${x}${y}`),
      fc.tuple(tie('node'), tie('node')).map(([x, y]) => `(?:${x}|${y})`),
      fc
        .tuple(tie('node'), fc.constantFrom('*', '+', '?', '{1,3}', '{2,}', '{0,40}'))
        .map(([x, q]) => `(?:${x})${q}`),
    ),
  })).node;

  it('never throws, and what it accepts runs in linear time on hostile texts', () => {
    const texts = ['a', 'b', ',', 'ab', 'a,', 'aab'].flatMap((unit) => {
      const body = unit.repeat(Math.ceil(3000 / unit.length));
      return [`${body}!`, `${body}\n`];
    });
    let accepted = 0;
    fc.assert(
      fc.property(pattern, (p) => {
        const risk = findBacktrackingRisk(p);
        if (risk) return;
        accepted += 1;
        const re = compilePythonRegex(p, 'fullmatch');
        for (const t of texts) re.test(t);
      }),
      { numRuns: 400 },
    );
    expect(accepted).toBeGreaterThan(50);
  });
});
