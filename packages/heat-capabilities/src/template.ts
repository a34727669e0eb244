import {
  createDiagnostic,
  type Diagnostic,
  type DiagnosticInit,
  optionsOf,
  requireString,
  type SourceDocument,
  suggest,
  validationErrorOf,
} from '@stackspec/core';
import { type Capabilities, readCapabilities } from './capabilities.js';
import { isMapping, isTruthy, loadHeatText, pythonKeyText, pythonTypeName, rawTextAt } from './load.js';
import {
  CAPABILITIES_SECTION,
  findTemplateVersion,
  HOT_VALIDATE_RESOURCE_KEYS,
  isVersionKey,
  type TemplateVersion,
  VERSION_KEYS,
  type VersionKey,
  versionValues,
} from './versions.js';

/** Options of {@link parseTemplate} and {@link validateTemplate}. */
export interface ParseTemplateOptions {
  /** Shown in every diagnostic. */
  filename?: string | undefined;
  /** Character limit, default Heat's `max_template_size` (524288). */
  maxTemplateSize?: number | undefined;
  /**
   * Accept the `capabilities` section in HOT templates (default `true`).
   * `false` answers as real Heat does, which rejects the section.
   */
  allowCapabilities?: boolean | undefined;
  /**
   * Also apply the per-version resource keyword check Heat makes when it
   * builds a stack (default `true`), so `condition` in a 2015 template is
   * reported although Heat's own validate call lets it pass.
   */
  buildChecks?: boolean | undefined;
}

/** A template read with Heat's rules. */
export interface HeatTemplate {
  file: string | undefined;
  /** `hot` or `cfn`. */
  format: 'hot' | 'cfn';
  /** Which version key the template uses. */
  versionKey: VersionKey;
  /** The version as written (`2015-10-15`, `wallaby`). */
  version: string;
  /** The date the version stands for (`wallaby` → `2021-04-16`). */
  versionDate: string;
  /** The whole template as plain data. */
  value: Record<string, unknown>;
  /** The declared capabilities, or `undefined` when the template declares none. */
  capabilities: Capabilities | undefined;
  /** Whether the text was strict JSON or YAML. */
  syntax: 'json' | 'yaml';
  /** The source document, for positions. */
  document: SourceDocument;
  /** Warnings (duplicate keys). */
  warnings: Diagnostic[];
}

/** Outcome of {@link validateTemplate}. */
export type ValidateTemplateResult =
  | { ok: true; template: HeatTemplate; diagnostics: Diagnostic[] }
  | { ok: false; template?: undefined; diagnostics: Diagnostic[] };

function escapePointer(key: string): string {
  return key.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** Heat's wording for a version problem. */
function versionMessage(explanation: string): string {
  return `The template version is invalid: ${explanation}`;
}

interface VersionPick {
  version?: TemplateVersion;
  diagnostic?: DiagnosticInit;
}

function pickVersion(value: Record<string, unknown>): VersionPick {
  const present = Object.keys(value).filter((k) => isVersionKey(k) && typeof value[k] === 'string');
  if (present.length > 1) {
    return {
      diagnostic: {
        code: 'heat/template/ambiguous-version',
        message: versionMessage(`Ambiguous versions (${present.join(', ')})`),
        path: `/${escapePointer(present[1] as string)}`,
        hint: 'Keep only one of heat_template_version, HeatTemplateFormatVersion and AWSTemplateFormatVersion.',
      },
    };
  }
  const key = present[0] as VersionKey | undefined;
  if (!key) {
    const written = VERSION_KEYS.find((k) => k in value) as VersionKey;
    return {
      diagnostic: {
        code: 'heat/template/version-not-string',
        message: versionMessage('Template version was not provided'),
        path: `/${escapePointer(written)}`,
        hint: `The ${written} value must be text such as 2021-04-16 or wallaby, not ${pythonTypeName(value[written]) === 'NoneType' ? 'empty' : `a ${pythonTypeName(value[written])}`}.`,
      },
    };
  }
  const text = value[key] as string;
  const version = findTemplateVersion(key, text);
  if (version) return { version };
  const values = versionValues(key);
  const explanation =
    values.length > 1
      ? `"${key}: ${text}". "${key}" should be one of: ${values.join(', ')}`
      : `"${key}: ${text}". "${key}" should be: ${values.join(', ')}`;
  const close = values.find(
    (v) => v.replace(/-0/g, '-') === text.replace(/-0/g, '-') || v === text.toLowerCase(),
  );
  return {
    diagnostic: {
      code: 'heat/template/unknown-version',
      message: versionMessage(explanation),
      path: `/${escapePointer(key)}`,
      ...(close ? { hint: `did you mean ${close}?` } : {}),
    },
  };
}

// Heat says the same for an empty resource and for one with no `type` key.
function resourceWithoutType(name: string, path: string): DiagnosticInit {
  return {
    code: 'heat/template/resource-without-type',
    message: 'Each resource must contain a type key.',
    path,
    hint: `Give resource '${name}' a "type:" such as OS::Heat::None.`,
  };
}

function checkHotResources(
  resources: Record<string, unknown>,
  version: TemplateVersion,
  buildChecks: boolean,
): DiagnosticInit[] {
  const out: DiagnosticInit[] = [];
  // Heat walks resources in sorted name order; the first problem it meets is its answer.
  const names = Object.keys(resources).sort();
  const typeMissing: DiagnosticInit[] = [];
  for (const name of names) {
    const attrs = resources[name];
    const path = `/resources/${escapePointer(name)}`;
    if (!isTruthy(attrs)) {
      out.push(resourceWithoutType(name, path));
      continue;
    }
    if (!isMapping(attrs)) {
      out.push({
        code: 'heat/template/resource-not-mapping',
        message: `"resources" must contain a map of resource maps. Found a [<class '${pythonTypeName(attrs)}'>] instead`,
        path,
      });
      continue;
    }
    let badKey = false;
    for (const key of Object.keys(attrs)) {
      if (!HOT_VALIDATE_RESOURCE_KEYS.includes(key)) {
        badKey = true;
        out.push({
          code: 'heat/template/invalid-resource-keyword',
          message: `"${key}" is not a valid keyword inside a resource definition`,
          path: `${path}/${escapePointer(key)}`,
          ...didYouMeanKey(key, version.resourceKeys),
        });
        break;
      }
    }
    if (badKey) continue;
    if (!('type' in attrs)) {
      out.push(resourceWithoutType(name, path));
      continue;
    }
    if (!isTruthy(attrs.type)) {
      typeMissing.push({
        code: 'heat/template/empty-resource-type',
        message: 'Each Resource must contain a Type key.',
        path: `${path}/type`,
        hint: `The type of resource '${name}' is empty.`,
      });
      continue;
    }
    if (buildChecks) {
      const invalid = Object.keys(attrs).filter((k) => !version.resourceKeys.includes(k));
      if (invalid.length) {
        typeMissing.push({
          code: 'heat/template/resource-keyword-not-in-version',
          message: `Invalid keyword(s) inside a resource definition: ${invalid.join(', ')}`,
          path: `${path}/${escapePointer(invalid[0] as string)}`,
          hint:
            invalid.includes('condition') || invalid.includes('external_id')
              ? 'condition and external_id need heat_template_version 2016-10-14 (newton) or later.'
              : undefined,
        });
      }
    }
  }
  return [...out, ...typeMissing].map(dropUndefinedHint);
}

function dropUndefinedHint(d: DiagnosticInit): DiagnosticInit {
  if (d.hint === undefined) {
    const { hint: _hint, ...rest } = d;
    return rest;
  }
  return d;
}

function didYouMeanKey(key: string, known: readonly string[]): { hint?: string } {
  const hit = suggest(key, known)[0];
  if (hit) return { hint: `did you mean ${hit}?` };
  return { hint: `Resource keys are: ${known.join(', ')}.` };
}

function checkCfnResources(resources: Record<string, unknown>): DiagnosticInit[] {
  const out: DiagnosticInit[] = [];
  for (const [name, res] of Object.entries(resources)) {
    const path = `/Resources/${escapePointer(name)}`;
    if (!isTruthy(res)) {
      out.push({
        code: 'heat/template/empty-resource-type',
        message: 'Each Resource must contain a Type key.',
        path,
      });
    } else if (!isMapping(res)) {
      out.push({
        code: 'heat/template/resource-not-mapping',
        message: `Resources must contain Resource. Found a [<class '${pythonTypeName(res)}'>] instead`,
        path,
      });
    } else if (!isTruthy(res.Type)) {
      out.push({
        code: 'heat/template/empty-resource-type',
        message: 'Each Resource must contain a Type key.',
        path,
      });
    }
  }
  return out;
}

/**
 * Parses and checks a Heat template with Heat's own rules, returning its
 * problems instead of throwing. In order: the size limit, strict JSON then
 * YAML 1.1 (dates and release names stay text), a mapping, a version key,
 * a known version, the sections that version allows (plus `capabilities`
 * in every HOT version), and the resource checks Heat makes before a stack
 * is built; each stage reports all of its problems, and a stage runs only
 * when the ones before it passed. Diagnostics come in Heat's order, so the
 * first error is the one Heat reports; messages use Heat's wording.
 *
 * Codes: `heat/template/too-large`, `yaml/*`, `json/*`,
 * `heat/template/not-a-mapping`, `heat/template/no-version`,
 * `heat/template/version-not-string`, `heat/template/ambiguous-version`,
 * `heat/template/unknown-version`, `heat/template/invalid-section`,
 * `heat/template/resources-not-mapping`, `heat/template/resource-not-mapping`,
 * `heat/template/resource-without-type`, `heat/template/invalid-resource-keyword`,
 * `heat/template/empty-resource-type`, `heat/template/resource-keyword-not-in-version`,
 * `heat/capabilities/*`.
 *
 * @example
 * const r = validateTemplate('heat_template_version: wallaby\ncapabilities:\n  deployment: puppet\n');
 * if (r.ok) r.template.capabilities; // { deployment: ['puppet'] }
 */
export function validateTemplate(source: string, options: ParseTemplateOptions = {}): ValidateTemplateResult {
  requireString(source, 'The text of validateTemplate', 'heat/invalid-argument');
  options = optionsOf(options, 'validateTemplate', 'heat/invalid-argument');
  const file = options.filename;
  const loaded = loadHeatText(source, {
    kind: 'template',
    filename: file,
    maxTemplateSize: options.maxTemplateSize,
  });
  if (!loaded.ok) return { ok: false, diagnostics: loaded.diagnostics };
  const { document, warnings } = loaded.loaded;
  const value = loaded.loaded.value;
  const at = (init: DiagnosticInit, key = false) => document.diagnostic(init, { key });
  if (!isMapping(value)) {
    return {
      ok: false,
      diagnostics: [
        createDiagnostic({
          code: 'heat/template/not-a-mapping',
          message: 'The template is not a JSON object or YAML mapping.',
          hint: 'A template starts with "heat_template_version: <version>" followed by its sections.',
          ...(file ? { file } : {}),
          ...(document.locate('') ?? {}),
        }),
        ...warnings,
      ],
    };
  }
  if (!VERSION_KEYS.some((k) => k in value)) {
    return {
      ok: false,
      diagnostics: [
        at({
          code: 'heat/template/no-version',
          message: 'Template format version not found.',
          hint: 'Add "heat_template_version: 2021-04-16" (or another version) at the top.',
        }),
        ...warnings,
      ],
    };
  }
  const pick = pickVersion(value);
  if (!pick.version) {
    return { ok: false, diagnostics: [at(pick.diagnostic as DiagnosticInit, false), ...warnings] };
  }
  const version = pick.version;
  const errors: Diagnostic[] = [];
  const allowCapabilities = options.allowCapabilities !== false && version.format === 'hot';
  for (const key of Object.keys(value)) {
    if (version.sections.includes(key)) continue;
    if (key === CAPABILITIES_SECTION && allowCapabilities) continue;
    const allowed = [...version.sections.filter((s) => s !== '__undefined__')];
    if (allowCapabilities) allowed.push(CAPABILITIES_SECTION);
    const lower = allowed.find((s) => s.toLowerCase() === key.toLowerCase());
    const conditionsTooOld = key === 'conditions' && version.format === 'hot';
    const shown = pythonKeyText(key, rawTextAt(document, `/${escapePointer(key)}`, { key: true }));
    errors.push(
      at(
        {
          code: 'heat/template/invalid-section',
          message: `The template section is invalid: ${shown}`,
          path: `/${escapePointer(key)}`,
          hint: lower
            ? `did you mean ${lower}?`
            : conditionsTooOld
              ? 'conditions need heat_template_version 2016-10-14 (newton) or later.'
              : key === CAPABILITIES_SECTION
                ? 'Real Heat rejects the capabilities section; strip it before handing the template to Heat.'
                : `Sections allowed in ${version.key} ${version.value}: ${allowed.join(', ')}.`,
        },
        true,
      ),
    );
  }
  if (errors.length === 0) {
    const resourcesKey = version.format === 'hot' ? 'resources' : 'Resources';
    const section = value[resourcesKey];
    if (isTruthy(section) && !isMapping(section)) {
      errors.push(
        at({
          code: 'heat/template/resources-not-mapping',
          message: `The ${resourcesKey} section must be a mapping of resource names to definitions, not a ${pythonTypeName(section) === 'list' ? 'list' : pythonTypeName(section)}.`,
          path: `/${resourcesKey}`,
        }),
      );
    } else if (isMapping(section)) {
      const problems =
        version.format === 'hot'
          ? checkHotResources(section, version, options.buildChecks !== false)
          : checkCfnResources(section);
      for (const p of problems) errors.push(at(p, p.code === 'heat/template/invalid-resource-keyword'));
    }
  }
  let capabilities: Capabilities | undefined;
  if (allowCapabilities && CAPABILITIES_SECTION in value) {
    const read = readCapabilities(value[CAPABILITIES_SECTION], {
      document,
      source,
      path: `/${CAPABILITIES_SECTION}`,
    });
    errors.push(...read.diagnostics);
    capabilities = read.capabilities;
  }
  const diagnostics = [...errors, ...warnings];
  if (errors.length) return { ok: false, diagnostics };
  return {
    ok: true,
    diagnostics,
    template: {
      file,
      format: version.format,
      versionKey: version.key,
      version: version.value,
      versionDate: version.date,
      value,
      capabilities,
      syntax: loaded.loaded.format,
      document,
      warnings,
    },
  };
}

/**
 * Like {@link validateTemplate} but throws a `ValidationError` (HTTP 400)
 * carrying every diagnostic when the template is not valid.
 *
 * @example
 * const t = parseTemplate(text, { filename: 'puppet/controller.yaml' });
 * t.version; // '2015-10-15'
 */
export function parseTemplate(source: string, options: ParseTemplateOptions = {}): HeatTemplate {
  const result = validateTemplate(source, options);
  if (!result.ok) throw validationErrorOf(result.diagnostics);
  return result.template;
}
