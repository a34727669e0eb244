import { z } from 'zod';
import { isPySpace, pyStrip } from '../python.js';
import { invalidResult, unwrapResult, type ValidationResult } from '../result.js';

/** A parsed API microversion `major.minor`. */
export interface Microversion {
  readonly major: number;
  readonly minor: number;
}

const VERSION = /^([1-9][0-9]*|0)\.([1-9][0-9]*|0)$/;

/**
 * Reads `"1.32"` as `{ major: 1, minor: 32 }`. Anything else fails with code
 * `microversion/invalid`, including `latest` (see {@link negotiateMicroversion}),
 * leading zeros (`1.05`) and surrounding spaces.
 */
export function validateMicroversion(text: string): ValidationResult<Microversion> {
  const m = typeof text === 'string' ? VERSION.exec(text) : null;
  if (!m) {
    return invalidResult({
      code: 'microversion/invalid',
      message: `${JSON.stringify(String(text))} is not a microversion: expected major.minor such as 1.32.`,
    });
  }
  return { ok: true, value: { major: Number(m[1]), minor: Number(m[2]) }, diagnostics: [] };
}

/** Like {@link validateMicroversion}, but returns the version or throws a `ValidationError`. */
export function parseMicroversion(text: string): Microversion {
  return unwrapResult(validateMicroversion(text));
}

/** Formats a microversion as `major.minor`. */
export function formatMicroversion(v: Microversion): string {
  return `${v.major}.${v.minor}`;
}

/**
 * Negative, zero or positive as `a` is older than, equal to or newer than `b`.
 * Strings are parsed first; one that is not a microversion throws a
 * `ValidationError` (`microversion/invalid`).
 */
export function compareMicroversions(a: Microversion | string, b: Microversion | string): number {
  const pa = typeof a === 'string' ? parseMicroversion(a) : a;
  const pb = typeof b === 'string' ? parseMicroversion(b) : b;
  return pa.major - pb.major || pa.minor - pb.minor;
}

/** True when `version` is at least `minimum` (`isAtLeast(v, '1.32')`). */
export function isAtLeast(version: Microversion, minimum: Microversion | string): boolean {
  return compareMicroversions(version, minimum) >= 0;
}

/** A microversion string such as `1.32`, or `latest`. */
export const MicroversionSchema = z.string().refine((s) => s === 'latest' || validateMicroversion(s).ok, {
  message: 'must look like 1.32 or be latest',
});

/** Where a service reads the version a client asks for. */
export interface MicroversionHeaderOptions {
  /** Service type in `OpenStack-API-Version: <service> <version>` (`placement`, `compute`, `baremetal`). */
  service: string;
  /**
   * Older service-specific header(s) (`X-OpenStack-Nova-API-Version`), read
   * in order when the standard one names no version for the service. A header
   * sent several times (or holding commas) counts by its last value.
   */
  legacyHeader?: string | readonly string[];
}

/** Minimal header access, so plain objects and WHATWG `Headers` both work. */
export type HeaderSource = Headers | Readonly<Record<string, string | readonly string[] | undefined>>;

/**
 * A header's value, with repeated headers folded into one comma-separated
 * value. In a plain object, names are compared case-insensitively and the
 * last matching key wins (as Python's dict of lower-cased names does).
 */
function getHeader(headers: HeaderSource, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const lower = name.toLowerCase();
  let found: string | undefined;
  for (const [k, v] of Object.entries(headers as Record<string, string | readonly string[] | undefined>)) {
    if (k.toLowerCase() === lower && v !== undefined) found = typeof v === 'string' ? v : v.join(',');
  }
  return found;
}

/** Python's `text.strip().split(None, 1)`. */
function splitOnce(text: string): string[] {
  const body = pyStrip(text);
  let i = 0;
  while (i < body.length && !isPySpace(body.charAt(i))) i += 1;
  if (i === body.length) return body ? [body] : [];
  let j = i;
  while (j < body.length && isPySpace(body.charAt(j))) j += 1;
  return [body.slice(0, i), body.slice(j)];
}

/**
 * The raw version text the client asked for, or `undefined` when it asked
 * for none, read exactly as the `microversion_parse` library (which Nova and
 * Placement use) reads it: in `OpenStack-API-Version`, the last
 * comma-separated `<service> <version>` entry for `service` counts
 * (service compared case-insensitively, the version stripped but otherwise
 * kept); without one, the first legacy header present gives its last
 * comma-separated value, stripped (possibly empty).
 *
 * @example
 * readMicroversionHeader(new Headers({ 'OpenStack-API-Version': 'compute 2.1, compute 2.60' }), { service: 'compute' }); // '2.60'
 */
export function readMicroversionHeader(
  headers: HeaderSource,
  options: MicroversionHeaderOptions,
): string | undefined {
  const standard = getHeader(headers, 'OpenStack-API-Version');
  if (standard !== undefined) {
    const service = options.service.toLowerCase();
    const entries = standard.split(',');
    for (let i = entries.length - 1; i >= 0; i -= 1) {
      const parts = splitOnce(entries[i] as string);
      if (parts.length === 2 && (parts[0] as string).toLowerCase() === service)
        return pyStrip(parts[1] as string);
    }
  }
  const legacy = options.legacyHeader;
  for (const name of legacy === undefined ? [] : typeof legacy === 'string' ? [legacy] : legacy) {
    const value = getHeader(headers, name);
    if (value !== undefined) return pyStrip(value.slice(value.lastIndexOf(',') + 1));
  }
  return undefined;
}

/** Options for {@link negotiateMicroversion}. */
export interface NegotiateOptions extends MicroversionHeaderOptions {
  min: Microversion | string;
  max: Microversion | string;
  /** Version used when the client asks for none (default: `min`). */
  defaultVersion?: Microversion | string;
  /**
   * How `latest` is recognised: `exact` (default) takes only `latest`, as
   * Nova and Placement do; `any-case` also takes `LATEST` or `Latest`, as
   * Ironic does.
   */
  latest?: 'exact' | 'any-case';
}

/** Outcome of {@link negotiateMicroversion}; services turn the failures into their own 400/406 wording. */
export type NegotiateResult =
  | { ok: true; version: Microversion; requested: string | undefined }
  | { ok: false; reason: 'invalid'; requested: string; min: Microversion; max: Microversion }
  | {
      ok: false;
      reason: 'unsupported';
      requested: string;
      version: Microversion;
      min: Microversion;
      max: Microversion;
    };

function asVersion(v: Microversion | string): Microversion {
  return typeof v === 'string' ? parseMicroversion(v) : v;
}

/**
 * Picks the microversion for a request: none asked → the default, `latest`
 * → the maximum, anything unparsable (including an empty legacy header) →
 * `invalid`, outside `[min, max]` → `unsupported`. Headers are read with
 * {@link readMicroversionHeader}.
 */
export function negotiateMicroversion(headers: HeaderSource, options: NegotiateOptions): NegotiateResult {
  const min = asVersion(options.min);
  const max = asVersion(options.max);
  const requested = readMicroversionHeader(headers, options);
  if (requested === undefined) {
    return { ok: true, version: asVersion(options.defaultVersion ?? min), requested };
  }
  const latest = options.latest === 'any-case' ? requested.toLowerCase() : requested;
  if (latest === 'latest') return { ok: true, version: max, requested };
  const parsed = validateMicroversion(requested);
  if (!parsed.ok) return { ok: false, reason: 'invalid', requested, min, max };
  const version = parsed.value;
  if (compareMicroversions(version, min) < 0 || compareMicroversions(version, max) > 0) {
    return { ok: false, reason: 'unsupported', requested, version, min, max };
  }
  return { ok: true, version, requested };
}
