// Several environment files merged by Heat's own server-side merge and by
// mergeEnvironments: seeded files mixing parameters, merge strategies,
// registries (nulls, resources blocks) and event sinks.
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { oracleAvailable, PYTHON } from '../../../test-support/python.js';
import { mergeEnvironments, type ParameterType, parseEnvironment } from '../src/index.js';
import { sortKeys } from './sort-keys.js';

const ORACLE = join(dirname(fileURLToPath(import.meta.url)), 'heat-merge-oracle.py');

const TYPES: Record<string, ParameterType> = {
  S: 'string',
  L: 'comma_delimited_list',
  M: 'json',
  N: 'number',
  B: 'boolean',
};
const TEMPLATE = `heat_template_version: wallaby\nparameters:\n${Object.entries(TYPES)
  .map(([name, type]) => `  ${name}: {type: ${type}}`)
  .join('\n')}\n`;

const value = fc.oneof(
  fc.constantFrom('a', 'b,c', '', 'x'),
  fc.constantFrom(['1'], ['2', '3'], []),
  fc.constantFrom({ k: 'v' }, { k: { n: 'm' } }, { j: ['1'] }, {}),
  fc.constantFrom(1, 2.5, true, null),
);
const params = fc.dictionary(fc.constantFrom('S', 'L', 'M', 'N', 'B', 'U'), value, { maxKeys: 4 });
const strategy = fc.constantFrom('overwrite', 'merge', 'deep_merge', 'bogus');
const env = fc.record(
  {
    parameter_defaults: params,
    parameters: params,
    parameter_merge_strategies: fc.dictionary(fc.constantFrom('default', 'S', 'L', 'M'), strategy, {
      maxKeys: 2,
    }),
    resource_registry: fc.dictionary(
      fc.constantFrom('OS::A', 'OS::B', 'OS::C::*', 'resources'),
      fc.oneof(
        fc.constantFrom('OS::Heat::None', 'a.yaml', null),
        fc.constant({ server: { hooks: 'pre-create' } }),
        fc.constant({ other: { 'OS::A': 'b.yaml' } }),
      ),
      { maxKeys: 3 },
    ),
    event_sinks: fc.constantFrom([{ type: 'zaqar-queue', target: 'q' }]),
  },
  { requiredKeys: [] },
);

describe.runIf(oracleAvailable('heat', ['heat.common.environment_util']))(
  'environment merge agrees with the Heat server',
  () => {
    it('merges seeded files to the same result, or fails the same way', () => {
      const samples = fc.sample(fc.array(env, { minLength: 1, maxLength: 3 }), { seed: 7, numRuns: 500 });
      const cases = samples.map((envs, id) => {
        const names = envs.map((_, i) => `env${i}.yaml`);
        const files: Record<string, string> = { 'a.yaml': TEMPLATE, 'b.yaml': TEMPLATE };
        envs.forEach((e, i) => {
          // resource_registry values that are mappings must be the resources block to load.
          const reg = { ...(e.resource_registry ?? {}) } as Record<string, unknown>;
          for (const [k, v] of Object.entries(reg)) {
            if ((k === 'resources') !== (typeof v === 'object' && v !== null)) delete reg[k];
          }
          const body: Record<string, unknown> = { ...e, resource_registry: reg };
          files[names[i] as string] = stringify(body, { version: '1.1' });
        });
        return { id, template: TEMPLATE, files, names };
      });
      const run = spawnSync(PYTHON, [ORACLE], {
        input: `${cases.map((c) => JSON.stringify(c)).join('\n')}\n`,
        encoding: 'utf8',
        maxBuffer: 64 * 1024 * 1024,
      });
      expect(run.status, run.stderr).toBe(0);
      const answers = run.stdout
        .trim()
        .split('\n')
        .map(
          (l) =>
            JSON.parse(l) as { id: number; ok: boolean; merged?: Record<string, unknown>; message?: string },
        );
      const mismatches: unknown[] = [];
      let failures = 0;
      for (const a of answers) {
        const c = cases[a.id] as (typeof cases)[number];
        const parsed = c.names.map((n) =>
          parseEnvironment(c.files[n] as string, { filename: n, allowExtensions: false }),
        );
        const ours = mergeEnvironments(parsed, { parameterTypes: TYPES });
        const ourErrors = ours.diagnostics.filter((d) => d.severity === 'error');
        if (!a.ok) failures += 1;
        if (a.ok !== (ourErrors.length === 0)) {
          mismatches.push({
            files: c.files,
            heat: a.message ?? a.merged,
            ours: ourErrors[0]?.message ?? ours.environment.value,
          });
          continue;
        }
        if (!a.ok) {
          const heatMessage = a.message ?? '';
          const first = ourErrors[0]?.message ?? '';
          // Heat's own messages are reproduced; crashes (TypeError, AttributeError) have ours.
          // JSON decoding errors name the problem in each language's own words; compare up to them.
          const comparable = (m: string) =>
            m.startsWith('Invalid parameter in environment ') && m.length > 35
              ? 'Invalid parameter in environment <json error>'
              : m;
          if (
            /merge strategy|Invalid parameter in environment/.test(heatMessage) &&
            comparable(heatMessage) !== comparable(first)
          ) {
            mismatches.push({ files: c.files, heat: heatMessage, ours: first });
          }
          continue;
        }
        const theirs = Object.fromEntries(
          Object.entries(a.merged ?? {}).filter(
            ([, v]) => !(Array.isArray(v) ? v.length === 0 : Object.keys(v as object).length === 0),
          ),
        );
        const mine = Object.fromEntries(
          Object.entries(ours.environment.value).filter(
            ([, v]) => !(Array.isArray(v) ? v.length === 0 : Object.keys(v as object).length === 0),
          ),
        );
        if (JSON.stringify(sortKeys(mine)) !== JSON.stringify(sortKeys(theirs)))
          mismatches.push({ files: c.files, heat: theirs, ours: mine });
      }
      if (process.env.MERGE_DEBUG) for (const m of mismatches) console.log(JSON.stringify(m));
      console.log(
        `environment merges: ${answers.length} cases, ${failures} rejected by Heat, ${mismatches.length} mismatches`,
      );
      expect(answers).toHaveLength(cases.length);
      expect(mismatches.slice(0, 3)).toEqual([]);
    });
  },
);
