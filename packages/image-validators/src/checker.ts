import { CONFIDENCE, claimMisspelling, type FileChecker } from '@stackspec/core';
import { type ImageSpecReadOptions, validateImageSpec } from './load.js';

/** Settings of {@link imageSpecChecker}: extra validator types, as the loader takes them. */
export type ImageSpecCheckOptions = Pick<ImageSpecReadOptions, 'validatorMap'>;

function isMapping(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

const MARKERS = [{ key: 'validators', fits: (v: unknown) => Array.isArray(v) }];

/**
 * The checker contract for Sahara image validation specs (`image.yaml`):
 * a mapping with a `validators` list is one (`CONFIDENCE.marker`), and a
 * close misspelling of `validators` holding a list is reported as one.
 * `check` loads the spec as {@link validateImageSpec} does, reading the
 * scripts it names only through the context's reader (give a confined
 * reader over the resource roots; by default the spec's folder).
 *
 * @example
 * const reader = createNodeResourceReader({ roots: ['plugins/cdh'] });
 * const diagnostics = await imageSpecChecker.check({ path, text, document }, { reader });
 */
export const imageSpecChecker: FileChecker<ImageSpecCheckOptions> = {
  kind: 'image-spec',
  label: 'image validation spec',
  recognise({ document }) {
    const value = document?.value;
    if (!isMapping(value)) return undefined;
    if (Array.isArray(value.validators)) return { confidence: CONFIDENCE.marker };
    return claimMisspelling(value, MARKERS);
  },
  check({ path, text }, { reader, options }) {
    return validateImageSpec(
      { text, file: path },
      { reader, ...(options?.validatorMap ? { validatorMap: options.validatorMap } : {}) },
    ).diagnostics;
  },
};
