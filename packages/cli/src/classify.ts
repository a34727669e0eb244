import { suggest } from '@stackspec/core';

/** The kinds of file `stackspec check` recognises. */
export const ARTIFACT_KINDS = [
  'flavor',
  'deploy-template',
  'image-spec',
  'heat-template',
  'heat-environment',
  'placement-inventory',
  'driver-steps',
  'stackspec-config',
] as const;
export type ArtifactKind = (typeof ARTIFACT_KINDS)[number];

/** What each kind is called in reports. */
export const KIND_LABELS: Readonly<Record<ArtifactKind, string>> = {
  flavor: 'flavor',
  'deploy-template': 'deploy template',
  'image-spec': 'image validation spec',
  'heat-template': 'Heat template',
  'heat-environment': 'Heat environment',
  'placement-inventory': 'Placement inventory',
  'driver-steps': 'driver deploy steps',
  'stackspec-config': 'stackspec config',
};

// Sections Heat accepts in an environment file, plus the spec's `requires`.
const ENVIRONMENT_SECTIONS = new Set([
  'parameters',
  'parameter_defaults',
  'resource_registry',
  'event_sinks',
  'encrypted_param_names',
  'parameter_merge_strategies',
  'requires',
]);

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function looksLikeFlavor(v: unknown): boolean {
  if (!isObject(v)) return false;
  if (isObject(v.extra_specs)) return true;
  // `openstack flavor show -f json`: properties as a dict or a "k='v', …" string.
  return 'properties' in v && typeof v.name === 'string' && ('vcpus' in v || 'ram' in v);
}

function looksLikeDeployTemplate(v: unknown): boolean {
  return isObject(v) && typeof v.name === 'string' && Array.isArray(v.steps);
}

/**
 * Recognises a parsed document by its shape (and its file name), the way a
 * reader would: `heat_template_version` makes a Heat template, a
 * `validators` list an image validation spec, `extra_specs` a flavor,
 * `name` plus `steps` a deploy template, only environment sections an
 * environment, a `providers` list an inventory. Returns `undefined` for
 * anything else (such files are listed as skipped, never as errors).
 */
export function classifyDocument(value: unknown, file: string): ArtifactKind | undefined {
  const base = file.split(/[\\/]/).pop() ?? file;
  if (/^stackspec\.config\.(ya?ml|json)$/.test(base)) return 'stackspec-config';
  if (Array.isArray(value)) {
    if (value.length && value.every(looksLikeFlavor)) return 'flavor';
    if (value.length && value.every(looksLikeDeployTemplate)) return 'deploy-template';
    return undefined;
  }
  if (!isObject(value)) return undefined;
  if ('heat_template_version' in value) return 'heat-template';
  if (Array.isArray(value.validators)) return 'image-spec';
  if (Array.isArray(value.driver_steps)) return 'driver-steps';
  if (looksLikeFlavor(value)) return 'flavor';
  if (Array.isArray(value.flavors) && value.flavors.every(looksLikeFlavor)) return 'flavor';
  if (looksLikeDeployTemplate(value)) return 'deploy-template';
  if (Array.isArray(value.deploy_templates) && value.deploy_templates.every(looksLikeDeployTemplate)) {
    return 'deploy-template';
  }
  if (
    Array.isArray(value.providers) &&
    value.providers.every((p) => isObject(p) && typeof p.name === 'string')
  ) {
    return 'placement-inventory';
  }
  const keys = Object.keys(value);
  if (keys.length && keys.every((k) => ENVIRONMENT_SECTIONS.has(k))) return 'heat-environment';
  return undefined;
}

/** A top-level key that looks like a misspelling of the key that marks a kind. */
export interface NearMiss {
  /** What the file would be with the key spelt right. */
  kind: ArtifactKind;
  /** The key as written. */
  key: string;
  /** The key it most likely stands for. */
  expected: string;
}

// The key that marks each kind, and the shape its value has (checked before a near miss counts).
const MARKERS: readonly {
  key: string;
  kind: ArtifactKind;
  fits: (v: unknown, doc: Record<string, unknown>) => boolean;
}[] = [
  { key: 'heat_template_version', kind: 'heat-template', fits: () => true },
  { key: 'validators', kind: 'image-spec', fits: (v) => Array.isArray(v) },
  { key: 'driver_steps', kind: 'driver-steps', fits: (v) => Array.isArray(v) },
  { key: 'extra_specs', kind: 'flavor', fits: (v) => isObject(v) },
  {
    key: 'flavors',
    kind: 'flavor',
    fits: (v) => Array.isArray(v) && v.length > 0 && v.every(looksLikeFlavor),
  },
  {
    key: 'deploy_templates',
    kind: 'deploy-template',
    fits: (v) => Array.isArray(v) && v.length > 0 && v.every(looksLikeDeployTemplate),
  },
  {
    key: 'steps',
    kind: 'deploy-template',
    fits: (v, doc) => Array.isArray(v) && typeof doc.name === 'string',
  },
  {
    key: 'providers',
    kind: 'placement-inventory',
    fits: (v) =>
      Array.isArray(v) && v.length > 0 && v.every((p) => isObject(p) && typeof p.name === 'string'),
  },
];

/**
 * For a document {@link classifyDocument} does not recognise: the top-level
 * key that is most likely a misspelling of the key marking a kind
 * (`extra_spec` for `extra_specs`, `resource_registy` for
 * `resource_registry`), so that a typo does not hide a whole file. Only
 * close spellings count (a few edits, ignoring case) whose value has the
 * expected shape; an environment counts when every key is a section or
 * close to one. Returns `undefined` when nothing is close.
 */
export function findNearMiss(value: unknown): NearMiss | undefined {
  if (!isObject(value)) return undefined;
  const keys = Object.keys(value);
  for (const key of keys) {
    for (const m of MARKERS) {
      if (m.key in value) continue;
      if (suggest(key, [m.key])[0] === m.key && m.fits(value[key], value)) {
        return { kind: m.kind, key, expected: m.key };
      }
    }
  }
  const sections = [...ENVIRONMENT_SECTIONS];
  const misses = keys
    .filter((k) => !ENVIRONMENT_SECTIONS.has(k))
    .map((k) => ({ key: k, expected: suggest(k, sections)[0] }));
  const first = misses[0];
  if (first?.expected && misses.every((m) => m.expected)) {
    return { kind: 'heat-environment', key: first.key, expected: first.expected };
  }
  return undefined;
}
