import { type Diagnostic, sortDiagnostics } from '../diagnostic.js';

/**
 * Escapes the message of a GitHub Actions workflow command: `%`, carriage
 * return and line feed, which the runner would otherwise read as the end of
 * the command (so a hostile message cannot start a command of its own).
 */
export function escapeGithubData(text: string): string {
  return text.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

/**
 * Escapes a property value of a workflow command (`file=…`, `title=…`):
 * what {@link escapeGithubData} escapes, and `:` and `,`, which end a
 * property.
 */
export function escapeGithubProperty(text: string): string {
  return escapeGithubData(text).replace(/:/g, '%3A').replace(/,/g, '%2C');
}

const COMMAND: Readonly<Record<Diagnostic['severity'], string>> = {
  error: 'error',
  warning: 'warning',
  info: 'notice',
};

/**
 * One GitHub Actions annotation for a diagnostic:
 * `::error file=f.yaml,line=3,col=5,endLine=3,endColumn=9,title=extra-specs/unknown-key::message`,
 * with the hint on a second line of the message. Warnings become `::warning`,
 * infos `::notice`; properties the diagnostic lacks are left out.
 */
export function githubAnnotation(d: Diagnostic): string {
  const props: string[] = [];
  if (d.file !== undefined) props.push(`file=${escapeGithubProperty(d.file.split('\\').join('/'))}`);
  if (d.line !== undefined) {
    props.push(`line=${d.line}`);
    if (d.column !== undefined) props.push(`col=${d.column}`);
    if (d.endLine !== undefined) {
      props.push(`endLine=${d.endLine}`);
      if (d.endColumn !== undefined) props.push(`endColumn=${d.endColumn}`);
    }
  }
  props.push(`title=${escapeGithubProperty(d.code)}`);
  const message = d.hint ? `${d.message}\n${d.hint}` : d.message;
  return `::${COMMAND[d.severity]} ${props.join(',')}::${escapeGithubData(message)}`;
}

/**
 * A check's diagnostics as GitHub Actions workflow commands, one line each
 * in file and position order, so that a job shows them on the changed lines
 * of a pull request (the `github` format of `-f`). Empty when there are none.
 *
 * @example
 * io.stdout.write(`${formatGithubAnnotations(diagnostics)}\n`);
 */
export function formatGithubAnnotations(diagnostics: readonly Diagnostic[]): string {
  return sortDiagnostics(diagnostics).map(githubAnnotation).join('\n');
}
