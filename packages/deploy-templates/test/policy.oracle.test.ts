// The deploy template policy table against Ironic 21.4's own defaults: for
// every rule and every combination of roles (the legacy baremetal_* ones
// too), scope, project and project name, oslo.policy with Ironic's
// registered rules and ours decide alike, with and without
// enforce_new_defaults (Ironic's service role with
// rbac_service_role_elevated_access on, as our serviceProjectName assumes).
import { credentialMatrix, describePolicyOracle, ROLE_SETS } from '../../../test-support/policy-oracle.js';
import { createDeployTemplatePolicy, DEPLOY_TEMPLATE_RULES } from '../src/policy.js';

const ROLES = [
  ...ROLE_SETS,
  ['administrator'],
  ['baremetal_admin'],
  ['baremetal_observer'],
  ['observer'],
  ['service', 'reader'],
];

describePolicyOracle({
  title: "the deploy template policy decides as Ironic 21.4's defaults do",
  service: 'ironic',
  modules: ['ironic.common.policy'],
  modes: ['new', 'legacy'],
  cases: () =>
    DEPLOY_TEMPLATE_RULES.flatMap((rule) =>
      credentialMatrix(ROLES, [null, 'service', 'demo', 'baremetal', 'other']).map((credentials) => ({
        rule,
        credentials,
        target: {},
      })),
    ),
  ours: (mode) => {
    const policy = createDeployTemplatePolicy({ legacy: mode === 'legacy' });
    return (rule, credentials) => policy(rule as (typeof DEPLOY_TEMPLATE_RULES)[number], credentials);
  },
});
