// Core's argument checks with this package's codes, at its public entry points.
import {
  optionsOf as coreOptionsOf,
  requireString as coreRequireString,
  kindOf,
  SpecError,
} from '@stackspec/core';

/**
 * Throws `SpecError` (`extra-specs/invalid-type`) unless `value` is a
 * string; `what` names the argument in the message (`the key of anchorOf`).
 */
export function requireString(value: unknown, what: string): asserts value is string {
  coreRequireString(value, what, 'extra-specs/invalid-type');
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
  return coreOptionsOf(options, fn, 'extra-specs/bad-option');
}
