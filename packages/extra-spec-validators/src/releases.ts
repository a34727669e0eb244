import { compareTraitReleases, kindOf, SpecError } from '@stackspec/core';
import { z } from 'zod';

/** One Nova release series that has extra spec validation (Ussuri onwards). */
export interface NovaRelease {
  /** Lower-case code name, e.g. `zed`. */
  readonly name: string;
  /** Year-based version (`2023.1`), or the old-style year of the cycle for releases before 2023. */
  readonly series: string;
  /** Major version of the `nova` package released in this series (`26` for Zed). */
  readonly nova: number;
  /** The os-traits release this series was tested with (its upper constraint), which decides its trait keys. */
  readonly osTraits: string;
  /** True while the series has not been released yet (the development branch). */
  readonly unreleased?: boolean;
}

/**
 * Every Nova series since extra spec validation arrived, oldest first. The
 * os-traits version of each is the one the series' upper constraints pinned,
 * which is what a deployment of that series normally runs.
 */
export const NOVA_RELEASES: readonly NovaRelease[] = [
  { name: 'ussuri', series: '2020.1', nova: 21, osTraits: '2.3.0' },
  { name: 'victoria', series: '2020.2', nova: 22, osTraits: '2.4.0' },
  { name: 'wallaby', series: '2021.1', nova: 23, osTraits: '2.5.0' },
  { name: 'xena', series: '2021.2', nova: 24, osTraits: '2.6.0' },
  { name: 'yoga', series: '2022.1', nova: 25, osTraits: '2.7.0' },
  { name: 'zed', series: '2022.2', nova: 26, osTraits: '2.9.0' },
  { name: 'antelope', series: '2023.1', nova: 27, osTraits: '2.10.0' },
  { name: 'bobcat', series: '2023.2', nova: 28, osTraits: '3.0.0' },
  { name: 'caracal', series: '2024.1', nova: 29, osTraits: '3.0.0' },
  { name: 'dalmatian', series: '2024.2', nova: 30, osTraits: '3.1.0' },
  { name: 'epoxy', series: '2025.1', nova: 31, osTraits: '3.3.0' },
  { name: 'flamingo', series: '2025.2', nova: 32, osTraits: '3.5.0' },
  { name: 'gazpacho', series: '2026.1', nova: 33, osTraits: '3.6.0' },
  { name: 'hibiscus', series: '2026.2', nova: 34, osTraits: '3.9.0', unreleased: true },
];

/** Code names of {@link NOVA_RELEASES}, oldest first. */
export const RELEASE_NAMES = NOVA_RELEASES.map((r) => r.name) as [string, ...string[]];

/** The newest series known, the default everywhere a release is optional. */
export const LATEST_RELEASE: NovaRelease = NOVA_RELEASES[NOVA_RELEASES.length - 1] as NovaRelease;

/** A release code name, as accepted in definitions (`added: 'zed'`). */
export const ReleaseNameSchema = z.enum(RELEASE_NAMES);
/** One of {@link RELEASE_NAMES}. */
export type ReleaseName = z.infer<typeof ReleaseNameSchema>;

const byKey = new Map<string, NovaRelease>();
for (const r of NOVA_RELEASES) {
  byKey.set(r.name, r);
  byKey.set(r.series, r);
  byKey.set(String(r.nova), r);
}
const INDEX = new Map(NOVA_RELEASES.map((r, i) => [r.name, i] as const));

/**
 * Finds a release by code name (`zed`, any case), series (`2023.1`), Nova
 * major (`26`) or full Nova version (`26.2.2`). `undefined` or `latest`
 * gives {@link LATEST_RELEASE}.
 *
 * Throws `SpecError` with code `extra-specs/unknown-release` for anything
 * else, with the closest names in the hint.
 *
 * @example
 * resolveRelease('zed').nova; // 26
 * resolveRelease('2023.1').name; // 'antelope'
 */
export function resolveRelease(release?: string | NovaRelease): NovaRelease {
  if (release === undefined || release === 'latest') return LATEST_RELEASE;
  if (typeof release === 'object' && release !== null && typeof release.name === 'string') {
    return resolveRelease(release.name);
  }
  const text =
    typeof release === 'string' || typeof release === 'number' ? String(release).trim().toLowerCase() : '';
  const hit = byKey.get(text) ?? byKey.get(text.split('.')[0] ?? '');
  if (hit && (byKey.has(text) || /^\d+\.\d+(\.\d+)?$/.test(text))) return hit;
  const shown = typeof release === 'string' ? `'${release}'` : kindOf(release);
  throw new SpecError(`${shown} is not a Nova release with extra spec validation.`, {
    code: 'extra-specs/unknown-release',
    diagnostics: [
      {
        code: 'extra-specs/unknown-release',
        severity: 'error',
        path: '',
        message: `${shown} is not a Nova release with extra spec validation.`,
        hint: `Use a code name (${RELEASE_NAMES.join(', ')}), a series such as 2023.1, or a Nova version such as 26.`,
      },
    ],
  });
}

/** Negative when `a` is older than `b`, zero when equal, positive when newer. */
export function compareReleases(a: string | NovaRelease, b: string | NovaRelease): number {
  return (INDEX.get(resolveRelease(a).name) as number) - (INDEX.get(resolveRelease(b).name) as number);
}

/** `zed (2022.2, Nova 26)`: how messages name a release. */
export function describeRelease(release: string | NovaRelease): string {
  release = resolveRelease(release);
  return `${release.name} (${release.series}, Nova ${release.nova}${release.unreleased ? ', in development' : ''})`;
}

/**
 * The first Nova series whose os-traits pin includes a given os-traits
 * release, or `undefined` when none does yet. Trait keys are added to the
 * catalog in that series.
 */
export function firstReleaseWithOsTraits(osTraits: string): NovaRelease | undefined {
  return NOVA_RELEASES.find((r) => compareVersions(r.osTraits, osTraits) >= 0);
}

/** Compares os-traits version numbers numerically (`2.10.0` > `2.9.0`): core's comparison. */
export const compareVersions = compareTraitReleases;
