// Nova reads extra spec values with Python's `int()` and oslo's
// `bool_from_string(strict=True)`; both accept more than a casual reading of
// "integer" or "boolean" suggests. `int()` itself is core's `pyInt`; this
// file keeps oslo's boolean words and the integer result shape this
// package has always exported.

import { invalidResult, pyInt, pyStrip, unwrapResult, type ValidationResult } from '@stackspec/core';
import { requireString } from './guards.js';

/** Value of {@link validatePythonInt}: the integer in canonical decimal form. */
export interface PythonInt {
  /** True below zero (`-0` parses as zero, not negative). */
  readonly negative: boolean;
  /** Canonical digits without sign or leading zeros (`'0'` for zero). */
  readonly digits: string;
}

/**
 * Reads text the way Python's `int(text)` does (base 10), through core's
 * `pyInt`: surrounding whitespace, one sign, digits from any script,
 * single underscores between digits, at most 4,300 digits. Fails with code
 * `extra-specs/invalid-integer` and Python's own `ValueError` message
 * wherever Python raises.
 */
export function validatePythonInt(text: string): ValidationResult<PythonInt> {
  requireString(text, 'The text of validatePythonInt');
  const r = pyInt(text);
  if (!r.ok) return invalidResult({ code: 'extra-specs/invalid-integer', message: r.message });
  const negative = r.value < 0n;
  return {
    ok: true,
    value: { negative, digits: (negative ? -r.value : r.value).toString() },
    diagnostics: [],
  };
}

/** Like {@link validatePythonInt}, but returns the integer or throws a `ValidationError`. */
export function parsePythonInt(text: string): PythonInt {
  return unwrapResult(validatePythonInt(text));
}

const TRUE_WORDS = new Set(['1', 't', 'true', 'on', 'y', 'yes']);
const FALSE_WORDS = new Set(['0', 'f', 'false', 'off', 'n', 'no']);

/** The words (after trimming and lower-casing) that oslo reads as booleans. */
export const BOOL_WORDS: readonly string[] = [...TRUE_WORDS, ...FALSE_WORDS];

/** oslo's boolean reading, or `undefined` where it raises: the shared core of the two functions below. */
export function pythonBoolOf(text: string): boolean | undefined {
  const lowered = pyStrip(text).toLowerCase();
  if (TRUE_WORDS.has(lowered)) return true;
  if (FALSE_WORDS.has(lowered)) return false;
  return undefined;
}

/**
 * oslo.utils' `bool_from_string(text, strict=True)`: trims Python
 * whitespace, lower-cases, then accepts `1 t true on y yes` and
 * `0 f false off n no`. Fails with code `extra-specs/invalid-boolean` and
 * oslo's message where oslo raises.
 */
export function validatePythonBool(text: string): ValidationResult<boolean> {
  requireString(text, 'The text of validatePythonBool');
  const value = pythonBoolOf(text);
  if (value === undefined) {
    const accepted = [...BOOL_WORDS].sort().map((w) => `'${w}'`);
    return invalidResult({
      code: 'extra-specs/invalid-boolean',
      message: `Unrecognized value ${JSON.stringify(text)}, acceptable values are: ${accepted.join(', ')}.`,
    });
  }
  return { ok: true, value, diagnostics: [] };
}

/** Like {@link validatePythonBool}, but returns the boolean or throws a `ValidationError`. */
export function parsePythonBool(text: string): boolean {
  return unwrapResult(validatePythonBool(text));
}
