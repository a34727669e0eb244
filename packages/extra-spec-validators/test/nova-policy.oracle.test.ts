// The extra specs policy table against Nova 26's own: for every combination
// of roles, scope and project, Nova's registered defaults (checked by
// oslo.policy as Nova configures it) and ours must decide each rule alike:
// ours by default against Nova's configuration as it ships
// (enforce_new_defaults off), ours with enforceNewDefaults against Nova with
// enforce_new_defaults on.
import { describe, expect, it } from 'vitest';
import {
  credentialMatrix,
  type PolicyCase,
  ROLE_SETS,
  runPolicyOracle,
  toRequestCredentials,
} from '../../../test-support/policy-oracle.js';
import { oracleAvailable } from '../../../test-support/python.js';
import { createNovaExtraSpecsPolicy, type NovaExtraSpecsRule } from '../src/http/policy.js';

const RULES = ['index', 'show', 'create', 'update', 'delete'].map(
  (a) => `os_compute_api:os-flavor-extra-specs:${a}` as NovaExtraSpecsRule,
);

describe.runIf(oracleAvailable('nova', ['nova.policies', 'nova.policy']))(
  "the extra specs policy decides as Nova 26's defaults do",
  () => {
    it.each(['shipped', 'new'] as const)(
      'with %s defaults',
      (mode) => {
        const cases: PolicyCase[] = [];
        for (const rule of RULES) {
          for (const credentials of credentialMatrix(ROLE_SETS)) {
            // Nova checks reads against the caller's own project, writes against nothing.
            const target: Record<string, string | null> =
              rule.endsWith(':index') || rule.endsWith(':show') ? { project_id: credentials.project_id } : {};
            cases.push({ rule, credentials, target });
          }
        }
        const theirs = runPolicyOracle('nova', mode, cases);
        const policy = createNovaExtraSpecsPolicy(mode === 'new' ? { enforceNewDefaults: true } : {});
        const differences = cases
          .map((c, i) => {
            const ours = policy(c.rule as NovaExtraSpecsRule, toRequestCredentials(c.credentials));
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
