import { defineExtraSpec, type ExtraSpecDefinition, type ExtraSpecInput } from '../define.js';

/**
 * A maker of definitions for a family of keys that share some fields (the
 * one driver that reads them, a history they all went through): the shared
 * fields are given once, each key then gives only the rest.
 */
export function specFamily<K extends keyof ExtraSpecInput>(
  shared: Pick<ExtraSpecInput, K>,
): (spec: Omit<ExtraSpecInput, K>) => ExtraSpecDefinition {
  return (spec) => defineExtraSpec({ ...spec, ...shared } as ExtraSpecInput);
}

/** Keys only the libvirt driver reads. */
export const libvirtSpec = specFamily({ virtDrivers: ['libvirt'] });
