// Placement's policy table against Placement 8.0's own defaults: for every
// rule and every combination of roles, scope and project (and, for
// GET /usages, the project asked about), oslo.policy with Placement's
// registered rules and ours decide alike: ours by default against Placement
// configured as it ships (enforce_new_defaults off), ours with
// enforceNewDefaults against Placement with enforce_new_defaults on.
import { credentialMatrix, describePolicyOracle, ROLE_SETS } from '../../../test-support/policy-oracle.js';
import { createPlacementPolicy, PLACEMENT_ROUTE_RULES } from '../src/http/policy.js';

describePolicyOracle({
  title: "Placement's policy decides as Placement 8.0's defaults do",
  service: 'placement',
  modules: ['placement.policies', 'placement.policy'],
  modes: ['shipped', 'new'],
  cases: () =>
    [...new Set(Object.values(PLACEMENT_ROUTE_RULES))].flatMap((rule) =>
      credentialMatrix(ROLE_SETS).flatMap((credentials) =>
        (rule === 'placement:usages' ? ['p1', 'p2', null] : [credentials.project_id]).map((project) => ({
          rule,
          credentials,
          target: { project_id: project },
        })),
      ),
    ),
  ours: (mode) => {
    const policy = createPlacementPolicy(mode === 'new' ? { enforceNewDefaults: true } : {});
    return (rule, credentials, target) =>
      policy(rule, credentials, { project_id: target.project_id ?? null });
  },
});
