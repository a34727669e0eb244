import {
  CONFIDENCE,
  claimMisspelling,
  createDiagnostic,
  type Diagnostic,
  type FileChecker,
  type ResourceReader,
  type ResourceReadResult,
  SpecError,
  suggest,
  toJsonPointer,
} from '@stackspec/core';
import { ENVIRONMENT_SECTIONS, REQUIRES_SECTION, validateEnvironment } from './environment.js';
import { isMapping, MAX_TEMPLATE_SIZE } from './load.js';
import type { PathOptions } from './paths.js';
import { resolveEnvironment } from './resolve.js';
import { validateTemplate } from './template.js';

/**
 * The checker contract for Heat templates: a mapping with a
 * `heat_template_version` key is one (`CONFIDENCE.marker`), and a close
 * misspelling of that key is reported as one. `check` parses the template
 * as {@link validateTemplate} does; it reads no other file.
 *
 * @example
 * const diagnostics = await heatTemplateChecker.check({ path, text, document }, { reader });
 */
export const heatTemplateChecker: FileChecker = {
  kind: 'heat-template',
  label: 'Heat template',
  recognise({ document }) {
    const value = document?.value;
    if (!isMapping(value)) return undefined;
    if ('heat_template_version' in value) return { confidence: CONFIDENCE.marker };
    return claimMisspelling(value, [{ key: 'heat_template_version' }]);
  },
  check({ path, text }) {
    return validateTemplate(text, { filename: path }).diagnostics;
  },
};

/** Settings of {@link heatEnvironmentChecker}. */
export interface HeatEnvironmentCheckOptions extends PathOptions {
  /** Report registry entries whose template cannot be read (default `true`). */
  checkPaths?: boolean | undefined;
}

// The sections an environment may hold, with the spec's `requires`.
const SECTIONS: readonly string[] = [...ENVIRONMENT_SECTIONS, REQUIRES_SECTION];

// Heat refuses a template over MAX_TEMPLATE_SIZE characters, and a character is at most four
// bytes: a file over this many bytes cannot be a template Heat takes, so it is not read.
const MAX_REFERENCED_TEMPLATE_BYTES = MAX_TEMPLATE_SIZE * 4;

type ReadFailure = Extract<ResourceReadResult, { ok: false }>;

function registryProblem(found: ReadFailure, maps: string): Pick<Diagnostic, 'code' | 'message' | 'hint'> {
  if (found.missing) {
    return {
      code: 'heat/template-not-found',
      message: `${maps}, which does not exist.`,
      hint: 'Heat would fail to create any resource of this type.',
    };
  }
  if (found.size !== undefined) {
    return {
      code: 'heat/template-too-large',
      message: `${maps}, which is not read: ${found.reason}.`,
      hint: `Heat refuses templates over ${MAX_TEMPLATE_SIZE} characters.`,
    };
  }
  return {
    code: 'heat/template-unreadable',
    message: `${maps}, which cannot be read: ${found.reason}.`,
    hint: 'Heat would fail to create any resource of this type.',
  };
}

/** Each path read once per check: a registry entry and a candidate often name the same template. */
function cachedReader(reader: ResourceReader): (path: string) => ResourceReadResult {
  const reads = new Map<string, ResourceReadResult>();
  return (path) => {
    let hit = reads.get(path);
    if (!hit) {
      hit = reader.read(path, { maxBytes: MAX_REFERENCED_TEMPLATE_BYTES });
      reads.set(path, hit);
    }
    return hit;
  };
}

/**
 * The checker contract for Heat environment files: a mapping of nothing
 * but Heat's environment sections and the spec's `requires`
 * (`CONFIDENCE.keys`), or one whose every other key is close to a section
 * (`CONFIDENCE.close`, checked so that Heat's own wrong-section error names
 * it). `check` parses the environment as {@link validateEnvironment} does,
 * then, unless `checkPaths` is off, reports each registry entry whose
 * template is missing (`heat/template-not-found`), over what Heat takes
 * (`heat/template-too-large`) or unreadable (`heat/template-unreadable`),
 * all warnings at the entry's key, and resolves candidate lists as
 * {@link resolveEnvironment} does. Templates are read only through the
 * context's reader, relative to the environment's folder; absolute paths
 * go through `pathMap` (give targets the reader can read, relative to the
 * environment's folder or absolute) and URLs are not read.
 *
 * @example
 * const reader = createNodeResourceReader({ roots: [dirname(file)], confine: false });
 * const diagnostics = await heatEnvironmentChecker.check({ path: file, text, document }, { reader });
 */
export const heatEnvironmentChecker: FileChecker<HeatEnvironmentCheckOptions> = {
  kind: 'heat-environment',
  label: 'Heat environment',
  recognise({ document }) {
    const value = document?.value;
    if (!isMapping(value)) return undefined;
    const keys = Object.keys(value);
    if (keys.length && keys.every((k) => SECTIONS.includes(k))) return { confidence: CONFIDENCE.keys };
    const misses = keys
      .filter((k) => !SECTIONS.includes(k))
      .map((k) => ({ key: k, expected: suggest(k, SECTIONS)[0] }));
    const first = misses[0];
    if (!first?.expected || !misses.every((m) => m.expected)) return undefined;
    return {
      confidence: CONFIDENCE.close,
      misspelt: { key: first.key, expected: first.expected, checkAnyway: true },
    };
  },
  async check({ path: file, text }, { reader, options = {} }) {
    const parsed = validateEnvironment(text, {
      filename: file,
      // Paths stay relative to the environment's folder, which is where the reader looks.
      baseDir: '.',
      ...(options.pathMap ? { pathMap: options.pathMap } : {}),
    });
    if (!parsed.ok) return parsed.diagnostics;
    const env = parsed.environment;
    const out = [...parsed.diagnostics];
    const read = cachedReader(reader);
    if (options.checkPaths !== false) {
      for (const entry of env.registry) {
        // A URL is Heat's to fetch, not a file to read.
        if (entry.kind !== 'template' || !entry.resolved || /^[a-z]+:\/\//.test(entry.resolved)) continue;
        const found = read(entry.resolved);
        if (found.ok) continue;
        const path = ['resource_registry', ...entry.path];
        out.push({
          ...createDiagnostic({
            ...registryProblem(found, `'${entry.type}' maps to ${entry.target}`),
            severity: 'warning',
            file,
            path: toJsonPointer(path),
          }),
          ...(env.document?.locate(path, { key: true }) ?? {}),
        });
      }
    }
    if (!env.registry.some((e) => e.kind === 'candidates')) return out;
    // Candidate lists must resolve to exactly one template under `requires`.
    const resolved = await resolveEnvironment([env], {
      root: '.',
      readTemplate: (path) => {
        const found = read(path);
        if (found.ok) return found.text;
        if (found.missing) return undefined;
        throw new SpecError(found.reason, { code: 'heat/template-unreadable' });
      },
    });
    return [...out, ...resolved.diagnostics.filter((d) => !parsed.diagnostics.includes(d))];
  },
};
