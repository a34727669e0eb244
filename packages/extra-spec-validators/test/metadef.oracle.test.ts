// The metadef files must be what Glance accepts: glanceclient's namespace
// schema (what `glance md-namespace-import` checks a file against, patterns
// compiled with Python's `re` through the regex format) validates every
// namespace, and every value pattern, searched as Glance and Horizon search
// with it, accepts exactly the values the extra spec's rule accepts.
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { oracleAvailable, PYTHON } from '../../../test-support/python.js';
import { builtinRegistry, type ExtraSpecRegistry, renderMetadefs, type ValueRule } from '../src/index.js';
import { compileValueRule, ValueVerdict } from '../src/value-check.js';
import { buildConformanceCorpus } from './corpus.js';

const ORACLE = `
import json, re, sys
import jsonschema
from glanceclient.v2 import namespace_schema
data = json.load(sys.stdin)
validator = jsonschema.Draft4Validator(namespace_schema.BASE_SCHEMA, format_checker=jsonschema.FormatChecker())
errors = [[ns['namespace'], e.message[:200]] for ns in data['namespaces'] for e in validator.iter_errors(ns)]
found = [re.search(p, s) is not None for p, s in data['probes']]
print(json.dumps({'errors': errors, 'found': found}))
`;

function runOracle(
  namespaces: unknown[],
  probes: [string, string][],
): { errors: string[][]; found: boolean[] } {
  const r = spawnSync(PYTHON, ['-c', ORACLE], {
    input: JSON.stringify({ namespaces, probes }),
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
    timeout: 300_000,
  });
  if (r.status !== 0) throw new Error(`glanceclient's schema check failed: ${r.error?.message ?? r.stderr}`);
  return JSON.parse(r.stdout) as { errors: string[][]; found: boolean[] };
}

/** Each property pattern with the values the corpus tries on its key, and the rule that judges them. */
function probesFor(registry: ExtraSpecRegistry): { probes: [string, string][]; rules: ValueRule[] } {
  const byKey = new Map<string, string[]>();
  for (const pair of buildConformanceCorpus(registry)) {
    const list = byKey.get(pair.key) ?? [];
    list.push(pair.value);
    byKey.set(pair.key, list);
  }
  const extra = ['', '\n', 'a\n', '0\n', '0-1\n', 'x0', '0x', '\u0663', '\u{1f600}'];
  const probes: [string, string][] = [];
  const rules: ValueRule[] = [];
  for (const file of renderMetadefs(registry)) {
    const image = file.namespace.resource_type_associations.some((a) => a.name === 'OS::Glance::Image');
    const prefix = file.namespace.resource_type_associations[0]?.prefix ?? '';
    for (const [key, prop] of Object.entries(file.namespace.properties)) {
      if (!prop.pattern) continue;
      const name = `${image ? prefix.replace(/_$/, ':') : prefix}${key}`;
      const spec = registry.get(name);
      if (!spec) throw new Error(`no extra spec for the metadef property ${name}`);
      const rule = image ? (spec.definition.imageValue ?? spec.value) : spec.value;
      for (const value of [...(byKey.get(name) ?? []), ...extra]) {
        // Supplementary characters pass \\d in the portable dialect (looser by design).
        if (/[\u{10000}-\u{10ffff}]/u.test(value)) continue;
        probes.push([prop.pattern, value]);
        rules.push(rule);
      }
    }
  }
  return { probes, rules };
}

describe.runIf(oracleAvailable('glanceclient', ['glanceclient.v2.namespace_schema', 'jsonschema']))(
  "renderMetadefs under glanceclient's namespace schema",
  () => {
    it.each(['zed', 'hibiscus'])('validates, and its patterns search as the rules match (%s)', (release) => {
      const registry = builtinRegistry(release);
      const namespaces = renderMetadefs(registry).map((f) => f.namespace);
      const { probes, rules } = probesFor(registry);
      expect(probes.length).toBeGreaterThan(100);
      const out = runOracle(namespaces, probes);
      expect(out.errors).toEqual([]);
      const differences = probes.flatMap(([pattern, value], i) => {
        const ours = compileValueRule(rules[i] as ValueRule).check(value) === ValueVerdict.Ok;
        return out.found[i] === ours
          ? []
          : [`${JSON.stringify(value)} on ${pattern.slice(0, 60)}: re.search ${out.found[i]}, rule ${ours}`];
      });
      expect(differences.slice(0, 10), `${differences.length} differences`).toEqual([]);
    });
  },
);
