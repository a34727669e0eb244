// Conformance of `-c` with the OpenStack client: cliff keeps the columns a
// command lists in their natural order and drops the rest, comparing `-c`
// names with the header labels exactly; osc-lib first turns API attribute
// names (our column keys) into their labels. For random column sets and `-c`
// lists, formatList must keep exactly the columns that path keeps, and fail
// exactly when cliff raises "No recognized column names".
import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../../scripts/bench-kit.js';
import { oracleAvailable, runPython } from '../../../test-support/python.js';
import { formatList } from '../src/cli/output.js';

const PY_ORACLE = `
import json, sys, types
from cliff.display import DisplayCommandBase
from osc_lib.utils import calculate_header_and_attrs
for line in sys.stdin:
    c = json.loads(line)
    args = types.SimpleNamespace(columns=list(c['wanted']))
    calculate_header_and_attrs(c['labels'], c['keys'], args)
    try:
        picked, _ = DisplayCommandBase._generate_columns_and_selector(None, args, c['labels'])
        print(json.dumps(picked))
    except ValueError:
        print('null')
`;

const COLUMNS: [string, string][] = [
  ['uuid', 'UUID'],
  ['name', 'Name'],
  ['steps', 'Steps'],
  ['extra', 'Extra'],
  ['created_at', 'Created At'],
  ['priority', 'priority'],
];
const NOISE = ['NAME', 'Uuid', 'created at', 'bogus', '', 'Steps '];

interface Case {
  keys: string[];
  labels: string[];
  wanted: string[];
}

function corpus(): Case[] {
  const random = seededRandom(7);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  const cases: Case[] = [];
  for (let i = 0; i < 400; i += 1) {
    const columns = COLUMNS.filter(() => random() < 0.6);
    if (!columns.length) columns.push(pick(COLUMNS));
    columns.sort(() => random() - 0.5);
    const names = [...COLUMNS.flat(), ...NOISE];
    const wanted = Array.from({ length: 1 + Math.floor(random() * 4) }, () => pick(names));
    cases.push({ keys: columns.map(([k]) => k), labels: columns.map(([, l]) => l), wanted });
  }
  return cases;
}

describe.runIf(oracleAvailable('cliff and osc-lib', ['cliff.display', 'osc_lib.utils']))(
  '-c against cliff and osc-lib',
  () => {
    it('keeps the same columns in the same order, and fails on the same lists', () => {
      const cases = corpus();
      const expected = runPython(PY_ORACLE, cases.map((c) => JSON.stringify(c)).join('\n'))
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as string[] | null);
      expect(expected).toHaveLength(cases.length);
      let failures = 0;
      cases.forEach((c, i) => {
        const labels = Object.fromEntries(c.keys.map((k, j) => [k, c.labels[j] as string]));
        const row = Object.fromEntries(c.keys.map((k) => [k, k]));
        let ours: string[] | null;
        try {
          const out = formatList([row], c.keys, { format: 'json', labels, columns: c.wanted });
          ours = Object.keys((JSON.parse(out) as Record<string, unknown>[])[0] ?? {});
        } catch {
          ours = null;
        }
        if (ours === null) failures += 1;
        expect(ours, JSON.stringify(c)).toEqual(expected[i]);
      });
      // The corpus exercises both outcomes.
      expect(failures).toBeGreaterThan(10);
      expect(failures).toBeLessThan(cases.length - 100);
    });
  },
);
