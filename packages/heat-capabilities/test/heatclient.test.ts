// The client side, against python3-heatclient on the real tree: every
// environment file heatclient can process gets the same registry paths
// (resolved against its own directory), and seeded combinations of them
// merge to the same document as heatclient's deep_update.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import fg from 'fast-glob';
import { describe, expect, it } from 'vitest';
import { oracleAvailable, PYTHON } from '../../../test-support/python.js';
import { type HeatEnvironment, mergeEnvironments, scanDocument, validateEnvironment } from '../src/index.js';
import { CORPUS_ROOT, corpusAvailable } from './corpus-path.js';
import { sortKeys } from './sort-keys.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = CORPUS_ROOT;
const ORACLE = join(HERE, 'heatclient-oracle.py');

function heatclient(batches: string[][]) {
  const input = batches.map((paths, id) => JSON.stringify({ id, paths })).join('\n');
  const run = spawnSync(PYTHON, [ORACLE], {
    input: `${input}\n`,
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
  });
  if (run.status !== 0) throw new Error(run.stderr);
  return run.stdout
    .trim()
    .split('\n')
    .map(
      (l) => JSON.parse(l) as { id: number; ok: boolean; env?: Record<string, unknown>; message?: string },
    );
}

/** Our merged document with resolved paths written as heatclient writes them (file:// URLs). */
function asHeatclient(value: Record<string, unknown>): Record<string, unknown> {
  const url = (v: unknown): unknown =>
    typeof v === 'string' && v.startsWith('/')
      ? `file://${v}`
      : v && typeof v === 'object' && !Array.isArray(v)
        ? mapValues(v as Record<string, unknown>)
        : v;
  const mapValues = (o: Record<string, unknown>) =>
    Object.fromEntries(
      Object.entries(o).map(([k, v]) => [k, k === 'hooks' || k === 'restricted_actions' ? v : url(v)]),
    );
  const out = { ...value };
  if (out.resource_registry && typeof out.resource_registry === 'object')
    out.resource_registry = mapValues(out.resource_registry as Record<string, unknown>);
  return out;
}

describe.runIf(corpusAvailable() && oracleAvailable('heatclient', ['heatclient.common.template_utils']))(
  'client side against heatclient',
  () => {
    const files = existsSync(ROOT)
      ? fg
          .sync(['environments/**/*.yaml', 'ci/environments/**/*.yaml'], { cwd: ROOT, absolute: true })
          .filter((f) => !f.endsWith('.j2.yaml'))
          .sort()
      : [];
    const parsed = new Map<string, HeatEnvironment>();
    for (const f of files) {
      const text = readFileSync(f, 'utf8');
      if (scanDocument(text).kind !== 'environment') continue;
      const r = validateEnvironment(text, { filename: f, acceptNullSections: true, allowExtensions: false });
      if (r.ok) parsed.set(f, r.environment);
    }

    it('resolves every registry path of every file as heatclient does', () => {
      const paths = [...parsed.keys()];
      const answers = heatclient(paths.map((p) => [p]));
      const ok = answers.filter((a) => a.ok);
      const mismatches: unknown[] = [];
      for (const a of ok) {
        const path = paths[a.id] as string;
        const ours = asHeatclient(
          mergeEnvironments([parsed.get(path) as HeatEnvironment], { strategy: 'client' }).environment.value,
        );
        if (
          JSON.stringify(ours.resource_registry ?? {}) !==
          JSON.stringify((a.env as Record<string, unknown>).resource_registry ?? {})
        ) {
          mismatches.push({
            path,
            ours: ours.resource_registry,
            heatclient: (a.env as Record<string, unknown>).resource_registry,
          });
        }
      }
      // heatclient fails on files whose targets are missing; we report those instead (corpus test).
      const missingTargets = answers.filter(
        (a) => !a.ok && /Could not fetch contents/.test(a.message ?? ''),
      ).length;
      console.log(`heatclient: ${ok.length} files compared, ${missingTargets} refused for a missing target`);
      expect(ok.length).toBeGreaterThan(100);
      expect(answers.filter((a) => !a.ok && !/Could not fetch contents/.test(a.message ?? ''))).toEqual([]);
      expect(mismatches.slice(0, 3)).toEqual([]);
    });

    it('merges seeded combinations of files as heatclient deep_update does', () => {
      const single = heatclient([...parsed.keys()].map((p) => [p]));
      const usable = [...parsed.keys()].filter((_, i) => single[i]?.ok);
      const combos = fc.sample(fc.uniqueArray(fc.constantFrom(...usable), { minLength: 2, maxLength: 4 }), {
        seed: 11,
        numRuns: 120,
      });
      const answers = heatclient(combos);
      const mismatches: unknown[] = [];
      for (const a of answers) {
        const combo = combos[a.id] as string[];
        const ours = mergeEnvironments(
          combo.map((p) => parsed.get(p) as HeatEnvironment),
          { strategy: 'client' },
        );
        expect(a.ok, a.message).toBe(true);
        const mine = asHeatclient(ours.environment.value);
        if (JSON.stringify(sortKeys(mine)) !== JSON.stringify(sortKeys(a.env)))
          mismatches.push({ combo, ours: mine, heatclient: a.env });
      }
      console.log(`heatclient merges: ${answers.length} combinations compared`);
      expect(mismatches.slice(0, 2)).toEqual([]);
    });
  },
);
