export { PythonRegexError, translatePythonRegex } from '@stackspec/core';
export * from './catalog/index.js';
export type { FlavorCheckOptions } from './checker.js';
export { flavorChecker } from './checker.js';
export type {
  Deprecation,
  ExtraSpecDefinition,
  ExtraSpecDependency,
  ExtraSpecInput,
  ExtraSpecParameter,
  HistoryEntry,
  IntValueRule,
  StrValueRule,
  SupportStatus,
  ValueRule,
} from './define.js';
export {
  BoolValueSchema,
  DependencySchema,
  DeprecationSchema,
  defineExtraSpec,
  ExtraSpecInputSchema,
  HistoryEntrySchema,
  IntValueSchema,
  isExtraSpecDefinition,
  namespaceOf,
  ParameterSchema,
  StrValueSchema,
  SupportStatusSchema,
  ValueRuleSchema,
} from './define.js';
export * from './flavors.js';
export * from './http/handler.js';
export type { ImagePropertyMatch, ValidateImagePropertiesOptions } from './image.js';
export { findImageProperty, IMAGE_ONLY_PROPERTIES, validateImageProperties } from './image.js';
export type { LoadExtraSpecPluginsOptions, LoadExtraSpecPluginsResult } from './plugins.js';
export { loadExtraSpecPlugins, PLUGIN_KIND } from './plugins.js';
export type { PythonInt } from './python-values.js';
export { parsePythonBool, parsePythonInt, validatePythonBool, validatePythonInt } from './python-values.js';
export type {
  ExtraSpecMatch,
  ExtraSpecPlugin,
  ExtraSpecRegistry,
  ExtraSpecRegistryOptions,
  RegisteredExtraSpec,
} from './registry.js';
export { createExtraSpecRegistry } from './registry.js';
export type { NovaRelease, ReleaseName } from './releases.js';
export {
  compareReleases,
  describeRelease,
  LATEST_RELEASE,
  NOVA_RELEASES,
  RELEASE_NAMES,
  ReleaseNameSchema,
  resolveRelease,
} from './releases.js';
export { anchorOf } from './render/common.js';
export type { RenderJsonSchemaOptions } from './render/json-schema.js';
export { renderJsonSchema } from './render/json-schema.js';
export * from './render/metadef.js';
export type { DocSource, RenderDocsOptions } from './render/text.js';
export { renderMarkdown, renderRst } from './render/text.js';
export type {
  ParsedExtraSpecs,
  ValidateExtraSpecsOptions,
  ValidateExtraSpecsResult,
  ValidationMode,
} from './validate.js';
export {
  builtinRegistry,
  checkNovaExtraSpec,
  MAX_VALUE_LENGTH,
  parseExtraSpecs,
  VALIDATION_MODES,
  validateExtraSpecs,
} from './validate.js';
