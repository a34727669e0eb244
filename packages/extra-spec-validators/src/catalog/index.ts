import type { ExtraSpecDefinition, ExtraSpecParameter, ValueRule } from '../define.js';
import { requireDefinition } from '../guards.js';
import { compareReleases, type NovaRelease, resolveRelease } from '../releases.js';
import { CAPABILITIES_SPECS } from './capabilities.js';
import { HW_SPECS } from './hw.js';
import {
  ACCEL_SPECS,
  AGGREGATE_SPECS,
  HW_RNG_SPECS,
  HW_VIDEO_SPECS,
  NULL_SPECS,
  OS_SPECS,
  PCI_SPECS,
  POWERVM_SPECS,
  VMWARE_SPECS,
} from './other.js';
import { RESOURCES_SPECS, TRAIT_SPECS } from './placement.js';
import { QUOTA_SPECS } from './quota.js';

/**
 * Every extra spec Nova has registered since Ussuri, across all releases,
 * in Nova's registration order (its validator modules in entry-point order;
 * trait keys sorted by name). Use {@link extraSpecsForRelease} for one
 * release's catalog.
 */
export const BUILTIN_EXTRA_SPECS: readonly ExtraSpecDefinition[] = Object.freeze([
  ...ACCEL_SPECS,
  ...AGGREGATE_SPECS,
  ...CAPABILITIES_SPECS,
  ...HW_SPECS,
  ...HW_RNG_SPECS,
  ...HW_VIDEO_SPECS,
  ...NULL_SPECS,
  ...OS_SPECS,
  ...PCI_SPECS,
  ...POWERVM_SPECS,
  ...QUOTA_SPECS,
  ...RESOURCES_SPECS,
  ...TRAIT_SPECS,
  ...VMWARE_SPECS,
]);

/** A definition as it stands in one release: the name, parameters and value rule that release used. */
export interface ReleasedExtraSpec {
  /** The name in that release (a placeholder may have had another name earlier). */
  readonly name: string;
  readonly parameters: readonly ExtraSpecParameter[];
  readonly value: ValueRule;
  /** The full definition, history included. */
  readonly definition: ExtraSpecDefinition;
}

/** Whether a definition exists in a release (added on or before it, not yet removed or renamed). */
export function isAvailableIn(definition: ExtraSpecDefinition, release: string | NovaRelease): boolean {
  requireDefinition(definition, 'isAvailableIn');
  const r = resolveRelease(release);
  const s = definition.status;
  if (!s) return true;
  if (compareReleases(s.added, r) > 0) return false;
  const gone = s.removed?.release ?? s.renamed?.release;
  return gone === undefined || compareReleases(r, gone) < 0;
}

/** The form a definition had in a release (history applied), or `undefined` when it did not exist then. */
export function definitionInRelease(
  definition: ExtraSpecDefinition,
  release: string | NovaRelease,
): ReleasedExtraSpec | undefined {
  requireDefinition(definition, 'definitionInRelease');
  const r = resolveRelease(release);
  if (!isAvailableIn(definition, r)) return undefined;
  const old = definition.history?.find((h) => compareReleases(r, h.until) <= 0);
  return {
    name: old?.name ?? definition.name,
    parameters: old?.parameters ?? definition.parameters,
    value: old?.value ?? definition.value,
    definition,
  };
}

const cache = new Map<string, readonly ReleasedExtraSpec[]>();

/**
 * The built-in catalog of one release (default: the newest), as that release
 * defined each key. `zed` gives Nova 26's 490 entries; the newest gives 525.
 *
 * @example
 * extraSpecsForRelease('zed').length; // 490
 */
export function extraSpecsForRelease(release?: string | NovaRelease): readonly ReleasedExtraSpec[] {
  const r = resolveRelease(release);
  const hit = cache.get(r.name);
  if (hit) return hit;
  const list = Object.freeze(
    BUILTIN_EXTRA_SPECS.flatMap((d) => {
      const x = definitionInRelease(d, r);
      return x ? [x] : [];
    }),
  );
  cache.set(r.name, list);
  return list;
}

/** Whether a definition is deprecated in a release (its deprecation's `since` is that release or older). */
export function isDeprecatedIn(definition: ExtraSpecDefinition, release: string | NovaRelease): boolean {
  requireDefinition(definition, 'isDeprecatedIn');
  const d = definition.deprecated;
  return d !== undefined && compareReleases(release, d.since) >= 0;
}
