// Our copies of Placement's JSON schemas against Placement 8.0's own
// (Debian's python3-placement): jsonschema prints the failing schema in
// every 400, so each must print exactly as Placement's does.
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { oracleAvailable, PYTHON } from '../../../../test-support/python.js';
import { toMicroversion } from '../microversion.js';
import {
  allocationCandidatesQuerySchema,
  resourceProvidersQuerySchema,
  TRAITS_QUERY_SCHEMA,
  usagesQuerySchema,
} from '../query-schemas.js';
import { pyPformat } from '../schema-report.js';
import {
  allocationSchema,
  BASE_INVENTORY_SCHEMA,
  POST_INVENTORY_SCHEMA,
  PUT_AGGREGATES_1_1,
  PUT_AGGREGATES_1_19,
  PUT_INVENTORIES_SCHEMA,
  postProviderSchema,
  putProviderSchema,
  RESOURCE_CLASS_SCHEMA,
  SET_TRAITS_SCHEMA,
} from './schemas.js';

const SCRIPT = `
import json, pprint
from placement.schemas import allocation as a, allocation_candidate as ac, resource_provider as rp, inventory as inv, trait as t, aggregate as ag, resource_class as rc, usage as u
names = {
  'alloc 1.0': a.ALLOCATION_SCHEMA, 'alloc 1.8': a.ALLOCATION_SCHEMA_V1_8, 'alloc 1.12': a.ALLOCATION_SCHEMA_V1_12,
  'alloc 1.28': a.ALLOCATION_SCHEMA_V1_28, 'alloc 1.34': a.ALLOCATION_SCHEMA_V1_34, 'alloc 1.38': a.ALLOCATION_SCHEMA_V1_38,
  'post rp 1.0': rp.POST_RESOURCE_PROVIDER_SCHEMA, 'post rp 1.14': rp.POST_RP_SCHEMA_V1_14,
  'put rp 1.0': rp.PUT_RESOURCE_PROVIDER_SCHEMA, 'put rp 1.14': rp.PUT_RP_SCHEMA_V1_14,
  'base inventory': inv.BASE_INVENTORY_SCHEMA, 'post inventory': inv.POST_INVENTORY_SCHEMA, 'put inventories': inv.PUT_INVENTORY_SCHEMA,
  'put aggregates 1.1': ag.PUT_AGGREGATES_SCHEMA_V1_1, 'put aggregates 1.19': ag.PUT_AGGREGATES_SCHEMA_V1_19,
  'set traits': t.SET_TRAITS_FOR_RP_SCHEMA, 'list traits': t.LIST_TRAIT_SCHEMA, 'resource class': rc.POST_RC_SCHEMA_V1_2,
  'usages 1.9': u.GET_USAGES_SCHEMA_1_9, 'usages 1.38': u.GET_USAGES_SCHEMA_V1_38,
  'rps 1.0': rp.GET_RPS_SCHEMA_1_0, 'rps 1.3': rp.GET_RPS_SCHEMA_1_3, 'rps 1.4': rp.GET_RPS_SCHEMA_1_4, 'rps 1.14': rp.GET_RPS_SCHEMA_1_14, 'rps 1.18': rp.GET_RPS_SCHEMA_1_18,
}
for v in ['1_10', '1_16', '1_17', '1_21', '1_25', '1_31', '1_33', '1_35', '1_36']:
  names['ac ' + v.replace('_', '.')] = getattr(ac, 'GET_SCHEMA_' + v)
print(json.dumps({k: pprint.pformat(v, width=72) for k, v in names.items()}))
`;

const v = (minor: number) => toMicroversion(`1.${minor}`);
const OURS: Record<string, unknown> = {
  'alloc 1.0': allocationSchema(0),
  'alloc 1.8': allocationSchema(8),
  'alloc 1.12': allocationSchema(12),
  'alloc 1.28': allocationSchema(28),
  'alloc 1.34': allocationSchema(34),
  'alloc 1.38': allocationSchema(38),
  'post rp 1.0': postProviderSchema(0),
  'post rp 1.14': postProviderSchema(14),
  'put rp 1.0': putProviderSchema(0),
  'put rp 1.14': putProviderSchema(14),
  'base inventory': BASE_INVENTORY_SCHEMA,
  'post inventory': POST_INVENTORY_SCHEMA,
  'put inventories': PUT_INVENTORIES_SCHEMA,
  'put aggregates 1.1': PUT_AGGREGATES_1_1,
  'put aggregates 1.19': PUT_AGGREGATES_1_19,
  'set traits': SET_TRAITS_SCHEMA,
  'list traits': TRAITS_QUERY_SCHEMA,
  'resource class': RESOURCE_CLASS_SCHEMA,
  'usages 1.9': usagesQuerySchema(v(9)),
  'usages 1.38': usagesQuerySchema(v(38)),
  'rps 1.0': resourceProvidersQuerySchema(v(0)),
  'rps 1.3': resourceProvidersQuerySchema(v(3)),
  'rps 1.4': resourceProvidersQuerySchema(v(4)),
  'rps 1.14': resourceProvidersQuerySchema(v(14)),
  'rps 1.18': resourceProvidersQuerySchema(v(18)),
  ...Object.fromEntries(
    [10, 16, 17, 21, 25, 31, 33, 35, 36].map((m) => [`ac 1.${m}`, allocationCandidatesQuerySchema(v(m))]),
  ),
};

describe.runIf(oracleAvailable('placement', ['placement.schemas.allocation']))("Placement's schemas", () => {
  const r = spawnSync(PYTHON, ['-c', SCRIPT], { encoding: 'utf8', timeout: 60_000 });
  const theirs = JSON.parse(r.stdout || '{}') as Record<string, string>;
  it.each(Object.keys(OURS))('%s prints as Placement 8.0 prints it', (name) => {
    expect(pyPformat(OURS[name])).toBe(theirs[name]);
  });
});
