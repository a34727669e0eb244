export * from './color.js';
export type { DeprecationIO } from './deprecation.js';
export { deprecatedOption, deprecationNote, warnDeprecated } from './deprecation.js';
export type { FormatDiagnosticsOptions } from './diagnostics.js';
export { formatDiagnostics } from './diagnostics.js';
export { ERROR_CODES_URL, errorCodeAnchor, errorCodeHelpUri } from './error-codes.js';
export {
  escapeGithubData,
  escapeGithubProperty,
  formatGithubAnnotations,
  githubAnnotation,
} from './github.js';
export type { HelpExample } from './help.js';
export { addExamples, formatExamples } from './help.js';
export * from './output.js';
export type { Progress, ProgressOptions, ProgressStream } from './progress.js';
export { createProgress } from './progress.js';
export * from './run.js';
export type { SarifLogOptions, SarifRuleText, SarifToolInfo } from './sarif.js';
export { toSarifLog } from './sarif.js';
export { UsageError } from './usage-error.js';
export { readPackageVersion } from './version.js';
export { displayWidth, truncateToWidth } from './width.js';
