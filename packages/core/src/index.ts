export { concatBytes } from './bytes.js';
export type {
  CheckContext,
  CheckerFile,
  CheckerInput,
  FileChecker,
  MarkerKey,
  Misspelling,
  RecognisedFile,
  Recognition,
} from './checker.js';
export { CONFIDENCE, claimMisspelling, findMisspeltKey, recogniseFile } from './checker.js';
export type { Diagnostic, DiagnosticInit, Severity } from './diagnostic.js';
export {
  countBySeverity,
  createDiagnostic,
  DiagnosticSchema,
  hasErrors,
  SeveritySchema,
  sortDiagnostics,
  withFile,
} from './diagnostic.js';
export type {
  ParseDocumentOptions,
  ParseDocumentResult,
  SourceDocument,
  SourceRange,
  SourceScalar,
} from './document.js';
export {
  DEFAULT_MAX_ALIAS_COUNT,
  DEFAULT_MAX_BYTES,
  DEFAULT_MAX_DEPTH,
  parseDocument,
  safeParseDocument,
} from './document.js';
export type { ErrorKind, StackspecErrorOptions } from './errors.js';
export {
  ConflictError,
  describeError,
  HttpError,
  isErrorKind,
  isStackspecError,
  NotFoundError,
  SpecError,
  StackspecError,
  ValidationError,
} from './errors.js';
export type { ReadBodyBytesOptions } from './http/body.js';
export {
  DEFAULT_MAX_BODY_BYTES,
  declaredContentLength,
  readBodyBytes,
  requestTooLargeMessage,
} from './http/body.js';
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
export type {
  AuthOption,
  CredentialsHook,
  PolicyEnforcer,
  PolicyEnforcerOptions,
  PolicyRuleDefault,
  PolicyRuleTable,
  PolicyTarget,
  RequestCredentials,
} from './http/policy.js';
export { createPolicyEnforcer, credentialsFromHeaders, credentialsHook } from './http/policy.js';
export { createRequestId, REQUEST_ID_HEADER } from './http/request-id.js';
export type {
  PathMatch,
  RouteDefinition,
  RouteMatch,
  RouteTable,
  TableRoute,
} from './http/router.js';
export { ANY_METHOD, createRouteTable, routeHandler } from './http/router.js';
export type {
  BelowMinVersion,
  ErrorRenderer,
  MicroversionGate,
  ServiceCall,
  ServiceFailure,
  ServiceHandler,
  ServiceHook,
  ServiceKitOptions,
  ServiceMethod,
  ServiceRoute,
  ServiceStep,
  VersionNegotiation,
} from './http/service-kit.js';
export { createServiceHandler } from './http/service-kit.js';
export type { Utf8Problem, Utf8ProblemReason } from './http/utf8.js';
export {
  decodeUtf8Strict,
  findUtf8Problem,
  invalidUtf8Error,
  pyUnicodeDecodeErrorText,
} from './http/utf8.js';
export type { WebobErrorFormat } from './http/webob.js';
export { webobErrorFormat, webobErrorResponse } from './http/webob.js';
export type { PathSegment } from './json-pointer.js';
export { parseJsonPointer, toJsonPointer } from './json-pointer.js';
export type {
  JsonSchema,
  JsonSchemaError,
  JsonSchemaObject,
  JsonSchemaOptions,
  JsonSchemaType,
} from './jsonschema.js';
export { bestSchemaMatch, iterSchemaErrors, schemaErrorMessage } from './jsonschema.js';
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
export type { PythonRegexMode } from './python-regex.js';
export {
  compilePythonRegex,
  PY_WHITESPACE,
  PythonRegexError,
  translatePythonRegex,
  translatePythonRegexPortable,
} from './python-regex.js';
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
export type { SchemaDiagnosticOptions, SchemaResult } from './schema.js';
export { describeType, diagnosticsFromZod, parseWithSchema, validateWithSchema } from './schema.js';
export type { SuggestOptions } from './suggest.js';
export { boundedEditDistance, defaultMaxDistance, didYouMean, editDistance, suggest } from './suggest.js';
export type {
  HeaderSource,
  Microversion,
  MicroversionHeaderOptions,
  NegotiateOptions,
  NegotiateResult,
} from './vocabulary/microversion.js';
export {
  compareMicroversions,
  formatMicroversion,
  isAtLeast,
  MicroversionSchema,
  negotiateMicroversion,
  parseMicroversion,
  readMicroversionHeader,
} from './vocabulary/microversion.js';
export type { StandardResourceClass } from './vocabulary/resource-classes.js';
export {
  CUSTOM_RESOURCE_CLASS_PATTERN,
  isResourceClassName,
  isStandardResourceClass,
  MAX_RESOURCE_CLASS_LENGTH,
  ResourceClassSchema,
  STANDARD_RESOURCE_CLASSES,
} from './vocabulary/resource-classes.js';
export {
  CUSTOM_TRAIT_PATTERN,
  CustomTraitSchema,
  compareTraitReleases,
  isCustomTrait,
  isTraitName,
  LATEST_OS_TRAITS,
  MAX_TRAIT_LENGTH,
  standardTraits,
  TraitNameSchema,
  traitNameSchema,
  traitRelease,
} from './vocabulary/traits.js';
export { isUuidLike, normalizeUuid, UUID_PATTERN, UuidSchema } from './vocabulary/uuid.js';
export type { PlainScalarKind } from './yaml-schema.js';
export { plainScalarKind } from './yaml-schema.js';
