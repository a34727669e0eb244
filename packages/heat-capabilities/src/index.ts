export * from './capabilities.js';
export type { HeatEnvironmentCheckOptions } from './checker.js';
export { heatEnvironmentChecker, heatTemplateChecker } from './checker.js';
export type {
  Candidate,
  HeatEnvironment,
  ParseEnvironmentOptions,
  RegistryEntry,
  RegistryEntryKind,
  ValidateEnvironmentResult,
} from './environment.js';
export {
  ENVIRONMENT_SECTIONS,
  EVENT_SINK_TYPES,
  HOOK_TYPES,
  isTemplateName,
  MERGE_STRATEGIES,
  parseEnvironment,
  REQUIRES_SECTION,
  RESTRICTED_ACTIONS,
  validateEnvironment,
} from './environment.js';
export * from './find.js';
export * from './http.js';
export { MAX_ENVIRONMENT_BYTES, MAX_TEMPLATE_SIZE } from './load.js';
export * from './merge.js';
export type { PathOptions } from './paths.js';
export { resolveReference } from './paths.js';
export * from './registry.js';
export * from './resolve.js';
export type { DocumentKind, ScanOptions, ScanResult } from './scan.js';
export { MAX_SCAN_CHARS, scanDocument } from './scan.js';
export type { StripCapabilitiesResult } from './strip.js';
export { stripCapabilities } from './strip.js';
export * from './template.js';
export type { TemplateVersion, VersionKey } from './versions.js';
export { CAPABILITIES_SECTION, TEMPLATE_VERSIONS, VERSION_KEYS } from './versions.js';
