// Conformance with Sahara: the same specs and simulated machines run through
// Sahara's own sahara.plugins.images (Debian's python3-sahara) and through us.
// In the Sahara-compatible mode verdicts, messages and the exact command
// sequence must match; in our batched mode the verdicts must match. Every
// difference must be explained by a rule in conformance-differences.json,
// and every rule must still be needed.
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseDocument } from '@stackspec/core';
import { describe, expect, it } from 'vitest';
import { oracleAvailable, runPython } from '../../../test-support/python.js';
import type { RemoteCall } from '../src/adapters/dry-run.js';
import { DISTRO_FAMILIES, familyOf, SAHARA_DISTRO_FAMILIES } from '../src/families.js';
import { validateImageSpec } from '../src/load.js';
import type { ImageSpec, ValidatorNode } from '../src/spec.js';
import { type ValidationReport, validateImage } from '../src/validate.js';
import { CORPUS_DIR, corpusAvailable, corpusFiles, scriptPaths, standInMarker } from './support/corpus.js';
import { EDGE_CASES } from './support/edge-cases.js';
import {
  asSaharaScriptFile,
  type Scenario,
  type SpecInput,
  type World,
  worldRemote,
} from './support/world.js';

const here = dirname(fileURLToPath(import.meta.url));
const ORACLE = readFileSync(join(here, 'support/sahara_oracle.py'), 'utf8');

interface Rule {
  id: string;
  aspect: 'load' | 'verdict' | 'message' | 'calls' | 'state';
  reason: string;
  /** A difference in every affected call, rewritten away before comparing (by NORMALISATIONS below). */
  normalisation?: boolean;
  saharaError?: string;
  ours?: string;
  scenario?: string;
}
const RULES = JSON.parse(readFileSync(join(here, 'conformance-differences.json'), 'utf8')) as Rule[];

type SaharaError = { class: string; message: string };
type SaharaCall =
  | ['distro']
  | ['exec', string, boolean]
  | ['write', string, string, boolean]
  | ['write', string, string, boolean, string];
interface OracleOutput {
  loads: Record<string, { error?: SaharaError }>;
  results: Record<string, { error?: SaharaError; calls: SaharaCall[]; installed: string[] }>;
}

interface Difference {
  scenario: string;
  aspect: Rule['aspect'];
  sahara: string;
  ours: string;
}

function packageWords(nodes: readonly ValidatorNode[], out = new Set<string>()): Set<string> {
  for (const n of nodes) {
    if (n.kind === 'package')
      for (const p of n.packages) out.add(p.version ? `${p.name}-${p.version}` : p.name);
    if (n.kind === 'all' || n.kind === 'any') packageWords(n.validators, out);
    if (n.kind === 'os_case' || n.kind === 'argument_case')
      for (const c of n.cases) packageWords(c.validators, out);
  }
  return out;
}

function hashOf(text: string): number {
  let h = 2166136261;
  for (let i = 0; i < text.length; i += 1) h = Math.imul(h ^ text.charCodeAt(i), 16777619) >>> 0;
  return h;
}

function saharaErrorText(e: SaharaError | undefined): string {
  return e ? `${e.class}: ${e.message}` : 'ok';
}

function normaliseSahara(calls: readonly SaharaCall[]): string[] {
  return calls.map((c) => {
    if (c[0] === 'distro') return 'distro';
    const uuid = /\/tmp\/[0-9a-f-]{36}\.sh/g;
    if (c[0] === 'exec') return `exec${c[2] ? '#' : ''} ${c[1].replace(uuid, '/tmp/X.sh')}`;
    return `write${c[3] ? '#' : ''} ${c[1].replace(uuid, '/tmp/X.sh')}\n${c[4] ?? c[2]}`;
  });
}

// Differences that touch every script run are rewritten away before the call sequences are
// compared, so that everything else in those sequences is still compared. Each one is a rule
// in conformance-differences.json (with its reason) and must still be needed.
const NORMALISATIONS = ['sahara-mode-runs-bash', 'quoted-exports', 'siv-variables'];

function normaliseOurs(calls: readonly RemoteCall[], note: (rule: string) => void): string[] {
  return calls.map((c) => {
    if (c.op === 'distro') return 'distro';
    const uuid = /\/tmp\/[0-9a-f-]{36}\.sh/g;
    if (c.op === 'exec') {
      let command = c.command;
      const bash = /^bash -c (\/tmp\/[0-9a-f-]{36}\.sh)$/.exec(command);
      if (bash?.[1]) {
        note('sahara-mode-runs-bash');
        command = bash[1];
      }
      return `exec${c.options.asRoot ? '#' : ''} ${command.replace(uuid, '/tmp/X.sh')}`;
    }
    let content = c.content;
    if (/^\/tmp\/[0-9a-f-]{36}\.sh$/.test(c.path)) {
      const rewritten = asSaharaScriptFile(content);
      for (const d of rewritten.differences) note(d);
      content = rewritten.text;
    }
    return `write${c.options.asRoot ? '#' : ''} ${c.path.replace(uuid, '/tmp/X.sh')}\n${content}`;
  });
}

function noUuid(text: string | undefined): string | undefined {
  return text?.replace(/\/tmp\/[0-9a-f-]{36}\.sh/g, '/tmp/X.sh');
}

function verdictOf(r: { error?: SaharaError } | ValidationReport): string {
  if ('ok' in r) {
    if (r.ok) return 'ok';
    return r.failure?.code.startsWith('remote/') || r.failure?.code === 'image/validator-crashed'
      ? 'crash'
      : 'failed';
  }
  if (!r.error) return 'ok';
  return ['ImageValidationError', 'AllValidationsFailedError'].includes(r.error.class) ? 'failed' : 'crash';
}

function explained(d: Difference): Rule | undefined {
  return RULES.find(
    (r) =>
      !r.normalisation &&
      r.aspect === d.aspect &&
      (!r.saharaError || new RegExp(r.saharaError).test(d.sahara)) &&
      (!r.ours || new RegExp(r.ours).test(d.ours)) &&
      (!r.scenario || new RegExp(r.scenario).test(d.scenario)),
  );
}

function corpusInputs(): { specs: SpecInput[]; scenarios: Scenario[] } {
  const specs: SpecInput[] = [];
  const scenarios: Scenario[] = [];
  for (const file of corpusFiles()) {
    const id = file.slice(CORPUS_DIR.length + 1).replace(/\/image\.yaml$/, '');
    const text = readFileSync(file, 'utf8');
    specs.push({ id, text });
    const raw = parseDocument(text).value as { arguments?: Record<string, unknown> };
    const argSets: Record<string, string>[] = [{}];
    if (raw.arguments && 'java_distro' in raw.arguments) argSets.push({ java_distro: 'openjdk' });
    for (const distro of ['ubuntu', 'centos']) {
      for (const testOnly of [true, false]) {
        for (const [a, args] of argSets.entries()) {
          for (const state of ['empty', 'full', 'partial']) {
            scenarios.push({
              id: `corpus:${id}:${distro}:${testOnly ? 'check' : 'fix'}:${a}:${state}`,
              spec: id,
              distro,
              testOnly,
              arguments: args,
              world: { installed: [], scripts: {} },
            });
            (scenarios[scenarios.length - 1] as Scenario & { state: string }).state = state;
          }
        }
      }
    }
  }
  return { specs, scenarios };
}

/** Worlds for corpus scenarios need the loaded spec (its package names), so they are filled in later. */
function corpusWorld(spec: ImageSpec, text: string, state: string, seed: string): World {
  const words = [...packageWords(spec.validators)].sort();
  if (state === 'empty') return { installed: [] };
  if (state === 'full') return { installed: words };
  const h = hashOf(seed);
  const installed = words.filter((w) => hashOf(`${w}${h}`) % 2 === 0);
  const installable = words.filter((w) => hashOf(`${w}${h}`) % 7 !== 0);
  // One script fails when checking, so check-mode runs stop at a script too.
  const firstScript = scriptPaths(parseDocument(text).value)[0];
  const scripts = firstScript ? { [firstScript]: { check: { exitCode: 3, stdout: 'not yet\n' } } } : {};
  return { installed, installable, scripts };
}

// The listed differences include ones only corpus specs meet, so the suite needs the corpus too.
describe.runIf(corpusAvailable() && oracleAvailable('sahara', ['sahara.plugins.images']))(
  'conformance with Sahara',
  () => {
    it('matches Sahara on the corpus and the edge cases, except for listed differences', async () => {
      const corpus = corpusInputs();
      const specs = [...corpus.specs, ...EDGE_CASES.specs];
      const packageRoot = mkdtempSync(join(tmpdir(), 'siv-oracle-'));
      const roots = new Map<string, string>();
      const oracleSpecs: Record<string, { package: string; text: string; roots: string[] }> = {};
      for (const [i, s] of specs.entries()) {
        const pkg = `sivconf_${i}`;
        const res = join(packageRoot, pkg, 'res');
        mkdirSync(res, { recursive: true });
        writeFileSync(join(packageRoot, pkg, '__init__.py'), '');
        const scripts = s.scripts ?? {};
        let raw: unknown;
        try {
          raw = parseDocument(s.text).value;
        } catch {
          raw = {};
        }
        for (const p of scriptPaths(raw))
          if (!(p in scripts)) scripts[p] = `#!/bin/bash\n${standInMarker(p)}\nexit 0\n`;
        for (const [p, body] of Object.entries(scripts)) {
          if (!p || p.includes('..') || p.startsWith('/')) continue;
          mkdirSync(dirname(join(res, p)), { recursive: true });
          writeFileSync(join(res, p), body);
        }
        roots.set(s.id, res);
        oracleSpecs[s.id] = { package: pkg, text: s.text, roots: ['res'] };
      }

      // Load ours first: corpus worlds depend on the loaded package names.
      const ours = new Map<string, ReturnType<typeof validateImageSpec>>();
      for (const s of specs)
        ours.set(s.id, validateImageSpec(s.text, { resourceRoots: [roots.get(s.id) as string] }));
      const scenarios: Scenario[] = [...EDGE_CASES.scenarios];
      for (const sc of corpus.scenarios) {
        const loaded = ours.get(sc.spec);
        if (!loaded?.ok) continue;
        const state = (sc as Scenario & { state: string }).state;
        scenarios.push({
          ...sc,
          world: corpusWorld(loaded.spec, specs.find((x) => x.id === sc.spec)?.text ?? '', state, sc.id),
        });
      }

      const started = Date.now();
      const oracle = JSON.parse(
        runPython(ORACLE, JSON.stringify({ packageRoot, specs: oracleSpecs, scenarios })),
      ) as OracleOutput;
      const oracleMs = Date.now() - started;

      const differences: Difference[] = [];
      const diff = (scenario: string, aspect: Rule['aspect'], sahara: string, o: string) => {
        differences.push({ scenario, aspect, sahara, ours: o });
      };
      for (const s of specs) {
        const theirs = oracle.loads[s.id]?.error;
        const mine = ours.get(s.id);
        const theirKind = !theirs
          ? 'ok'
          : [
                'ImageValidationSpecificationError',
                'ValidationError',
                'ParserError',
                'ScannerError',
                'ComposerError',
                'ConstructorError',
              ].includes(theirs.class)
            ? 'spec'
            : 'crash';
        const myKind = mine?.ok ? 'ok' : 'spec';
        const myText = mine?.ok
          ? 'ok'
          : (mine?.diagnostics
              .filter((d) => d.severity === 'error')
              .map((d) => `${d.code}: ${d.message}`)
              .join(' | ') ?? '');
        if (theirKind !== myKind) diff(`load:${s.id}`, 'load', saharaErrorText(theirs), myText);
        else if (theirs?.class === 'ImageValidationSpecificationError' && /Argument /.test(theirs.message)) {
          const expected = theirs.message.replace(/^Image validation spec is in error: /, '');
          if (!myText.includes(expected)) diff(`load:${s.id}`, 'message', theirs.message, myText);
        }
      }

      const used = new Map<string, number>();
      const note = (rule: string) => used.set(rule, (used.get(rule) ?? 0) + 1);
      expect(
        RULES.filter((r) => r.normalisation)
          .map((r) => r.id)
          .sort(),
        'normalisation rules in conformance-differences.json',
      ).toEqual([...NORMALISATIONS].sort());
      let compared = 0;
      let batchedCompared = 0;
      // Round trips per corpus spec, distro and column; `sahara` is undefined where Sahara's run
      // ended differently (its py3 crash on inline scripts), and then ours in Sahara mode is shown.
      const counts = new Map<
        string,
        { sahara?: number; saharaError?: string; ours: number; batched: number }
      >();
      for (const sc of scenarios) {
        const theirs = oracle.results[sc.id];
        const loaded = ours.get(sc.spec);
        if (!theirs || !loaded?.ok) continue;
        compared += 1;
        const remote = worldRemote(sc.world, sc.distro);
        const mine = await validateImage(loaded.spec, remote, {
          mode: 'sahara',
          reconcile: !sc.testOnly,
          arguments: sc.arguments,
        });
        const tv = verdictOf(theirs);
        const mv = verdictOf(mine);
        const theirText = saharaErrorText(theirs.error);
        const myText = mine.ok ? 'ok' : `${mine.failure?.code}: ${mine.failure?.saharaMessage}`;
        if (tv !== mv) diff(sc.id, 'verdict', theirText, myText);
        else if (tv === 'failed' && noUuid(theirs.error?.message) !== noUuid(mine.failure?.saharaMessage)) {
          diff(sc.id, 'message', theirText, myText);
        }
        const a = normaliseSahara(theirs.calls);
        const b = normaliseOurs(remote.calls, note);
        for (const c of theirs.calls) {
          if (c[0] === 'write' && c.length === 5)
            diff(sc.id, 'calls', `write# ${c[1]}\n${c[2]}`, `write ${c[1]}`);
        }
        if (tv === mv) {
          const n = Math.min(a.length, b.length);
          let i = 0;
          while (i < n && a[i] === b[i]) i += 1;
          if (i < a.length || i < b.length) diff(sc.id, 'calls', a[i] ?? '(end)', b[i] ?? '(end)');
          const mineInstalled = [...remote.installed].sort();
          if (JSON.stringify(mineInstalled) !== JSON.stringify(theirs.installed)) {
            diff(sc.id, 'state', theirs.installed.join(' '), mineInstalled.join(' '));
          }
        }
        // Our batched default: same verdict as our Sahara-compatible run, fewer round trips.
        const batchedRemote = worldRemote(sc.world, sc.distro);
        const batched = await validateImage(loaded.spec, batchedRemote, {
          reconcile: !sc.testOnly,
          arguments: sc.arguments,
        });
        // Plain debian has a family only in our default mode, so its verdicts differ on purpose.
        if (
          !sc.world.respond &&
          familyOf(sc.distro, SAHARA_DISTRO_FAMILIES) === familyOf(sc.distro, DISTRO_FAMILIES)
        ) {
          batchedCompared += 1;
          expect(verdictOf(batched), `${sc.id} batched`).toBe(mv);
          expect([...batchedRemote.installed].sort(), `${sc.id} batched state`).toEqual(
            [...remote.installed].sort(),
          );
        }
        const state = (sc as Scenario & { state?: string }).state;
        const column =
          !sc.id.startsWith('corpus:') || !sc.id.includes(':0:')
            ? undefined
            : state === 'full'
              ? sc.testOnly
                ? 'check'
                : 'fix'
              : state === 'empty' && !sc.testOnly
                ? 'fix empty'
                : undefined;
        if (column) {
          const key = `${sc.spec}|${sc.distro}|${column}`;
          if (tv === mv)
            expect(remote.calls.length, `${key} sahara-mode round trips`).toBe(theirs.calls.length);
          counts.set(key, {
            ...(tv === mv ? { sahara: theirs.calls.length } : { saharaError: theirs.error?.class ?? 'ok' }),
            ours: remote.calls.length,
            batched: batched.commandCount,
          });
        }
      }

      const unexplained: Difference[] = [];
      for (const d of differences) {
        const rule = explained(d);
        if (rule) used.set(rule.id, (used.get(rule.id) ?? 0) + 1);
        else unexplained.push(d);
      }
      const columns = ['check', 'fix', 'fix empty'];
      const totals = new Map(columns.map((c) => [c, { sahara: 0, batched: 0, crashed: 0 }]));
      const perSpec = new Map<string, Map<string, string[]>>();
      for (const [k, v] of counts) {
        const [spec = '', distro = '', column = ''] = k.split('|');
        const total = totals.get(column) as { sahara: number; batched: number; crashed: number };
        if (v.sahara === undefined) total.crashed += 1;
        else {
          total.sahara += v.sahara;
          total.batched += v.batched;
        }
        const byDistro = perSpec.get(spec) ?? new Map<string, string[]>();
        const cells = byDistro.get(distro) ?? [];
        cells[columns.indexOf(column)] =
          v.sahara === undefined ? `${column} ${v.ours}*→${v.batched}` : `${column} ${v.sahara}→${v.batched}`;
        byDistro.set(distro, cells);
        perSpec.set(spec, byDistro);
      }
      const table = [...perSpec]
        .filter(([spec]) => !spec.startsWith('_history/'))
        .map(
          ([spec, byDistro]) =>
            `  ${spec.replace(/\/resources\/images$/, '').padEnd(52)} ${[...byDistro]
              .map(([d, cells]) => `${d}: ${cells.filter(Boolean).join(', ')}`)
              .join('  ')}`,
        );
      const crashedCells = [...totals.values()].reduce((n, t) => n + t.crashed, 0);
      console.log(
        [
          `conformance: ${specs.length} specs, ${compared} scenarios compared with Sahara (oracle run ${oracleMs} ms), ${batchedCompared} batched verdicts compared`,
          `differences: ${differences.length}, explained: ${[...used].map(([k, v]) => `${k}×${v}`).join(', ') || 'none'}, unexplained: ${unexplained.length}`,
          'remote round trips per current corpus spec, Sahara→ours batched, with default arguments: check and fix with every',
          'package installed and scripts passing, and fix on an empty machine. Ours in Sahara-compatible mode equals Sahara',
          "wherever Sahara runs to the end; * marks runs that Sahara's py3 code crashes, with our Sahara-mode count instead:",
          ...table,
          `  all ${perSpec.size} corpus specs (incl. history), where Sahara runs to the end: ${columns
            .map((c) => {
              const t = totals.get(c) as { sahara: number; batched: number };
              return `${c} ${t.sahara}→${t.batched} (${((1 - t.batched / t.sahara) * 100).toFixed(0)}% fewer)`;
            })
            .join(', ')}; ${crashedCells} runs where Sahara crashes`,
        ].join('\n'),
      );
      const byAspect = new Map<string, Difference[]>();
      for (const d of unexplained) byAspect.set(d.aspect, [...(byAspect.get(d.aspect) ?? []), d]);
      for (const [aspect, list] of byAspect) {
        console.log(
          `unexplained ${aspect} differences: ${list.length}\n${list
            .slice(0, 3)
            .map(
              (d) =>
                `  ${d.scenario}\n    sahara: ${d.sahara.slice(0, 300)}\n    ours:   ${d.ours.slice(0, 300)}`,
            )
            .join('\n')}`,
        );
      }
      expect(unexplained.length).toBe(0);
      const stale = RULES.filter((r) => !used.has(r.id)).map((r) => r.id);
      expect(stale, 'rules in conformance-differences.json that no difference needs').toEqual([]);
      expect(compared).toBeGreaterThan(500);
    }, 240_000);
  },
);
