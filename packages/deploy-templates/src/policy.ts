import { HttpError } from '@stackspec/core';

/** The policy rules guarding deploy templates. */
export const DEPLOY_TEMPLATE_RULES = [
  'baremetal:deploy_template:get',
  'baremetal:deploy_template:create',
  'baremetal:deploy_template:update',
  'baremetal:deploy_template:delete',
] as const;
/** One of {@link DEPLOY_TEMPLATE_RULES}. */
export type DeployTemplateRule = (typeof DEPLOY_TEMPLATE_RULES)[number];

/** Who is calling, as keystonemiddleware describes a token. */
export interface RequestCredentials {
  /** Role names (`admin`, `member`, `reader`, `service`, legacy `baremetal_admin`…). */
  roles: readonly string[];
  /** `all` for a system-scoped token. */
  systemScope?: string;
  /** Project of a project-scoped token. */
  projectId?: string;
  /** Project name (`service` for the service project; `demo`/`baremetal` for legacy rules). */
  projectName?: string;
}

/** Decides whether credentials satisfy a rule. */
export type PolicyCheck = (rule: DeployTemplateRule, credentials: RequestCredentials) => boolean;

/** Options for {@link createDeployTemplatePolicy}. */
export interface PolicyOptions {
  /**
   * Also accept the deprecated rules, as Ironic does while
   * `enforce_new_defaults` is off: `admin`/`administrator` in any scope, or
   * `baremetal_admin` in the `demo`/`baremetal` project, may write; those and
   * `observer`/`baremetal_observer` in those projects may read. Default false.
   */
  legacy?: boolean;
  /** Name of the service project for the `service` role (Ironic's `service_project_name`, default `service`). */
  serviceProjectName?: string;
}

function has(c: RequestCredentials, role: string): boolean {
  return c.roles.some((r) => r.toLowerCase() === role);
}

/**
 * Ironic's default policy for deploy templates: a system-scoped `admin`
 * may do everything, a system-scoped `reader` (or any `service`) may read;
 * project-scoped tokens get nothing. With `legacy`, the deprecated role
 * rules are accepted too.
 *
 * @example
 * const check = createDeployTemplatePolicy();
 * check('baremetal:deploy_template:get', { roles: ['reader'], systemScope: 'all' }); // true
 */
export function createDeployTemplatePolicy(options: PolicyOptions = {}): PolicyCheck {
  const serviceProject = options.serviceProjectName ?? 'service';
  return (rule, c) => {
    const system = c.systemScope === 'all';
    const legacyMember = c.projectName === 'demo' || c.projectName === 'baremetal';
    const legacyAdmin =
      has(c, 'admin') || has(c, 'administrator') || (legacyMember && has(c, 'baremetal_admin'));
    if (rule === 'baremetal:deploy_template:get') {
      const service = has(c, 'service') && (system || c.projectName === serviceProject);
      if ((system && has(c, 'reader')) || service) return true;
      return (
        options.legacy === true &&
        (legacyAdmin || (legacyMember && (has(c, 'observer') || has(c, 'baremetal_observer'))))
      );
    }
    if (system && has(c, 'admin')) return true;
    return options.legacy === true && legacyAdmin;
  };
}

/** Ironic's 403 for a rule the caller does not satisfy. */
export function forbidden(rule: DeployTemplateRule): HttpError {
  return new HttpError(403, `Access was denied to the following resource: ${rule}`, {
    code: 'deploy-templates/forbidden',
  });
}

/**
 * Credentials from the headers an authenticating proxy (keystonemiddleware)
 * sets: `X-Roles` (comma separated), `OpenStack-System-Scope`, `X-Project-Id`.
 * `X-Project-Name`. Only trust these behind a proxy that strips them from client requests.
 */
export function credentialsFromHeaders(headers: Headers): RequestCredentials {
  const roles = (headers.get('x-roles') ?? '')
    .split(',')
    .map((r) => r.trim())
    .filter(Boolean);
  const systemScope = headers.get('openstack-system-scope') ?? undefined;
  const projectId = headers.get('x-project-id') ?? undefined;
  const projectName = headers.get('x-project-name') ?? undefined;
  return {
    roles,
    ...(systemScope ? { systemScope } : {}),
    ...(projectId ? { projectId } : {}),
    ...(projectName ? { projectName } : {}),
  };
}
