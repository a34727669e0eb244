import { createDiagnostic, type Diagnostic } from './diagnostic.js';

const BRAND = Symbol.for('@stackspec/error');

/** The kinds of error core defines; each maps to an HTTP status and a CLI exit code. */
export type ErrorKind = 'validation' | 'spec' | 'not-found' | 'conflict' | 'usage' | 'http';

/** Options shared by every error constructor. */
export interface StackspecErrorOptions {
  /** Permanent `area/kebab-case` code; defaults per kind. */
  code?: string;
  /** Every problem found; when empty, one diagnostic is made from the message. */
  diagnostics?: readonly Diagnostic[];
  /** The foreign error this one wraps (from `pg`, `ssh2`, the YAML parser…). */
  cause?: unknown;
}

/**
 * Base of core's error family. Every instance carries a permanent `code`, the
 * HTTP `status` a server answers with, and the `diagnostics` that explain it.
 *
 * Use {@link isStackspecError} rather than `instanceof`: the ESM and CommonJS
 * builds of core may both be loaded, and each has its own class objects.
 */
export class StackspecError extends Error {
  readonly code: string;
  readonly status: number;
  readonly kind: ErrorKind;
  readonly diagnostics: Diagnostic[];

  constructor(kind: ErrorKind, status: number, message: string, options: StackspecErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'StackspecError';
    this.kind = kind;
    this.status = status;
    this.code = options.code ?? defaultCode(kind);
    this.diagnostics = options.diagnostics?.length
      ? [...options.diagnostics]
      : [createDiagnostic({ code: this.code, message })];
    Object.defineProperty(this, BRAND, { value: true });
  }
}

function defaultCode(kind: ErrorKind): string {
  switch (kind) {
    case 'validation':
      return 'validation/invalid';
    case 'spec':
      return 'spec/invalid';
    case 'not-found':
      return 'http/not-found';
    case 'conflict':
      return 'http/conflict';
    default:
      return 'http/error';
  }
}

function messageOf(message: string | undefined, diagnostics: readonly Diagnostic[] | undefined): string {
  if (message) return message;
  const first = diagnostics?.find((d) => d.severity === 'error') ?? diagnostics?.[0];
  if (!first) return 'The input is not valid.';
  const where = first.file
    ? `${first.file}${first.line ? `:${first.line}${first.column ? `:${first.column}` : ''}` : ''}: `
    : '';
  const more = diagnostics && diagnostics.length > 1 ? ` (and ${diagnostics.length - 1} more)` : '';
  return `${where}${first.message}${more}`;
}

/** Bad user input (HTTP 400): a document, a request or a value that breaks the rules. */
export class ValidationError extends StackspecError {
  constructor(message?: string, options: StackspecErrorOptions = {}) {
    super('validation', 400, messageOf(message, options.diagnostics), options);
    this.name = 'ValidationError';
  }
}

/**
 * A specification (a definition, a spec file, a plugin) that is malformed and
 * cannot be used at all. Reported as HTTP 400 when it arrives in a request and
 * as a usage error (exit 2) on the command line.
 */
export class SpecError extends StackspecError {
  constructor(message?: string, options: StackspecErrorOptions = {}) {
    super('spec', 400, messageOf(message, options.diagnostics), options);
    this.name = 'SpecError';
  }
}

/** A named thing does not exist (HTTP 404). */
export class NotFoundError extends StackspecError {
  constructor(message: string, options: StackspecErrorOptions = {}) {
    super('not-found', 404, message, options);
    this.name = 'NotFoundError';
  }
}

/** A write clashes with existing state: a duplicate name, a stale generation (HTTP 409). */
export class ConflictError extends StackspecError {
  constructor(message: string, options: StackspecErrorOptions = {}) {
    super('conflict', 409, message, options);
    this.name = 'ConflictError';
  }
}

/**
 * Any other HTTP outcome a handler must produce with a specific status
 * (403 policy, 405 method, 406 version…).
 */
export class HttpError extends StackspecError {
  constructor(status: number, message: string, options: StackspecErrorOptions = {}) {
    super('http', status, message, options);
    this.name = 'HttpError';
  }
}

/** True for any error of core's family, whichever copy of core created it. */
export function isStackspecError(value: unknown): value is StackspecError {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[BRAND] === true;
}

/** Narrows to a stackspec error of one kind. */
export function isErrorKind<K extends ErrorKind>(
  value: unknown,
  kind: K,
): value is StackspecError & { kind: K } {
  return isStackspecError(value) && value.kind === kind;
}

/** Text of any thrown value, for wrapping foreign errors. */
export function describeError(value: unknown): string {
  if (value instanceof Error) return value.message;
  if (typeof value === 'string') return value;
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
