export { PythonRegexError, translatePythonRegex } from '@stackspec/core';
export type { ReleasedExtraSpec } from './catalog/index.js';
export {
  BUILTIN_EXTRA_SPECS,
  definitionInRelease,
  extraSpecsForRelease,
  isAvailableIn,
  isDeprecatedIn,
} from './catalog/index.js';
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
export type { FlavorEntry, ReadFlavorFileResult } from './flavors.js';
export { parsePropertiesString, readFlavorFile, validateFlavorFile } from './flavors.js';
export type { ExtraSpecsHandler, ExtraSpecsHandlerOptions, FlavorStore } from './http/handler.js';
export { createExtraSpecsHandler, createMemoryFlavorStore, NOVA_MAX_BODY_BYTES } from './http/handler.js';
export type { ImagePropertyMatch, ValidateImagePropertiesOptions } from './image.js';
export { findImageProperty, IMAGE_ONLY_PROPERTIES, validateImageProperties } from './image.js';
export type { LoadExtraSpecPluginsOptions, LoadExtraSpecPluginsResult } from './plugins.js';
export { loadExtraSpecPlugins, PLUGIN_KIND } from './plugins.js';
export type { PythonInt } from './python-values.js';
export { parsePythonBool, parsePythonInt } from './python-values.js';
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
export type {
  MetadefFile,
  MetadefNamespace,
  MetadefProperty,
  RenderMetadefsOptions,
} from './render/metadef.js';
export { formatMetadef, renderMetadefs } from './render/metadef.js';
export type { DocSource, RenderDocsOptions } from './render/text.js';
export { renderMarkdown, renderRst } from './render/text.js';
export type { ValidateExtraSpecsOptions, ValidateExtraSpecsResult, ValidationMode } from './validate.js';
export {
  assertExtraSpecs,
  builtinRegistry,
  checkNovaExtraSpec,
  MAX_VALUE_LENGTH,
  VALIDATION_MODES,
  validateExtraSpecs,
} from './validate.js';
