import type { Colors } from '@stackspec/core/cli';
import { formatDiagnostics } from '@stackspec/core/cli';
import type { CheckReport } from '../check.js';
import { KIND_LABELS } from '../classify.js';

/** Options for {@link formatCheckText}. */
export interface TextFormatOptions {
  colors: Colors;
  /** List every file with its kind, skipped ones included. */
  verbose?: boolean;
  /** Leave out warnings. */
  quiet?: boolean;
}

/** The report as a linter prints it: grouped problems, then a summary line. */
export function formatCheckText(report: CheckReport, options: TextFormatOptions): string {
  const c = options.colors;
  const keep = (d: { severity: string }) => !options.quiet || d.severity === 'error';
  const diagnostics = [...report.walkDiagnostics, ...report.files.flatMap((f) => f.diagnostics)].filter(keep);
  const parts: string[] = [];
  if (options.verbose) {
    for (const f of report.files) {
      const what = f.kind
        ? KIND_LABELS[f.kind]
        : f.diagnostics.length
          ? 'could not be read'
          : 'not recognised';
      const note =
        f.skipped === 'jinja'
          ? 'skipped (Jinja source)'
          : f.skipped === 'disabled'
            ? `${what}, disabled in config`
            : what;
      parts.push(c.dim(`${f.file}: ${note}`));
    }
    if (report.files.length) parts.push('');
  }
  parts.push(formatDiagnostics(diagnostics, { colors: c, filesChecked: report.summary.checked }));
  if (report.summary.skipped && !options.quiet) {
    parts.push(
      c.dim(
        `${report.summary.skipped} file(s) not checked (not recognised, Jinja or disabled; --verbose lists them)`,
      ),
    );
  }
  return parts.join('\n');
}

/** The report as JSON: every file with its kind and diagnostics, and the summary. */
export function formatCheckJson(report: CheckReport): string {
  return JSON.stringify(
    {
      files: report.files.map((f) => ({
        file: f.file,
        kind: f.kind ?? null,
        ...(f.skipped ? { skipped: f.skipped } : {}),
        diagnostics: f.diagnostics,
      })),
      walkDiagnostics: report.walkDiagnostics,
      summary: report.summary,
    },
    null,
    2,
  );
}
