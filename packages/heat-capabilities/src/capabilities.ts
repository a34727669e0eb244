import type { Diagnostic, SourceDocument } from '@stackspec/core';
import { createDiagnostic, plainScalarKind, pyFloatRepr } from '@stackspec/core';
import { isMapping, rawTextAt } from './load.js';

/**
 * What a template offers: each capability key with the values it provides,
 * as canonical strings. `resource_type` is one of the keys. A key may offer
 * several values (a list in the template offers each member).
 */
export type Capabilities = Record<string, string[]>;

/** What an environment asks for: each key with the one value it requires (canonical string). */
export type Requirements = Record<string, string>;

/** The capability key that names resource types a template implements. */
export const RESOURCE_TYPE_KEY = 'resource_type';

/**
 * The text a capability or requirement value compares as: strings stay as
 * written, booleans become `true`/`false`, ints their digits, and floats
 * what Python's `str()` prints for them (`1.5`, `1.0`, `1e+16`, `inf`). So
 * a value matches its own quoted spelling: `yes` and `true` compare equal,
 * as do `2` and `"2"`, and `1.0` and `"1.0"`; `1.0` does not match `1`.
 * JavaScript numbers cannot tell an integral float from an int, so pass
 * `spelling`, the scalar as written in the file (`1.0`), to keep such a
 * float a float; without it an integral number counts as an int. Returns
 * `undefined` for anything that is not a scalar.
 *
 * @example
 * canonicalValue(true); // 'true'
 * canonicalValue(1, '1.0'); // '1.0'
 * canonicalValue(1e16); // '1e+16'
 */
export function canonicalValue(value: unknown, spelling?: string): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'number') {
    if (!Number.isInteger(value) || (spelling !== undefined && isFloatSpelling(spelling))) {
      return pyFloatRepr(value);
    }
    // Python prints a big int in full, never with an exponent.
    return Math.abs(value) >= 1e21 ? BigInt(value).toString() : String(value);
  }
  return undefined;
}

// A number written with a fraction or exponent is a float in YAML 1.1 (and JSON).
function isFloatSpelling(text: string): boolean {
  return plainScalarKind(text) === 'float' || /^-?\d+(?:\.\d*)?[eE][-+]?\d+$|^-?\d+\.\d*$/.test(text.trim());
}

/** Options of {@link readCapabilities}. */
export interface ReadCapabilitiesOptions {
  /** The document the section came from, to locate problems. */
  document?: SourceDocument | undefined;
  /** JSON pointer of the section in that document (default `/capabilities`). */
  path?: string | undefined;
  file?: string | undefined;
  /** The text `document` was parsed from, so that an integral float (`1.0`) keeps its spelling. */
  source?: string | undefined;
}

/** Result of {@link readCapabilities}: `capabilities` is `undefined` when nothing is declared. */
export interface ReadCapabilitiesResult {
  capabilities: Capabilities | undefined;
  diagnostics: Diagnostic[];
}

function escapePointer(key: string): string {
  return key.replace(/~/g, '~0').replace(/\//g, '~1');
}

/**
 * Reads a template's `capabilities` section in either style the spec shows:
 * labels (`deployment: puppet`, extra keys allowed) and types
 * (`resource_type: X` or a list of types). Both may be mixed. A missing or
 * null section declares nothing. Values must be scalars or lists of
 * scalars; anything else is reported and skipped.
 *
 * Codes: `heat/capabilities/not-a-mapping`, `heat/capabilities/invalid-value`.
 */
export function readCapabilities(
  section: unknown,
  options: ReadCapabilitiesOptions = {},
): ReadCapabilitiesResult {
  const base = options.path ?? '/capabilities';
  const diagnostics: Diagnostic[] = [];
  const report = (path: string, code: string, message: string, hint?: string) => {
    const init = { code, message, path, ...(hint ? { hint } : {}) };
    diagnostics.push(
      options.document
        ? options.document.diagnostic(init)
        : createDiagnostic({ ...init, ...(options.file ? { file: options.file } : {}) }),
    );
  };
  if (section === null || section === undefined) return { capabilities: undefined, diagnostics };
  if (!isMapping(section)) {
    report(
      base,
      'heat/capabilities/not-a-mapping',
      `The capabilities section must be a mapping of capability names to values, not ${describe(section)}.`,
      'Write it as "capabilities:" followed by indented "name: value" lines.',
    );
    return { capabilities: undefined, diagnostics };
  }
  const out: Capabilities = {};
  for (const [key, raw] of Object.entries(section)) {
    const path = `${base}/${escapePointer(key)}`;
    const values = Array.isArray(raw) ? raw : [raw];
    const offered: string[] = [];
    let bad = false;
    values.forEach((v, i) => {
      const itemPath = Array.isArray(raw) ? `${path}/${i}` : path;
      const text = canonicalValue(v, numberSpelling(v, options, itemPath));
      if (text === undefined) {
        bad = true;
        report(
          itemPath,
          'heat/capabilities/invalid-value',
          `The capability '${key}' must be a single value or a list of values, but ${Array.isArray(raw) ? `item ${i} is` : 'it is'} ${describe(v)}.`,
          key === RESOURCE_TYPE_KEY
            ? 'List resource types as "resource_type: [OS::A, OS::B]".'
            : `Write a plain value such as "${key}: puppet".`,
        );
      } else if (!offered.includes(text)) {
        offered.push(text);
      }
    });
    if (!bad) out[key] = offered;
  }
  return { capabilities: out, diagnostics };
}

function numberSpelling(value: unknown, options: ReadCapabilitiesOptions, path: string): string | undefined {
  if (typeof value !== 'number' || !Number.isInteger(value) || !options.document || !options.source) {
    return undefined;
  }
  return rawTextAt(options.document, path);
}

function describe(value: unknown): string {
  if (value === null || value === undefined) return 'empty';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  return `a ${typeof value}`;
}

/** Why a template does or does not satisfy a set of requirements. */
export type RequirementsMatch =
  | { ok: true }
  | {
      ok: false;
      /** The first required key (in the requirements' order) that is not satisfied. */
      key: string;
      required: string;
      /** `undeclared`: the template declares no capabilities at all; `missing`: not this key; `mismatch`: other values. */
      reason: 'undeclared' | 'missing' | 'mismatch';
      offered: string[];
    };

/**
 * Checks a template's capabilities against an environment's requirements.
 * Every required key must be offered with the required value; extra
 * capabilities are ignored. A template that declares no capabilities never
 * satisfies a non-empty set of requirements.
 *
 * @example
 * matchRequirements({ deployment: ['puppet'] }, { deployment: 'puppet' }); // { ok: true }
 */
export function matchRequirements(
  capabilities: Capabilities | undefined,
  requirements: Readonly<Requirements>,
): RequirementsMatch {
  for (const [key, required] of Object.entries(requirements)) {
    if (!capabilities || Object.keys(capabilities).length === 0) {
      return { ok: false, key, required, reason: 'undeclared', offered: [] };
    }
    const offered = capabilities[key];
    if (!offered) return { ok: false, key, required, reason: 'missing', offered: [] };
    if (!offered.includes(required)) return { ok: false, key, required, reason: 'mismatch', offered };
  }
  return { ok: true };
}

/** True when `capabilities` satisfies every `key=value` filter (the `capabilities-find` test). */
export function satisfiesFilter(
  capabilities: Capabilities | undefined,
  filter: Readonly<Record<string, string>>,
): boolean {
  return matchRequirements(capabilities, filter).ok;
}
