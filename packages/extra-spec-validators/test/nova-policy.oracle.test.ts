// The extra specs policy table against Nova 26's own: for every combination
// of roles, scope and project, Nova's registered defaults (checked by
// oslo.policy as Nova configures it) and ours must decide each rule alike:
// ours by default against Nova's configuration as it ships
// (enforce_new_defaults off), ours with enforceNewDefaults against Nova with
// enforce_new_defaults on.
import {
  credentialMatrix,
  describePolicyOracle,
  type PolicyCase,
  ROLE_SETS,
} from '../../../test-support/policy-oracle.js';
import { createNovaExtraSpecsPolicy, type NovaExtraSpecsRule } from '../src/http/policy.js';

const RULES = ['index', 'show', 'create', 'update', 'delete'].map(
  (a) => `os_compute_api:os-flavor-extra-specs:${a}` as NovaExtraSpecsRule,
);

describePolicyOracle({
  title: "the extra specs policy decides as Nova 26's defaults do",
  service: 'nova',
  modules: ['nova.policies', 'nova.policy'],
  modes: ['shipped', 'new'],
  cases: () =>
    RULES.flatMap((rule) =>
      credentialMatrix(ROLE_SETS).map(
        (credentials): PolicyCase => ({
          rule,
          credentials,
          // Nova checks reads against the caller's own project, writes against nothing.
          target:
            rule.endsWith(':index') || rule.endsWith(':show') ? { project_id: credentials.project_id } : {},
        }),
      ),
    ),
  ours: (mode) => {
    const policy = createNovaExtraSpecsPolicy(mode === 'new' ? { enforceNewDefaults: true } : {});
    return (rule, credentials) => policy(rule as NovaExtraSpecsRule, credentials);
  },
});
