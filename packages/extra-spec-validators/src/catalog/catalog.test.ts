import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { standardTraits } from '@stackspec/core';
import { describe, expect, it } from 'vitest';
import { NOVA_RELEASES, RELEASE_NAMES } from '../releases.js';
import {
  BUILTIN_EXTRA_SPECS,
  definitionInRelease,
  extraSpecsForRelease,
  isAvailableIn,
  isDeprecatedIn,
} from './index.js';

interface FixtureEntry {
  name: string;
  value: Record<string, unknown>;
  deprecated: boolean;
  parameters: { name: string; pattern: string }[];
}
const fixture = JSON.parse(
  readFileSync(join(import.meta.dirname, '../fixtures/nova-validators.json'), 'utf8'),
) as { releases: Record<string, FixtureEntry[]> };

const generated = (name: string) => name.startsWith('trait{group}:') || name.startsWith('resources{group}:');

describe('the built-in catalog', () => {
  it("has Nova 26's 490 validators for zed and 525 for the newest release", () => {
    expect(extraSpecsForRelease('zed')).toHaveLength(490);
    expect(extraSpecsForRelease()).toHaveLength(525);
    expect(extraSpecsForRelease('2026.2')).toHaveLength(525);
  });

  it.each(RELEASE_NAMES)('matches the %s validators other than traits and resources, in order', (release) => {
    // Nova lists capabilities:vcpus_used twice; its registry keeps the first.
    const seen = new Set<string>();
    const expected = (fixture.releases[release] as FixtureEntry[]).filter(
      (e) => !seen.has(e.name) && seen.add(e.name),
    );
    const ours = extraSpecsForRelease(release).filter((s) => !generated(s.name));
    expect(ours.map((s) => s.name)).toEqual(expected.map((e) => e.name));
    ours.forEach((s, i) => {
      const e = expected[i] as FixtureEntry;
      const { description: _, ...rule } = s.value as typeof s.value & { description?: string };
      expect(rule, s.name).toEqual(e.value);
      expect(isDeprecatedIn(s.definition, release), s.name).toBe(e.deprecated);
      expect(
        s.parameters.map((p) => ({ name: p.name, pattern: p.pattern })),
        s.name,
      ).toEqual(e.parameters);
    });
  });

  it.each(NOVA_RELEASES.map((r) => [r.name, r.osTraits]))(
    'has one trait key per standard trait of the os-traits %s pinned (%s), plus custom traits',
    (release, osTraits) => {
      const traits = extraSpecsForRelease(release).filter((s) => s.name.startsWith('trait{group}:'));
      expect(traits).toHaveLength(standardTraits(osTraits).size + 1);
    },
  );

  it('adds the packet-rate resource classes in xena', () => {
    const count = (r: string) => extraSpecsForRelease(r).filter((s) => s.name.startsWith('resources')).length;
    expect(count('wallaby')).toBe(19);
    expect(count('xena')).toBe(22);
  });

  it('writes its own descriptions for every entry', () => {
    for (const d of BUILTIN_EXTRA_SPECS) {
      expect(d.description.length, d.name).toBeGreaterThan(20);
      expect(d.status, d.name).toBeDefined();
    }
  });

  it('applies history: ussuri has no mixed CPU policy and the old NUMA placeholder', () => {
    const policy = BUILTIN_EXTRA_SPECS.find((d) => d.name === 'hw:cpu_policy');
    expect(policy && definitionInRelease(policy, 'ussuri')?.value).toMatchObject({
      enum: ['dedicated', 'shared'],
    });
    expect(policy && definitionInRelease(policy, 'victoria')?.value).toMatchObject({
      enum: ['dedicated', 'shared', 'mixed'],
    });
    const numa = BUILTIN_EXTRA_SPECS.find((d) => d.name === 'hw:numa_cpus.{num}');
    expect(numa && definitionInRelease(numa, 'wallaby')?.name).toBe('hw:numa_cpus.{id}');
    expect(numa && definitionInRelease(numa, 'xena')?.name).toBe('hw:numa_cpus.{num}');
  });

  it('records renames and removals', () => {
    const old = BUILTIN_EXTRA_SPECS.find((d) => d.name === 'hw:max_cpu_sockets');
    expect(old?.status?.renamed?.to).toBe('hw:cpu_max_sockets');
    expect(old && isAvailableIn(old, 'epoxy')).toBe(true);
    expect(old && isAvailableIn(old, 'flamingo')).toBe(false);
    const monitors = BUILTIN_EXTRA_SPECS.find((d) => d.name === 'os:monitors');
    expect(monitors && isAvailableIn(monitors, 'bobcat')).toBe(true);
    expect(monitors && definitionInRelease(monitors, 'caracal')).toBeUndefined();
  });
});
