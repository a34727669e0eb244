import {
  createDiagnostic,
  type Diagnostic,
  type DiagnosticInit,
  optionsOf,
  pyStr,
  requireString,
  type SourceDocument,
  suggest,
  validationErrorOf,
} from '@stackspec/core';
import { canonicalValue, type Requirements } from './capabilities.js';
import { isMapping, loadHeatText, pythonKeyText, rawTextAt } from './load.js';
import { baseDirOf, type PathOptions, resolveReference } from './paths.js';

/** The sections Heat accepts in an environment file, in Heat's order. */
export const ENVIRONMENT_SECTIONS = [
  'parameters',
  'resource_registry',
  'parameter_defaults',
  'encrypted_param_names',
  'event_sinks',
  'parameter_merge_strategies',
] as const;

/** The section the capabilities spec adds to environments. */
export const REQUIRES_SECTION = 'requires';

/** The six hook types Heat accepts for breakpoints. */
export const HOOK_TYPES = [
  'pre-create',
  'pre-update',
  'pre-delete',
  'post-create',
  'post-update',
  'post-delete',
] as const;

/** The actions `restricted_actions` may name. */
export const RESTRICTED_ACTIONS = ['update', 'replace'] as const;

/** Merge strategies `parameter_merge_strategies` may name. */
export const MERGE_STRATEGIES = ['overwrite', 'merge', 'deep_merge'] as const;

/** The event sink types Heat ships. */
export const EVENT_SINK_TYPES = ['zaqar-queue'] as const;

/**
 * How Heat reads one `resource_registry` entry:
 * - `template`: a template implements the type (`target` is the path as written, `resolved` after path resolution);
 * - `type`: the type is an alias of another type (`target`);
 * - `wildcard`: a key ending in `*` maps every matching type (`target` may end in `*` too);
 * - `remove`: a null value, which removes an entry set by an earlier registry load;
 * - `candidates`: a list of implementations to choose from with `requires` (the spec's addition);
 * - `hooks` / `restricted-actions`: per-resource settings;
 * - `base-url`: heatclient's base for relative paths;
 * - `ignored`: a nested mapping Heat stores but never consults.
 */
export type RegistryEntryKind =
  | 'template'
  | 'type'
  | 'wildcard'
  | 'remove'
  | 'candidates'
  | 'hooks'
  | 'restricted-actions'
  | 'base-url'
  | 'ignored';

/** One implementation in a candidate list. */
export interface Candidate {
  /** As written. */
  value: string;
  /** `template` for a `.yaml`/`.template` path, `type` for a type name. */
  kind: 'template' | 'type';
  /** For templates: the path resolved against the environment file's directory (and `pathMap`). */
  resolved?: string;
}

/** One classified `resource_registry` entry. */
export interface RegistryEntry {
  /** Keys from the registry root: `['OS::X']` or `['resources', 'my_server', 'OS::X']`. */
  path: string[];
  /** The type name (the last key). */
  type: string;
  kind: RegistryEntryKind;
  /** The value as written. */
  value: unknown;
  /** For `template`, `type` and `wildcard`: the target as written. */
  target?: string;
  /** For `template`: the target resolved against the environment's directory. */
  resolved?: string;
  /** For `candidates`. */
  candidates?: Candidate[];
}

/** Options of {@link parseEnvironment}. */
export interface ParseEnvironmentOptions extends PathOptions {
  filename?: string | undefined;
  /** Directory relative paths resolve against (default: the file's directory, or `.`). */
  baseDir?: string | undefined;
  /**
   * Accept the spec's additions, `requires` and candidate lists (default
   * `true`). `false` answers as real Heat does, which rejects both.
   */
  allowExtensions?: boolean | undefined;
  /**
   * Accept a null section with a warning, as heatclient does (default
   * `false`: an error, as the Heat server answers). Some real trees ship
   * files whose only section holds nothing but comments.
   */
  acceptNullSections?: boolean | undefined;
}

/** An environment file read with Heat's rules. */
export interface HeatEnvironment {
  file: string | undefined;
  /** Directory relative template paths resolve against. */
  baseDir: string;
  /** The sections as written. */
  value: Record<string, unknown>;
  /** The `requires` section, values as canonical strings (empty when absent). */
  requires: Requirements;
  /** Every registry entry, classified, in document order. */
  registry: RegistryEntry[];
  document: SourceDocument | undefined;
  warnings: Diagnostic[];
}

/** Outcome of {@link validateEnvironment}. */
export type ValidateEnvironmentResult =
  | { ok: true; environment: HeatEnvironment; diagnostics: Diagnostic[] }
  | { ok: false; environment?: undefined; diagnostics: Diagnostic[] };

/** Escapes one JSON pointer segment. */
export function pointerSegment(key: string): string {
  return key.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** True when Heat reads a registry value or key as a template file (it only looks at these two suffixes). */
export function isTemplateName(name: string): boolean {
  return name.endsWith('.yaml') || name.endsWith('.template');
}

function tupleText(values: readonly string[]): string {
  return `(${values.map((v) => `'${v}'`).join(', ')})`;
}

interface Walk {
  diagnostics: Diagnostic[];
  entries: RegistryEntry[];
  at: (init: DiagnosticInit, key?: boolean) => Diagnostic;
  baseDir: string;
  options: ParseEnvironmentOptions;
  /** The file's text as written at a pointer (to keep `1.0` a float). */
  spelling: (path: string) => string | undefined;
}

function checkListValue(
  walk: Walk,
  key: 'hooks' | 'restricted_actions',
  value: unknown,
  pointer: string,
): boolean {
  const allowed: readonly string[] = key === 'hooks' ? HOOK_TYPES : RESTRICTED_ACTIONS;
  const items = typeof value === 'string' ? [value] : Array.isArray(value) ? value : undefined;
  const ok = items?.every((h) => typeof h === 'string' && allowed.includes(h)) === true;
  if (ok) return true;
  const bad = items?.find((h) => typeof h !== 'string' || !allowed.includes(h));
  const close = typeof bad === 'string' ? suggest(bad, allowed)[0] : undefined;
  walk.diagnostics.push(
    walk.at({
      code: key === 'hooks' ? 'heat/registry/invalid-hook' : 'heat/registry/invalid-restricted-action',
      message:
        key === 'hooks'
          ? `Invalid hook type "${pyStr(value)}" for resource breakpoint, acceptable hook types are: ${tupleText(HOOK_TYPES)}`
          : `Invalid restricted_action type "${pyStr(value)}" for resource, acceptable restricted_action types are: ${tupleText(RESTRICTED_ACTIONS)}`,
      path: pointer,
      hint: close ? `did you mean ${close}?` : `Use one of ${allowed.join(', ')}, or a list of them.`,
    }),
  );
  return false;
}

function walkRegistry(
  walk: Walk,
  registry: Record<string, unknown>,
  path: string[],
  baseUrl: string | undefined,
): void {
  const ext = walk.options.allowExtensions !== false;
  const localBase = typeof registry.base_url === 'string' ? (registry.base_url as string) : baseUrl;
  for (const [key, value] of Object.entries(registry)) {
    const keys = [...path, key];
    const pointer = `/resource_registry/${keys.map(pointerSegment).join('/')}`;
    const base = localBase ?? walk.baseDir;
    const entry: RegistryEntry = { path: keys, type: key, kind: 'type', value };
    if (value === null || value === undefined) {
      walk.entries.push({ ...entry, kind: 'remove' });
      continue;
    }
    if (key === 'hooks' || key === 'restricted_actions') {
      if (checkListValue(walk, key, value, pointer)) {
        walk.entries.push({ ...entry, kind: key === 'hooks' ? 'hooks' : 'restricted-actions' });
      }
      continue;
    }
    if (isMapping(value)) {
      if (path.length === 0 && key !== 'resources') {
        walk.diagnostics.push(
          walk.at(
            {
              code: 'heat/registry/nested-mapping',
              severity: 'warning',
              message: `Heat stores the mapping under '${key}' but never uses it; only 'resources' holds per-resource settings.`,
              path: pointer,
              hint: 'Map the type to a template path or another type name.',
            },
            true,
          ),
        );
        walk.entries.push({ ...entry, kind: 'ignored' });
      }
      walkRegistry(walk, value, keys, localBase);
      continue;
    }
    if (isTemplateName(key)) {
      // Heat takes a key that is itself a template name as the template, whatever the value.
      walk.entries.push({
        ...entry,
        kind: 'template',
        target: key,
        resolved: resolveReference(key, base, walk.options),
      });
      continue;
    }
    if (key === 'base_url' && typeof value === 'string') {
      walk.entries.push({ ...entry, kind: 'base-url', target: value });
      continue;
    }
    if (Array.isArray(value)) {
      if (!ext) {
        walk.diagnostics.push(
          walk.at({
            code: 'heat/registry/list-not-supported',
            message: `The registry entry '${key}' is a list; Heat accepts only a template path, a type name or null.`,
            path: pointer,
            hint: 'Resolve the candidates first (stackspec-heat resolve) to get a plain environment.',
          }),
        );
        continue;
      }
      if (path.length > 0) {
        walk.diagnostics.push(
          walk.at({
            code: 'heat/registry/nested-candidates',
            message: `A list of candidate implementations is only allowed at the top of resource_registry, not under '${path.join('/')}'.`,
            path: pointer,
            hint: 'Move the candidate list to the top level, or pick one template for this resource.',
          }),
        );
        continue;
      }
      if (key.endsWith('*')) {
        // Resolved, the list would become `OS::Foo::*: chosen.yaml`, which Heat reads as a
        // template for a type literally named with a star, not as a wildcard.
        walk.diagnostics.push(
          walk.at(
            {
              code: 'heat/registry/wildcard-candidates',
              message: `The wildcard '${key}' cannot take a list of candidates: Heat maps a wildcard only to another wildcard name, and a template path under it names one literal type.`,
              path: pointer,
              hint: 'List candidates under each concrete type name instead.',
            },
            true,
          ),
        );
        continue;
      }
      const candidates: Candidate[] = [];
      let bad = false;
      value.forEach((item, i) => {
        if (typeof item !== 'string' || item === '') {
          bad = true;
          walk.diagnostics.push(
            walk.at({
              code: 'heat/registry/invalid-candidate',
              message: `Candidate ${i} of '${key}' must be a template path or a type name, not ${item === '' ? 'empty text' : describe(item)}.`,
              path: `${pointer}/${i}`,
            }),
          );
          return;
        }
        candidates.push(
          isTemplateName(item)
            ? { value: item, kind: 'template', resolved: resolveReference(item, base, walk.options) }
            : { value: item, kind: 'type' },
        );
      });
      if (value.length === 0) {
        bad = true;
        walk.diagnostics.push(
          walk.at({
            code: 'heat/registry/no-candidates',
            message: `The candidate list of '${key}' is empty; it needs at least one implementation.`,
            path: pointer,
          }),
        );
      }
      if (!bad) walk.entries.push({ ...entry, kind: 'candidates', candidates });
      continue;
    }
    if (typeof value !== 'string') {
      // Heat takes any other value for a Python plugin class and fails loading it.
      walk.diagnostics.push(
        walk.at({
          code: 'heat/registry/invalid-value',
          message: `The registry entry '${key}' must map to a template path, a type name or null, not ${describe(value)}.`,
          path: pointer,
          hint: 'Quote the value if it is meant as text.',
        }),
      );
      continue;
    }
    if (isTemplateName(value)) {
      walk.entries.push({
        ...entry,
        kind: 'template',
        target: value,
        resolved: resolveReference(value, base, walk.options),
      });
    } else if (key.endsWith('*')) {
      walk.entries.push({ ...entry, kind: 'wildcard', target: value });
    } else {
      walk.entries.push({ ...entry, kind: 'type', target: value });
      if (/\.(ya?ml|json|hot|j2)$/i.test(value) || (value.includes('/') && !value.includes('::'))) {
        walk.diagnostics.push(
          walk.at({
            code: 'heat/registry/not-a-template-name',
            severity: 'warning',
            message: `Heat reads '${value}' as a resource type name, not a template: only names ending in .yaml or .template are templates.`,
            path: pointer,
            hint: 'Rename the file to end in .yaml (Heat looks the name up as a type and fails otherwise).',
          }),
        );
      }
    }
  }
}

function describe(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  if (typeof value === 'number') return `the number ${value}`;
  if (typeof value === 'boolean') return `the boolean ${value}`;
  return `a ${typeof value}`;
}

function checkSectionShapes(walk: Walk, value: Record<string, unknown>): void {
  for (const name of [
    'parameters',
    'parameter_defaults',
    'resource_registry',
    'parameter_merge_strategies',
  ]) {
    const section = value[name];
    if (section !== undefined && section !== null && !isMapping(section)) {
      walk.diagnostics.push(
        walk.at({
          code: 'heat/environment/section-not-mapping',
          message: `The ${name} section must be a mapping, not ${describe(section)}.`,
          path: `/${name}`,
        }),
      );
    }
  }
  const encrypted = value.encrypted_param_names;
  if (encrypted !== undefined && encrypted !== null && !Array.isArray(encrypted)) {
    walk.diagnostics.push(
      walk.at({
        code: 'heat/environment/section-not-list',
        message: `The encrypted_param_names section must be a list of parameter names, not ${describe(encrypted)}.`,
        path: '/encrypted_param_names',
      }),
    );
  }
  const sinks = value.event_sinks;
  if (sinks !== undefined && sinks !== null) {
    if (!Array.isArray(sinks)) {
      walk.diagnostics.push(
        walk.at({
          code: 'heat/environment/section-not-list',
          message: `The event_sinks section must be a list of sinks, not ${describe(sinks)}.`,
          path: '/event_sinks',
        }),
      );
    } else {
      sinks.forEach((sink, i) => {
        const type = isMapping(sink) ? sink.type : undefined;
        if (typeof type !== 'string' || !(EVENT_SINK_TYPES as readonly string[]).includes(type)) {
          walk.diagnostics.push(
            walk.at({
              code: 'heat/environment/invalid-event-sink',
              message: `Event sink ${i} must be a mapping whose type is one of ${EVENT_SINK_TYPES.join(', ')}.`,
              path: `/event_sinks/${i}`,
              hint: 'Write it as "- type: zaqar-queue" followed by "target: <queue name>".',
            }),
          );
        }
      });
    }
  }
  const strategies = value.parameter_merge_strategies;
  if (isMapping(strategies)) {
    for (const [param, strategy] of Object.entries(strategies)) {
      if (!(MERGE_STRATEGIES as readonly unknown[]).includes(strategy)) {
        const close = typeof strategy === 'string' ? suggest(strategy, MERGE_STRATEGIES)[0] : undefined;
        walk.diagnostics.push(
          walk.at({
            code: 'heat/environment/unknown-merge-strategy',
            severity: 'warning',
            message: `The merge strategy '${pyStr(strategy)}' for '${param}' is not one of ${MERGE_STRATEGIES.join(', ')}; Heat falls back to the file's default.`,
            path: `/parameter_merge_strategies/${pointerSegment(param)}`,
            ...(close ? { hint: `did you mean ${close}?` } : {}),
          }),
        );
      }
    }
  }
}

function readRequires(walk: Walk, section: unknown): Requirements {
  const out: Requirements = {};
  if (!isMapping(section)) {
    if (section !== undefined && section !== null) {
      walk.diagnostics.push(
        walk.at({
          code: 'heat/environment/section-not-mapping',
          message: `The requires section must be a mapping of capability names to values, not ${describe(section)}.`,
          path: '/requires',
          hint: 'Write it as "requires:" followed by indented "deployment: puppet" lines.',
        }),
      );
    }
    return out;
  }
  for (const [key, raw] of Object.entries(section)) {
    const path = `/requires/${pointerSegment(key)}`;
    const text = canonicalValue(raw, typeof raw === 'number' ? walk.spelling(path) : undefined);
    if (text === undefined) {
      walk.diagnostics.push(
        walk.at({
          code: 'heat/environment/invalid-requirement',
          message: `The requirement '${key}' must be a single value, not ${describe(raw)}.`,
          path,
          hint: Array.isArray(raw)
            ? 'A requirement names one value; a template offering a list of values matches when the list contains it.'
            : `Write "${key}: <value>".`,
        }),
      );
      continue;
    }
    out[key] = text;
  }
  return out;
}

/**
 * Parses an environment file with Heat's rules and the spec's additions:
 * YAML 1.1 (no JSON step, as in Heat), a mapping whose keys are Heat's
 * sections or `requires`, none of them null; then each section's shape,
 * hooks and restricted actions validated as Heat validates them, and every
 * `resource_registry` entry classified (template path, type alias,
 * wildcard, removal, or a list of candidates) with template paths resolved
 * against the file's directory. Returns problems instead of throwing: every
 * layout problem (unknown, misplaced or empty sections) or, once the layout
 * is right, every problem of the sections' contents; the first error is the
 * one Heat would report.
 *
 * Codes: `yaml/*`, `heat/environment/not-a-mapping`,
 * `heat/environment/wrong-section`, `heat/environment/empty-section`,
 * `heat/environment/section-not-mapping`, `heat/environment/section-not-list`,
 * `heat/environment/invalid-event-sink`, `heat/environment/invalid-requirement`,
 * `heat/environment/unknown-merge-strategy` (warning), `heat/registry/*`.
 *
 * @example
 * const r = validateEnvironment('requires:\n  deployment: puppet\nresource_registry:\n  OS::X: [a.yaml, b.yaml]\n',
 *   { filename: 'envs/x.yaml' });
 * if (r.ok) r.environment.registry[0].candidates; // [{ value: 'a.yaml', resolved: 'envs/a.yaml', … }, …]
 */
export function validateEnvironment(
  source: string,
  options: ParseEnvironmentOptions = {},
): ValidateEnvironmentResult {
  requireString(source, 'The text of validateEnvironment', 'heat/invalid-argument');
  options = optionsOf(options, 'validateEnvironment', 'heat/invalid-argument');
  const file = options.filename;
  const loaded = loadHeatText(source, { kind: 'environment', filename: file });
  if (!loaded.ok) return { ok: false, diagnostics: loaded.diagnostics };
  const { document, warnings } = loaded.loaded;
  const value = loaded.loaded.value;
  if (!isMapping(value)) {
    return {
      ok: false,
      diagnostics: [
        createDiagnostic({
          code: 'heat/environment/not-a-mapping',
          message: 'The environment is not a valid YAML mapping data type.',
          hint: 'An environment is a mapping of sections such as resource_registry and parameter_defaults.',
          ...(file ? { file } : {}),
          ...(document.locate('') ?? {}),
        }),
        ...warnings,
      ],
    };
  }
  const ext = options.allowExtensions !== false;
  const known: string[] = [...ENVIRONMENT_SECTIONS, ...(ext ? [REQUIRES_SECTION] : [])];
  const walk: Walk = {
    diagnostics: [],
    entries: [],
    at: (init, key = false) => document.diagnostic(init, { key }),
    baseDir: options.baseDir ?? baseDirOf(file),
    options,
    spelling: (path) => rawTextAt(document, path),
  };
  for (const [key, section] of Object.entries(value)) {
    if (!known.includes(key)) {
      const close = suggest(key, known)[0];
      walk.diagnostics.push(
        walk.at(
          {
            code: 'heat/environment/wrong-section',
            message: `environment has wrong section "${pythonKeyText(key, rawTextAt(document, `/${pointerSegment(key)}`, { key: true }))}"`,
            path: `/${pointerSegment(key)}`,
            hint: close
              ? `did you mean ${close}?`
              : key === REQUIRES_SECTION
                ? 'Real Heat rejects requires; resolve the environment first (stackspec-heat resolve).'
                : `Parameters go under parameter_defaults or parameters; sections are ${known.join(', ')}.`,
          },
          true,
        ),
      );
    } else if (section === null || section === undefined) {
      walk.diagnostics.push(
        walk.at(
          {
            ...(options.acceptNullSections ? { severity: 'warning' as const } : {}),
            code: 'heat/environment/empty-section',
            message: `environment has empty section "${key}"`,
            path: `/${pointerSegment(key)}`,
            hint: `Remove the empty "${key}:" line or write "${key}: {}"; heatclient lets it through but the Heat server rejects it.`,
          },
          true,
        ),
      );
    }
  }
  const blocking = () => walk.diagnostics.some((d) => d.severity === 'error');
  if (!blocking()) {
    checkSectionShapes(walk, value);
    if (isMapping(value.resource_registry)) walkRegistry(walk, value.resource_registry, [], undefined);
  }
  const requires = ext && !blocking() ? readRequires(walk, value[REQUIRES_SECTION]) : {};
  const errors = walk.diagnostics.filter((d) => d.severity === 'error');
  const diagnostics = [...walk.diagnostics, ...warnings];
  if (errors.length) return { ok: false, diagnostics };
  return {
    ok: true,
    diagnostics,
    environment: {
      file,
      baseDir: walk.baseDir,
      value,
      requires,
      registry: walk.entries,
      document,
      warnings: [...walk.diagnostics, ...warnings],
    },
  };
}

/**
 * Like {@link validateEnvironment} but throws a `ValidationError` (HTTP
 * 400) carrying every diagnostic when the environment is not valid.
 *
 * @example
 * const env = parseEnvironment(text, { filename: 'environments/docker-ha.yaml' });
 * env.registry.filter((e) => e.kind === 'template').map((e) => e.resolved);
 */
export function parseEnvironment(source: string, options: ParseEnvironmentOptions = {}): HeatEnvironment {
  const result = validateEnvironment(source, options);
  if (!result.ok) throw validationErrorOf(result.diagnostics);
  return result.environment;
}
