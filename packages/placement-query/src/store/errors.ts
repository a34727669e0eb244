import {
  createDiagnostic,
  describeError,
  HttpError,
  isStackspecError,
  type StackspecError,
} from '@stackspec/core';
import { sqlStorageError } from '@stackspec/core/sql';
import { PLACEMENT_ERROR_CODES } from '../errors.js';

/** Codes of PostgreSQL errors a write retries after catching up: another server won a race. */
const RACE_CODES = new Set([
  '40001', // serialization_failure
  '40P01', // deadlock_detected
  '23505', // unique_violation: a name or uuid taken meanwhile
  '23503', // foreign_key_violation: a trait, class or parent removed meanwhile
]);

/** Whether a failed write lost a race it may win after catching up. */
export function isRace(error: unknown): boolean {
  if (error instanceof StaleStateError) return true;
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && RACE_CODES.has(code);
}

/** Whether an error means the database could not be reached (or dropped the connection). */
export function isUnreachable(error: unknown): boolean {
  const e = error as { code?: unknown; message?: unknown } | null;
  const code = typeof e?.code === 'string' ? e.code : '';
  if (/^(ECONN|ENOTFOUND|EAI_AGAIN|EPIPE|ETIMEDOUT|EHOSTUNREACH|ENETUNREACH)/.test(code)) return true;
  // 08: connection exceptions; 57P01-57P03: the server is shutting down or starting.
  if (code.startsWith('08') || code === '57P01' || code === '57P02' || code === '57P03') return true;
  const message = typeof e?.message === 'string' ? e.message : '';
  return /Connection terminated|connection timeout|timeout exceeded when trying to connect|Client has encountered a connection error|Client was closed/i.test(
    message,
  );
}

/**
 * The database no longer matches the in-memory state for a row the write
 * locked (a generation compared in the database, a row that should exist):
 * the write is retried after catching up.
 */
export class StaleStateError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StaleStateError';
  }
}

/** The 503 of a server that cannot reach its database, in Placement's error body. */
export function storeUnavailable(reason: string, cause?: unknown): StackspecError {
  const message = `The Placement database cannot be reached (${reason}); this server does not answer until it has caught up again.`;
  return new HttpError(503, message, {
    code: PLACEMENT_ERROR_CODES.default,
    ...(cause === undefined ? {} : { cause }),
    diagnostics: [
      createDiagnostic({
        code: 'placement-query/store-unavailable',
        message,
        hint: 'Retry shortly; /healthz says when the server is current again.',
      }),
    ],
  });
}

/** A storage failure other than a refusal or a lost connection: Placement's 500, with the database's reason. */
export function storageError(error: unknown): StackspecError {
  if (isStackspecError(error)) return error;
  if (isUnreachable(error)) return storeUnavailable(describeError(error), error);
  const message = `The Placement storage failed: ${describeError(error)}`;
  return sqlStorageError(error, {
    message,
    code: PLACEMENT_ERROR_CODES.default,
    diagnosticCode: 'placement-query/storage',
    migrateCommand: 'stackspec-placement migrate',
  });
}
