import { SpecError } from '@stackspec/core';
import type { ValueRule } from '../define.js';
import { requireString } from '../guards.js';
import type { RegisteredExtraSpec } from '../registry.js';
import { docNamespace } from '../registry.js';
import { code, codeList, type Inline, type InlinePart, rst } from './inline.js';

/** The documentation sections, in order, and the namespaces each holds (as Nova's docs group them). */
export const DOC_SECTIONS: readonly { title: string; intro: string; namespaces: readonly string[] }[] = [
  {
    title: 'Placement',
    intro:
      'Keys that turn into the resource and trait request sent to Placement when an instance is scheduled. A ' +
      'numbered or named suffix after the namespace (``resources1:``, ``trait_gpu:``) makes a request group ' +
      'that one resource provider must satisfy on its own.',
    namespaces: ['resources', 'trait'],
  },
  {
    title: 'Scheduler filters',
    intro:
      'Keys read by scheduler filters. They only take effect when the filter is enabled in ' +
      '``[filter_scheduler] enabled_filters``.',
    namespaces: ['aggregate_instance_extra_specs', 'capabilities'],
  },
  {
    title: 'Virt drivers',
    intro:
      'Keys read by the compute service when it builds the guest. Most apply to the libvirt driver only; each ' +
      'entry lists the drivers that honour it.',
    namespaces: ['quota', 'accel', 'pci_passthrough', 'hw', 'hw_rng', 'hw_video', 'os', 'powervm', 'vmware'],
  },
  {
    title: 'Others',
    intro: 'Keys without a namespace.',
    namespaces: [''],
  },
];

/**
 * Throws `SpecError` (`extra-specs/bad-registry`) unless `source` looks like
 * a registry: a renderer given anything else would fail deep inside.
 */
export function assertDocSource(source: unknown, renderer: string): void {
  const s = source as { release?: { name?: unknown }; entries?: unknown } | null | undefined;
  if (!s || typeof s !== 'object' || typeof s.entries !== 'function' || typeof s.release?.name !== 'string') {
    throw new SpecError(
      `${renderer} renders a registry (from createExtraSpecRegistry or builtinRegistry), but got ${source === null ? 'null' : Array.isArray(source) ? 'a list' : typeof source === 'object' ? 'an object without a release and entries()' : typeof source}.`,
      { code: 'extra-specs/bad-registry' },
    );
  }
}

/** Groups entries by documentation namespace, keeping registry order; unknown namespaces come last. */
export function groupByNamespace(
  entries: readonly RegisteredExtraSpec[],
): Map<string, RegisteredExtraSpec[]> {
  const out = new Map<string, RegisteredExtraSpec[]>();
  for (const e of entries) {
    const ns = docNamespace(e.name);
    const list = out.get(ns);
    if (list) list.push(e);
    else out.set(ns, [e]);
  }
  return out;
}

/** Sections with the namespaces present, plugin namespaces in an extra section. */
export function sectionsFor(
  entries: readonly RegisteredExtraSpec[],
): { title: string; intro: string; groups: [string, RegisteredExtraSpec[]][] }[] {
  const groups = groupByNamespace(entries);
  const used = new Set<string>();
  const out: { title: string; intro: string; groups: [string, RegisteredExtraSpec[]][] }[] = [];
  for (const s of DOC_SECTIONS) {
    const present = s.namespaces.flatMap((ns) => {
      const list = groups.get(ns);
      if (!list) return [];
      used.add(ns);
      return [[ns, list] as [string, RegisteredExtraSpec[]]];
    });
    if (present.length) out.push({ title: s.title, intro: s.intro, groups: present });
  }
  const rest = [...groups].filter(([ns]) => !used.has(ns));
  if (rest.length) {
    out.push({ title: 'Out-of-tree', intro: 'Keys defined by plugins rather than by Nova.', groups: rest });
  }
  return out;
}

/** Cross-reference id of a key: `extra-spec-hw-numa-cpus-num`. */
export function anchorOf(name: string): string {
  requireString(name, 'The name given to anchorOf');
  return `extra-spec-${name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '')}`;
}

/** The type word shown in docs. */
export function typeWord(rule: ValueRule): string {
  return rule.type === 'int' ? 'integer' : rule.type === 'bool' ? 'boolean' : 'string';
}

/** What the summary tables show as the values of an entry. */
export function valuesSummary(rule: ValueRule): Inline {
  if (rule.type === 'bool') return [BOOL_TEXT];
  if (rule.type === 'str' && rule.enum) return codeList(rule.enum);
  if (rule.type === 'int' && rule.min !== undefined) return [`at least ${rule.min}`];
  return ['any'];
}

const BOOL_TEXT = 'true/false, yes/no, on/off, 1/0, t/f, y/n (any case)';

/**
 * Field list facts of an entry, as label/value pairs in reading order. Values
 * are inline text: literal data (names, values, patterns) is marked as such
 * and definitions' own wording keeps its markup, for each renderer to write
 * in its format.
 */
export function facts(e: RegisteredExtraSpec): [string, Inline][] {
  const d = e.definition;
  const rule = e.value;
  const out: [string, Inline][] = [['Type', [typeWord(rule)]]];
  if (rule.type === 'int') {
    if (rule.min !== undefined) out.push(['Minimum', [String(rule.min)]]);
    if (rule.max !== undefined) out.push(['Maximum', [String(rule.max)]]);
  }
  if (rule.type === 'bool') out.push(['Values', [BOOL_TEXT]]);
  if (rule.type === 'str' && rule.enum) out.push(['Values', codeList(rule.enum)]);
  if (rule.type === 'str' && rule.pattern) out.push(['Pattern', [code(rule.pattern)]]);
  for (const p of e.parameters) {
    out.push([
      `Parameter {${p.name}}`,
      [...(p.description ? [rst(p.description), ' '] : []), `(${p.type}, `, code(p.pattern), ')'],
    ]);
  }
  if (d.status) {
    const s: InlinePart[] = [`added in ${d.status.added}`];
    if (d.status.backported?.length) s.push(` (backported to ${d.status.backported.join(', ')})`);
    if (d.status.renamedFrom) s.push(', replacing ', code(d.status.renamedFrom));
    if (d.status.renamed)
      s.push('; renamed to ', code(d.status.renamed.to), ` in ${d.status.renamed.release}`);
    if (d.status.removed) {
      s.push(`; removed in ${d.status.removed.release} (`, rst(d.status.removed.reason), ')');
    }
    out.push(['Status', s]);
  } else if (e.origin === 'plugin') {
    out.push(['Status', e.source ? ['out-of-tree (', code(e.source), ')'] : ['out-of-tree']]);
  }
  for (const h of d.history ?? []) out.push(['Changed', [`until ${h.until}: `, rst(h.change)]]);
  if (d.virtDrivers?.length) out.push(['Virt drivers', [d.virtDrivers.join(', ')]]);
  if (d.dependencies?.length) {
    out.push(['Depends on', codeList(d.dependencies.map((x) => (x.value ? `${x.key}=${x.value}` : x.key)))]);
  }
  if (d.imageProperty) out.push(['Image property', [code(d.imageProperty)]]);
  return out;
}
