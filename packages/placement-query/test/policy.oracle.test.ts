// Placement's policy table against Placement 8.0's own defaults: for every
// rule and every combination of roles, scope and project (and, for
// GET /usages, the project asked about), oslo.policy with Placement's
// registered rules and ours decide alike: ours by default against Placement
// configured as it ships (enforce_new_defaults off), ours with
// enforceNewDefaults against Placement with enforce_new_defaults on.
import { describe, expect, it } from 'vitest';
import {
  credentialMatrix,
  type PolicyCase,
  ROLE_SETS,
  runPolicyOracle,
  toRequestCredentials,
} from '../../../test-support/policy-oracle.js';
import { oracleAvailable } from '../../../test-support/python.js';
import { createPlacementPolicy, PLACEMENT_ROUTE_RULES } from '../src/http/policy.js';

describe.runIf(oracleAvailable('placement', ['placement.policies', 'placement.policy']))(
  "Placement's policy decides as Placement 8.0's defaults do",
  () => {
    it.each(['shipped', 'new'] as const)(
      'with %s defaults',
      (mode) => {
        const cases: PolicyCase[] = [];
        for (const rule of [...new Set(Object.values(PLACEMENT_ROUTE_RULES))]) {
          for (const credentials of credentialMatrix(ROLE_SETS)) {
            const targets = rule === 'placement:usages' ? ['p1', 'p2', null] : [credentials.project_id];
            for (const project of targets) cases.push({ rule, credentials, target: { project_id: project } });
          }
        }
        const theirs = runPolicyOracle('placement', mode, cases);
        const policy = createPlacementPolicy(mode === 'new' ? { enforceNewDefaults: true } : {});
        const differences = cases
          .map((c, i) => {
            const ours = policy(c.rule, toRequestCredentials(c.credentials), {
              project_id: c.target.project_id ?? null,
            });
            return ours === theirs[i] ? undefined : { ...c, ours };
          })
          .filter(Boolean);
        expect(theirs.filter(Boolean).length).toBeGreaterThan(0);
        expect(differences).toEqual([]);
      },
      120_000,
    );
  },
);
