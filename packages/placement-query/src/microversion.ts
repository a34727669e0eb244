import {
  createDiagnostic,
  formatMicroversion,
  type HeaderSource,
  type Microversion,
  pyInt,
  readMicroversionHeader,
  ValidationError,
  validateMicroversion,
} from '@stackspec/core';

/** Oldest microversion Placement serves. */
export const MIN_MICROVERSION = '1.0';
/** Newest microversion of Placement 8.0 (Antelope/Bobcat era), which we mirror. */
export const MAX_MICROVERSION = '1.39';

const MAX_MINOR = 39;

/** The outcome of reading `OpenStack-API-Version` the way Placement does. */
export type PlacementVersionResult =
  | { ok: true; version: Microversion }
  | { ok: false; status: 400 | 406; message: string };

/**
 * Picks the microversion of a request exactly as Placement's middleware
 * does: the last `placement <version>` entry of `OpenStack-API-Version`
 * counts; none means 1.0; `latest` means 1.39; each part is read like
 * Python's `int()` (so `1.03` is 1.3 and ` 1.5 ` is 1.5). An unreadable
 * version is a 400, a well-formed one outside 1.0–1.39 a 406, each with
 * Placement's message.
 *
 * @example
 * negotiatePlacementVersion(new Headers({ 'OpenStack-API-Version': 'placement 1.32' }));
 * // { ok: true, version: { major: 1, minor: 32 } }
 */
export function negotiatePlacementVersion(headers: HeaderSource): PlacementVersionResult {
  // The header is read as microversion_parse reads it (core); the version
  // text then as Placement's own Version class reads it, with int().
  let text = readMicroversionHeader(headers, { service: 'placement' });
  if (text === undefined || text === '') text = MIN_MICROVERSION;
  if (text === 'latest') text = MAX_MICROVERSION;
  const dot = text.indexOf('.');
  if (dot < 0) {
    return {
      ok: false,
      status: 400,
      message: `Invalid microversion: invalid version string: ${text}; Version.__new__() missing 1 required positional argument: 'minor'`,
    };
  }
  const majorText = text.slice(0, dot);
  const minorText = text.slice(dot + 1);
  // Python's own message for the part int() refuses ends Placement's.
  const invalid = (why: string): PlacementVersionResult => ({
    ok: false,
    status: 400,
    message: `Invalid microversion: invalid version string: ${text}; ${why}`,
  });
  const major = pyInt(majorText);
  if (!major.ok) return invalid(major.message);
  const minor = pyInt(minorText);
  if (!minor.ok) return invalid(minor.message);
  if (major.value !== 1n || minor.value < 0n || minor.value > BigInt(MAX_MINOR)) {
    return { ok: false, status: 406, message: `Invalid microversion: Unacceptable version header: ${text}` };
  }
  return { ok: true, version: { major: 1, minor: Number(minor.value) } };
}

/**
 * Reads a microversion given as `1.32`, `latest` or a parsed value. Anything
 * else (another major, a minor above 39, junk, a non-string) is a core
 * `ValidationError` with code `placement-query/invalid-microversion`.
 */
export function toMicroversion(version: Microversion | string): Microversion {
  if (version === 'latest') return { major: 1, minor: MAX_MINOR };
  const v =
    typeof version === 'string'
      ? validateMicroversion(version).value
      : typeof version === 'object' && version !== null
        ? version
        : undefined;
  if (v?.major !== 1 || !Number.isInteger(v.minor) || v.minor < 0 || v.minor > MAX_MINOR) {
    const shown = typeof version === 'string' ? version : (JSON.stringify(version) ?? String(version));
    const message = `Not a Placement microversion (1.0 to ${MAX_MICROVERSION}): ${shown}`;
    throw new ValidationError(message, {
      code: 'placement-query/invalid-microversion',
      diagnostics: [
        createDiagnostic({
          code: 'placement-query/invalid-microversion',
          message,
          path: '/microversion',
          hint: `use 1.0 to ${MAX_MICROVERSION}, or latest`,
        }),
      ],
    });
  }
  return v;
}

/** True when `version` is at least 1.`minor`. */
export function atLeast(version: Microversion, minor: number): boolean {
  return version.major > 1 || (version.major === 1 && version.minor >= minor);
}

/** `1.32` for a microversion. */
export function versionText(version: Microversion): string {
  return formatMicroversion(version);
}
