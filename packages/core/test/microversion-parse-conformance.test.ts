// Conformance with microversion_parse, the library Nova and Placement read
// their version headers with: for a corpus of header sets (repeated headers,
// several services, odd spacing and case, legacy headers), our
// readMicroversionHeader must return exactly what get_version returns.
import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../../scripts/bench-kit.js';
import { oracleAvailable, runPython } from '../../../test-support/python.js';
import { readMicroversionHeader } from '../src/vocabulary/microversion.js';

interface Case {
  headers: [string, string][];
  service: string;
  legacy: string[];
}

const PY_ORACLE = `
import json, sys
import microversion_parse
for line in sys.stdin:
    c = json.loads(line)
    pairs = [tuple(p) for p in c['headers']]
    print(json.dumps(microversion_parse.get_version(pairs, c['service'], legacy_headers=c['legacy'] or None)))
`;

const LEGACY = 'X-OpenStack-Nova-API-Version';

function corpus(): Case[] {
  const fixed: Case[] = [
    { headers: [['OpenStack-API-Version', 'compute 2.1, compute 2.60']], service: 'compute', legacy: [] },
    { headers: [['OpenStack-API-Version', 'Compute LATEST']], service: 'compute', legacy: [] },
    { headers: [['openstack-api-version', 'placement 1.2']], service: 'compute', legacy: [LEGACY] },
    {
      headers: [
        [LEGACY, '2.3'],
        [LEGACY, '2.4'],
      ],
      service: 'compute',
      legacy: [LEGACY],
    },
    { headers: [[LEGACY, '2.5,']], service: 'compute', legacy: [LEGACY] },
    { headers: [[LEGACY, '']], service: 'compute', legacy: [LEGACY] },
    { headers: [], service: 'compute', legacy: [LEGACY] },
    { headers: [['OpenStack-API-Version', 'compute']], service: 'compute', legacy: [] },
    { headers: [['OpenStack-API-Version', 'compute 2.1 2.2']], service: 'compute', legacy: [] },
    { headers: [['OpenStack-API-Version', 'compute\u00a02.7']], service: 'compute', legacy: [] },
    { headers: [['OpenStack-API-Version', 'compute\u000b2.8 ,']], service: 'compute', legacy: [] },
  ];
  const rand = seededRandom(4242);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(rand() * list.length)] as T;
  const services = ['compute', 'Compute', 'COMPUTE', 'placement', 'baremetal', 'computex', ''];
  const versions = ['2.1', '2.60', 'latest', 'LATEST', '1.05', '2.1 2.2', '', 'x'];
  const spaces = ['', ' ', '  ', '\t', ' \t '];
  const entry = () =>
    `${pick(spaces)}${pick(services)}${pick([' ', '  ', '\t'])}${pick(versions)}${pick(spaces)}`;
  const generated: Case[] = [];
  for (let i = 0; i < 1500; i += 1) {
    const headers: [string, string][] = [];
    const standard = Math.floor(rand() * 3);
    for (let j = 0; j < standard; j += 1) {
      const n = 1 + Math.floor(rand() * 3);
      headers.push([
        pick(['OpenStack-API-Version', 'openstack-api-version', 'OPENSTACK-API-VERSION']),
        Array.from({ length: n }, entry).join(pick([',', ', ', ' , '])),
      ]);
    }
    const legacy = Math.floor(rand() * 3);
    for (let j = 0; j < legacy; j += 1) {
      headers.push([
        pick([LEGACY, LEGACY.toLowerCase()]),
        `${pick(spaces)}${pick(versions)}${pick(['', ',', ', 2.9'])}`,
      ]);
    }
    generated.push({
      headers,
      service: pick(['compute', 'placement']),
      legacy: rand() < 0.7 ? [LEGACY] : [],
    });
  }
  return [...fixed, ...generated];
}

/** The same header set as WHATWG Headers (repeats appended) and as a plain object (repeats as arrays). */
function forms(c: Case): { name: string; headers: Headers | Record<string, string[]> }[] {
  const plain: Record<string, string[]> = {};
  for (const [k, v] of c.headers) {
    const key = Object.keys(plain).find((x) => x.toLowerCase() === k.toLowerCase()) ?? k;
    plain[key] = [...(plain[key] ?? []), v];
  }
  const out: { name: string; headers: Headers | Record<string, string[]> }[] = [
    { name: 'object', headers: plain },
  ];
  try {
    const h = new Headers();
    for (const [k, v] of c.headers) h.append(k, v);
    out.push({ name: 'Headers', headers: h });
  } catch {
    // Not every byte is allowed in a WHATWG header value; the plain object still carries it.
  }
  return out;
}

describe.runIf(oracleAvailable('microversion_parse', ['microversion_parse']))(
  'conformance with microversion_parse',
  () => {
    it('reads every header set of the corpus as get_version does', () => {
      const cases = corpus();
      const out = runPython(PY_ORACLE, cases.map((c) => JSON.stringify(c)).join('\n'))
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as string | null);
      expect(out).toHaveLength(cases.length);
      const differences: string[] = [];
      cases.forEach((c, i) => {
        const theirs = out[i] ?? undefined;
        for (const f of forms(c)) {
          const ours = readMicroversionHeader(f.headers, {
            service: c.service,
            ...(c.legacy.length ? { legacyHeader: c.legacy } : {}),
          });
          if (ours !== theirs)
            differences.push(
              `${JSON.stringify(c)} (${f.name}): ours ${JSON.stringify(ours)}, theirs ${JSON.stringify(theirs)}`,
            );
        }
      });
      console.log(
        `microversion_parse conformance: ${cases.length} header sets, ${differences.length} differences`,
      );
      expect(differences).toEqual([]);
    });
  },
);
