// Conformance with Heat: the same documents go to Debian's python3-heat (one
// Python process, JSON lines) and to this package in Heat mode (no
// capabilities, no requires, no candidate lists). Verdicts must agree;
// the differences that remain are listed below with their reason.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { oracleAvailable, runPython } from '../../../test-support/python.js';
import {
  parseEnvironment,
  resolveEnvironment,
  scanDocument,
  stripCapabilities,
  validateEnvironment,
  validateTemplate,
} from '../src/index.js';
import {
  type ConformanceCase,
  corpusCases,
  handCases,
  mutatedCases,
  structuredCases,
} from './conformance-cases.js';
import { CORPUS_ROOT, corpusAvailable } from './corpus-path.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = CORPUS_ROOT;
const ORACLE = join(HERE, 'heat-oracle.py');

interface Verdict {
  ok: boolean;
  message?: string;
  code?: string;
}

/**
 * Why our answer may differ from Heat's. Each explanation recognises one
 * family of differences; a difference no explanation accepts fails the
 * suite, and the suite prints how many cases each explanation covered.
 */
const EXPLANATIONS: { reason: string; applies: (ours: Verdict, heat: Verdict) => boolean }[] = [
  {
    reason:
      'We check section shapes when the file is read (parameters and parameter_defaults must be mappings, encrypted_param_names and event_sinks lists); Heat stores the wrong shape and fails, or misbehaves, only when a stack uses it.',
    applies: (o, h) =>
      h.ok &&
      !o.ok &&
      (o.code === 'heat/environment/section-not-mapping' || o.code === 'heat/environment/section-not-list'),
  },
  {
    reason:
      'PyYAML does not check the indentation of a flow collection continued on a new line; the YAML parser in core follows the YAML spec and rejects a continuation line less indented than its block.',
    applies: (o, h) =>
      h.ok && !o.ok && o.code === 'yaml/syntax' && /sufficiently indented/.test(o.message ?? ''),
  },
  {
    reason:
      'PyYAML cannot read an empty key in a flow mapping (`{a, : b}`); the YAML spec and the parser in core read it as a null key.',
    applies: (o, h) => o.ok && !h.ok && /expected the node content, but found ':'/.test(h.message ?? ''),
  },
  {
    reason:
      "Heat reads YAML with libyaml (CSafeLoader), which lets plain text inside a flow collection go on past a '?'; core follows pure-Python PyYAML's SafeLoader (what yaml.safe_load uses in the other services), which ends the text there and refuses the document.",
    applies: (o, h) =>
      h.ok &&
      !o.ok &&
      o.code === 'yaml/syntax' &&
      /flow collection PyYAML ends plain text at a '\?'/.test(o.message ?? ''),
  },
];

function ours(c: ConformanceCase): Verdict {
  const r =
    c.kind === 'template'
      ? validateTemplate(c.text, { allowCapabilities: false })
      : validateEnvironment(c.text, { allowExtensions: false });
  const first = r.diagnostics.find((d) => d.severity === 'error');
  return r.ok ? { ok: true } : { ok: false, message: first?.message ?? '', code: first?.code ?? '' };
}

function runHeat(
  cases: readonly (ConformanceCase & { echo?: boolean })[],
): (Verdict & { value?: unknown })[] {
  const input = cases
    .map((c, id) => JSON.stringify({ id, kind: c.kind, text: c.text, echo: c.echo === true }))
    .join('\n');
  const out = runPython(`exec(open(${JSON.stringify(ORACLE)}).read())`, `${input}\n`, 600_000);
  const verdicts: (Verdict & { value?: unknown })[] = new Array(cases.length);
  for (const line of out.trim().split('\n')) {
    const v = JSON.parse(line) as { id: number; ok: boolean; message?: string; value?: unknown };
    verdicts[v.id] = {
      ok: v.ok,
      ...(v.message !== undefined ? { message: v.message } : {}),
      ...('value' in v ? { value: v.value } : {}),
    };
  }
  return verdicts;
}

// Heat messages we reproduce word for word (the rest are YAML parser messages, which differ by library).
const SAME_MESSAGE_CODES = new Set([
  'heat/template/too-large',
  'heat/template/not-a-mapping',
  'heat/template/no-version',
  'heat/template/version-not-string',
  'heat/template/unknown-version',
  'heat/template/invalid-section',
  'heat/template/resource-not-mapping',
  'heat/template/resource-without-type',
  'heat/template/invalid-resource-keyword',
  'heat/template/empty-resource-type',
  'heat/template/resource-keyword-not-in-version',
  'heat/environment/not-a-mapping',
  'heat/environment/wrong-section',
  'heat/environment/empty-section',
  'heat/registry/invalid-hook',
  'heat/registry/invalid-restricted-action',
]);

describe.runIf(oracleAvailable('heat', ['heat.common.template_format', 'heat.engine.environment']))(
  'conformance with Heat',
  () => {
    const cases: ConformanceCase[] = [];
    let heat: Verdict[] = [];

    beforeAll(() => {
      const corpus = corpusAvailable() ? corpusCases(ROOT, (text) => scanDocument(text).kind) : [];
      const hand = handCases();
      // Without the corpus (no ../shared), the mutations start from the hand-written cases.
      const seeds = corpus.length ? corpus : hand;
      cases.push(...hand, ...corpus, ...structuredCases(600), ...mutatedCases(seeds, 600));
      heat = runHeat(cases);
    }, 600_000);

    it('accepts and rejects the same documents as Heat, differences listed with a reason', () => {
      const differences: Record<string, { ours: Verdict; heat: Verdict; text: string }> = {};
      const messageMismatches: string[] = [];
      const counts = { cases: cases.length, agreeAccept: 0, agreeReject: 0, differ: 0 };
      cases.forEach((c, i) => {
        const h = heat[i] as Verdict;
        const o = ours(c);
        if (o.ok !== h.ok) {
          counts.differ += 1;
          differences[c.name] = {
            ours: o,
            heat: h,
            text: c.text.length > 300 ? `${c.text.slice(0, 300)}…` : c.text,
          };
          return;
        }
        if (o.ok) counts.agreeAccept += 1;
        else {
          counts.agreeReject += 1;
          // When Heat's YAML reader refused the text, the verdict agrees but the messages come from different parsers.
          const heatYamlError = /^Error parsing template|^while |^found |^expected /.test(h.message ?? '');
          if (
            o.code &&
            SAME_MESSAGE_CODES.has(o.code) &&
            !heatYamlError &&
            !(h.message ?? '').includes(o.message ?? '')
          ) {
            messageMismatches.push(`${c.name}: ours "${o.message}" / heat "${h.message}"`);
          }
        }
      });
      console.log('conformance:', counts);
      const byReason = new Map<string, string[]>();
      const unexplained: Record<string, unknown> = {};
      for (const [name, d] of Object.entries(differences)) {
        const why = EXPLANATIONS.find((e) => e.applies(d.ours, d.heat));
        if (!why) unexplained[name] = d;
        else byReason.set(why.reason, [...(byReason.get(why.reason) ?? []), name]);
      }
      for (const [reason, names] of byReason)
        console.log(`  ${names.length} differ: ${reason}\n    e.g. ${names[0]}`);
      expect(unexplained).toEqual({});
      expect(messageMismatches).toEqual([]);
      // Most of the tree and the hand-written cases agree; differences stay a small minority.
      expect(counts.differ).toBeLessThan(cases.length / 50);
    });

    it('accepts what resolve and strip produce, reading the same data we wrote', async () => {
      const tree: Record<string, string> = {
        'tht/puppet/controller.yaml':
          'heat_template_version: 2015-10-15\n# kept\ncapabilities:\n  deployment: puppet\n  ha: yes\n  resource_type: [OS::TripleO::Controller]\nresources:\n  a: {type: OS::Heat::None}\n',
        'tht/docker/controller.yaml':
          'heat_template_version: 2015-10-15\ncapabilities: {deployment: docker}\nparameters:\n  When: {type: string, default: 2015-10-15}\n',
        'tht/env.yaml': [
          'requires: {deployment: puppet, ha: true}',
          'parameter_defaults:',
          '  Stamp: 2015-10-15',
          '  Flag: "yes"',
          '  Octal: "017"',
          'resource_registry:',
          '  OS::TripleO::Controller: [puppet/controller.yaml, docker/controller.yaml]',
          '  OS::TripleO::Other: docker/controller.yaml',
          '  OS::TripleO::Off: OS::Heat::None',
          '  resources:',
          '    server: {hooks: [pre-create]}',
          '',
        ].join('\n'),
      };
      const env = parseEnvironment(tree['tht/env.yaml'] as string, { filename: 'tht/env.yaml' });
      const resolved = await resolveEnvironment([env], { readTemplate: (p) => tree[p], root: 'tht' });
      expect(resolved.ok).toBe(true);
      const written = stringify(resolved.environment, { version: '1.1', lineWidth: 0 });
      const stripped = ['tht/puppet/controller.yaml', 'tht/docker/controller.yaml'].map(
        (f) => stripCapabilities(tree[f] as string).text,
      );
      const verdicts = runHeat([
        { name: 'resolved environment', kind: 'environment', text: written, echo: true },
        ...stripped.map((text, i) => ({
          name: `stripped ${i}`,
          kind: 'template' as const,
          text,
          echo: true,
        })),
      ]);
      expect(verdicts.map((v) => v.ok)).toEqual([true, true, true]);
      expect(verdicts[0]?.value).toEqual(resolved.environment);
      stripped.forEach((text, i) => {
        const ours = validateTemplate(text, { allowCapabilities: false });
        expect(verdicts[i + 1]?.value).toEqual(ours.template?.value);
      });
    });
  },
);
