export type { DeployTemplatesApi, DeployTemplatesApiOptions, RequestContextHook } from './api.js';
export { createDeployTemplatesApi, IRONIC_MAX_BODY_BYTES } from './api.js';
export { deployTemplateChecker } from './checker.js';
export type { DeployTemplateClient, HttpClientOptions } from './client.js';
export { createHttpClient, createLocalClient } from './client.js';
export type { CheckedTemplate, PatchOperation } from './ironic-rules.js';
export {
  checkPatchDocument,
  checkPatchedStep,
  checkTemplate,
  ironicSchemas,
  PATCH_SCHEMA,
} from './ironic-rules.js';
export type { JsonPatchOperation } from './json-patch.js';
export { applyJsonPatch, applyPatchOperation, JsonPatchFailure } from './json-patch.js';
export { ironicSchemaMessage } from './json-schema.js';
export { maskSecrets, maskSecretsInText, SECRET_MASK, SENSITIVE_KEYS } from './masking.js';
export type {
  DeployStepsExplanation,
  DriverStep,
  DriverStepArgInfo,
  ExplainedDeployStep,
  NodeDeployValidation,
  PlanDeployStepsOptions,
  PlannedDeployStep,
  PlanTemplate,
  RequestedStep,
  StepOrigin,
} from './plan.js';
export {
  DriverStepArgInfoSchema,
  DriverStepSchema,
  explainDeploySteps,
  PlanInputSchema,
  PlanTemplateSchema,
  planDeploySteps,
  RequestedStepSchema,
  validateNodeDeploySteps,
} from './plan.js';
export type { DeployTemplateRule, PolicyCheck, PolicyOptions, RequestCredentials } from './policy.js';
export {
  createDeployTemplatePolicy,
  credentialsFromHeaders,
  DEPLOY_TEMPLATE_RULES,
  forbidden,
  IRONIC_DEPLOY_TEMPLATE_POLICY,
} from './policy.js';
export type { DeployInterface, IronicProfile } from './profile.js';
export { DEPLOY_INTERFACE_RANK, DEPLOY_INTERFACES, ironicProfile } from './profile.js';
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
export type {
  CallContext,
  DeployTemplateService,
  DeployTemplateServiceOptions,
  QueryParams,
  TemplateNotification,
} from './service.js';
export { createDeployTemplateService, DEFAULT_MAX_LIST_BYTES, TEMPLATE_FIELDS } from './service.js';
export type {
  MigrationResult,
  SqlDeployTemplateStore,
  SqlDriver,
  SqlExecutor,
  SqlStoreOptions,
} from './store/sql-store.js';
export { createSqlStore, MIGRATIONS, OBJECT_VERSION } from './store/sql-store.js';
export type {
  DeployTemplateStore,
  ListTemplatesOptions,
  NewTemplate,
  SortKey,
  StoredTemplate,
  TemplateChanges,
} from './store/types.js';
export { SORT_KEYS, StoredTemplateSchema } from './store/types.js';
export type { ApiVersion, VersionResult } from './versions.js';
export {
  compareApiVersions,
  DEPLOY_TEMPLATES_VERSION,
  formatApiVersion,
  LAST_JSON_SUFFIX_VERSION,
  MAX_VERSION_HEADER,
  MIN_VERSION,
  MIN_VERSION_HEADER,
  negotiateVersion,
  parseApiVersion,
  stripsJsonSuffix,
  VERSION_HEADER,
} from './versions.js';
