export type { ChrootRemoteOptions } from './adapters/chroot.js';
export { createChrootRemote } from './adapters/chroot.js';
export type {
  DryRunOptions,
  DryRunRemote,
  RemoteCall,
  SimulatedMachine,
  SimulatedScript,
} from './adapters/dry-run.js';
export { createDryRunRemote, parseScriptFile } from './adapters/dry-run.js';
export type { LocalRemoteOptions } from './adapters/local.js';
export { createLocalRemote } from './adapters/local.js';
export type { ImageSpecCheckOptions } from './checker.js';
export { imageSpecChecker } from './checker.js';
export type { CommandStyle, PackageFamily, ParsedPackageCommand, RedhatInstaller } from './commands.js';
export {
  batchCheckCommand,
  CommandStyleSchema,
  checkCommand,
  installCommand,
  packageWord,
  parseBatchCheck,
  parsePackageCommand,
  RedhatInstallerSchema,
  runScriptCommand,
  scriptFile,
} from './commands.js';
export type { ExplainedSpec, ExplainedValidator } from './explain.js';
export { explainImageSpec, formatExplainedSpec } from './explain.js';
export { DISTRO_FAMILIES, familyOf, SAHARA_DISTRO_FAMILIES } from './families.js';
export type {
  CheckImageSpecResult,
  ImageSpecReadOptions,
  ImageSpecSource,
  LoadImageSpecOptions,
} from './load.js';
export {
  BUILTIN_VALIDATOR_TYPES,
  checkImageSpec,
  loadImageSpec,
  MAX_RESOURCE_BYTES,
  RESERVED_ARGUMENT_NAMES,
} from './load.js';
export type { ExecOptions, ExecResult, Remote, WriteFileOptions } from './remote.js';
export { DISTRO_PROBE, probeDistro, RemoteError } from './remote.js';
export { exportLine, isShellName, shellQuote, withEnv } from './shell.js';
export type {
  AllNode,
  AnyNode,
  ArgumentCaseNode,
  ArgumentSetNode,
  CaseBranch,
  CopyScriptNode,
  CustomNode,
  ImageArgument,
  ImageSpec,
  OsCaseNode,
  PackageNode,
  PackageRef,
  ScriptNode,
  SpecLocation,
  ValidatorNode,
} from './spec.js';
export type {
  CommandRecord,
  ValidateImageOptions,
  ValidationEvent,
  ValidationFailure,
  ValidationReport,
  ValidatorResult,
} from './validate.js';
export { saharaCommandMessage, ValidateImageOptionsSchema, validateImage } from './validate.js';
export type {
  ValidatorDefinition,
  ValidatorLoadContext,
  ValidatorRunContext,
} from './validator-definition.js';
export { defineValidator } from './validator-definition.js';
