export * from './api.js';
export { deployTemplateChecker } from './checker.js';
export type { DeployTemplateClient, HttpClientOptions } from './client.js';
export { createHttpClient, createLocalClient } from './client.js';
export type { CheckedTemplate, PatchOperation } from './ironic-rules.js';
export { ironicSchemas, PATCH_SCHEMA } from './ironic-rules.js';
export type { JsonPatchOperation } from './json-patch.js';
export { applyJsonPatch, applyPatchOperation, JsonPatchFailure } from './json-patch.js';
export { ironicSchemaMessage } from './json-schema.js';
export { maskSecrets, maskSecretsInText, SECRET_MASK, SENSITIVE_KEYS } from './masking.js';
export * from './plan.js';
export * from './policy.js';
export * from './profile.js';
export type {
  DeployStep,
  DeployStepInput,
  DeployTemplate,
  DeployTemplateInput,
  ValidateTemplateOptions,
} from './schema.js';
export {
  DeployStepSchema,
  DeployTemplateInputSchema,
  DeployTemplateSchema,
  deployTemplateInputSchema,
  deployTemplateJsonSchema,
  findDuplicateSteps,
  MAX_NESTING,
  MAX_STEP_NAME_LENGTH,
  MAX_STEP_PRIORITY,
  MAX_TEMPLATE_NAME_LENGTH,
  parseDeployTemplate,
  StepPrioritySchema,
  templateDiagnostic,
  validateDeployTemplate,
} from './schema.js';
export type { DeployTemplatesServer, ServeOptions } from './serve.js';
export { serveDeployTemplates } from './serve.js';
export * from './service.js';
export * from './store/sql-store.js';
export * from './store/types.js';
export * from './versions.js';
