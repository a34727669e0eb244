export type { ColorOptions, Colors } from './color.js';
export { createColors, shouldUseColor, stripAnsi } from './color.js';
export type { FormatDiagnosticsOptions } from './diagnostics.js';
export { formatDiagnostics } from './diagnostics.js';
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
export type { Progress, ProgressOptions } from './progress.js';
export { createProgress } from './progress.js';
export type { CliInput, CliIO, OutputOptionValues, RunCliOptions } from './run.js';
export {
  addOutputOptions,
  createProgram,
  EXIT,
  exitCodeFor,
  processIO,
  runCli,
  stderrColors,
  usage,
} from './run.js';
export { UsageError } from './usage-error.js';
