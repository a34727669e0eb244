import { createPolicyEnforcer, type PolicyRuleTable, type RequestCredentials } from '@stackspec/core';

const SYSTEM_READER = 'rule:system_reader_api';
const SYSTEM_ADMIN = 'rule:system_admin_api';

/**
 * Placement 8.0's default rules (`placement/policies/*.py`), in the policy
 * language. Each base rule pairs its new check with the deprecated
 * `role:admin` (any scope), and Placement 8.0 ships with
 * `[oslo_policy] enforce_new_defaults = False`, which accepts either: as
 * shipped, an `admin` in any scope may write and read, and a system-scoped
 * `reader` may read. The new checks alone (`enforce_new_defaults = True`)
 * leave writes to an `admin` with system scope (`OpenStack-System-Scope:
 * all`) and reads to a system-scoped `reader` (an `admin` token reads
 * because Keystone lists the roles `admin` implies); `GET /usages` also
 * lets a `reader` of the project asked about.
 */
export const PLACEMENT_POLICY: PolicyRuleTable = {
  system_admin_api: { check: 'role:admin and system_scope:all', deprecated: 'role:admin' },
  system_reader_api: { check: 'role:reader and system_scope:all', deprecated: 'role:admin' },
  project_reader_api: { check: 'role:reader and project_id:%(project_id)s', deprecated: 'role:admin' },
  system_or_project_reader: {
    check: 'rule:system_reader_api or rule:project_reader_api',
    deprecated: 'role:admin',
  },
  'placement:resource_providers:list': SYSTEM_READER,
  'placement:resource_providers:create': SYSTEM_ADMIN,
  'placement:resource_providers:show': SYSTEM_READER,
  'placement:resource_providers:update': SYSTEM_ADMIN,
  'placement:resource_providers:delete': SYSTEM_ADMIN,
  'placement:resource_providers:inventories:list': SYSTEM_READER,
  'placement:resource_providers:inventories:create': SYSTEM_ADMIN,
  'placement:resource_providers:inventories:show': SYSTEM_READER,
  'placement:resource_providers:inventories:update': SYSTEM_ADMIN,
  'placement:resource_providers:inventories:delete': SYSTEM_ADMIN,
  'placement:resource_providers:aggregates:list': SYSTEM_READER,
  'placement:resource_providers:aggregates:update': SYSTEM_ADMIN,
  'placement:resource_providers:usages': SYSTEM_READER,
  'placement:usages': 'rule:system_or_project_reader',
  'placement:resource_providers:traits:list': SYSTEM_READER,
  'placement:resource_providers:traits:update': SYSTEM_ADMIN,
  'placement:resource_providers:traits:delete': SYSTEM_ADMIN,
  'placement:resource_providers:allocations:list': SYSTEM_READER,
  'placement:traits:list': SYSTEM_READER,
  'placement:traits:show': SYSTEM_READER,
  'placement:traits:update': SYSTEM_ADMIN,
  'placement:traits:delete': SYSTEM_ADMIN,
  'placement:resource_classes:list': SYSTEM_READER,
  'placement:resource_classes:create': SYSTEM_ADMIN,
  'placement:resource_classes:show': SYSTEM_READER,
  'placement:resource_classes:update': SYSTEM_ADMIN,
  'placement:resource_classes:delete': SYSTEM_ADMIN,
  'placement:allocations:list': SYSTEM_READER,
  'placement:allocations:manage': SYSTEM_ADMIN,
  'placement:allocations:update': SYSTEM_ADMIN,
  'placement:allocations:delete': SYSTEM_ADMIN,
  'placement:allocation_candidates:list': SYSTEM_READER,
  'placement:reshaper:reshape': SYSTEM_ADMIN,
};

/**
 * The rule Placement checks for each route this package serves, keyed by
 * `METHOD path` (the path as routed, `{uuid}` and all).
 */
export const PLACEMENT_ROUTE_RULES: Readonly<Record<string, string>> = {
  'GET /resource_classes': 'placement:resource_classes:list',
  'POST /resource_classes': 'placement:resource_classes:create',
  'GET /resource_classes/{name}': 'placement:resource_classes:show',
  'PUT /resource_classes/{name}': 'placement:resource_classes:update',
  'DELETE /resource_classes/{name}': 'placement:resource_classes:delete',
  'GET /resource_providers': 'placement:resource_providers:list',
  'POST /resource_providers': 'placement:resource_providers:create',
  'GET /resource_providers/{uuid}': 'placement:resource_providers:show',
  'PUT /resource_providers/{uuid}': 'placement:resource_providers:update',
  'DELETE /resource_providers/{uuid}': 'placement:resource_providers:delete',
  'GET /resource_providers/{uuid}/inventories': 'placement:resource_providers:inventories:list',
  'POST /resource_providers/{uuid}/inventories': 'placement:resource_providers:inventories:create',
  'PUT /resource_providers/{uuid}/inventories': 'placement:resource_providers:inventories:update',
  'DELETE /resource_providers/{uuid}/inventories': 'placement:resource_providers:inventories:delete',
  'GET /resource_providers/{uuid}/inventories/{resource_class}':
    'placement:resource_providers:inventories:show',
  'PUT /resource_providers/{uuid}/inventories/{resource_class}':
    'placement:resource_providers:inventories:update',
  'DELETE /resource_providers/{uuid}/inventories/{resource_class}':
    'placement:resource_providers:inventories:delete',
  'GET /resource_providers/{uuid}/usages': 'placement:resource_providers:usages',
  'GET /resource_providers/{uuid}/aggregates': 'placement:resource_providers:aggregates:list',
  'PUT /resource_providers/{uuid}/aggregates': 'placement:resource_providers:aggregates:update',
  'GET /resource_providers/{uuid}/allocations': 'placement:resource_providers:allocations:list',
  'GET /allocations/{consumer_uuid}': 'placement:allocations:list',
  'PUT /allocations/{consumer_uuid}': 'placement:allocations:update',
  'DELETE /allocations/{consumer_uuid}': 'placement:allocations:delete',
  'GET /allocation_candidates': 'placement:allocation_candidates:list',
  'GET /traits': 'placement:traits:list',
  'GET /traits/{name}': 'placement:traits:show',
  'PUT /traits/{name}': 'placement:traits:update',
  'DELETE /traits/{name}': 'placement:traits:delete',
  'GET /resource_providers/{uuid}/traits': 'placement:resource_providers:traits:list',
  'PUT /resource_providers/{uuid}/traits': 'placement:resource_providers:traits:update',
  'DELETE /resource_providers/{uuid}/traits': 'placement:resource_providers:traits:delete',
  'GET /usages': 'placement:usages',
};

/**
 * Routes whose handler refuses a body that is not `application/json` (415)
 * before it checks the policy; `PUT /resource_classes/{name}` does so only
 * below microversion 1.7, where it takes a body.
 */
export const PLACEMENT_JSON_ROUTES: ReadonlySet<string> = new Set([
  'POST /resource_classes',
  'PUT /resource_classes/{name}',
  'POST /resource_providers',
  'PUT /resource_providers/{uuid}',
  'POST /resource_providers/{uuid}/inventories',
  'PUT /resource_providers/{uuid}/inventories',
  'PUT /resource_providers/{uuid}/inventories/{resource_class}',
  'PUT /resource_providers/{uuid}/aggregates',
  'PUT /allocations/{consumer_uuid}',
  'PUT /resource_providers/{uuid}/traits',
]);

/** Decides a Placement rule for credentials and the target Placement checks it against. */
export type PlacementPolicy = (
  rule: string,
  credentials: RequestCredentials,
  target: { project_id: string | null },
) => boolean;

/** Options for {@link createPlacementPolicy}. */
export interface PlacementPolicyOptions {
  /**
   * Placement's `[oslo_policy] enforce_new_defaults`: true checks the new
   * rules only (writes need an `admin` with system scope). Default false, as
   * Placement 8.0 ships it: the deprecated `role:admin` is accepted for
   * every rule too.
   */
  enforceNewDefaults?: boolean;
}

/**
 * Placement's policy from {@link PLACEMENT_POLICY}, as Placement 8.0 ships
 * it unless `enforceNewDefaults` is set.
 *
 * @example
 * const policy = createPlacementPolicy();
 * policy('placement:traits:update', { roles: ['admin'], projectId: 'p1' }, { project_id: null }); // true
 * createPlacementPolicy({ enforceNewDefaults: true })('placement:traits:update', { roles: ['admin'], projectId: 'p1' }, { project_id: null }); // false
 */
export function createPlacementPolicy(options: PlacementPolicyOptions = {}): PlacementPolicy {
  return createPolicyEnforcer(PLACEMENT_POLICY, { legacy: options.enforceNewDefaults !== true });
}
