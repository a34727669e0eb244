// JavaScript has one number type; Python has two, and services print them
// differently (`2` against `2.0`, `12345678901234567890` in full). A value
// read from source text keeps what the text said in the one class below.
import { pyFloatRepr } from './float-repr.js';

const PY_NUMBER = Symbol.for('@stackspec/py-number');
const PY_FLOAT = Symbol.for('@stackspec/py-float');

function branded(candidate: unknown, brand: symbol): boolean {
  return (
    typeof candidate === 'object' &&
    candidate !== null &&
    (candidate as Record<symbol, unknown>)[brand] === true
  );
}

// The canonical spelling of an int literal: what Python's `str(int(text))` prints.
function canonicalInt(text: string): string {
  if (/^-?(?:0|[1-9][0-9]*)$/.test(text)) return text === '-0' ? '0' : text;
  try {
    return BigInt(text.replace(/_/g, '')).toString();
  } catch {
    return text;
  }
}

// Number() reads the JSON spellings; Python's reprs of the non-finite floats it does not.
function numberValue(text: string): number {
  const x = Number(text);
  if (!Number.isNaN(x) || text === 'NaN') return x;
  if (text === 'inf') return Number.POSITIVE_INFINITY;
  if (text === '-inf') return Number.NEGATIVE_INFINITY;
  return text === 'nan' ? Number.NaN : Number(text.replace(/_/g, ''));
}

/**
 * A Python number read from source text: an `int` or a `float`, with the text
 * it was written as. This is the one number type of stackspec's Python layer:
 * {@link pyJsonLoads} returns it for every JSON number, loaders of YAML wrap
 * integral floats in it (through {@link PyFloat}), and {@link pyRepr},
 * {@link pyStr}, {@link pyJsonDumps}, {@link pyEquals} and {@link pyTruthy}
 * understand it.
 *
 * `text` uses the JSON spelling (`12`, `-0`, `2.50`, `1e3`, `NaN`,
 * `-Infinity`) or Python's (`inf`, `nan`, `1_000`); it is not checked. `value` is the double Python would hold
 * for a float, and the nearest double for an int (ints past 2^53 keep their
 * exact digits in `text`). `toString()` gives Python's `str()`.
 *
 * Only `value` and `isFloat` are enumerable, so two numbers with the same
 * value and kind are deeply equal whatever their spelling. `instanceof`
 * works across the ESM and CommonJS copies of core.
 */
export class PyNumber {
  /** The double the number stands for. */
  readonly value: number;
  /** True for a Python `float`, false for an `int`. */
  readonly isFloat: boolean;
  /** The number as written (not enumerable). */
  declare readonly text: string;

  constructor(text: string, isFloat: boolean) {
    this.value = numberValue(text);
    this.isFloat = isFloat;
    Object.defineProperty(this, 'text', { value: text });
    Object.defineProperty(this, PY_NUMBER, { value: true });
  }

  /** Python's `str()` (and `repr()`) of the number: `2.0`, `1e-05`, `nan`, `12345678901234567890`. */
  toString(): string {
    return pyNumberRepr(this);
  }

  static [Symbol.hasInstance](candidate: unknown): boolean {
    return branded(candidate, PY_NUMBER) || branded(candidate, PY_FLOAT);
  }
}

/**
 * A Python `float` made from a JavaScript number: the way loaders keep a
 * float whose value is integral (`2.0`), which a plain number cannot tell
 * from the int `2`, so that {@link pyRepr} prints `2.0` and {@link pyEquals}
 * still finds `2.0 == 2`. Non-integral numbers need no wrapper: they are
 * floats already.
 *
 * It is a {@link PyNumber} (`text` is the float's repr), and every float
 * `PyNumber` counts as an `instanceof PyFloat`, whichever copy of core made it.
 */
export class PyFloat extends PyNumber {
  constructor(value: number) {
    super(pyFloatRepr(value), true);
    Object.defineProperty(this, PY_FLOAT, { value: true });
  }

  static override [Symbol.hasInstance](candidate: unknown): boolean {
    return (
      branded(candidate, PY_FLOAT) ||
      (branded(candidate, PY_NUMBER) && (candidate as { isFloat?: unknown }).isFloat === true)
    );
  }
}

/**
 * Python's `repr()` of a {@link PyNumber}, also of one made by another copy
 * of core: a float's shortest repr, an int's digits in canonical form.
 */
export function pyNumberRepr(n: PyNumber): string {
  if (n instanceof PyFloat) return pyFloatRepr(n.value);
  const text = (n as { text?: unknown }).text;
  return typeof text === 'string' ? canonicalInt(text) : String(n.value);
}

/** True when `value` is a float in Python's eyes: a float {@link PyNumber} or a non-integral number. */
export function isPyFloat(value: unknown): boolean {
  return value instanceof PyFloat || (typeof value === 'number' && !Number.isInteger(value));
}

/**
 * The numeric value of a Python number for comparisons: booleans as 0 and 1,
 * ints past 2^53 as exact bigints; `undefined` for anything that is not a number.
 */
export function pyNumericValue(value: unknown): number | bigint | undefined {
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (typeof value === 'number' || typeof value === 'bigint') return value;
  if (value instanceof PyNumber) {
    if (value instanceof PyFloat || Number.isSafeInteger(value.value)) return value.value;
    const text = (value as { text?: unknown }).text;
    try {
      return BigInt(typeof text === 'string' ? text.replace(/_/g, '') : value.value);
    } catch {
      return value.value;
    }
  }
  return undefined;
}
