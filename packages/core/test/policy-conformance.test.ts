// Conformance of core's policy evaluation with oslo.policy, the library every
// OpenStack service checks its rules with: generated check strings (roles,
// scope, project matches against the target, not/and/or, parentheses) and
// generated credentials and targets must get the same decision from both.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { oracleAvailable, runPython } from '../../../test-support/python.js';
import { createPolicyEnforcer, type PolicyTarget, type RequestCredentials } from '../src/http/policy.js';

const PY = `
import json, sys, warnings
warnings.filterwarnings('ignore')
from oslo_policy import _parser
for line in sys.stdin:
    text, creds, target = json.loads(line)
    check = _parser.parse_rule(text)
    print(json.dumps(bool(check(target, creds, None))))
`;

const leaf = fc.constantFrom(
  'role:admin',
  'role:READER',
  'role:member',
  'system_scope:all',
  'project_id:%(project_id)s',
  'project_id:p1',
  'project_name:%(name)s',
  'user_id:None',
  '@',
  '!',
);
const { check } = fc.letrec<{ check: string }>((tie) => ({
  check: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    leaf,
    fc.tuple(tie('check'), fc.constantFrom('and', 'or'), tie('check')).map(([a, op, b]) => `${a} ${op} ${b}`),
    tie('check').map((c) => `not ${c}`),
    tie('check').map((c) => `(${c})`),
  ),
}));
const maybe = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined });
const credentials = fc.record({
  roles: fc.subarray(['admin', 'Reader', 'member', 'service']),
  systemScope: maybe(fc.constant('all')),
  projectId: maybe(fc.constantFrom('p1', 'p2')),
  projectName: maybe(fc.constantFrom('svc', 'demo')),
  userId: maybe(fc.constant('u1')),
});
const target = fc.record(
  { project_id: fc.constantFrom('p1', 'p2', null), name: fc.constantFrom('svc', null) },
  { requiredKeys: [] },
);

function pythonCredentials(c: RequestCredentials): Record<string, unknown> {
  return {
    roles: c.roles,
    system_scope: c.systemScope ?? null,
    project_id: c.projectId ?? null,
    project_name: c.projectName ?? null,
    project_domain_id: c.projectDomainId ?? null,
    user_id: c.userId ?? null,
  };
}

describe.runIf(oracleAvailable('oslo.policy', ['oslo_policy._parser']))(
  'policy decisions as oslo.policy makes them',
  () => {
    it('decides every generated check, credential and target alike', () => {
      const cases = fc.sample(fc.tuple(check, credentials, target), { numRuns: 1500, seed: 15 }) as [
        string,
        RequestCredentials,
        PolicyTarget,
      ][];
      const input = cases.map(([t, c, g]) => JSON.stringify([t, pythonCredentials(c), g])).join('\n');
      const theirs = runPython(PY, `${input}\n`)
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l) as boolean);
      const differences = cases
        .map(([t, c, g], i) => {
          const ours = createPolicyEnforcer({ r: t })('r', c, g);
          return ours === theirs[i] ? undefined : { check: t, credentials: c, target: g, ours };
        })
        .filter(Boolean);
      expect(differences).toEqual([]);
    });
  },
);
