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
import { validateDocument } from '../src/document.js';

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

/**
 * Documents around a ':' that PyYAML refuses with "mapping values are not
 * allowed here" or "expected <block end>, but found ':'": a ':' after a flow
 * collection on the same line, a ':' without a key, text after an explicit
 * key, an explicit key's ':' out of its column. Hand-picked ones, every
 * combination of a few prefixes, nodes and tails, and seeded token soup.
 */
function keyValueDocuments(): string[] {
  const fixed = [
    'a: {}: x\n',
    'a: [1]: \n',
    'a: {b: c}: d\n',
    '- a: {}: x\n',
    'a:\n  b: {}: x\n',
    ': x\n',
    'a: 1\n: x\n',
    '- : x\n',
    '? a\n: b\n: c\n',
    '{: x}\n',
    '[a, : x]\n',
    '[? : b]\n',
    '?\n: x\n',
    '&a : x\n',
    '!!str : x\n',
    '- &a !!str : x\n',
    '[&a : x]\n',
    'a:\n  b: 1\n  &x : y\nc: *x\n',
    'a:\n  &x : y\nb: *x\n',
    'b:\n  [1]\n  &x : y\n',
    '? "q"a\n',
    '? "q"!!str \n',
    '? a\n  : x\n',
    '? a\n: x\n',
    '- ? a\n  : x\n',
    '? \n  &x : \n',
    '? a\n&x : b\n',
    '[?x]\n',
    '{?x: 1}\n',
    '[a, ?b]\n',
    '[?: x]\n',
    '[? x]\n',
    '[a?b]\n',
    '{a: b?c}\n',
    '[http://x?y=1]\n',
    'a: ?x\n',
  ];
  const combined: string[] = [];
  const prefixes = [
    '',
    '- ',
    'a: ',
    '? a\n: ',
    'a:\n  ',
    'a:\n  b: ',
    '- a: ',
    'a: 1\n',
    '- - ',
    'a: &x ',
    'a: !!map ',
    '[',
    '{a: ',
  ];
  for (const prefix of prefixes)
    for (const node of ['{}', '[1]', '{b: c}', '[]', '"q"', "'q'", 'x', '', '?'])
      for (const colon of [':', ' :'])
        for (const tail of [' x', '', '\n', ' {}', '\n  y: 1', ' x\nb: 2']) {
          const close = prefix === '[' ? ']' : prefix === '{a: ' ? '}' : '';
          const text = `${prefix}${node}${colon}${tail}${close}`;
          combined.push(text.endsWith('\n') ? text : `${text}\n`);
        }
  const pieces = [
    'a',
    'b',
    ': ',
    ':',
    ' ',
    '{}',
    '[1]',
    '{b: c}',
    '[a, b]',
    '\n',
    '\n  ',
    '- ',
    '? ',
    '&x ',
    '!!str ',
    ',',
    '"q"',
    'x',
  ];
  const rand = seededRandom(7);
  const soup: string[] = [];
  for (let i = 0; i < 4000; i += 1) {
    let text = '';
    const n = 2 + Math.floor(rand() * 7);
    for (let j = 0; j < n; j += 1) text += pieces[Math.floor(rand() * pieces.length)];
    soup.push(`${text}\n`);
  }
  return [...new Set([...fixed, ...combined, ...soup])];
}

// Where we refuse what PyYAML reads, on purpose. The `yaml` parser gives an
// anchor or a tag standing before a keyless ':' at the start of a nested
// mapping to the whole mapping, where PyYAML gives it to the empty key:
// reading the first would make `*x` mean the mapping, and the tag in the
// second cannot apply to a mapping, so the loader refuses both.
const REFUSED_ON_PURPOSE = new Set(['a:\n  &x : y\nb: *x\n', '? \n: !!str : \n']);
// In a flow collection PyYAML reads `?x` as the explicit key `x`; the `yaml`
// parser reads the text `?x`, so the loader refuses it at the '?'.
const FLOW_KEY_INDICATOR =
  "Inside a flow collection PyYAML reads this '?' as the start of an explicit key, not as text.";

function refusedOnPurpose(text: string, ours: ReturnType<typeof validateDocument>): boolean {
  if (REFUSED_ON_PURPOSE.has(text)) return true;
  return !ours.ok && ours.diagnostics.every((d) => d.message === FLOW_KEY_INDICATOR);
}

/** Loads each document with both loaders; lists where acceptance or data differ. */
function compareWithPyYaml(docs: string[], options: Parameters<typeof validateDocument>[1] = {}): string[] {
  const py = pyLoadAll(docs);
  const differences: string[] = [];
  docs.forEach((text, i) => {
    const ours = validateDocument(text, options);
    const theirs = py[i];
    if (!theirs?.ok || !ours.ok) {
      if (Boolean(theirs?.ok) !== ours.ok && !(theirs?.ok && refusedOnPurpose(text, ours)))
        differences.push(
          `${JSON.stringify(text)}: PyYAML ${theirs?.ok ? 'accepts' : `fails (${theirs?.error})`}, ours ${ours.ok ? 'accepts' : `fails (${ours.diagnostics[0]?.message})`}`,
        );
      return;
    }
    // Key order counts too: merged keys come first in PyYAML's dicts.
    const a = JSON.stringify(norm(ours.document.value));
    const b = JSON.stringify(theirs.value);
    if (a !== b) differences.push(`${JSON.stringify(text)}: ours ${a}, PyYAML ${b}`);
  });
  return differences;
}

describe.runIf(oracleAvailable('PyYAML', ['yaml']))('conformance with PyYAML', () => {
  it('resolves plain scalars exactly like PyYAML', () => {
    const list = scalars();
    const docs = list.map((s) => `v: ${s}\n`);
    const py = pyLoadAll(docs);
    const differences: string[] = [];
    list.forEach((s, i) => {
      const ours = validateDocument(docs[i] as string);
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
    expect(compareWithPyYaml(docs)).toEqual([]);
  });

  it("refuses every ':' PyYAML refuses (no key, after a value on its line, out of column) and reads the rest alike", () => {
    const docs = keyValueDocuments();
    expect(docs.length).toBeGreaterThan(4000);
    // PyYAML keeps the last of duplicate keys; the soup makes many.
    const differences = compareWithPyYaml(docs, { duplicateKeys: 'ignore' });
    console.log(`PyYAML ':' conformance: ${docs.length} documents, ${differences.length} differences`);
    expect(differences).toEqual([]);
    // The exceptions above stay true: PyYAML reads them, we refuse them.
    const refused = [...REFUSED_ON_PURPOSE, '[?x]\n', '{a: [?b: 1]}\n'];
    expect(pyLoadAll(refused).map((r) => r.ok)).toEqual(refused.map(() => true));
    expect(refused.map((text) => validateDocument(text).ok)).toEqual(refused.map(() => false));
    // The cases this suite was written for really fail, each at its ':'.
    for (const [text, column] of [
      ['a: {}: x\n', 6],
      ['a: [1]: \n', 7],
      ['a: {b: c}: d\n', 10],
    ] as const) {
      const r = validateDocument(text);
      expect(r.ok ? [] : r.diagnostics).toEqual([
        expect.objectContaining({ code: 'yaml/syntax', line: 1, column }),
      ]);
    }
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
        const ours = validateDocument(texts[i] as string, { duplicateKeys: 'ignore' });
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
