export type { ColorOptions, Colors } from './color.js';
export { createColors, shouldUseColor, stripAnsi } from './color.js';
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
export type { CellStyle, FormatOptions, OutputFormat } from './output.js';
export {
  formatCell,
  formatList,
  formatObject,
  LIST_FORMATS,
  OBJECT_FORMATS,
  OUTPUT_FORMATS,
  pythonRepr,
  renderTable,
} from './output.js';
export type { Progress, ProgressOptions, ProgressStream } from './progress.js';
export { createProgress } from './progress.js';
export type {
  CliInput,
  CliIO,
  CreateProgramOptions,
  OutputOptionValues,
  ReportFormat,
  RunCliOptions,
} from './run.js';
export {
  addFormatOption,
  addOutputOptions,
  createProgram,
  EXIT,
  exitCodeFor,
  processIO,
  REPORT_FORMATS,
  runCli,
  stderrColors,
  usage,
} from './run.js';
export type { SarifLogOptions, SarifRuleText, SarifToolInfo } from './sarif.js';
export { toSarifLog } from './sarif.js';
export { UsageError } from './usage-error.js';
export { readPackageVersion } from './version.js';
export { displayWidth, truncateToWidth } from './width.js';
