import { CONFIDENCE, claimMisspelling, type FileChecker } from '@stackspec/core';
import { validateFlavorFile } from './flavors.js';
import type { ValidateExtraSpecsOptions } from './validate.js';

/**
 * Settings of {@link flavorChecker}: the validation mode, and the Nova
 * release or a prepared registry (with plugins) whose catalog applies. A
 * registry wins over a release.
 */
export type FlavorCheckOptions = Pick<ValidateExtraSpecsOptions, 'mode' | 'release' | 'registry'>;

function isMapping(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function looksLikeFlavor(v: unknown): boolean {
  if (!isMapping(v)) return false;
  if (isMapping(v.extra_specs)) return true;
  // `openstack flavor show -f json`: properties as a dict or a "k='v', …" string.
  return 'properties' in v && typeof v.name === 'string' && ('vcpus' in v || 'ram' in v);
}

const MARKERS = [
  { key: 'extra_specs', fits: isMapping },
  {
    key: 'flavors',
    fits: (v: unknown) => Array.isArray(v) && v.length > 0 && v.every(looksLikeFlavor),
  },
];

/**
 * The checker contract for Nova flavor files: a flavor with an
 * `extra_specs` mapping, a flavor as `openstack flavor show -f json` prints
 * it (`name`, `vcpus` or `ram`, `properties`), a list of those, or a
 * `flavors:` list (all `CONFIDENCE.shape`); a close misspelling of
 * `extra_specs` or `flavors` is reported as one. `check` validates every
 * flavor's extra specs as {@link validateFlavorFile} does; it reads no
 * other file.
 *
 * @example
 * const diagnostics = await flavorChecker.check({ path, text, document }, { reader, options: { mode: 'nova' } });
 */
export const flavorChecker: FileChecker<FlavorCheckOptions> = {
  kind: 'flavor',
  label: 'flavor',
  recognise({ document }) {
    const value = document?.value;
    if (Array.isArray(value)) {
      return value.length && value.every(looksLikeFlavor) ? { confidence: CONFIDENCE.shape } : undefined;
    }
    if (!isMapping(value)) return undefined;
    if (looksLikeFlavor(value)) return { confidence: CONFIDENCE.shape };
    if (Array.isArray(value.flavors) && value.flavors.every(looksLikeFlavor)) {
      return { confidence: CONFIDENCE.shape };
    }
    return claimMisspelling(value, MARKERS);
  },
  check({ path, text }, { options = {} }) {
    return validateFlavorFile(text, path, {
      ...(options.mode ? { mode: options.mode } : {}),
      ...(options.registry
        ? { registry: options.registry }
        : options.release
          ? { release: options.release }
          : {}),
    }).diagnostics;
  },
};
