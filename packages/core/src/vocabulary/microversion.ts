import { z } from 'zod';

/** A parsed API microversion `major.minor`. */
export interface Microversion {
  readonly major: number;
  readonly minor: number;
}

const VERSION = /^([1-9][0-9]*|0)\.([1-9][0-9]*|0)$/;

/**
 * Parses `"1.32"` into `{ major: 1, minor: 32 }`. Returns `undefined` for
 * anything else, including `latest` (see {@link negotiateMicroversion}),
 * leading zeros (`1.05`) and surrounding spaces.
 */
export function parseMicroversion(text: string): Microversion | undefined {
  const m = VERSION.exec(text);
  if (!m) return undefined;
  return { major: Number(m[1]), minor: Number(m[2]) };
}

/** Formats a microversion as `major.minor`. */
export function formatMicroversion(v: Microversion): string {
  return `${v.major}.${v.minor}`;
}

/** Negative, zero or positive as `a` is older than, equal to or newer than `b`. Strings are parsed first. */
export function compareMicroversions(a: Microversion | string, b: Microversion | string): number {
  const pa = typeof a === 'string' ? parseMicroversion(a) : a;
  const pb = typeof b === 'string' ? parseMicroversion(b) : b;
  if (!pa || !pb) throw new TypeError(`Not a microversion: ${!pa ? String(a) : String(b)}`);
  return pa.major - pb.major || pa.minor - pb.minor;
}

/** True when `version` is at least `minimum` (`isAtLeast(v, '1.32')`). */
export function isAtLeast(version: Microversion, minimum: Microversion | string): boolean {
  return compareMicroversions(version, minimum) >= 0;
}

/** A microversion string such as `1.32`, or `latest`. */
export const MicroversionSchema = z
  .string()
  .refine((s) => s === 'latest' || parseMicroversion(s) !== undefined, {
    message: 'must look like 1.32 or be latest',
  });

/** Where a service reads the version a client asks for. */
export interface MicroversionHeaderOptions {
  /** Service type in `OpenStack-API-Version: <service> <version>` (`placement`, `compute`, `baremetal`). */
  service: string;
  /** Older service-specific header, read when the standard one names no version for the service. */
  legacyHeader?: string;
}

/** Minimal header access, so plain objects and WHATWG `Headers` both work. */
export type HeaderSource = Headers | Readonly<Record<string, string | readonly string[] | undefined>>;

function getHeader(headers: HeaderSource, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const lower = name.toLowerCase();
  for (const [k, v] of Object.entries(headers as Record<string, string | readonly string[] | undefined>)) {
    if (k.toLowerCase() === lower && v !== undefined) return typeof v === 'string' ? v : v.join(',');
  }
  return undefined;
}

/**
 * The raw version text the client asked for, or `undefined` when it asked
 * for none. `OpenStack-API-Version` may list several services separated by
 * commas; only the entry for `service` counts (case-insensitively).
 */
export function readMicroversionHeader(
  headers: HeaderSource,
  options: MicroversionHeaderOptions,
): string | undefined {
  const standard = getHeader(headers, 'OpenStack-API-Version');
  if (standard !== undefined) {
    for (const part of standard.split(',')) {
      const [svc, ...rest] = part.trim().split(/\s+/);
      if (svc && svc.toLowerCase() === options.service.toLowerCase() && rest.length) return rest.join(' ');
    }
  }
  if (options.legacyHeader) {
    const legacy = getHeader(headers, options.legacyHeader);
    if (legacy !== undefined) return legacy.trim();
  }
  return undefined;
}

/** Options for {@link negotiateMicroversion}. */
export interface NegotiateOptions extends MicroversionHeaderOptions {
  min: Microversion | string;
  max: Microversion | string;
  /** Version used when the client asks for none (default: `min`). */
  defaultVersion?: Microversion | string;
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
  if (typeof v !== 'string') return v;
  const p = parseMicroversion(v);
  if (!p) throw new TypeError(`Not a microversion: ${v}`);
  return p;
}

/**
 * Picks the microversion for a request: none asked → the default, `latest`
 * → the maximum, anything unparsable → `invalid`, outside `[min, max]` →
 * `unsupported`.
 */
export function negotiateMicroversion(headers: HeaderSource, options: NegotiateOptions): NegotiateResult {
  const min = asVersion(options.min);
  const max = asVersion(options.max);
  const requested = readMicroversionHeader(headers, options);
  if (requested === undefined) {
    return { ok: true, version: asVersion(options.defaultVersion ?? min), requested };
  }
  if (requested.toLowerCase() === 'latest') return { ok: true, version: max, requested };
  const version = parseMicroversion(requested);
  if (!version) return { ok: false, reason: 'invalid', requested, min, max };
  if (compareMicroversions(version, min) < 0 || compareMicroversions(version, max) > 0) {
    return { ok: false, reason: 'unsupported', requested, version, min, max };
  }
  return { ok: true, version, requested };
}
