import {
  ConflictError,
  createDiagnostic,
  isStackspecError,
  NotFoundError,
  type StackspecError,
  ValidationError,
} from '@stackspec/core';
import { PLACEMENT_ERROR_CODES, type PlacementErrorCode } from '../errors.js';

/**
 * A refusal of the service in Placement's words: core's `ValidationError`
 * (400), `NotFoundError` (404) or `ConflictError` (409) whose `code` is
 * Placement's error code (what its bodies carry from 1.23) and whose one
 * diagnostic carries our own `placement-query/…` code.
 */
export function refusal(
  status: 400 | 404 | 409,
  message: string,
  diagnostic: string,
  code: PlacementErrorCode = PLACEMENT_ERROR_CODES.default,
): StackspecError {
  const options = { code, diagnostics: [createDiagnostic({ code: diagnostic, message })] };
  if (status === 404) return new NotFoundError(message, options);
  if (status === 409) return new ConflictError(message, options);
  return new ValidationError(message, options);
}

/** Placement's 409 for a stale provider generation, in the words of the operation that found it. */
export function generationConflict(message: string): StackspecError {
  return refusal(409, message, 'placement-query/generation-conflict', PLACEMENT_ERROR_CODES.concurrentUpdate);
}

/**
 * Runs a write of the store; a refusal it throws is put in the words
 * Placement uses for this operation when `reword` gives some (by the
 * refusal's status and message), and passes through as it is otherwise.
 */
export function rewordRefusal<T>(
  write: () => T,
  reword: (status: number, message: string) => StackspecError | undefined,
): T {
  try {
    return write();
  } catch (e) {
    if (!isStackspecError(e)) throw e;
    throw reword(e.status, e.message) ?? e;
  }
}
