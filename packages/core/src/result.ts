import { createDiagnostic, type Diagnostic, type DiagnosticInit } from './diagnostic.js';
import { ValidationError } from './errors.js';

/**
 * Outcome of every `validateX` function: the value (with any warnings), or
 * every problem found. Its throwing twin `parseX` returns the value or throws
 * the `ValidationError` that {@link unwrapResult} makes of the diagnostics.
 */
export type ValidationResult<T> =
  | { ok: true; value: T; diagnostics: Diagnostic[] }
  | { ok: false; value?: undefined; diagnostics: Diagnostic[] };

/** A failed result holding one diagnostic (severity `error` unless `init` says otherwise). */
export function invalidResult(init: DiagnosticInit): {
  ok: false;
  value?: undefined;
  diagnostics: Diagnostic[];
} {
  return { ok: false, diagnostics: [createDiagnostic(init)] };
}

/**
 * The `ValidationError` a `parseX` function throws for failed diagnostics: its
 * code is the first error's (the first diagnostic's when none is an error),
 * and it carries all of them.
 */
export function validationErrorOf(diagnostics: readonly Diagnostic[]): ValidationError {
  const first = diagnostics.find((d) => d.severity === 'error') ?? diagnostics[0];
  return new ValidationError(undefined, { code: first?.code, diagnostics });
}

/**
 * The value of a successful result; for a failed one, throws
 * {@link validationErrorOf} its diagnostics. This is how every `parseX`
 * is written over its `validateX`.
 *
 * @example
 * export const parseMicroversion = (text: string) => unwrapResult(validateMicroversion(text));
 */
export function unwrapResult<T>(result: ValidationResult<T>): T {
  if (!result.ok) throw validationErrorOf(result.diagnostics);
  return result.value;
}
