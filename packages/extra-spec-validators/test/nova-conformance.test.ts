// Conformance with the real Nova 26 (Debian's python3-nova): the same corpus
// goes through Nova's validators and through `nova` mode with the Zed
// catalog; any difference fails unless the exceptions file lists it with a
// reason. The catalog itself (names, parameters, value rules, namespaces) is
// compared entry by entry.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { oracleAvailable, PYTHON } from '../../../test-support/python.js';
import { builtinRegistry, checkNovaExtraSpec, isDeprecatedIn, validateExtraSpecs } from '../src/index.js';
import { buildConformanceCorpus, type Pair } from './corpus.js';

const here = dirname(fileURLToPath(import.meta.url));

interface OracleValidator {
  name: string;
  name_regex: string;
  value: { type: string; min?: number; max?: number; enum?: string[]; pattern?: string };
  deprecated: boolean;
  parameters: { name: string; pattern: string }[];
}
interface OracleHeader {
  versions: Record<string, string>;
  validators: OracleValidator[];
  namespaces: string[];
}
interface Verdict {
  ok: boolean;
  message?: string;
}
interface KnownDifference {
  key: string;
  value: string;
  reason: string;
}

function runOracle(pairs: readonly Pair[]): { header: OracleHeader; verdicts: Verdict[] } {
  const input = pairs.map((p) => JSON.stringify(p)).join('\n');
  const r = spawnSync(PYTHON, [join(here, 'nova-oracle.py')], {
    input: `${input}\n`,
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
    timeout: 120_000,
  });
  if (r.status !== 0) throw new Error(`the Nova oracle failed: ${r.error?.message ?? r.stderr}`);
  const lines = r.stdout.trimEnd().split('\n');
  const header = JSON.parse(lines[0] as string) as OracleHeader;
  return { header, verdicts: lines.slice(1).map((l) => JSON.parse(l) as Verdict) };
}

describe.runIf(oracleAvailable('nova', ['nova.api.validation.extra_specs.validators']))(
  'conformance with Nova 26 (nova mode, zed catalog)',
  () => {
    const registry = builtinRegistry('zed');
    const pairs = buildConformanceCorpus(registry);
    const known = JSON.parse(
      readFileSync(join(here, 'nova-conformance-exceptions.json'), 'utf8'),
    ) as KnownDifference[];
    let header: OracleHeader;
    let verdicts: Verdict[];

    beforeAll(() => {
      ({ header, verdicts } = runOracle(pairs));
    });

    it('runs against the Nova, os-traits and os-resource-classes the reference names', () => {
      expect(header.versions.nova).toMatch(/^26\./);
      expect(header.versions['os-traits']).toBe('2.9.0');
      expect(header.versions['os-resource-classes']).toBe('1.1.0');
    });

    it('has exactly the validators Nova registers, with the same parameters and value rules', () => {
      expect(registry.size).toBe(header.validators.length);
      expect(registry.size).toBe(490);
      const ours = new Map(registry.entries().map((e) => [e.name, e] as const));
      for (const v of header.validators) {
        const e = ours.get(v.name);
        expect(e, v.name).toBeDefined();
        if (!e) continue;
        expect(e.nameRegex, v.name).toBe(v.name_regex);
        expect(
          e.parameters.map((p) => ({ name: p.name, pattern: p.pattern })),
          v.name,
        ).toEqual(v.parameters);
        const rule: Record<string, unknown> = { ...e.value };
        delete rule.description;
        expect(rule, v.name).toEqual(v.value);
        expect(isDeprecatedIn(e.definition, 'zed'), v.name).toBe(v.deprecated);
      }
    });

    it('registers the non-trait validators in the order Nova does', () => {
      const isTrait = (n: string) => n.startsWith('trait{group}:') && n !== 'trait{group}:CUSTOM_{trait}';
      const theirs = header.validators.map((v) => v.name).filter((n) => !isTrait(n));
      const ours = registry
        .entries()
        .map((e) => e.name)
        .filter((n) => !isTrait(n));
      expect(ours).toEqual(theirs);
    });

    it('owns the same namespaces', () => {
      const ours = new Set<string>();
      for (const e of registry.entries()) {
        const i = e.nameRegex.indexOf(':');
        if (i >= 0) ours.add(e.nameRegex.slice(0, i));
      }
      expect([...ours].sort()).toEqual(header.namespaces);
    });

    it('gives the same verdict and message as Nova on every pair of the corpus', () => {
      expect(verdicts.length).toBe(pairs.length);
      const unexplained: string[] = [];
      const seen = new Set<number>();
      pairs.forEach((p, i) => {
        const theirs = verdicts[i] as Verdict;
        const mine = checkNovaExtraSpec(p.key, p.value, registry);
        const same = theirs.ok ? mine === undefined : mine === theirs.message;
        if (same) return;
        const k = known.findIndex((x) => x.key === p.key && x.value === p.value);
        if (k >= 0) {
          seen.add(k);
          return;
        }
        unexplained.push(
          `${JSON.stringify(p)}: nova ${theirs.ok ? 'accepts' : JSON.stringify(theirs.message)}, ours ${mine === undefined ? 'accepts' : JSON.stringify(mine)}`,
        );
      });
      expect(unexplained.slice(0, 25), `${unexplained.length} unexplained differences`).toEqual([]);
      const stale = known.filter((_, i) => !seen.has(i));
      expect(stale, 'exceptions that no longer differ').toEqual([]);
      expect(pairs.length).toBeGreaterThan(5000);
    });

    it('reports the same failures through validateExtraSpecs in nova mode', () => {
      // One spec per call, so the verdicts line up with the oracle's.
      let checked = 0;
      pairs.forEach((p, i) => {
        if (i % 7 !== 0) return;
        const r = validateExtraSpecs({ [p.key]: p.value }, { mode: 'nova', registry });
        const theirs = verdicts[i] as Verdict;
        const knownDiff = known.some((x) => x.key === p.key && x.value === p.value);
        if (!knownDiff && p.value.length <= 65_536) {
          expect(r.ok, JSON.stringify(p)).toBe(theirs.ok);
          if (!theirs.ok) expect(r.diagnostics[0]?.message).toBe(theirs.message);
        }
        checked += 1;
      });
      expect(checked).toBeGreaterThan(500);
    });
  },
);
