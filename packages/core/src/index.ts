export * from './arguments.js';
export { concatBytes } from './bytes.js';
export * from './checker.js';
export * from './diagnostic.js';
export * from './document.js';
export * from './errors.js';
export * from './http/body.js';
export { bytesOfResponse, bytesResponse } from './http/bytes-response.js';
export type {
  ErrorBodyStyle,
  ErrorResponseOptions,
  HeatErrorBody,
  PlacementErrorOptions,
} from './http/error-bodies.js';
export {
  errorResponse,
  HTTP_STATUS_TEXT,
  heatErrorBody,
  ironicErrorBody,
  novaErrorBody,
  placementErrorBody,
} from './http/error-bodies.js';
export type { ReadJsonBodyOptions } from './http/json.js';
export { jsonResponse, parseJsonBytes, readJsonBody } from './http/json.js';
export * from './http/policy.js';
export { createRequestId, REQUEST_ID_HEADER } from './http/request-id.js';
export * from './http/router.js';
export * from './http/service-kit.js';
export * from './http/utf8.js';
export type { WebobErrorFormat } from './http/webob.js';
export { webobErrorFormat, webobErrorResponse } from './http/webob.js';
export type { PathSegment } from './json-pointer.js';
export { parseJsonPointer, toJsonPointer, validateJsonPointer } from './json-pointer.js';
export * from './jsonschema.js';
export type {
  PyExceptionName,
  PyFailure,
  PyJsonDumpsOptions,
  PyJsonLoadsOptions,
  PyJsonMapValue,
  PyMapping,
  PyResult,
  PyValue,
} from './python.js';
export {
  isPyFloat,
  isPySpace,
  PY_INT_MAX_DIGITS,
  PY_JSON_MAX_DEPTH,
  PyFloat,
  PyNumber,
  pyCompare,
  pyEquals,
  pyFloat,
  pyFloatRepr,
  pyInt,
  pyJsonDumps,
  pyJsonLoads,
  pyLstrip,
  pyRepr,
  pyRstrip,
  pySortedSet,
  pyStr,
  pyStrip,
  pyTruthy,
} from './python.js';
export * from './python-regex.js';
export type {
  MemoryResourceReaderOptions,
  ResourceReader,
  ResourceReadOptions,
  ResourceReadResult,
} from './resource-reader.js';
export {
  createMemoryResourceReader,
  DEFAULT_RESOURCE_MAX_BYTES,
  normalizeResourcePath,
} from './resource-reader.js';
export type { ValidationResult } from './result.js';
export { invalidResult, unwrapResult, validationErrorOf } from './result.js';
export * from './schema.js';
export * from './suggest.js';
export * from './vocabulary/microversion.js';
export * from './vocabulary/resource-classes.js';
export * from './vocabulary/traits.js';
export { isUuidLike, normalizeUuid, UUID_PATTERN, UuidSchema } from './vocabulary/uuid.js';
export type { PlainScalarKind } from './yaml-schema.js';
export { plainScalarKind } from './yaml-schema.js';
