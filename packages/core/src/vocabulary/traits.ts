import { z } from 'zod';
import { TRAIT_RELEASES } from './traits-data.js';

/** The newest os-traits release whose names core knows. */
export const LATEST_OS_TRAITS = '3.9.0';

/** Largest length of a trait name (Placement's and Ironic's column size). */
export const MAX_TRAIT_LENGTH = 255;

/** Custom trait names: `CUSTOM_` then upper-case letters, digits and underscores. */
export const CUSTOM_TRAIT_PATTERN = /^CUSTOM_[A-Z0-9_]+$/;

/**
 * Compares two os-traits release numbers part by part as numbers
 * (`2.10.0` > `2.9.0`; a missing part counts as 0, so `3.0` equals `3.0.0`).
 * Negative when `a` is older, zero when equal, positive when newer.
 */
export function compareTraitReleases(a: string, b: string): number {
  const pa = a.split('.').map(Number);
  const pb = b.split('.').map(Number);
  for (let i = 0; i < Math.max(pa.length, pb.length); i += 1) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d) return d;
  }
  return 0;
}

const cache = new Map<string, ReadonlySet<string>>();

/**
 * The standard trait names shipped by an os-traits release (default: the
 * newest known). A release between two known ones gets the names of the
 * older one; a release before 1.0.0 gets the 1.0.0 names.
 *
 * @example
 * standardTraits('2.9.0').size; // 345 (Debian 12)
 * standardTraits().size;        // 377 (3.9.0)
 */
export function standardTraits(release: string = LATEST_OS_TRAITS): ReadonlySet<string> {
  const hit = cache.get(release);
  if (hit) return hit;
  const names = new Set<string>();
  for (const [r, added] of TRAIT_RELEASES) {
    if (names.size && compareTraitReleases(r, release) > 0) break;
    for (const n of added) names.add(n);
  }
  cache.set(release, names);
  return names;
}

/** The os-traits release that first shipped a standard trait, or `undefined` for any other name. */
export function traitRelease(name: string): string | undefined {
  for (const [r, added] of TRAIT_RELEASES) if (added.includes(name)) return r;
  return undefined;
}

/** True for a syntactically valid custom trait name (at most 255 characters). */
export function isCustomTrait(name: string): boolean {
  return name.length <= MAX_TRAIT_LENGTH && CUSTOM_TRAIT_PATTERN.test(name);
}

/** True for a standard trait of the given os-traits release (default newest) or a custom trait. */
export function isTraitName(name: string, release?: string): boolean {
  return isCustomTrait(name) || standardTraits(release).has(name);
}

/**
 * A trait name as Ironic and Placement accept it: a standard os-traits name
 * (exact, case-sensitive) or `CUSTOM_[A-Z0-9_]+`, 1 to 255 characters.
 * Use {@link traitNameSchema} for an older os-traits release.
 */
export const TraitNameSchema = traitNameSchema();

/** {@link TraitNameSchema} for a particular os-traits release. */
export function traitNameSchema(release?: string) {
  return z
    .string()
    .min(1)
    .max(MAX_TRAIT_LENGTH)
    .refine((s) => isTraitName(s, release), {
      message: `must be a standard trait of os-traits ${release ?? LATEST_OS_TRAITS} or match ${CUSTOM_TRAIT_PATTERN.source}`,
    });
}

/** A custom trait name (`CUSTOM_…`). */
export const CustomTraitSchema = z.string().max(MAX_TRAIT_LENGTH).regex(CUSTOM_TRAIT_PATTERN);
