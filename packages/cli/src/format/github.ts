import { formatGithubAnnotations } from '@stackspec/core/cli';
import type { CheckReport } from '../check.js';

/** Options for {@link formatCheckGithub}. */
export interface GithubFormatOptions {
  /** Leave out warnings and notes, as `--quiet` does for text. */
  quiet?: boolean;
}

/**
 * The report as GitHub Actions workflow commands (`::error file=…,line=…::…`),
 * one per problem, so that a job annotates the lines of a pull request.
 * Empty when there is nothing to report.
 */
export function formatCheckGithub(report: CheckReport, options: GithubFormatOptions = {}): string {
  const diagnostics = [...report.walkDiagnostics, ...report.files.flatMap((f) => f.diagnostics)];
  return formatGithubAnnotations(
    options.quiet ? diagnostics.filter((d) => d.severity === 'error') : diagnostics,
  );
}
