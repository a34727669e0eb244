// Feeds the same generated request bodies to Ironic's own validators (Debian's
// python3-ironic) and to ours, and expects the same verdict and message.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { oracleAvailable, runPython } from '../../../test-support/python.js';
import { ironicProfile } from '../src/index.js';
import { parsePatchDocument, parseTemplateBody } from '../src/ironic-rules.js';

const profile = ironicProfile('21.4');

const SCRIPT = String.raw`
import json, sys, warnings
warnings.simplefilter('ignore')
from ironic.api.controllers.v1 import deploy_template as dt
from ironic.common import args
out = []
for kind, value in json.load(sys.stdin):
    try:
        if kind == 'template':
            dt.TEMPLATE_VALIDATOR('template', value)
        else:
            args.patch('patch', value)
        out.append(None)
    except Exception as e:
        out.append(str(e))
print(json.dumps(out))
`;

const scalar = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.integer({ min: -10, max: 1000 }),
  fc.constantFrom('', 'x', '42', '-1', 'CUSTOM_A', 'my-trait', 'HW_CPU_X86_AVX2', 'CUSTOM_', 'custom_a'),
);
const json: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    scalar,
    fc.array(tie('value'), { maxLength: 2 }),
    fc.dictionary(fc.constantFrom('a', 'b', 'password'), tie('value'), { maxKeys: 2 }),
  ),
})).value;

const stepArb = fc.record(
  {
    interface: fc.oneof(
      fc.constantFrom('bios', 'raid', 'deploy', 'power', 'management', 'vendor', 'firmware', 'boot'),
      scalar,
    ),
    step: fc.oneof(fc.constantFrom('apply_configuration', 'create_configuration', 'deploy', ''), scalar),
    args: fc.oneof(fc.dictionary(fc.constantFrom('a', 'settings'), json, { maxKeys: 2 }), json),
    priority: fc.oneof(
      fc.integer({ min: -3, max: 200 }),
      fc.constantFrom('10', '007', '', 'x1', '1.5'),
      fc.double({ noNaN: true, noDefaultInfinity: true }),
      scalar,
    ),
    extra_key: json,
  },
  { requiredKeys: [] },
);

const bodyArb = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record(
      {
        name: fc.oneof(
          fc.constantFrom(
            'CUSTOM_A',
            'CUSTOM_RAID_1',
            'HW_CPU_X86_AVX2',
            'HW_NVME_BES',
            'my-trait',
            '',
            'CUSTOM_',
            'CUSTOM_A\n',
            'CUSTOM_A\n\n',
            `CUSTOM_${'B'.repeat(250)}`,
          ),
          scalar,
        ),
        steps: fc.oneof(fc.array(stepArb, { maxLength: 3 }), json),
        uuid: fc.oneof(
          fc.constantFrom(
            '8221f906-208b-44a5-b575-f8e8a59c4a84',
            '8221F906208B44A5B575F8E8A59C4A84',
            'not-a-uuid',
          ),
          scalar,
        ),
        extra: json,
        description: fc.oneof(fc.string({ maxLength: 3 }), scalar),
        colour: scalar,
      },
      { requiredKeys: [] },
    ),
  },
  { weight: 1, arbitrary: json },
);

const opArb = fc.record(
  {
    op: fc.oneof(fc.constantFrom('add', 'replace', 'remove', 'test', 'move'), scalar),
    path: fc.oneof(
      fc.constantFrom(
        '/name',
        '/steps/0',
        '/extra/a-b',
        'name',
        '/',
        '//x',
        '/ä',
        '/a b',
        '/name\n',
        '/extra/a\u0301',
        '/extra/a\u203f',
        '/extra/\u00b2',
      ),
      scalar,
    ),
    value: json,
    from: scalar,
  },
  { requiredKeys: [] },
);
const patchArb = fc.oneof(
  { weight: 5, arbitrary: fc.array(opArb, { maxLength: 3 }) },
  { weight: 1, arbitrary: json },
);

function ours(kind: string, value: unknown): string | null {
  try {
    if (kind === 'template') parseTemplateBody(structuredClone(value), profile, 'template');
    else parsePatchDocument(value);
    return null;
  } catch (e) {
    return (e as Error).message;
  }
}

describe.runIf(oracleAvailable('ironic', ['ironic.api.controllers.v1.deploy_template']))(
  'request validation agrees with Ironic 21.4',
  () => {
    it('gives the same verdict and message for generated POST bodies and patch documents', () => {
      const cases: [string, unknown][] = [
        ...fc
          .sample(bodyArb, { numRuns: 600, seed: 20261123 })
          .map((b) => ['template', b] as [string, unknown]),
        ...fc.sample(patchArb, { numRuns: 300, seed: 7 }).map((p) => ['patch', p] as [string, unknown]),
      ];
      const theirs = JSON.parse(runPython(SCRIPT, JSON.stringify(cases))) as (string | null)[];
      const mismatches: unknown[] = [];
      let crashes = 0;
      cases.forEach(([kind, value], i) => {
        let expected = theirs[i] ?? null;
        const got = ours(kind, value);
        // Our extra bound on priorities (a database error in Ironic) is not a disagreement.
        if (got?.includes('largest supported value')) return;
        // Ironic crashes (a 500) on some inputs, such as a JSON null body; we answer a 400 instead.
        if (
          value === null ||
          (expected !== null && !/^(Schema error|Deploy template invalid|Expected UUID)/.test(expected))
        ) {
          crashes += 1;
          return;
        }
        // Python prints the duplicate pairs of a set in hash order.
        if (expected?.includes('Duplicates:') && got?.includes('Duplicates:')) {
          const norm = (s: string) => s.split(': ').slice(0, 2).join(': ');
          expected = norm(expected);
          if (norm(got) === expected) return;
        }
        if (got !== expected) mismatches.push({ kind, value, expected, got });
      });
      expect(mismatches.slice(0, 8)).toEqual([]);
      expect(crashes).toBeLessThan(cases.length / 10);
    });
  },
);
