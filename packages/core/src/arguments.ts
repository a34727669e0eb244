// Checks at public entry points for arguments of the wrong type, so that
// JavaScript callers (and values read from configuration) get one of our
// errors saying what was expected, not a TypeError from deep inside.
import { SpecError } from './errors.js';

/** The code used when a package gives none. */
export const INVALID_ARGUMENT = 'validation/invalid-argument';

/** `a number`, `null`, `a list`, `an object`: what a value is, for messages. */
export function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (value === undefined) return 'undefined';
  if (Array.isArray(value)) return 'a list';
  if (value instanceof Uint8Array) return 'bytes';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

function refuse(what: string, expected: string, value: unknown, code: string): never {
  throw new SpecError(`${what} must be ${expected}, but it is ${kindOf(value)}.`, { code });
}

/**
 * Throws `SpecError` (`code`, by default `validation/invalid-argument`)
 * unless `value` is a string; `what` names the argument in the message
 * (`The text of validateTemplate`).
 */
export function requireString(
  value: unknown,
  what: string,
  code = INVALID_ARGUMENT,
): asserts value is string {
  if (typeof value !== 'string') refuse(what, 'a string', value, code);
}

/** Like {@link requireString}, for bytes (`Uint8Array`, of which `Buffer` is one). */
export function requireBytes(
  value: unknown,
  what: string,
  code = INVALID_ARGUMENT,
): asserts value is Uint8Array {
  if (!(value instanceof Uint8Array)) refuse(what, 'bytes (a Uint8Array)', value, code);
}

/** Like {@link requireString}, for a plain object (not null, not a list). */
export function requireObject(
  value: unknown,
  what: string,
  code = INVALID_ARGUMENT,
): asserts value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    refuse(what, 'an object', value, code);
}

/**
 * `options`, or `{}` when absent or null; throws `SpecError` (`code`, by
 * default `validation/invalid-argument`) for options that are not an object.
 */
export function optionsOf<T extends object>(
  options: T | null | undefined,
  fn: string,
  code = INVALID_ARGUMENT,
): Partial<T> {
  if (options === undefined || options === null) return {};
  if (typeof options !== 'object' || Array.isArray(options))
    refuse(`The options of ${fn}`, 'an object', options, code);
  return options;
}
