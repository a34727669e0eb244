import { isPyFloat, type PyValue } from '@stackspec/core';
import { fromPyValue } from './py-value.js';
import type { ImageSpec, ValidatorNode } from './spec.js';

/** A validator as `explain` shows it: type, summary, place in the spec, and nested branches. */
export interface ExplainedValidator {
  type: string;
  summary: string;
  path: string;
  line?: number;
  /** Nested lists: `all`/`any` children, or one entry per case (`os_case`, `argument_case`). */
  branches?: { label?: string; line?: number; validators: ExplainedValidator[] }[];
}

/** The whole spec as `explain` shows it. */
export interface ExplainedSpec {
  file?: string;
  arguments: {
    name: string;
    description?: string;
    default?: unknown;
    required: boolean;
    choices?: unknown[];
    line?: number;
  }[];
  validators: ExplainedValidator[];
  /** How many validators the spec holds, nested ones included. */
  count: number;
  /** How many validators the top-level list holds (the length of `validators`). */
  topLevelCount: number;
}

function pyTypeName(v: PyValue): string {
  if (v === null) return 'null';
  if (typeof v === 'boolean') return 'a boolean';
  if (isPyFloat(v)) return 'a float';
  if (typeof v === 'number') return 'an integer';
  return Array.isArray(v) ? 'a list' : 'a mapping';
}

function summary(node: ValidatorNode): string {
  switch (node.kind) {
    case 'package':
      return node.packages.map((p) => (p.version ? `${p.name} (= ${p.version})` : p.name)).join(', ');
    case 'script': {
      const extras = [
        node.inline ? 'inline' : undefined,
        node.envVars.length ? `env: ${node.envVars.join(', ')}` : undefined,
        node.output ? `output → ${node.output}` : undefined,
      ].filter(Boolean);
      return `${node.name}${extras.length ? ` (${extras.join('; ')})` : ''}`;
    }
    case 'copy_script':
      return `${node.name} → ${node.target}`;
    case 'all':
      return 'every one of';
    case 'any':
      return 'at least one of (checked first, fixed in order)';
    case 'os_case':
      return 'first matching distribution or family';
    case 'argument_case':
      return `by the value of ${node.argumentName}`;
    case 'argument_set':
      return `${node.argumentName} = ${node.value}`;
    default:
      return node.definition.describe?.(node.config as never) ?? '(custom)';
  }
}

function explainNode(node: ValidatorNode, counter: { n: number }): ExplainedValidator {
  counter.n += 1;
  const out: ExplainedValidator = {
    type: node.type,
    summary: summary(node),
    path: node.path,
    ...(node.line ? { line: node.line } : {}),
  };
  const list = (nodes: readonly ValidatorNode[]) => nodes.map((n) => explainNode(n, counter));
  if (node.kind === 'all' || node.kind === 'any') out.branches = [{ validators: list(node.validators) }];
  if (node.kind === 'os_case' || node.kind === 'argument_case') {
    out.branches = node.cases.map((c) => ({
      label: typeof c.key === 'string' ? c.label : `${c.label} (${pyTypeName(c.key)}, not text)`,
      ...(c.line ? { line: c.line } : {}),
      validators: list(c.validators),
    }));
  }
  if (node.kind === 'custom') {
    const kids = node.definition.children?.(node.config as never);
    if (kids?.length) out.branches = [{ validators: list(kids) }];
  }
  return out;
}

/** Describes a loaded spec: its arguments and its validator tree, for people and for JSON output. */
export function explainImageSpec(spec: ImageSpec): ExplainedSpec {
  const counter = { n: 0 };
  return {
    ...(spec.file ? { file: spec.file } : {}),
    arguments: spec.arguments.map((a) => ({
      name: a.name,
      ...(a.description ? { description: a.description } : {}),
      ...(a.default !== undefined ? { default: fromPyValue(a.default) } : {}),
      required: a.required,
      ...(a.choices ? { choices: a.choices.map(fromPyValue) } : {}),
      ...(a.line ? { line: a.line } : {}),
    })),
    validators: spec.validators.map((v) => explainNode(v, counter)),
    count: counter.n,
    topLevelCount: spec.validators.length,
  };
}

/** The explained spec as indented text. */
export function formatExplainedSpec(explained: ExplainedSpec): string {
  const lines: string[] = [];
  if (explained.file) lines.push(`Spec: ${explained.file}`);
  lines.push(explained.arguments.length ? 'Arguments:' : 'Arguments: none');
  for (const a of explained.arguments) {
    const facts = [
      a.required ? 'required' : undefined,
      a.default !== undefined ? `default ${JSON.stringify(a.default)}` : undefined,
      a.choices ? `one of ${a.choices.map((c) => JSON.stringify(c)).join(', ')}` : undefined,
    ].filter(Boolean);
    lines.push(
      `  ${a.name}${facts.length ? ` (${facts.join('; ')})` : ''}${a.line ? `  [line ${a.line}]` : ''}`,
    );
    if (a.description) lines.push(`      ${a.description}`);
  }
  const { count, topLevelCount } = explained;
  const counted = count === topLevelCount ? `${count}` : `${topLevelCount} top-level, ${count} in all`;
  lines.push(`Validators (${counted}, run in order as one 'all'):`);
  const walk = (list: readonly ExplainedValidator[], indent: string) => {
    list.forEach((v, i) => {
      lines.push(`${indent}${i + 1}. ${v.type}: ${v.summary}${v.line ? `  [line ${v.line}]` : ''}`);
      for (const b of v.branches ?? []) {
        if (b.label !== undefined) {
          lines.push(`${indent}   when ${b.label}:${b.line ? `  [line ${b.line}]` : ''}`);
          walk(b.validators, `${indent}     `);
          if (!b.validators.length) lines.push(`${indent}     (nothing)`);
        } else {
          walk(b.validators, `${indent}   `);
        }
      }
    });
  };
  walk(explained.validators, '  ');
  return lines.join('\n');
}
