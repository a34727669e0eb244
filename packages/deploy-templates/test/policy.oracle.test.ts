// The deploy template policy table against Ironic 21.4's own defaults: for
// every rule and every combination of roles (the legacy baremetal_* ones
// too), scope, project and project name, oslo.policy with Ironic's
// registered rules and ours decide alike, with and without
// enforce_new_defaults (Ironic's service role with
// rbac_service_role_elevated_access on, as our serviceProjectName assumes).
import { describe, expect, it } from 'vitest';
import {
  credentialMatrix,
  type PolicyCase,
  ROLE_SETS,
  runPolicyOracle,
  toRequestCredentials,
} from '../../../test-support/policy-oracle.js';
import { oracleAvailable } from '../../../test-support/python.js';
import { createDeployTemplatePolicy, DEPLOY_TEMPLATE_RULES } from '../src/policy.js';

const ROLES = [
  ...ROLE_SETS,
  ['administrator'],
  ['baremetal_admin'],
  ['baremetal_observer'],
  ['observer'],
  ['service', 'reader'],
];

describe.runIf(oracleAvailable('ironic', ['ironic.common.policy']))(
  "the deploy template policy decides as Ironic 21.4's defaults do",
  () => {
    it.each(['new', 'legacy'] as const)(
      'with %s defaults',
      (mode) => {
        const cases: PolicyCase[] = [];
        for (const rule of DEPLOY_TEMPLATE_RULES) {
          for (const credentials of credentialMatrix(ROLES, [
            null,
            'service',
            'demo',
            'baremetal',
            'other',
          ])) {
            cases.push({ rule, credentials, target: {} });
          }
        }
        const theirs = runPolicyOracle('ironic', mode, cases);
        const policy = createDeployTemplatePolicy({ legacy: mode === 'legacy' });
        const differences = cases
          .map((c, i) => {
            const ours = policy(
              c.rule as (typeof DEPLOY_TEMPLATE_RULES)[number],
              toRequestCredentials(c.credentials),
            );
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
