export { inventoryChecker } from './checker.js';
export type {
  Candidate,
  CandidatesResult,
  FindCandidatesAsyncOptions,
  FindCandidatesOptions,
  GenerationStrategy,
} from './engine/candidates.js';
export {
  findAllocationCandidates,
  findAllocationCandidatesAsync,
  GENERATION_STRATEGIES,
  SERVER_MAX_ALLOCATION_CANDIDATES,
} from './engine/candidates.js';
export type { ExplainOptions } from './engine/explain.js';
export {
  explainAllocationCandidates,
  explainPlacementQuery,
  explainResourceProviders,
} from './engine/explain.js';
export * from './engine/explain-schema.js';
export type { FormatExplanationOptions } from './engine/explain-text.js';
export { formatExplanationText } from './engine/explain-text.js';
export { listResourceProviders } from './engine/providers.js';
export type {
  AllocationCandidatesJson,
  AllocationRequestJson,
  AllocationRequestListJson,
  ProviderJson,
  ProviderLink,
  ProviderSummaryJson,
  RenderTextOptions,
} from './engine/render.js';
export {
  renderCandidates,
  renderCandidatesBytes,
  renderCandidatesBytesAsync,
  renderCandidatesJson,
  renderProvider,
  renderProviderList,
  renderProviderListJson,
} from './engine/render.js';
export type { StageId } from './engine/stages.js';
export { StageIdSchema } from './engine/stages.js';
export type { PlacementErrorCode, QueryErrorInit } from './errors.js';
export { PLACEMENT_ERROR_CODES, queryError } from './errors.js';
export * from './flavor.js';
export { EXPLAIN_HEADER } from './http/explain.js';
export type { PlacementHandler, PlacementServiceOptions } from './http/service.js';
export { createPlacementHandler } from './http/service.js';
export type { PlacementVersionResult } from './microversion.js';
export {
  MAX_MICROVERSION,
  MIN_MICROVERSION,
  negotiatePlacementVersion,
  toMicroversion,
} from './microversion.js';
export type {
  InventoryFile,
  InventoryProviderEntry,
  ParseInventoryOptions,
  ResolvedConsumer,
  ResolvedInventory,
  ResolvedProvider,
  ValidateInventoryResult,
} from './model/inventory-file.js';
export {
  applyInventory,
  InventoryConsumerSchema,
  InventoryFileSchema,
  InventoryProviderSchema,
  parseInventory,
  resolveInventory,
  uuidFromName,
  validateInventory,
} from './model/inventory-file.js';
export * from './model/plan.js';
export type {
  CapacityColumns,
  CapacityEntry,
  Consumer,
  Inventory,
  Provider,
  ProviderStoreOptions,
  StagedWrite,
} from './model/store.js';
export {
  canAllocate,
  capacityOf,
  createProviderStore,
  DEBIAN_OS_TRAITS_RELEASE,
  INVENTORY_DEFAULTS,
  MAX_INT,
  ProviderStore,
  SHARING_TRAIT,
} from './model/store.js';
export type { ImageProperties } from './nova-hardware.js';
export { ImagePropertiesSchema } from './nova-hardware.js';
export * from './parse.js';
export type { QueryInput } from './query-params.js';
export { QueryParams } from './query-params.js';
export * from './request.js';
export { normalizePlacementQuery, serializePlacementQuery } from './serialize.js';
export type { PlacementStore, StoreHealth, WriteIntent, WriteLocks } from './store/types.js';
