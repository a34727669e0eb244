export type {
  Capabilities,
  ReadCapabilitiesOptions,
  ReadCapabilitiesResult,
  Requirements,
  RequirementsMatch,
} from './capabilities.js';
export {
  canonicalValue,
  matchRequirements,
  RESOURCE_TYPE_KEY,
  readCapabilities,
  satisfiesFilter,
} from './capabilities.js';
export type { HeatEnvironmentCheckOptions } from './checker.js';
export { heatEnvironmentChecker, heatTemplateChecker } from './checker.js';
export type {
  Candidate,
  HeatEnvironment,
  ParseEnvironmentOptions,
  ParseEnvironmentResult,
  RegistryEntry,
  RegistryEntryKind,
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
  safeParseEnvironment,
} from './environment.js';
export type {
  CapabilitiesSummary,
  FindTemplatesOptions,
  FindTemplatesResult,
  ReadFileText,
  ScannedFile,
} from './find.js';
export { findTemplates, isJinjaFile, summarizeCapabilities, TEMPLATE_FILE_EXTENSIONS } from './find.js';
export type { CapabilitiesHandlerOptions, FindRequest, ResolveRequest, SummaryRequest } from './http.js';
export {
  createCapabilitiesHandler,
  DEFAULT_HANDLER_MAX_BODY_BYTES,
  FilesSchema,
  FindRequestSchema,
  heatErrorBody,
  ResolveRequestSchema,
  SummaryRequestSchema,
} from './http.js';
export { MAX_ENVIRONMENT_BYTES, MAX_TEMPLATE_SIZE } from './load.js';
export type {
  MergedEnvironment,
  MergeEnvironmentsOptions,
  MergeEnvironmentsResult,
  ParameterType,
} from './merge.js';
export { mergeEnvironments } from './merge.js';
export type { PathOptions } from './paths.js';
export { resolveReference } from './paths.js';
export type { Implementation, LookupOptions, LookupResult } from './registry.js';
export { effectiveEntries, lookupResourceType } from './registry.js';
export type {
  CandidateVerdict,
  ReadTemplate,
  ResolveEnvironmentOptions,
  ResolveEnvironmentResult,
} from './resolve.js';
export { resolveEnvironment } from './resolve.js';
export type { DocumentKind, ScanOptions, ScanResult } from './scan.js';
export { MAX_SCAN_CHARS, scanDocument } from './scan.js';
export type { StripCapabilitiesResult } from './strip.js';
export { stripCapabilities } from './strip.js';
export type { HeatTemplate, ParseTemplateOptions, ParseTemplateResult } from './template.js';
export { parseTemplate, safeParseTemplate } from './template.js';
export type { TemplateVersion, VersionKey } from './versions.js';
export { CAPABILITIES_SECTION, TEMPLATE_VERSIONS, VERSION_KEYS } from './versions.js';
