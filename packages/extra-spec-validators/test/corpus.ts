// The (key, value) corpus fed to both Nova and us by the conformance suite:
// every catalog entry with valid, boundary and invalid values, Python
// coercion edge cases, Nova's key quirks, typo'd keys, unknown keys in owned
// namespaces, foreign keys, and seeded random strings.
import { PY_INT_INVALID_LITERALS } from '../../../test-support/python-samples.js';
import { mulberry32 } from '../../../test-support/random.js';
import type { ExtraSpecRegistry, RegisteredExtraSpec } from '../src/index.js';

export interface Pair {
  key: string;
  value: string;
}

/** Sample values that exercise Python's int() rules: what it reads, what it refuses, and its digit limit. */
export const INT_EDGE_VALUES = [
  '0',
  '1',
  '-1',
  '-0',
  '+0',
  '+3',
  ' 5 ',
  '\t7\n',
  '007',
  '1_000',
  '0_7',
  '\u00a05',
  '\u20075',
  '\u30005',
  '\u00855',
  '5\u2028',
  '\u0663',
  '\uff11\uff12',
  '\u{1d7d3}',
  '\u0663_\u0663',
  '\u0967\u0966',
  '\u0e53',
  '99999999999999999999',
  '-99999999999999999999',
  '2147483648',
  ...PY_INT_INVALID_LITERALS,
  '9'.repeat(4300),
  '9'.repeat(4301),
  `-${'1'.repeat(4300)}`,
  `0${'0'.repeat(4300)}`,
  `${'1_'.repeat(4299)}1`,
];

// Sample values that exercise oslo's strict boolean parsing (Nova's verdict is
// the oracle's; python-values.test.ts holds parsePythonBool to these labels).

/** Read as true: any case, surrounding white space as str.strip() removes it. */
export const BOOL_TRUE_VALUES = [
  'true',
  'True',
  'TRUE',
  'yes',
  'YES',
  ' on ',
  'On',
  'oN\n',
  'y',
  'Y',
  't',
  '1',
  '\u001ctrue\u001f',
  '\u3000yes\u3000',
];

/** Read as false. */
export const BOOL_FALSE_VALUES = ['false', 'False', 'no', 'N', 'off', 'f', '0', '\u0085no\u0085'];

/** Refused: other numbers and words, near misses, and look-alike or invisible characters. */
export const BOOL_REFUSED_VALUES = [
  '2',
  '00',
  '01',
  '1.0',
  'enabled',
  'yep',
  '',
  ' ',
  '\uff54\uff52\uff55\uff45',
  '\ufefftrue',
  '\u200btrue',
  'tru',
  'ture',
  'nope',
  'of',
  '\u0130',
  'T\u0130',
  '\u212a',
];

export const BOOL_EDGE_VALUES = [...BOOL_TRUE_VALUES, ...BOOL_FALSE_VALUES, ...BOOL_REFUSED_VALUES];

const PATTERN_VALUES: Record<string, string[]> = {
  cpu: [
    '0',
    '0-3',
    '^0',
    '^0-1',
    '0-3,^2',
    '0,1,2',
    '0-3,5-7,^6',
    '^0,^1',
    '0-',
    '-1',
    '0--1',
    '0,,1',
    '0,^',
    'a',
    '0-3,',
    ' 0',
    '0 ',
    '0\n',
    '\u0663-\u0665',
    '0-1-2',
    '0,1-2-3',
    '^^0',
    '^',
    '',
    '1,^2-3',
    `${'1,'.repeat(60)}1`,
    `${'1'.repeat(200)}x`,
    `${'1-'.repeat(80)}x`,
  ],
  pageSize: [
    'large',
    'small',
    'any',
    '2048',
    '2MB',
    '2Mb',
    '2M',
    '1GiB',
    '1Gi',
    '1G',
    '4KiB',
    '4k',
    '4kb',
    '4kbit',
    '4KB',
    '1TB',
    '1T',
    '1PB',
    'LARGE',
    'Large',
    'huge',
    '2 MB',
    '',
    '\u0663MB',
    '2MiBit',
    '2mb',
    '2MBB',
  ],
  pmem: [
    'SMALL',
    'SMALL,LARGE',
    'a,b,c,',
    'a,,b',
    ',a',
    'a b',
    'a-b',
    'ns_1',
    '',
    ',',
    `${'a'.repeat(18)}!`,
    `${'a,'.repeat(50)}`,
    '\u00fc',
    'a,\u00fc',
  ],
  pci: [
    'a1:2',
    'a1:2,a2:1',
    'a1:2 , a2:1',
    'a1:2,\ta2:1',
    'a1',
    ':1',
    'a1:',
    'a1:x',
    'a:b:1',
    'a b:1',
    'a,b:1',
    'a1:2,',
    'a1:2,,a2:1',
    'a\n:1',
    'a:\u0663',
    'a:1\u0085,\u0085b:2',
    'a:1\u001c,b:2',
    'a:1\u00a0,b:2',
    'a:1\ufeff,b:2',
    '',
    `${'a:1,'.repeat(30)}a:1`,
    `${'a:1,'.repeat(30)}a:`,
  ],
  powervmUnits: ['0.5', '1.0', '1', '.5', '1.', 'a.b', '\u0663.\u0665', ''],
};

function patternSamples(pattern: string): string[] {
  if (pattern.includes('large|small')) return PATTERN_VALUES.pageSize as string[];
  if (pattern.startsWith('([a-zA-Z0-9_]')) return PATTERN_VALUES.pmem as string[];
  if (pattern.startsWith('[^:]')) return PATTERN_VALUES.pci as string[];
  if (pattern === '\\d+\\.\\d+') return PATTERN_VALUES.powervmUnits as string[];
  return PATTERN_VALUES.cpu as string[];
}

const GROUPS = ['', '1', '_x-1', 's', 'a'.repeat(64), 'a'.repeat(65), '\u00fc', 'a b'];

/** Concrete keys for an entry: its name with each placeholder filled with typical and odd values. */
export function keysFor(spec: RegisteredExtraSpec, thorough: boolean): string[] {
  if (!spec.parameters.length) return [spec.name];
  const fill: Record<string, string[]> = {
    group: thorough ? GROUPS : ['', '1'],
    num: thorough ? ['0', '12', '\u0663', 'x', ''] : ['0'],
    id: ['0'],
    filter: thorough ? ['', ':a', ':a:b', ':\u00fc', ':', ':a-b', 'x'] : ['', ':a'],
    key: thorough ? ['foo', 'a.b', ' x', '{key}', ''] : ['foo'],
    trait: thorough ? ['FOO_1', 'foo', ''] : ['FOO'],
    resource: thorough ? ['FOO_1', 'foo', ''] : ['FOO'],
  };
  let keys = [spec.name];
  for (const p of spec.parameters) {
    const values = fill[p.name] ?? ['x'];
    keys = keys.flatMap((k) => values.map((v) => k.replace(`{${p.name}}`, v)));
  }
  // The template itself, written literally, is a key Nova treats specially.
  return [...keys, spec.name];
}

/** Values for an entry's rule: valid, boundary and invalid ones. */
export function valuesFor(spec: RegisteredExtraSpec, thorough: boolean): string[] {
  const rule = spec.value;
  if (rule.type === 'bool') return thorough ? BOOL_EDGE_VALUES : ['true', 'maybe'];
  if (rule.type === 'int') {
    const bounds: string[] = [];
    for (const b of [rule.min, rule.max]) {
      if (b !== undefined) bounds.push(String(b - 1), String(b), String(b + 1));
    }
    return thorough ? [...bounds, ...INT_EDGE_VALUES] : [...bounds, '4', 'x'];
  }
  if (rule.enum) {
    const extra = rule.enum.flatMap((v) => [`${v} `, v.toUpperCase(), `${v.slice(0, -1)}`]);
    return thorough ? [...rule.enum, ...extra, '', 'other'] : [...rule.enum.slice(0, 1), 'other'];
  }
  if (rule.pattern) return thorough ? patternSamples(rule.pattern) : patternSamples(rule.pattern).slice(0, 3);
  return thorough ? ['', 'anything', '>= 5', '<or> a <or> b', '\u00fc\n'] : ['x'];
}

const TYPO_OPS = [
  (s: string, i: number) => s.slice(0, i) + s.slice(i + 1),
  (s: string, i: number) => s.slice(0, i) + (s[i + 1] ?? '') + (s[i] ?? '') + s.slice(i + 2),
  (s: string, i: number) => `${s.slice(0, i)}x${s.slice(i)}`,
  (s: string) => s.toUpperCase(),
  (s: string) => `${s}:x`,
  (s: string) => `${s} `,
  (s: string) => s.replace(':', '_'),
  (s: string) => s.replace(':', '::'),
];

/** Keys that are not in the catalog: typos, owned namespaces, foreign namespaces and Nova's quirks. */
export function unknownKeys(registry: ExtraSpecRegistry, rand: () => number): string[] {
  const out = new Set<string>([
    'hw:',
    'hw:foo',
    'hw:cpu_policy:x',
    'quota:',
    'quota:cpu',
    'resources1:FOO',
    'resources:',
    'trait2:',
    'trait:',
    'capabilities:cpu_info:',
    'capabilities:',
    'hw_rng:foo',
    'hw_video:x',
    'accel:x',
    'vmware:x',
    'os:x',
    'pci_passthrough:x',
    'aggregate_instance_extra_specs:',
    'foo:bar',
    'HW:cpu_policy',
    'hw :x',
    ':x',
    'trait.1:X',
    'hw_foo:bar',
    'hhw:x',
    'quotas:x',
    'powervm:x',
    'foo',
    'hw_cpu_policy',
    '',
    ':',
    '::',
    'hw:numa_cpusX0',
    'hw:numa_cpus_0',
    'hw:numa_memZ1',
    'hw:numa_cpus\n0',
    'hw:numa_cpus\r0',
    'hw:numa_cpus\u20280',
    'hw:numa_cpus.0\n',
    'hw:numa_cpus.',
    'hw:numa_cpus.-1',
    'hw:numa_mem.1.2',
    `trait${'a'.repeat(65)}:HW_CPU_X86_AVX2`,
    `resources${'a'.repeat(65)}:VCPU`,
    'traits:HW_CPU_X86_AVX2',
    'trait_x-1:HW_CPU_X86_AVX2',
    'trait1:hw_cpu_x86_avx2',
    'trait:CUSTOM_',
    'trait:CUSTOM_foo',
    'resources:CUSTOM_',
    'resources:custom_foo',
    'resources1:vcpu',
    'hw:cpu_max_sockets',
    'hw:sound_model',
    'hw:virtio_packed_ring',
    'os:resolution',
    'powervm:min_mem',
    'hw:numa_cpus.{id}',
    'hw:cpu_realtime_mask\n',
    'group_policy ',
    ' group_policy',
    'hide_hypervisor_id:',
    'capabilities:cpu_info:a:b',
    'capabilities:stats:\u00fc',
    'capabilities:cpu_info\u00fc',
    'trait\u00fc:HW_CPU_X86_AVX2',
    'hw:mem_page_size\u0000',
    'hw\n:x',
  ]);
  const plain = registry.entries().filter((e) => !e.parameters.length && e.origin === 'builtin');
  for (const e of plain) {
    const op = TYPO_OPS[Math.floor(rand() * TYPO_OPS.length)] as (s: string, i: number) => string;
    out.add(op(e.name, Math.floor(rand() * e.name.length)));
  }
  return [...out];
}

const ALPHABET = [
  ...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789',
  ...':_-.{}^, +\t\n',
  '\u00fc',
  '\u0663',
  '\u00a0',
  '\u3000',
  '\u0085',
  '\u001c',
  '\ufeff',
  '\u{1d7d3}',
  '\u00b2',
];

function randomString(rand: () => number, max: number): string {
  const n = Math.floor(rand() * max);
  let s = '';
  for (let i = 0; i < n; i += 1) s += ALPHABET[Math.floor(rand() * ALPHABET.length)];
  return s;
}

/** The whole conformance corpus for a registry (deterministic for a seed). */
export function buildConformanceCorpus(registry: ExtraSpecRegistry, seed = 2086): Pair[] {
  const rand = mulberry32(seed);
  const pairs: Pair[] = [];
  for (const spec of registry.entries()) {
    // Trait and resource entries share their rules; test a few thoroughly, the rest briefly.
    const common = spec.name.startsWith('trait{group}:') || spec.name.startsWith('resources{group}:');
    const thorough = !common || rand() < 0.05 || spec.name.includes('CUSTOM_');
    const keys = keysFor(spec, thorough);
    const values = valuesFor(spec, thorough);
    for (const key of keys) {
      for (const value of key === keys[0] ? values : values.slice(0, 2)) pairs.push({ key, value });
    }
  }
  for (const key of unknownKeys(registry, rand)) {
    pairs.push({ key, value: 'required' });
    pairs.push({ key, value: '1' });
  }
  // Random strings over each pattern's own alphabet: they land on both sides
  // of the pattern, which tests our linear-time rewrites of Nova's patterns.
  const seenPatterns = new Set<string>();
  for (const spec of registry.entries()) {
    const rule = spec.value;
    if (rule.type !== 'str' || !rule.pattern || seenPatterns.has(rule.pattern) || spec.parameters.length)
      continue;
    seenPatterns.add(rule.pattern);
    const alphabet = [...'0123456789-,^:. a_bkKMGTiB', '\u0663', '\t'];
    for (let i = 0; i < 400; i += 1) {
      const n = 1 + Math.floor(rand() * 14);
      let s = '';
      for (let j = 0; j < n; j += 1) s += alphabet[Math.floor(rand() * alphabet.length)];
      pairs.push({ key: spec.name, value: s });
    }
  }
  const names = registry.entries().map((e) => e.name);
  for (let i = 0; i < 1500; i += 1) {
    const base = names[Math.floor(rand() * names.length)] as string;
    const key =
      rand() < 0.5 ? randomString(rand, 24) : base.replace(/\{[^}]*\}/g, () => randomString(rand, 4));
    pairs.push({ key, value: randomString(rand, 12) });
  }
  return pairs;
}
