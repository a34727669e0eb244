export type { StackspecApp, StackspecAppOptions } from './app.js';
export { createStackspecApp, SERVICE_PREFIXES } from './app.js';
export type {
  CheckedFile,
  Checker,
  CheckerEntry,
  Checkers,
  CheckInput,
  CheckPathsOptions,
  CheckPreparation,
  CheckReport,
  CheckSite,
  SkipReason,
} from './check.js';
export { checkPaths, checkText } from './check.js';
export { BUILTIN_CHECKERS, defaultCheckers } from './checkers.js';
export type { ArtifactKind } from './classify.js';
export { ARTIFACT_KINDS, classifyDocument, KIND_LABELS } from './classify.js';
export type { Cloud, CloudFlavor, LoadCloudOptions } from './cloud.js';
export { DriverStepSchema, DriverStepsFileSchema, loadCloud } from './cloud.js';
export { formatScheduleText } from './commands/schedule.js';
export type { ServeStackspecOptions, StackspecServer } from './commands/serve.js';
export { serveStackspec } from './commands/serve.js';
export type { LoadedConfig, StackspecConfig } from './config.js';
export { CONFIG_FILE_NAMES, defaultConfig, loadConfig, StackspecConfigSchema } from './config.js';
export type { SarifToolInfo } from './format/sarif.js';
export { toSarif } from './format/sarif.js';
export type { TextFormatOptions } from './format/text.js';
export { formatCheckJson, formatCheckText } from './format/text.js';
export type { RunOptions } from './program.js';
export { runStackspec } from './program.js';
export type { ScheduleCandidate, ScheduleInput, ScheduleResult } from './schedule.js';
export { schedule } from './schedule.js';
export { VERSION } from './version.js';
