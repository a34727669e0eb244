// Image properties in nova mode against Nova 26's ImageMetaProps.from_dict:
// one property per call (Nova stops at the first bad field), same verdict
// and the same ValueError/Invalid text.
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { oracleAvailable, PYTHON } from '../../../test-support/python.js';
import { builtinRegistry, validateImageProperties } from '../src/index.js';
import { BOOL_EDGE_VALUES, INT_EDGE_VALUES } from './corpus.js';

const ORACLE = `
import json, sys, warnings
warnings.filterwarnings('ignore')
from nova import objects
objects.register_all()
for line in sys.stdin:
    props = json.loads(line)
    try:
        objects.ImageMetaProps.from_dict(props)
        print(json.dumps({'ok': True}))
    except Exception as e:
        print(json.dumps({'ok': False, 'message': str(e)}))
`;

const CPU_SPECS = [
  '0-3',
  '0,1',
  '^2',
  '0-3,^2',
  'x',
  '1-',
  '-1',
  '3-1',
  '^x',
  '^1-2',
  ' 1 - 2 ',
  '1,,2',
  '',
  '\u0663',
  'a-b',
  '1-2-3',
];

function corpus(): Record<string, string>[] {
  const registry = builtinRegistry('zed');
  const out: Record<string, string>[] = [];
  for (const e of registry.entries()) {
    const prop = e.definition.imageProperty;
    if (!prop) continue;
    const rule = e.definition.imageValue ?? e.value;
    const values =
      rule.type === 'int'
        ? INT_EDGE_VALUES.filter((v) => v.length < 400)
        : rule.type === 'bool'
          ? BOOL_EDGE_VALUES
          : rule.enum
            ? [...rule.enum, 'x', `${rule.enum[0]} `, 'optional']
            : ['x', '', '2MB'];
    const name = prop.replace('{num}', '0');
    for (const v of prop.includes('numa_cpus') ? CPU_SPECS : values) out.push({ [name]: v });
  }
  out.push(
    { 'hw_numa_cpus.1': 'x' },
    { 'hw_numa_mem.1': 'x' },
    { 'hw_numa_cpus.0': '0', 'hw_numa_cpus.1': 'x' },
  );
  out.push({ hw_cpu_polcy: 'x' }, { 'trait:HW_CPU_X86_AVX2': 'forbidden' }, { hw_numa_mem: 'x' });
  return out;
}

describe.runIf(oracleAvailable('nova', ['nova.objects.image_meta']))(
  'image properties against Nova 26',
  () => {
    it('reads every sample the way ImageMetaProps.from_dict does', () => {
      const cases = corpus();
      const r = spawnSync(PYTHON, ['-c', ORACLE], {
        input: `${cases.map((c) => JSON.stringify(c)).join('\n')}\n`,
        encoding: 'utf8',
        timeout: 120_000,
      });
      expect(r.status, r.stderr).toBe(0);
      const nova = r.stdout
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l) as { ok: boolean; message?: string });
      const registry = builtinRegistry('zed');
      const differences: string[] = [];
      cases.forEach((props, i) => {
        const ours = validateImageProperties(props, { mode: 'nova', registry });
        const theirs = nova[i] as { ok: boolean; message?: string };
        const same = theirs.ok ? ours.ok : ours.diagnostics[0]?.message === theirs.message;
        if (!same)
          differences.push(
            `${JSON.stringify(props)}: nova ${JSON.stringify(theirs)}, ours ${JSON.stringify(ours.diagnostics)}`,
          );
      });
      expect(differences.slice(0, 10), `${differences.length} differences`).toEqual([]);
      expect(cases.length).toBeGreaterThan(500);
      expect(nova.filter((n) => !n.ok).length).toBeGreaterThan(100);
    });
  },
);
