import type { Colors } from '@stackspec/core/cli';
import type { ExplainStage, PlacementExplanation } from './explain-schema.js';

/** Options of {@link formatExplanationText}. */
export interface FormatExplanationOptions {
  /** Styling (core's `createColors`); plain text without. */
  colors?: Colors;
  /** Start with the `GET /…?query` line (default true). */
  header?: boolean;
  /** Then the one-line verdict, `✖ No candidates: … kept none.` (default true). */
  verdict?: boolean;
  /** Put before every line (to nest the text in another report). */
  indent?: string;
}

const plain: Colors = {
  enabled: false,
  red: (t) => t,
  yellow: (t) => t,
  blue: (t) => t,
  green: (t) => t,
  dim: (t) => t,
  bold: (t) => t,
  underline: (t) => t,
};

function plural(n: number, word: string): string {
  return `${n} ${n === 1 ? word.replace(/s$/, '') : word}`;
}

/**
 * An explanation as a compact text report: the query, a one-line verdict,
 * then a table per group (and one for the request-wide stages) with each
 * stage's label and `kept/before`, and under the stage that kept nothing
 * its named examples with their reasons. Stages after that one are dimmed.
 */
export function formatExplanationText(
  e: PlacementExplanation,
  options: FormatExplanationOptions = {},
): string {
  const c = options.colors ?? plain;
  const lines: string[] = [];
  if (options.header !== false) lines.push(c.bold(`GET /${e.endpoint}?${e.query}`));
  const sections: { title: string; stages: ExplainStage[]; note?: string }[] = [];
  if (e.endpoint === 'allocation_candidates') {
    for (const g of e.groups) {
      const who = g.suffix === '' ? 'unsuffixed group' : `group ${g.suffix}`;
      const how = g.mode === 'tree' ? 'a tree with the sharing providers it may use' : 'one provider';
      sections.push({
        title: `${who} (${how})`,
        stages: g.stages,
        ...(g.error ? { note: `Placement refuses this group if the search gets that far: ${g.error}` } : {}),
      });
    }
    if (e.request.length) sections.push({ title: 'request', stages: e.request });
  } else {
    sections.push({ title: 'filters', stages: e.stages });
  }
  const empty = e.emptiedBy;
  const verdict: string[] = [];
  if (e.endpoint === 'allocation_candidates') {
    if (empty) {
      const where =
        empty.group === undefined
          ? ''
          : ` (${empty.group === '' ? 'unsuffixed group' : `group ${empty.group}`})`;
      verdict.push(c.red(`✖ No candidates: ${empty.label}${where} kept none.`));
    } else {
      const limited = e.returned < e.candidates ? `, ${e.returned} returned (limit)` : '';
      verdict.push(c.green(`✔ ${plural(e.candidates, 'candidates')}${limited}.`));
    }
  } else if (empty) verdict.push(c.red(`✖ No providers: ${empty.label} kept none.`));
  else verdict.push(c.green(`✔ ${plural(e.providers, 'providers')}.`));
  if (options.verdict !== false) lines.push(...verdict);

  const all = sections.flatMap((s) => s.stages);
  const width = Math.max(0, ...all.map((s) => s.label.length));
  const counts = all.map((s) => `${s.kept}/${s.before}`);
  const countWidth = Math.max(0, ...counts.map((t) => t.length));
  let after = false;
  for (const section of sections) {
    if (lines.length) lines.push('');
    lines.push(c.bold(section.title));
    if (section.note) lines.push(`  ${c.yellow('note:')} ${section.note}`);
    if (!section.stages.length) lines.push(c.dim('  no constraint'));
    for (const s of section.stages) {
      const count = `${s.kept}/${s.before}`.padStart(countWidth);
      const row = `  ${s.label.padEnd(width)}  ${count} ${s.unit}`;
      const emptied = !after && s.kept === 0;
      if (emptied) {
        after = true;
        lines.push(c.red(`${row}  ✖`));
        for (const x of s.examples) lines.push(`      ${c.bold(x.name)}: ${x.reason}`);
        const more = s.before - s.examples.length;
        if (s.examples.length && more > 0) lines.push(c.dim(`      … and ${more} more`));
      } else lines.push(after ? c.dim(row) : row);
    }
  }
  const indent = options.indent ?? '';
  return lines.map((l) => (l ? `${indent}${l}` : l)).join('\n');
}
