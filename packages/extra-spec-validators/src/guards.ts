// Checks at the public entry points for arguments of the wrong type, so that
// JavaScript callers (and values read from configuration) get one of our
// errors saying what was expected instead of a TypeError from deep inside.
import { SpecError } from '@stackspec/core';

/** `a number`, `null`, `a list`: what a value is, for messages. */
export function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (value === undefined) return 'undefined';
  if (Array.isArray(value)) return 'a list';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/**
 * Throws `SpecError` (`extra-specs/invalid-type`) unless `value` is a
 * string; `what` names the argument in the message (`the key of anchorOf`).
 */
export function requireString(value: unknown, what: string): asserts value is string {
  if (typeof value !== 'string') {
    throw new SpecError(`${what} must be a string, but it is ${kindOf(value)}.`, {
      code: 'extra-specs/invalid-type',
    });
  }
}

/**
 * Throws `SpecError` (`extra-specs/bad-definition`) unless `value` looks
 * like a definition (an object with a string `name`).
 */
export function requireDefinition(value: unknown, fn: string): void {
  if (!value || typeof value !== 'object' || typeof (value as { name?: unknown }).name !== 'string') {
    throw new SpecError(`${fn} takes a definition made by defineExtraSpec, but got ${kindOf(value)}.`, {
      code: 'extra-specs/bad-definition',
    });
  }
}

/** `options`, or `{}` when it is absent or null; throws `SpecError` (`extra-specs/bad-option`) for a non-object. */
export function optionsOf<T extends object>(options: T | null | undefined, fn: string): Partial<T> {
  if (options === undefined || options === null) return {};
  if (typeof options !== 'object' || Array.isArray(options)) {
    throw new SpecError(`The options of ${fn} must be an object, but they are ${kindOf(options)}.`, {
      code: 'extra-specs/bad-option',
    });
  }
  return options;
}
