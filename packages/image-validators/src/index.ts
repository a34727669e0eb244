export type { ChrootRemoteOptions } from './adapters/chroot.js';
export { createChrootRemote } from './adapters/chroot.js';
export * from './adapters/dry-run.js';
export type { LocalRemoteOptions } from './adapters/local.js';
export { createLocalRemote } from './adapters/local.js';
export type { ImageSpecCheckOptions } from './checker.js';
export { imageSpecChecker } from './checker.js';
export type { CommandStyle, PackageFamily, RecognizedPackageCommand, RedhatInstaller } from './commands.js';
export {
  batchCheckCommand,
  CommandStyleSchema,
  checkCommand,
  installCommand,
  packageWord,
  RedhatInstallerSchema,
  readBatchCheck,
  recognizePackageCommand,
  runScriptCommand,
  scriptFile,
} from './commands.js';
export type { ExplainedSpec, ExplainedValidator } from './explain.js';
export { explainImageSpec, formatExplainedSpec } from './explain.js';
export { DISTRO_FAMILIES, familyOf, SAHARA_DISTRO_FAMILIES } from './families.js';
export * from './load.js';
export type { ExecOptions, ExecResult, Remote, WriteFileOptions } from './remote.js';
export { DISTRO_PROBE, probeDistro, RemoteError } from './remote.js';
export { exportLine, isShellName, shellQuote, withEnv } from './shell.js';
export * from './spec.js';
export * from './validate.js';
export type {
  ValidatorDefinition,
  ValidatorLoadContext,
  ValidatorRunContext,
} from './validator-definition.js';
export { defineValidator } from './validator-definition.js';
