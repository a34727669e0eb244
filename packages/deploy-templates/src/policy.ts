import {
  createPolicyEnforcer,
  credentialsFromHeaders,
  HttpError,
  type PolicyRuleTable,
  type RequestCredentials,
} from '@stackspec/core';

export type { RequestCredentials };
export { credentialsFromHeaders };

/** The policy rules guarding deploy templates. */
export const DEPLOY_TEMPLATE_RULES = [
  'baremetal:deploy_template:get',
  'baremetal:deploy_template:create',
  'baremetal:deploy_template:update',
  'baremetal:deploy_template:delete',
] as const;
/** One of {@link DEPLOY_TEMPLATE_RULES}. */
export type DeployTemplateRule = (typeof DEPLOY_TEMPLATE_RULES)[number];

const SYSTEM_ADMIN = 'role:admin and system_scope:all';

/**
 * Ironic's default rules for deploy templates (Ironic 21.4,
 * `ironic/common/policy.py`), in the policy language: a system-scoped admin
 * writes; a system-scoped reader, the `service` role in system scope, or the
 * `service` role in the service project reads. The deprecated checks (any
 * `admin`, or the legacy `baremetal_admin`/`baremetal_observer` roles in the
 * `demo` or `baremetal` project) apply only in legacy mode.
 */
export const IRONIC_DEPLOY_TEMPLATE_POLICY: PolicyRuleTable = {
  admin_api: 'role:admin or role:administrator',
  service_role: 'role:service and project_name:%(config.service_project_name)s',
  is_member:
    '(project_domain_id:default or project_domain_id:None) and (project_name:demo or project_name:baremetal)',
  is_observer: 'rule:is_member and (role:observer or role:baremetal_observer)',
  is_admin: 'rule:admin_api or (rule:is_member and role:baremetal_admin)',
  'baremetal:deploy_template:get': {
    check: '(role:reader and system_scope:all) or (role:service and system_scope:all) or rule:service_role',
    deprecated: 'rule:is_admin or rule:is_observer',
  },
  'baremetal:deploy_template:create': { check: SYSTEM_ADMIN, deprecated: 'rule:is_admin' },
  'baremetal:deploy_template:update': { check: SYSTEM_ADMIN, deprecated: 'rule:is_admin' },
  'baremetal:deploy_template:delete': { check: SYSTEM_ADMIN, deprecated: 'rule:is_admin' },
};

/** Decides whether credentials satisfy a rule. */
export type PolicyCheck = (rule: DeployTemplateRule, credentials: RequestCredentials) => boolean;

/** Options for {@link createDeployTemplatePolicy}. */
export interface PolicyOptions {
  /**
   * Also accept the deprecated rules, as Ironic does while
   * `enforce_new_defaults` is off: `admin`/`administrator` in any scope, or
   * `baremetal_admin` in the `demo`/`baremetal` project, may write; those and
   * `observer`/`baremetal_observer` in those projects may read. Default
   * false, unlike the Nova and Placement policies of this project, which
   * default to their releases' shipped `enforce_new_defaults = False`
   * (Ironic 21.4 ships that too): this API has always checked Ironic's new
   * defaults only, and accepting the deprecated rules by default would open
   * writes to project-scoped admins on servers that refuse them today.
   */
  legacy?: boolean;
  /**
   * Name of the service project whose `service` role may read (Ironic's
   * `rbac_service_project_name`, default `service`; Ironic honours it when
   * `rbac_service_role_elevated_access` is on).
   */
  serviceProjectName?: string;
}

/**
 * Ironic's default policy for deploy templates, evaluated from
 * {@link IRONIC_DEPLOY_TEMPLATE_POLICY}: a system-scoped `admin` may do
 * everything, a system-scoped `reader` (or a `service` role in system scope
 * or in the service project) may read; other project-scoped tokens get
 * nothing. With `legacy`, the deprecated role rules are accepted too.
 *
 * @example
 * const check = createDeployTemplatePolicy();
 * check('baremetal:deploy_template:get', { roles: ['reader'], systemScope: 'all' }); // true
 */
export function createDeployTemplatePolicy(options: PolicyOptions = {}): PolicyCheck {
  const enforce = createPolicyEnforcer(IRONIC_DEPLOY_TEMPLATE_POLICY, { legacy: options.legacy === true });
  // Ironic compares the caller's project name with its configured service project.
  const target = { 'config.service_project_name': options.serviceProjectName ?? 'service' };
  return (rule, credentials) => enforce(rule, credentials, target);
}

/** Ironic's 403 for a rule the caller does not satisfy. */
export function forbidden(rule: DeployTemplateRule): HttpError {
  return new HttpError(403, `Access was denied to the following resource: ${rule}`, {
    code: 'deploy-templates/forbidden',
  });
}
