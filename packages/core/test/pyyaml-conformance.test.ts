// Conformance with PyYAML (the loader Heat, Sahara and the other services
// use): the same scalars and the same real-world files must load to the same
// data. PyYAML runs with its SafeLoader, timestamps kept as text as Heat does.
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import fg from 'fast-glob';
import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../../scripts/bench-kit.js';
import { oracleAvailable, runPython } from '../../../test-support/python.js';
import { sharedAvailable, sharedPath } from '../../../test-support/shared.js';
import { safeParseDocument } from '../src/document.js';

const CORPUS = sharedPath('corpus');

const PY_LOADER = `
import json, sys, yaml
class Loader(yaml.SafeLoader):
    pass
Loader.add_constructor('tag:yaml.org,2002:timestamp', lambda l, n: l.construct_scalar(n))
def norm(v):
    if isinstance(v, float):
        if v != v: return {'$float': 'nan'}
        if v in (float('inf'), float('-inf')): return {'$float': 'inf' if v > 0 else '-inf'}
        return v
    if isinstance(v, dict):
        out = {}
        for k, x in v.items():
            if k is None: k = ''
            elif k is True: k = 'true'
            elif k is False: k = 'false'
            elif not isinstance(k, str): k = str(k)
            out[k] = norm(x)
        return out
    if isinstance(v, list): return [norm(x) for x in v]
    return v
for line in sys.stdin:
    text = json.loads(line)
    try:
        print(json.dumps({'ok': True, 'value': norm(yaml.load(text, Loader=Loader))}))
    except Exception as e:
        print(json.dumps({'ok': False, 'error': type(e).__name__}))
`;

function norm(v: unknown): unknown {
  if (typeof v === 'number') {
    if (Number.isNaN(v)) return { $float: 'nan' };
    if (!Number.isFinite(v)) return { $float: v > 0 ? 'inf' : '-inf' };
    return v;
  }
  if (Array.isArray(v)) return v.map(norm);
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, norm(x)]));
  return v;
}

function pyLoadAll(texts: string[]): { ok: boolean; value?: unknown; error?: string }[] {
  const out = runPython(PY_LOADER, texts.map((t) => JSON.stringify(t)).join('\n'));
  return out
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
}

function scalars(): string[] {
  const fixed = [
    'yes',
    'Yes',
    'YES',
    'yEs',
    'no',
    'on',
    'Off',
    'y',
    'n',
    'Y',
    'N',
    'true',
    'TRUE',
    'tRue',
    '~',
    'null',
    'Null',
    'NULL',
    '0',
    '00',
    '010',
    '08',
    '0o7',
    '0b101',
    '0b2',
    '0x1F',
    '0xg',
    '-0x1f',
    '+12',
    '1_000',
    '_1',
    '1__0',
    '1:30',
    '1:60',
    '-1:00:00',
    '190:20:30',
    '190:20:30.15',
    '1.',
    '.5',
    '-.5',
    '1.5',
    '1e3',
    '1.0e3',
    '1.0e+3',
    '1.0E-3',
    '.inf',
    '-.Inf',
    '+.INF',
    '.nan',
    '.NaN',
    '2015-10-15',
    '2015-1-5',
    '2001-12-14t21:59:43.10-05:00',
    '5.13.0',
    '2.6',
    '1,000',
    '0.0.1',
    '12:',
    ':12',
    '1_0.5',
    '0b',
    '0x',
    '+',
    '-',
    '.',
    '..',
    '1e',
    '=',
    '<<',
  ];
  const rand = seededRandom(1234);
  const alphabet = '0123456789+-._:eExXbBoOyYnNaAtT~ ';
  const generated: string[] = [];
  for (let i = 0; i < 1500; i += 1) {
    let s = '';
    const len = 1 + Math.floor(rand() * 7);
    for (let j = 0; j < len; j += 1) s += alphabet[Math.floor(rand() * alphabet.length)];
    s = s.trim();
    if (s && !s.startsWith('-') && !s.startsWith(':') && !s.includes(': ') && !s.endsWith(':'))
      generated.push(s);
  }
  return [...new Set([...fixed, ...generated])];
}

describe.runIf(oracleAvailable('PyYAML', ['yaml']))('conformance with PyYAML', () => {
  it('resolves plain scalars exactly like PyYAML', () => {
    const list = scalars();
    const docs = list.map((s) => `v: ${s}\n`);
    const py = pyLoadAll(docs);
    const differences: string[] = [];
    list.forEach((s, i) => {
      const ours = safeParseDocument(docs[i] as string);
      const theirs = py[i];
      if (!theirs?.ok) {
        if (ours.ok) differences.push(`${JSON.stringify(s)}: PyYAML fails (${theirs?.error}), we accept`);
        return;
      }
      if (!ours.ok) {
        differences.push(`${JSON.stringify(s)}: we fail (${ours.diagnostics[0]?.message}), PyYAML accepts`);
        return;
      }
      const a = JSON.stringify(norm(ours.document.value));
      const b = JSON.stringify(theirs.value);
      if (a !== b) differences.push(`${JSON.stringify(s)}: ours ${a}, PyYAML ${b}`);
    });
    console.log(`PyYAML scalar conformance: ${list.length} scalars, ${differences.length} differences`);
    expect(differences).toEqual([]);
  });

  it('reads anchors, aliases and merge keys as PyYAML does', () => {
    const docs = [
      'base: &b {x: 1}\nderived:\n  <<: *b\n  y: 2\nagain: *b\n',
      'm1: &m1 {a: 1, b: 1}\nm2: &m2 {b: 2, c: 2}\nr:\n  z: 0\n  <<: [*m1, *m2]\n  b: 9\n',
      'm1: &m1 {a: 1}\nm2: &m2 {a: 2}\nr:\n  <<: *m1\n  <<: *m2\n',
      'l: &l [{a: 1}, {a: 2, b: 2}]\nr:\n  <<: *l\n',
      'r:\n  <<: {a: 1, <<: {b: 2, a: 3}}\n  c: 4\n',
      'r:\n  b: 1\n  <<: [{a: 1}, {b: 2, c: 3}]\n',
      'a: &x 1\nb: &x 2\n',
      'a: *nope\n',
      'a: 1\n<<: 3\n',
      'a: &a [1]\nb:\n  <<: [*a]\n',
      'b:\n  <<:\n',
      'a: &k [1]\n*k : 2\n',
      'a: &k x\n*k : 2\n',
      '&a a: &b b\n*b : *a\n',
      'x: <<\n',
      "'<<': {a: 1}\n",
      '- &a [1, 2]\n- *a\n- {<<: {k: *a}}\n',
    ];
    const py = pyLoadAll(docs);
    const differences: string[] = [];
    docs.forEach((text, i) => {
      const ours = safeParseDocument(text);
      const theirs = py[i];
      if (!theirs?.ok || !ours.ok) {
        if (Boolean(theirs?.ok) !== ours.ok)
          differences.push(`${JSON.stringify(text)}: PyYAML ok=${theirs?.ok}, ours ok=${ours.ok}`);
        return;
      }
      // Key order counts too: merged keys come first in PyYAML's dicts.
      const a = JSON.stringify(norm(ours.document.value));
      const b = JSON.stringify(theirs.value);
      if (a !== b) differences.push(`${JSON.stringify(text)}: ours ${a}, PyYAML ${b}`);
    });
    expect(differences).toEqual([]);
  });

  it.runIf(sharedAvailable('real-world YAML corpus', 'corpus'))(
    'loads every real-world YAML file of the corpus to the same data',
    async () => {
      const files = (
        await fg(['tripleo-heat-templates/**/*.yaml', 'sahara/**/*.yaml'], { cwd: CORPUS, absolute: true })
      )
        .filter((f) => !f.endsWith('.j2.yaml'))
        .sort();
      expect(files.length).toBeGreaterThan(600);
      const texts = files.map((f) => readFileSync(f, 'utf8'));
      const py = pyLoadAll(texts);
      const differences: string[] = [];
      let loaded = 0;
      files.forEach((f, i) => {
        const ours = safeParseDocument(texts[i] as string, { duplicateKeys: 'ignore' });
        const theirs = py[i];
        const name = relative(CORPUS, f);
        if (!theirs?.ok || !ours.ok) {
          if (Boolean(theirs?.ok) !== ours.ok)
            differences.push(`${name}: PyYAML ok=${theirs?.ok}, ours ok=${ours.ok}`);
          return;
        }
        loaded += 1;
        if (JSON.stringify(norm(ours.document.value)) !== JSON.stringify(theirs.value))
          differences.push(`${name}: data differs`);
      });
      console.log(
        `PyYAML corpus conformance: ${files.length} files, ${loaded} loaded by both, ${differences.length} differences`,
      );
      expect(differences).toEqual([]);
    },
  );
});
