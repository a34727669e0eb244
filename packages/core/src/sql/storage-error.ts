// A database failure as one of core's errors: the caller words the message
// (it names its own storage), this adds the status, the cause, and the hint
// for the one failure an operator fixes in a known way, a missing right.
import { createDiagnostic } from '../diagnostic.js';
import { HttpError, isStackspecError, type StackspecError } from '../errors.js';

/** The SQLSTATE of an error from `pg` or PGlite (`42501`), or `undefined` for anything else. */
export function sqlStateOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null | undefined)?.code;
  return typeof code === 'string' ? code : undefined;
}

/** SQLSTATE `insufficient_privilege`: the role lacks a right on an object. */
export const INSUFFICIENT_PRIVILEGE = '42501';

/** Options for {@link sqlStorageError}. */
export interface SqlStorageErrorOptions {
  /** The sentence to report, with the database's reason in it. */
  message: string;
  /** The error's code, the caller's `<area>/storage`. */
  code: string;
  /** The code of its one diagnostic, when it differs from `code`. */
  diagnosticCode?: string;
  /** The command that creates and upgrades the tables, for the hint (`my-store migrate`). */
  migrateCommand: string;
}

/**
 * Wraps a failure of the database in core's error family: an `HttpError`
 * 500 with `code`, the failure as `cause`, and one diagnostic, which has a
 * hint naming `migrateCommand` and the rights a serving role needs when the
 * failure is a missing right (SQLSTATE 42501). One of core's errors is
 * returned as it is.
 *
 * @example
 * catch (e) {
 *   const message = `The thing storage failed: ${describeError(e)}`;
 *   throw sqlStorageError(e, { message, code: MY_STORAGE, migrateCommand: 'my-store migrate' });
 * }
 */
export function sqlStorageError(error: unknown, options: SqlStorageErrorOptions): StackspecError {
  if (isStackspecError(error)) return error;
  const { message } = options;
  const hint =
    sqlStateOf(error) === INSUFFICIENT_PRIVILEGE
      ? `The database role lacks a right: create or upgrade the tables with ${options.migrateCommand} as their owner, and grant the serving role USAGE on the schema and its sequences and SELECT, INSERT, UPDATE, DELETE on its tables.`
      : undefined;
  return new HttpError(500, message, {
    code: options.code,
    cause: error,
    diagnostics: [
      createDiagnostic({ code: options.diagnosticCode ?? options.code, message, ...(hint ? { hint } : {}) }),
    ],
  });
}
