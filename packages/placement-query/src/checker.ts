import { CONFIDENCE, claimMisspelling, type FileChecker } from '@stackspec/core';
import { validateInventory } from './model/inventory-file.js';

function isMapping(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

const isProviderList = (v: unknown): v is unknown[] =>
  Array.isArray(v) && v.every((p) => isMapping(p) && typeof p.name === 'string');

const MARKERS = [{ key: 'providers', fits: (v: unknown) => isProviderList(v) && v.length > 0 }];

/**
 * The checker contract for Placement inventory files: a mapping whose
 * `providers` list holds named providers (`CONFIDENCE.shape`); a close
 * misspelling of `providers` holding such a list is reported as one.
 * `check` loads the inventory as {@link validateInventory} does; it reads
 * no other file and takes no options.
 *
 * @example
 * const diagnostics = await inventoryChecker.check({ path, text, document }, { reader });
 */
export const inventoryChecker: FileChecker = {
  kind: 'placement-inventory',
  label: 'Placement inventory',
  recognise({ document }) {
    const value = document?.value;
    if (!isMapping(value)) return undefined;
    if (isProviderList(value.providers)) return { confidence: CONFIDENCE.shape };
    return claimMisspelling(value, MARKERS);
  },
  check({ path, text }) {
    return validateInventory(text, { filename: path }).diagnostics;
  },
};
