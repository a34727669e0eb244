import { z } from 'zod';

/** How serious a diagnostic is: errors fail a check, warnings and infos do not. */
export const SeveritySchema = z.enum(['error', 'warning', 'info']);
export type Severity = z.infer<typeof SeveritySchema>;

/**
 * The one problem report every stackspec package produces.
 *
 * `path` is a JSON pointer (RFC 6901) into the checked document, `''` for the
 * whole document. Positions are 1-based and present when the problem could be
 * traced to source text.
 */
export const DiagnosticSchema = z.object({
  code: z.string().regex(/^[a-z0-9-]+(\/[a-z0-9-]+)+$/, 'codes look like area/kebab-case'),
  severity: SeveritySchema,
  message: z.string().min(1),
  path: z.string(),
  file: z.string().optional(),
  line: z.number().int().positive().optional(),
  column: z.number().int().positive().optional(),
  endLine: z.number().int().positive().optional(),
  endColumn: z.number().int().positive().optional(),
  hint: z.string().optional(),
});
export type Diagnostic = z.infer<typeof DiagnosticSchema>;

/** Fields accepted by {@link createDiagnostic}; `severity` defaults to `error` and `path` to `''`. */
export type DiagnosticInit = Omit<Diagnostic, 'severity' | 'path'> & {
  severity?: Severity;
  path?: string;
};

/**
 * Builds a diagnostic, filling `severity: 'error'` and `path: ''` when absent
 * and leaving out optional fields that are `undefined`.
 */
export function createDiagnostic(init: DiagnosticInit): Diagnostic {
  const out: Diagnostic = {
    code: init.code,
    severity: init.severity ?? 'error',
    message: init.message,
    path: init.path ?? '',
  };
  // Field by field rather than a loop over names: validators build one per
  // problem, and the plain assignments keep every diagnostic the same shape.
  if (init.file !== undefined) out.file = init.file;
  if (init.line !== undefined) out.line = init.line;
  if (init.column !== undefined) out.column = init.column;
  if (init.endLine !== undefined) out.endLine = init.endLine;
  if (init.endColumn !== undefined) out.endColumn = init.endColumn;
  if (init.hint !== undefined) out.hint = init.hint;
  return out;
}

/** True when at least one diagnostic has severity `error`. */
export function hasErrors(diagnostics: readonly Diagnostic[]): boolean {
  return diagnostics.some((d) => d.severity === 'error');
}

/** Counts diagnostics per severity. */
export function countBySeverity(diagnostics: readonly Diagnostic[]): Record<Severity, number> {
  const counts: Record<Severity, number> = { error: 0, warning: 0, info: 0 };
  for (const d of diagnostics) counts[d.severity] += 1;
  return counts;
}

/**
 * Orders diagnostics the way readers expect: by file, then line and column
 * (unlocated ones first), then severity (errors first), then code. Stable and
 * non-mutating.
 */
export function sortDiagnostics(diagnostics: readonly Diagnostic[]): Diagnostic[] {
  const rank: Record<Severity, number> = { error: 0, warning: 1, info: 2 };
  return diagnostics
    .map((d, i) => [d, i] as const)
    .sort(([a, ai], [b, bi]) => {
      const byFile = (a.file ?? '').localeCompare(b.file ?? '');
      if (byFile) return byFile;
      const byLine = (a.line ?? 0) - (b.line ?? 0);
      if (byLine) return byLine;
      const byCol = (a.column ?? 0) - (b.column ?? 0);
      if (byCol) return byCol;
      const bySeverity = rank[a.severity] - rank[b.severity];
      if (bySeverity) return bySeverity;
      return a.code.localeCompare(b.code) || ai - bi;
    })
    .map(([d]) => d);
}

/** Returns copies of the diagnostics with `file` set where it is missing. */
export function withFile(diagnostics: readonly Diagnostic[], file: string | undefined): Diagnostic[] {
  if (file === undefined) return [...diagnostics];
  return diagnostics.map((d) => (d.file === undefined ? { ...d, file } : d));
}
