import { createPolicyEnforcer, type PolicyRuleTable, type RequestCredentials } from '@stackspec/core';

/** The policy rules of Nova's flavor extra specs API. */
export type NovaExtraSpecsRule =
  | 'os_compute_api:os-flavor-extra-specs:index'
  | 'os_compute_api:os-flavor-extra-specs:show'
  | 'os_compute_api:os-flavor-extra-specs:create'
  | 'os_compute_api:os-flavor-extra-specs:update'
  | 'os_compute_api:os-flavor-extra-specs:delete';

/**
 * Nova 26's (Zed) default rules for flavor extra specs
 * (`nova/policies/flavor_extra_specs.py` and `base.py`), in the policy
 * language: writing needs the `admin` role in any scope (Nova checks the
 * rules with `enforce_scope` off, so the token's scope does not matter).
 * Reads pair the new check (`reader` on the token's own project, or
 * `admin`) with the deprecated `is_admin:True or project_id:%(project_id)s`,
 * which any caller passes because Nova checks reads against the caller's
 * own project; Nova 26 ships with `[oslo_policy] enforce_new_defaults =
 * False`, which accepts either, so as shipped anyone may read. Nova's
 * `is_admin` is itself decided by `context_is_admin`, so it is written here
 * as that rule.
 */
export const NOVA_EXTRA_SPECS_POLICY: PolicyRuleTable = {
  context_is_admin: 'role:admin',
  project_reader_api: {
    check: 'role:reader and project_id:%(project_id)s',
    deprecated: 'rule:context_is_admin or project_id:%(project_id)s',
  },
  project_reader_or_admin: {
    check: 'rule:project_reader_api or rule:context_is_admin',
    deprecated: 'rule:context_is_admin or project_id:%(project_id)s',
  },
  'os_compute_api:os-flavor-extra-specs:index': 'rule:project_reader_or_admin',
  'os_compute_api:os-flavor-extra-specs:show': 'rule:project_reader_or_admin',
  'os_compute_api:os-flavor-extra-specs:create': 'rule:context_is_admin',
  'os_compute_api:os-flavor-extra-specs:update': 'rule:context_is_admin',
  'os_compute_api:os-flavor-extra-specs:delete': 'rule:context_is_admin',
};

/** Decides a Nova extra specs rule for credentials. */
export type NovaExtraSpecsPolicy = (rule: NovaExtraSpecsRule, credentials: RequestCredentials) => boolean;

/** Options for {@link createNovaExtraSpecsPolicy}. */
export interface NovaExtraSpecsPolicyOptions {
  /**
   * Nova's `[oslo_policy] enforce_new_defaults`: true checks the new rules
   * only (reads need `reader` on the caller's project, or `admin`). Default
   * false, as Nova 26 ships it: the deprecated checks are accepted too, so
   * anyone may read. Writes need `admin` either way.
   */
  enforceNewDefaults?: boolean;
}

/**
 * Nova's policy for flavor extra specs from {@link NOVA_EXTRA_SPECS_POLICY},
 * as Nova 26 ships it unless `enforceNewDefaults` is set. Reads are checked
 * against the caller's own project, as Nova checks them.
 *
 * @example
 * const policy = createNovaExtraSpecsPolicy();
 * policy('os_compute_api:os-flavor-extra-specs:create', { roles: ['admin'], projectId: 'p1' }); // true
 * policy('os_compute_api:os-flavor-extra-specs:index', { roles: ['member'], projectId: 'p1' }); // true
 */
export function createNovaExtraSpecsPolicy(options: NovaExtraSpecsPolicyOptions = {}): NovaExtraSpecsPolicy {
  const enforce = createPolicyEnforcer(NOVA_EXTRA_SPECS_POLICY, {
    legacy: options.enforceNewDefaults !== true,
  });
  return (rule, credentials) => enforce(rule, credentials, { project_id: credentials.projectId ?? null });
}
