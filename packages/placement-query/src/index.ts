export type { PlacementErrorCode, QueryErrorInit } from './errors.js';
export { PLACEMENT_ERROR_CODES, queryError } from './errors.js';
export type { PlacementVersionResult } from './microversion.js';
export {
  MAX_MICROVERSION,
  MIN_MICROVERSION,
  negotiatePlacementVersion,
  toMicroversion,
} from './microversion.js';
export type { QueryParseResult } from './parse.js';
export {
  parseAllocationCandidatesQuery,
  parseMemberOfValue,
  parsePlacementQuery,
  parseResourceProvidersQuery,
  parseResourcesValue,
  parseTraitsValue,
  safeParsePlacementQuery,
} from './parse.js';
export type { QueryInput } from './query-params.js';
export { QueryParams } from './query-params.js';
export type {
  AllocationCandidatesRequest,
  PlacementQuery,
  QueryEndpoint,
  RequestGroup,
  ResourceAmounts,
  ResourceProvidersRequest,
  RootRequired,
} from './request.js';
export {
  AllocationCandidatesRequestSchema,
  MicroversionTextSchema,
  PlacementQuerySchema,
  RequestGroupSchema,
  ResourceAmountsSchema,
  ResourceProvidersRequestSchema,
  RootRequiredSchema,
} from './request.js';
export { normalizePlacementQuery, serializePlacementQuery } from './serialize.js';
