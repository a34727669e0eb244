export type { PgliteStoreOptions } from './adapters/pglite.js';
export { createPgliteStore } from './adapters/pglite.js';
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
export type { MiniSchema, SchemaViolation } from './json-schema.js';
export { bestMatch, ironicSchemaMessage, iterViolations } from './json-schema.js';
export { maskSecrets, maskSecretsInText, SECRET_MASK, SENSITIVE_KEYS } from './masking.js';
export type {
  DeployStepsExplanation,
  DriverStep,
  DriverStepArgInfo,
  ExplainedDeployStep,
  PlanDeployStepsOptions,
  PlannedDeployStep,
  PlanTemplate,
  RequestedStep,
  StepOrigin,
} from './plan.js';
export { explainDeploySteps, planDeploySteps } from './plan.js';
export type { DeployInterface, IronicProfile } from './profile.js';
export { DEPLOY_INTERFACE_RANK, DEPLOY_INTERFACES, ironicProfile } from './profile.js';
export { pyRepr, pyStr } from './python-repr.js';
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
  findDuplicateSteps,
  MAX_STEP_NAME_LENGTH,
  MAX_STEP_PRIORITY,
  MAX_TEMPLATE_NAME_LENGTH,
  parseDeployTemplate,
  StepPrioritySchema,
  templateDiagnostic,
  validateDeployTemplate,
} from './schema.js';
export type { SqlDriver, SqlExecutor, SqlStoreOptions } from './store/sql-store.js';
export { createSqlStore, MIGRATIONS, OBJECT_VERSION } from './store/sql-store.js';
export type {
  DeployTemplateStore,
  ListTemplatesOptions,
  NewTemplate,
  SortKey,
  StoredTemplate,
  TemplateChanges,
} from './store/types.js';
export { SORT_KEYS } from './store/types.js';
