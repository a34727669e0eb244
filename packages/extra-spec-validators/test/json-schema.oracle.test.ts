// The JSON Schema must work outside JavaScript: Debian's python3-jsonschema
// (4.10, Python's `re`) validates the conformance corpus with it, and its
// verdicts must agree with strict mode wherever the schema can express the
// rule. Every pattern must also mean the same in Python and in ECMA-262 with
// and without the `u` flag.
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { oracleAvailable, PYTHON } from '../../../test-support/python.js';
import {
  builtinRegistry,
  type ExtraSpecRegistry,
  renderJsonSchema,
  validateExtraSpecs,
  validatePythonInt,
} from '../src/index.js';
import { buildConformanceCorpus, type Pair } from './corpus.js';

const ORACLE = `
import json, re, sys
import jsonschema
data = json.load(sys.stdin)
schema = data['schema']
jsonschema.Draft202012Validator.check_schema(schema)
bad = []
def walk(node):
    if isinstance(node, dict):
        for k, v in node.items():
            if k == 'pattern' and isinstance(v, str):
                try: re.compile(v)
                except re.error as e: bad.append([v[:80], str(e)])
            if k == 'patternProperties':
                for p in v:
                    try: re.compile(p)
                    except re.error as e: bad.append([p[:80], str(e)])
            walk(v)
    elif isinstance(node, list):
        for v in node: walk(v)
walk(schema)
validator = jsonschema.Draft202012Validator(schema)
valid = [validator.is_valid({p['key']: p['value']}) for p in data['pairs']]
probes = [bool(re.search(p, s)) for p, s in data['probes']]
print(json.dumps({'bad': bad, 'valid': valid, 'probes': probes}))
`;

interface OracleOut {
  bad: [string, string][];
  valid: boolean[];
  probes: boolean[];
}

function runOracle(schema: unknown, pairs: readonly Pair[], probes: readonly [string, string][]): OracleOut {
  const r = spawnSync(PYTHON, ['-c', ORACLE], {
    input: JSON.stringify({ schema, pairs, probes }),
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
    timeout: 300_000,
  });
  if (r.status !== 0) throw new Error(`python3-jsonschema failed: ${r.error?.message ?? r.stderr}`);
  return JSON.parse(r.stdout) as OracleOut;
}

const ASTRAL = /[\u{10000}-\u{10ffff}]/u;

/**
 * What the schema should say about one pair, from strict mode: `true` or
 * `false`, or `undefined` where the schema is knowingly looser (integer
 * bounds; supplementary-plane characters where Nova's pattern has `\d` or
 * `\w`).
 */
function expected(registry: ExtraSpecRegistry, pair: Pair): boolean | undefined {
  const r = validateExtraSpecs({ [pair.key]: pair.value }, { registry, mode: 'strict' });
  if (r.ok) return true;
  const errors = r.diagnostics.filter((d) => d.severity === 'error');
  if (errors.every((d) => d.code === 'extra-specs/invalid-value')) {
    const rule = registry.lookup(pair.key)?.spec.value;
    if (rule?.type === 'int' && validatePythonInt(pair.value).ok) return true;
    if (ASTRAL.test(pair.value) && (rule?.type === 'int' || rule?.type === 'str')) return undefined;
  }
  return false;
}

type SchemaNode = Record<string, unknown>;

function patternOf(schema: SchemaNode, node: SchemaNode | undefined): string | undefined {
  if (!node) return undefined;
  const ref = node.$ref as string | undefined;
  if (ref) return patternOf(schema, (schema.$defs as Record<string, SchemaNode>)[ref.split('/').pop() ?? '']);
  return node.pattern as string | undefined;
}

/** Pattern/string pairs: each value pattern with the values tried on its key, each key pattern with keys. */
function probesFor(
  schema: SchemaNode,
  registry: ExtraSpecRegistry,
  pairs: readonly Pair[],
): [string, string][] {
  const props = schema.properties as Record<string, SchemaNode>;
  const keyPatterns = Object.keys(schema.patternProperties as object);
  const patterned = registry.entries().filter((e) => e.parameters.length);
  const keyPatternOf = new Map(patterned.map((e, i) => [e.name, keyPatterns[i] as string]));
  const extra = ['', '\n', '1\n', 'true\n', '\u{1d7d3}', '\u{1f600}', 'a\u{1f600}b', '0\n\n', '\u0663'];
  const out = new Map<string, [string, string]>();
  const add = (p: string | undefined, s: string) => {
    if (p !== undefined) out.set(`${p}\u0000${s}`, [p, s]);
  };
  const names = (schema.propertyNames as SchemaNode).pattern as string;
  for (const pair of pairs) {
    add(names, pair.key);
    const spec = registry.lookup(pair.key)?.spec;
    if (!spec) continue;
    const node = spec.parameters.length
      ? (schema.patternProperties as Record<string, SchemaNode>)[keyPatternOf.get(spec.name) as string]
      : props[spec.name];
    add(patternOf(schema, node), pair.value);
    for (const s of extra) add(patternOf(schema, node), s);
    if (spec.parameters.length) add(keyPatternOf.get(spec.name), pair.key);
  }
  return [...out.values()];
}

describe.runIf(oracleAvailable('python3-jsonschema', ['jsonschema']))(
  "renderJsonSchema under Python's jsonschema",
  () => {
    it.each(['zed', 'hibiscus'])(
      'compiles every pattern and agrees with strict mode on the corpus (%s)',
      (release) => {
        const registry = builtinRegistry(release);
        const schema = renderJsonSchema(registry);
        const pairs = buildConformanceCorpus(registry);
        const probes = probesFor(schema, registry, pairs);
        const out = runOracle(schema, pairs, probes);
        expect(out.bad).toEqual([]);

        const disagreements: string[] = [];
        let compared = 0;
        pairs.forEach((pair, i) => {
          const want = expected(registry, pair);
          if (want === undefined) return;
          compared += 1;
          if (out.valid[i] !== want)
            disagreements.push(`${JSON.stringify(pair)}: schema says ${out.valid[i]}`);
        });
        expect(disagreements.slice(0, 20)).toEqual([]);
        expect(compared).toBeGreaterThan(pairs.length * 0.95);

        // The same patterns in JavaScript, with and without the u flag, answer as Python's re does.
        const engines: string[] = [];
        probes.forEach(([pattern, text], i) => {
          const py = out.probes[i];
          const plain = new RegExp(pattern).test(text);
          const unicode = new RegExp(pattern, 'u').test(text);
          if (plain !== py || unicode !== py) {
            engines.push(
              `${JSON.stringify(text)} ~ ${pattern.slice(0, 60)}: py ${py}, js ${plain}, js/u ${unicode}`,
            );
          }
        });
        expect(engines.slice(0, 20)).toEqual([]);
        expect(probes.length).toBeGreaterThan(1000);
      },
      300_000,
    );
  },
);
