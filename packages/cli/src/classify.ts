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
