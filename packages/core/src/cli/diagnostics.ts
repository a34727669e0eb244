import { countBySeverity, type Diagnostic, sortDiagnostics } from '../diagnostic.js';
import { type Colors, createColors } from './color.js';

/** Options for {@link formatDiagnostics}. */
export interface FormatDiagnosticsOptions {
  colors?: Colors;
  /** Leave out the summary line. */
  summary?: boolean;
  /** Files that were checked, counted in the summary even when clean. */
  filesChecked?: number;
}

function where(d: Diagnostic): string {
  const file = d.file ?? '<input>';
  if (d.line === undefined) return file;
  return `${file}:${d.line}:${d.column ?? 1}`;
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/**
 * Renders diagnostics the way linters do: one line per problem,
 * `file:line:col  severity  message  (code)`, a `hint:` line below when
 * there is one, files separated by a blank line, and a summary such as
 * `✖ 3 problems (2 errors, 1 warning) in 4 files`.
 */
export function formatDiagnostics(
  diagnostics: readonly Diagnostic[],
  options: FormatDiagnosticsOptions = {},
): string {
  const c = options.colors ?? createColors({ force: false });
  const lines: string[] = [];
  let lastFile: string | undefined;
  for (const d of sortDiagnostics(diagnostics)) {
    const file = d.file ?? '<input>';
    if (lastFile !== undefined && file !== lastFile) lines.push('');
    lastFile = file;
    const sev =
      d.severity === 'error'
        ? c.red('error')
        : d.severity === 'warning'
          ? c.yellow('warning')
          : c.blue('info');
    const path = d.line === undefined && d.path ? ` ${c.dim(`at ${d.path}`)}` : '';
    lines.push(`${c.underline(where(d))}  ${sev}  ${d.message}${path}  ${c.dim(`(${d.code})`)}`);
    if (d.hint) lines.push(`    ${c.dim('hint:')} ${d.hint}`);
  }
  if (options.summary !== false) {
    const counts = countBySeverity(diagnostics);
    const problems = counts.error + counts.warning;
    const files = options.filesChecked !== undefined ? ` in ${plural(options.filesChecked, 'file')}` : '';
    if (lines.length) lines.push('');
    if (problems === 0 && counts.info === 0) {
      lines.push(c.green(`✔ no problems${files}`));
    } else {
      const text = `${counts.error ? '✖' : problems ? '⚠' : '✔'} ${plural(problems, 'problem')} (${plural(counts.error, 'error')}, ${plural(counts.warning, 'warning')})${files}`;
      lines.push(counts.error ? c.red(c.bold(text)) : counts.warning ? c.yellow(c.bold(text)) : text);
    }
  }
  return lines.join('\n');
}
