// Conformance of core's Python regex translation with Python's `re`: the
// patterns OpenStack services put in schemas and validators, and patterns
// for each construct the translation handles, must find (re.search) and
// fully match (re.fullmatch) exactly the strings Python's do.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { oracleAvailable, runPython } from '../../../test-support/python.js';
import { compilePythonRegex } from '../src/python-regex.js';

const PATTERNS = [
  // Ironic, Placement and Nova patterns.
  '^CUSTOM_[A-Z0-9_]+$',
  '^[0-9]+$',
  '^(/[\\w-]+)+$',
  '^[A-Z0-9_]+$',
  '^[1-9][0-9]*$',
  '^(in|!in|required|member_of|resources)[0-9]*$',
  '^[\\w-]+$',
  '^\\d+(,\\d+)*$',
  '(?P<num>\\d+)(\\.(?P<frac>\\d+))?',
  // One construct each.
  '\\s+',
  '\\S\\W\\D',
  '[^\\s,]+',
  'a.c',
  'a{2,}',
  'a{,2}b',
  '{x}',
  '\\Aab\\Z',
  '\\bword\\b',
  'x\\B',
  '(?:ab)+?c',
  '(?=a)\\w',
  '(?<!b)c',
  '(a)\\1',
  '[]a-]+',
  '[\\x41-\\x5a\\u00e0-\\u00ff]+',
  'é$',
];

const PY = `
import json, re, sys
patterns = json.loads(sys.stdin.readline())
texts = json.loads(sys.stdin.readline())
print(json.dumps([[[bool(re.search(p, t)), bool(re.fullmatch(p, t))] for t in texts] for p in patterns]))
`;

const char = fc.oneof(
  fc.constantFrom('a', 'b', 'c', 'x', 'A', 'Z', '_', '-', '/', ',', '.', ' ', '\n', '\t', '\x1c', '\x85'),
  fc.constantFrom('0', '1', '9', '\u0663', '\u00b2', '\u2160', 'é', '\u0301', '\u203f', '\u3000', '\ufeff'),
  fc.constantFrom('CUSTOM_', 'word', 'ab', 'in', 'resources', 'é'),
);
const text = fc.array(char, { maxLength: 8 }).map((cs) => cs.join(''));

describe.runIf(oracleAvailable('python3', ['re']))('Python regex conformance', () => {
  it('finds and fully matches exactly what Python re does', () => {
    const texts = [...new Set([...fc.sample(text, { numRuns: 600, seed: 42 }), '', '/a\n', 'CUSTOM_A\n'])];
    const answers = JSON.parse(runPython(PY, `${JSON.stringify(PATTERNS)}\n${JSON.stringify(texts)}\n`)) as [
      boolean,
      boolean,
    ][][];
    let found = 0;
    PATTERNS.forEach((pattern, p) => {
      const search = compilePythonRegex(pattern);
      const full = compilePythonRegex(pattern, 'fullmatch');
      texts.forEach((t, i) => {
        const [s, f] = answers[p]?.[i] ?? [];
        expect(search.test(t), `${pattern} ~ ${JSON.stringify(t)}`).toBe(s);
        expect(full.test(t), `${pattern} == ${JSON.stringify(t)}`).toBe(f);
        if (s) found += 1;
      });
    });
    expect(found).toBeGreaterThan(texts.length);
  });
});
