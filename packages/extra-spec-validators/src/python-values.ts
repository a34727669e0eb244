// Nova reads extra spec values with Python's `int()` and oslo's
// `bool_from_string(strict=True)`; both accept more than a casual reading of
// "integer" or "boolean" suggests. `int()` itself is core's `pyInt`; this
// file keeps oslo's boolean words and the integer result shape this
// package has always exported.

import { pyInt, pyStrip } from '@stackspec/core';
import { requireString } from './guards.js';

/** Result of {@link parsePythonInt}: the integer in canonical decimal form. */
export interface PythonInt {
  /** True below zero (`-0` parses as zero, not negative). */
  readonly negative: boolean;
  /** Canonical digits without sign or leading zeros (`'0'` for zero). */
  readonly digits: string;
}

/**
 * Parses text the way Python's `int(text)` does (base 10), through core's
 * `pyInt`: surrounding whitespace, one sign, digits from any script,
 * single underscores between digits, at most 4,300 digits. Returns
 * `undefined` wherever Python raises `ValueError` (`pyInt` also gives
 * Python's message).
 */
export function parsePythonInt(text: string): PythonInt | undefined {
  requireString(text, 'The text of parsePythonInt');
  const r = pyInt(text);
  if (!r.ok) return undefined;
  const negative = r.value < 0n;
  return { negative, digits: (negative ? -r.value : r.value).toString() };
}

const TRUE_WORDS = new Set(['1', 't', 'true', 'on', 'y', 'yes']);
const FALSE_WORDS = new Set(['0', 'f', 'false', 'off', 'n', 'no']);

/** The words (after trimming and lower-casing) that oslo reads as booleans. */
export const BOOL_WORDS: readonly string[] = [...TRUE_WORDS, ...FALSE_WORDS];

/**
 * oslo.utils' `bool_from_string(text, strict=True)`: trims Python
 * whitespace, lower-cases, then accepts `1 t true on y yes` and
 * `0 f false off n no`. Returns `undefined` where oslo raises.
 */
export function parsePythonBool(text: string): boolean | undefined {
  requireString(text, 'The text of parsePythonBool');
  const lowered = pyStrip(text).toLowerCase();
  if (TRUE_WORDS.has(lowered)) return true;
  if (FALSE_WORDS.has(lowered)) return false;
  return undefined;
}
