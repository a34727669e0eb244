import { compilePythonRegex, pyInt } from '@stackspec/core';
import type { ValueRule } from './define.js';
import { pythonBoolOf } from './python-values.js';

/** Why a value was refused; `0` means it was accepted. */
export const ValueVerdict = {
  Ok: 0,
  NotInteger: 1,
  AboveMax: 2,
  BelowMin: 3,
  NotBoolean: 4,
  NotInEnum: 5,
  NoPatternMatch: 6,
} as const;
/** One of the {@link ValueVerdict} numbers. */
export type ValueVerdict = (typeof ValueVerdict)[keyof typeof ValueVerdict];

/** A value rule prepared for repeated checks. */
export interface CompiledValueRule {
  readonly rule: ValueRule;
  /** Checks a value exactly as Nova does; allocation-free on the accepting path for common inputs. */
  check(value: string): ValueVerdict;
}

// Nova's own value patterns, rewritten so that a backtracking engine runs them
// in linear time. Each accepts exactly the same strings as the original (the
// property tests compare them on generated input, and the conformance suite
// against Python): `([a-zA-Z0-9_]+(,)?)+` backtracks exponentially on inputs
// such as `aaaa…!`, the CPU-list and PCI alias patterns polynomially.
const SAFE_EQUIVALENTS: Readonly<Record<string, string>> = {
  '([a-zA-Z0-9_]+(,)?)+': '[a-zA-Z0-9_]+(?:,[a-zA-Z0-9_]+)*,?',
  '\\^?\\d+((-\\d+)?(,\\^?\\d+(-\\d+)?)?)*': '\\^?\\d+(?:-\\d+|,\\^?\\d+)*',
  '(\\^)?\\d+((-\\d+)?(,\\^?\\d+(-\\d+)?)?)*': '\\^?\\d+(?:-\\d+|,\\^?\\d+)*',
  '\\^\\d+((-\\d+)?(,\\^?\\d+(-\\d+)?)?)*': '\\^\\d+(?:-\\d+|,\\^?\\d+)*',
  // `\s*` before `[^:]+` adds nothing (a space is not a colon), but lets the
  // two take turns over runs of spaces.
  '[^:]+:\\d+(?:\\s*,\\s*[^:]+:\\d+)*': '[^:]+:\\d+(?:\\s*,[^:]+:\\d+)*',
};

/** The pattern actually run for a declared Python pattern (a linear-time equivalent where one is known). */
export function effectivePattern(pattern: string): string {
  return SAFE_EQUIVALENTS[pattern] ?? pattern;
}

const compiled = new WeakMap<ValueRule, CompiledValueRule>();

/** Prepares a value rule (cached per rule object). */
export function compileValueRule(rule: ValueRule): CompiledValueRule {
  const hit = compiled.get(rule);
  if (hit) return hit;
  let check: (value: string) => ValueVerdict;
  if (rule.type === 'int') {
    const { min, max } = rule;
    const lo = min ?? Number.NEGATIVE_INFINITY;
    const hi = max ?? Number.POSITIVE_INFINITY;
    const bigMin = min === undefined ? undefined : BigInt(min);
    const bigMax = max === undefined ? undefined : BigInt(max);
    check = (value) => {
      // Fast path: short runs of ASCII digits, read without allocating.
      const len = value.length;
      if (len > 0 && len <= 15) {
        let v = 0;
        let i = 0;
        for (; i < len; i += 1) {
          const c = value.charCodeAt(i) - 48;
          if (c < 0 || c > 9) break;
          v = v * 10 + c;
        }
        if (i === len)
          return v > hi ? ValueVerdict.AboveMax : v < lo ? ValueVerdict.BelowMin : ValueVerdict.Ok;
      }
      const n = pyInt(value);
      if (!n.ok) return ValueVerdict.NotInteger;
      // Nova tests the upper bound first.
      if (bigMax !== undefined && n.value > bigMax) return ValueVerdict.AboveMax;
      if (bigMin !== undefined && n.value < bigMin) return ValueVerdict.BelowMin;
      return ValueVerdict.Ok;
    };
  } else if (rule.type === 'bool') {
    check = (value) => (pythonBoolOf(value) === undefined ? ValueVerdict.NotBoolean : ValueVerdict.Ok);
  } else if (rule.pattern !== undefined) {
    const re = compilePythonRegex(effectivePattern(rule.pattern), 'fullmatch');
    check = (value) => (re.test(value) ? ValueVerdict.Ok : ValueVerdict.NoPatternMatch);
  } else if (rule.enum !== undefined) {
    const allowed = new Set(rule.enum);
    check = (value) => (allowed.has(value) ? ValueVerdict.Ok : ValueVerdict.NotInEnum);
  } else {
    check = () => ValueVerdict.Ok;
  }
  const out = { rule, check };
  compiled.set(rule, out);
  return out;
}

/** Nova's message (after `Validation failed; `) for a refused value. */
export function novaValueMessage(rule: ValueRule, value: string, verdict: ValueVerdict): string {
  switch (verdict) {
    case ValueVerdict.NotInteger:
      return `'${value}' is not a valid integer value.`;
    case ValueVerdict.AboveMax:
      return `'${parsedText(value)}' is greater than the max value of '${(rule as { max: number }).max}'.`;
    case ValueVerdict.BelowMin:
      return `'${parsedText(value)}' is less than the min value of '${(rule as { min: number }).min}'.`;
    case ValueVerdict.NotBoolean:
      return `'${value}' is not a valid boolean-like value.`;
    case ValueVerdict.NotInEnum:
      return `'${value}' is not one of: ${((rule as { enum: string[] }).enum ?? []).join(', ')}.`;
    case ValueVerdict.NoPatternMatch:
      return `'${value}' is not of the format '${(rule as { pattern: string }).pattern}'.`;
    default:
      return '';
  }
}

function parsedText(value: string): string {
  const n = pyInt(value);
  return n.ok ? n.value.toString() : value;
}

/** What a value rule expects, in words: `an integer of at least 1`, `one of: a, b`. */
export function describeValueRule(rule: ValueRule): string {
  if (rule.type === 'int') {
    if (rule.min !== undefined && rule.max !== undefined) return `an integer from ${rule.min} to ${rule.max}`;
    if (rule.min !== undefined) return `an integer of at least ${rule.min}`;
    if (rule.max !== undefined) return `an integer of at most ${rule.max}`;
    return 'an integer';
  }
  if (rule.type === 'bool') return 'a boolean (true/false, yes/no, on/off, 1/0, t/f, y/n)';
  if (rule.enum) return `one of: ${rule.enum.join(', ')}`;
  if (rule.pattern) return `a string matching ${rule.pattern}`;
  return 'any string';
}
