// Registry lookups against Heat's own Environment.get_resource_info: seeded
// registries built from Heat's patterns (aliases, wildcards, templates,
// per-resource overrides, nulls, cycles), every lookup answered by both.
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { oracleAvailable, PYTHON } from '../../../test-support/python.js';
import { lookupResourceType, parseEnvironment } from '../src/index.js';

const ORACLE = join(dirname(fileURLToPath(import.meta.url)), 'heat-registry-oracle.py');

const KEYS = [
  'OS::A',
  'OS::A::B',
  'OS::A::C',
  'OS::A::*',
  'OS::*',
  'OS::A::*B',
  'OS::Heat::None',
  'OS::X',
  'a.yaml',
];
const VALUES = [
  'OS::A',
  'OS::A::B',
  'OS::X',
  'OS::Y::*',
  'OS::A::*',
  'OS::Heat::*',
  'OS::Heat::None',
  'OS::Heat::RandomString',
  'OS::Nope',
  'x.yaml',
  'y.template',
  null,
];
const LOOKUPS = ['OS::A', 'OS::A::B', 'OS::A::C', 'OS::X', 'OS::Heat::None', 'OS::Y::B', 'z.yaml'];

describe.runIf(oracleAvailable('heat', ['heat.engine.environment']))(
  'registry lookups agree with Heat',
  () => {
    it('resolves every type to the same implementation, or fails the same way', () => {
      const registryArb = fc.record({
        top: fc.dictionary(fc.constantFrom(...KEYS), fc.constantFrom(...VALUES), { maxKeys: 5 }),
        perResource: fc.dictionary(
          fc.constantFrom('OS::A', 'OS::A::B', 'OS::X'),
          fc.constantFrom('r.yaml', 'OS::X', 'OS::A::C'),
          {
            maxKeys: 2,
          },
        ),
      });
      const registries = fc
        .sample(registryArb, { seed: 99, numRuns: 250 })
        .map(({ top, perResource }) =>
          Object.keys(perResource).length ? { ...top, resources: { special: perResource } } : top,
        );
      const cases = registries.flatMap((registry, r) =>
        LOOKUPS.flatMap((type) => ['special', 'plain'].map((name) => ({ id: 0, r, registry, type, name }))),
      );
      cases.forEach((c, i) => {
        c.id = i;
      });
      const input = cases
        .map(({ id, registry, type, name }) => JSON.stringify({ id, registry, type, name }))
        .join('\n');
      const run = spawnSync(PYTHON, [ORACLE], {
        input: `${input}\n`,
        encoding: 'utf8',
        maxBuffer: 64 * 1024 * 1024,
      });
      expect(run.status, run.stderr).toBe(0);
      const [head, ...lines] = run.stdout.trim().split('\n');
      const known = new Set((JSON.parse(head as string) as { known: string[] }).known);
      const answers = lines.map((l) => JSON.parse(l) as { id: number; kind: string; value?: string });
      const mismatches: unknown[] = [];
      const kinds: Record<string, number> = {};
      for (const a of answers) {
        const c = cases[a.id] as (typeof cases)[number];
        const env = parseEnvironment(JSON.stringify({ resource_registry: c.registry }));
        const r = lookupResourceType(env.registry, c.type, { resourceName: c.name, knownTypes: known });
        const ours = r.ok
          ? r.implementation.kind === 'template'
            ? { kind: 'template', value: r.implementation.target }
            : r.implementation.kind === 'type'
              ? { kind: 'type', value: r.implementation.type }
              : { kind: 'candidates' }
          : { kind: r.diagnostics[0]?.code === 'heat/registry/alias-cycle' ? 'cycle' : 'not-found' };
        const theirs = a.value === undefined ? { kind: a.kind } : { kind: a.kind, value: a.value };
        kinds[a.kind] = (kinds[a.kind] ?? 0) + 1;
        if (JSON.stringify(ours) !== JSON.stringify(theirs))
          mismatches.push({ registry: c.registry, type: c.type, name: c.name, ours, heat: theirs });
      }
      console.log('registry lookups:', answers.length, kinds);
      expect(answers).toHaveLength(cases.length);
      expect(mismatches.slice(0, 5)).toEqual([]);
    });
  },
);
