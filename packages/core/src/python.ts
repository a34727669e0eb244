// Python's semantics as OpenStack services apply them: int() and float() of
// text, repr() and str(), json.dumps and json.loads, strip() and isspace(),
// == and truthiness, sorted(). The services build messages and bodies with
// these rules and clients match on the result, so every package that mirrors
// a service uses this one copy, proven against CPython by
// test/python-conformance.test.ts. One concept per file under ./python/.
export { pyFloat } from './python/float.js';
export { pyFloatRepr } from './python/float-repr.js';
export { PY_INT_MAX_DIGITS, pyDecimalValue, pyInt } from './python/int.js';
export { type PyJsonDumpsOptions, pyJsonDumps } from './python/json-dumps.js';
export {
  PY_JSON_MAX_DEPTH,
  type PyJsonLoadsOptions,
  type PyJsonMapValue,
  pyJsonLoads,
} from './python/json-loads.js';
export { isPyFloat, PyFloat, PyNumber, pyNumericValue } from './python/number.js';
export { pyNumberText, pyRepr, pyReprPrefix, pyStr } from './python/repr.js';
export type { PyExceptionName, PyFailure, PyResult } from './python/result.js';
export {
  isPySpace,
  isPySpaceCode,
  pyCompare,
  pyLstrip,
  pyRstrip,
  pySortedSet,
  pyStrip,
} from './python/text.js';
export { type PyMapping, type PyValue, pyEquals, pyTruthy } from './python/value.js';
