import {
  compareMicroversions,
  formatMicroversion,
  invalidResult,
  type Microversion,
  pyInt,
  readMicroversionHeader,
  unwrapResult,
  type ValidationResult,
} from '@stackspec/core';
import type { IronicProfile } from './profile.js';

/** Oldest microversion Ironic serves. */
export const MIN_VERSION = '1.1';
/** The microversion that introduced deploy templates. */
export const DEPLOY_TEMPLATES_VERSION = '1.55';
/**
 * Newest microversion that still strips a trailing `.json` from identifiers
 * (when Ironic's own header asks for it: see {@link stripsJsonSuffix}).
 */
export const LAST_JSON_SUFFIX_VERSION = '1.90';

/** Ironic's version header (request and response). */
export const VERSION_HEADER = 'X-OpenStack-Ironic-API-Version';
/** Response header with the oldest supported version. */
export const MIN_VERSION_HEADER = 'X-OpenStack-Ironic-API-Minimum-Version';
/** Response header with the newest supported version. */
export const MAX_VERSION_HEADER = 'X-OpenStack-Ironic-API-Maximum-Version';

/** Outcome of {@link negotiateVersion}. */
export type VersionResult =
  | { ok: true; version: Microversion }
  | { ok: false; message: string; withRange: boolean };

/**
 * Reads `1.55` the way Ironic does: Python `int()` on each part (core's
 * `pyInt`), so `01.055` is 1.55 and ` 1. 55 ` is too; a part int() refuses
 * makes the whole version invalid (code `deploy-templates/invalid-version`). Core's
 * `validateMicroversion` is stricter and is what Nova and Placement do.
 */
export function validateApiVersion(text: string): ValidationResult<Microversion> {
  const parts = typeof text === 'string' ? text.split('.') : [];
  const [major, minor] = parts.length === 2 ? parts.map(pyInt) : [];
  if (!major?.ok || !minor?.ok) {
    return invalidResult({
      code: 'deploy-templates/invalid-version',
      message: `${JSON.stringify(String(text))} is not an API version: expected major.minor such as 1.55.`,
    });
  }
  return { ok: true, value: { major: Number(major.value), minor: Number(minor.value) }, diagnostics: [] };
}

/** Like {@link validateApiVersion}, but returns the version or throws a `ValidationError`. */
export function parseApiVersion(text: string): Microversion {
  return unwrapResult(validateApiVersion(text));
}

/**
 * The raw version a request asks for, or `undefined` for none. Ironic 21.4
 * reads only its own header. Newer Ironic reads both headers with
 * `microversion_parse` (as core's `readMicroversionHeader` does): the last
 * `baremetal` entry of `OpenStack-API-Version` first, else the last
 * comma-separated value of its own header; an empty value there counts as
 * none.
 */
function requestedVersion(headers: Headers, profile: IronicProfile): string | undefined {
  if (profile.release !== 'latest') return headers.get(VERSION_HEADER) ?? undefined;
  return readMicroversionHeader(headers, { service: 'baremetal', legacyHeader: VERSION_HEADER }) || undefined;
}

/**
 * The microversion a request asks for, with Ironic's rules: no header means
 * the minimum (1.1), `latest` (in any case) the maximum; a malformed value,
 * another major version or one out of range is a 406 (`withRange`: the
 * response carries the min/max headers). The newest profile also reads
 * `OpenStack-API-Version: baremetal X.Y`, which wins over Ironic's own
 * header there, as it does in Ironic since it adopted `microversion_parse`.
 */
export function negotiateVersion(headers: Headers, profile: IronicProfile): VersionResult {
  const raw = requestedVersion(headers, profile);
  const text = raw === undefined ? MIN_VERSION : raw.toLowerCase() === 'latest' ? profile.maxVersion : raw;
  const parsed = validateApiVersion(text);
  if (!parsed.ok)
    return { ok: false, message: `Invalid value for ${VERSION_HEADER} header`, withRange: false };
  const version = parsed.value;
  const range = `The supported version range is: [${MIN_VERSION}, ${profile.maxVersion}].`;
  if (version.major !== 1) {
    return {
      ok: false,
      withRange: true,
      message: `Mutually exclusive versions requested. Version ${formatMicroversion(version)} requested but not supported by this service. ${range}`,
    };
  }
  if (
    compareMicroversions(version, MIN_VERSION) < 0 ||
    compareMicroversions(version, profile.maxVersion) > 0
  ) {
    return {
      ok: false,
      withRange: true,
      message: `Version ${formatMicroversion(version)} was requested but the minor version is not supported by this service. ${range}`,
    };
  }
  return { ok: true, version };
}

/**
 * Whether Ironic drops a trailing `.json` from this request's path before
 * routing it (and then also looks the identifier up with the suffix put
 * back). Ironic 21.4 always does. The newest Ironic decides before any
 * negotiation and from its own header alone: only when
 * `X-OpenStack-Ironic-API-Version` holds a version whose minor part is
 * not 0 and at most 90 ({@link LAST_JSON_SUFFIX_VERSION}); the major part
 * is not looked at. So no header, `latest`, or a
 * version sent only as `OpenStack-API-Version: baremetal 1.60` keep the
 * suffix as part of the identifier, whatever version is negotiated.
 * (Ironic fails with a 500 when that header cannot be parsed on a `.json`
 * path; here it simply does not strip.)
 */
export function stripsJsonSuffix(headers: Headers, profile: IronicProfile): boolean {
  if (profile.release !== 'latest') return true;
  const asked = validateApiVersion(headers.get(VERSION_HEADER) ?? '').value;
  // Only the minor part counts, and 0 reads as false, as in Ironic's middleware.
  return (
    asked !== undefined &&
    asked.minor !== 0 &&
    compareMicroversions({ major: 1, minor: asked.minor }, LAST_JSON_SUFFIX_VERSION) <= 0
  );
}
