/** The Python exceptions stackspec's Python layer reproduces. */
export type PyExceptionName = 'ValueError' | 'JSONDecodeError' | 'RecursionError';

/**
 * Why a Python conversion failed: the exception CPython raises and its
 * `str()`, word for word (`invalid literal for int() with base 10: 'x'`), so
 * that services which put it in their messages can be mirrored exactly.
 */
export interface PyFailure {
  readonly ok: false;
  /** The class of the exception (`JSONDecodeError` is a `ValueError` in Python). */
  readonly exception: PyExceptionName;
  /** `str(exception)` as CPython 3.11 words it. */
  readonly message: string;
  /** For `JSONDecodeError`: the message without its position (`Expecting value`). */
  readonly reason?: string;
  /** For `JSONDecodeError`: the offset in code points, as Python counts `char`. */
  readonly position?: number;
  /** For `JSONDecodeError`: the 1-based line of `position`. */
  readonly line?: number;
  /** For `JSONDecodeError`: the 1-based column of `position`, in code points. */
  readonly column?: number;
}

/** The outcome of a Python conversion: the value, or the exception Python raises. */
export type PyResult<T> = { readonly ok: true; readonly value: T } | PyFailure;
