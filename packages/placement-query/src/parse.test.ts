import { isStackspecError } from '@stackspec/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  parseAllocationCandidatesQuery,
  parseMemberOfValue,
  parseResourceProvidersQuery,
  parseResourcesValue,
  parseTraitsValue,
  validatePlacementQuery,
} from './parse.js';

const A = '11111111-1111-1111-1111-111111111111';
const B = '22222222-2222-2222-2222-222222222222';
const C = '33333333-3333-3333-3333-333333333333';

function fail(fn: () => unknown): {
  message: string;
  full: string;
  code: string;
  status: number;
  path: string;
  hint?: string;
} {
  try {
    fn();
  } catch (e) {
    if (!isStackspecError(e)) throw e;
    const d = e.diagnostics[0];
    return {
      // The message as far as jsonschema's report (tested on its own below).
      message: e.message.split('  Failed validating ')[0] as string,
      full: e.message,
      code: e.code,
      status: e.status,
      path: d?.path ?? '',
      ...(d?.hint ? { hint: d.hint } : {}),
    };
  }
  throw new Error('expected an error');
}

describe('member_of grammar', () => {
  it('reads a bare UUID, in:, ! and !in: forms', () => {
    expect(parseMemberOfValue(A)).toEqual({ required: [A] });
    expect(parseMemberOfValue(`in:${B},${A}`)).toEqual({ required: [A, B] });
    expect(parseMemberOfValue(`!${A}`)).toEqual({ forbidden: [A] });
    expect(parseMemberOfValue(`!in:${B},${A},${A}`)).toEqual({ forbidden: [A, B] });
  });

  it('rejects a comma list without in: and names the value', () => {
    const e = fail(() => parseMemberOfValue(`!${A},${B}`));
    expect(e.message).toBe(
      `Multiple values for 'member_of' must be prefixed with the 'in:' or '!in:' keyword using the valid microversion. Got: !${A},${B}`,
    );
    expect(e.status).toBe(400);
    expect(e.code).toBe('placement.undefined_code');
  });

  it("rejects '!' inside in: as an invalid UUID and explains the fix", () => {
    const e = fail(() => parseMemberOfValue(`in:${A},!${B}`, 'member_of1'));
    expect(e.message).toBe(
      `Invalid query string parameters: Expected 'member_of' parameter to contain valid UUID(s). Got: !${B}`,
    );
    expect(e.path).toBe('/member_of1');
    expect(e.hint).toMatch(/member_of=!in:/);
  });

  it('rejects empty values, trailing commas and doubled negation', () => {
    for (const bad of ['', 'in:', `in:${A},`, `!!${A}`, `!in:${A},!${B}`, ` ${A}`]) {
      expect(fail(() => parseMemberOfValue(bad)).message, bad).toMatch(/valid UUID\(s\)/);
    }
  });

  it('accepts the UUID spellings oslo accepts', () => {
    for (const ok of [A.toUpperCase(), A.replaceAll('-', ''), `{${A}}`, `urn:uuid:${A}`]) {
      expect(parseMemberOfValue(ok).required).toEqual([ok]);
    }
  });
});

describe('resources grammar', () => {
  it('reads classes and amounts, the last repeat winning', () => {
    expect(parseResourcesValue('VCPU:1,MEMORY_MB:512,VCPU:4')).toEqual({ VCPU: 4, MEMORY_MB: 512 });
    expect(parseResourcesValue('VCPU: +2')).toEqual({ VCPU: 2 });
  });

  it('words every malformed value as Placement does', () => {
    expect(fail(() => parseResourcesValue(' ')).message).toMatch(/Got: empty string\.$/);
    expect(fail(() => parseResourcesValue('VCPU:1:2')).message).toMatch(/Got: VCPU:1:2\.$/);
    expect(fail(() => parseResourcesValue('VCPU:1,')).message).toMatch(/Got: \.$/);
    expect(fail(() => parseResourcesValue('VCPU:x')).message).toBe(
      'Requested resource VCPU expected positive integer amount. Got: x.',
    );
    expect(fail(() => parseResourcesValue('VCPU:-0')).message).toBe(
      'Requested resource VCPU requires amount >= 1. Got: 0.',
    );
  });
});

describe('required grammar', () => {
  const all = { allowForbidden: true, allowAnyOf: true };
  it('reads all-of, forbidden and any-of forms', () => {
    expect(parseTraitsValue('A, B,!C', all)).toEqual({ required: [['A'], ['B']], forbidden: ['C'] });
    expect(parseTraitsValue('!!!C', all)).toEqual({ required: [], forbidden: ['C'] });
    expect(parseTraitsValue('in:B, A', all)).toEqual({ required: [['A', 'B']], forbidden: [] });
  });

  it('gates forbidden traits and in: by microversion', () => {
    expect(fail(() => parseTraitsValue('!A', { allowForbidden: false, allowAnyOf: false })).message).toBe(
      "Invalid query string parameters: Expected 'required' parameter value of the form: HW_CPU_X86_VMX,CUSTOM_MAGIC. Got: !A",
    );
    expect(fail(() => parseTraitsValue('in:A', { allowForbidden: true, allowAnyOf: false })).message).toMatch(
      /only supported since microversion 1\.39\. Got: in:A$/,
    );
  });

  it('reports empty traits before the version gate', () => {
    expect(fail(() => parseTraitsValue('!', { allowForbidden: false, allowAnyOf: false })).message).toMatch(
      /of the form: HW_CPU_X86_VMX,CUSTOM_MAGIC\. Got an empty trait in: !$/,
    );
    expect(fail(() => parseTraitsValue('in:A,', all)).message).toMatch(
      /in:HW_CPU_X86_VMX,CUSTOM_MAGIC\. Got an empty/,
    );
    expect(fail(() => parseTraitsValue('in:A,!B', all)).message).toMatch(/does not support forbidden traits/);
  });
});

describe('parseResourceProvidersQuery', () => {
  it('reads every filter at 1.39', () => {
    const r = parseResourceProvidersQuery(
      `name=cn1&member_of=in:${A},${B}&member_of=!${C}&required=HW_CPU_X86_AVX&required=in:A,B&resources=VCPU:1&in_tree=${A}`,
      '1.39',
    );
    expect(r).toEqual({
      endpoint: 'resource_providers',
      microversion: '1.39',
      name: 'cn1',
      inTree: A,
      resources: { VCPU: 1 },
      memberOf: [[A, B]],
      forbiddenAggregates: [C],
      requiredTraits: [['HW_CPU_X86_AVX'], ['A', 'B']],
      forbiddenTraits: [],
    });
  });

  it('keeps only the last required before 1.39', () => {
    expect(parseResourceProvidersQuery('required=A&required=B', '1.38').requiredTraits).toEqual([['B']]);
  });

  it('rejects keys newer than the microversion with the schema message', () => {
    const e = fail(() => parseResourceProvidersQuery('member_of=x', '1.2'));
    expect(e.message).toBe(
      "Invalid query string parameters: Additional properties are not allowed ('member_of' was unexpected)",
    );
    expect(e.hint).toMatch(/newer microversion/);
    expect(fail(() => parseResourceProvidersQuery('membr_of=x&b=1', '1.39'))).toMatchObject({
      message:
        "Invalid query string parameters: Additional properties are not allowed ('b', 'membr_of' were unexpected)",
    });
  });

  it('checks uuid and in_tree formats without stripping', () => {
    expect(fail(() => parseResourceProvidersQuery(`in_tree= ${A}`, '1.14')).message).toBe(
      `Invalid query string parameters: ' ${A}' is not a 'uuid'`,
    );
  });

  it('gates repeated and forbidden member_of', () => {
    expect(fail(() => parseResourceProvidersQuery(`member_of=${A}&member_of=${B}`, '1.23')).message).toBe(
      'Multiple member_of parameters are not supported',
    );
    expect(fail(() => parseResourceProvidersQuery(`member_of=!${A}`, '1.31')).message).toBe(
      'Forbidden member_of parameters are not supported in the specified microversion',
    );
    expect(parseResourceProvidersQuery(`member_of=!${A}`, '1.32').forbiddenAggregates).toEqual([A]);
  });
});

describe('parseAllocationCandidatesQuery', () => {
  it('reads request-wide keys and granular groups', () => {
    const r = parseAllocationCandidatesQuery(
      `resources=VCPU:1&member_of=!in:${B},${A}&resources_NIC=SRIOV_NET_VF:1&required_NIC=CUSTOM_PHYSNET1&in_tree_NIC=${C}&required_ACC=!CUSTOM_SLOW&member_of_ACC=${A}&group_policy=isolate&limit=5&root_required=HW_CPU_X86_AVX,!CUSTOM_X&same_subtree=_NIC, _ACC`,
      '1.39',
    );
    expect(r.limit).toBe(5);
    expect(r.groupPolicy).toBe('isolate');
    expect(r.rootRequired).toEqual({ required: ['HW_CPU_X86_AVX'], forbidden: ['CUSTOM_X'] });
    expect(r.sameSubtree).toEqual([['_ACC', '_NIC']]);
    expect(r.groups.map((g) => g.suffix)).toEqual(['', '_NIC', '_ACC']);
    expect(r.groups[0]?.forbiddenAggregates).toEqual([A, B]);
    expect(r.groups[1]).toEqual({
      suffix: '_NIC',
      resources: { SRIOV_NET_VF: 1 },
      requiredTraits: [['CUSTOM_PHYSNET1']],
      forbiddenTraits: [],
      memberOf: [],
      forbiddenAggregates: [],
      inTree: C,
    });
    expect(r.groups[2]?.resources).toEqual({});
  });

  it('does not exist before 1.10', () => {
    expect(fail(() => parseAllocationCandidatesQuery('resources=VCPU:1', '1.9'))).toMatchObject({
      status: 404,
      message: 'GET /allocation_candidates exists from microversion 1.10.',
      hint: 'ask for microversion 1.10 or later',
    });
  });

  it('requires resources before 1.25 and rejects suffixes there', () => {
    expect(fail(() => parseAllocationCandidatesQuery('resources1=VCPU:1', '1.24')).message).toBe(
      "Invalid query string parameters: 'resources' is a required property",
    );
    expect(
      fail(() => parseAllocationCandidatesQuery('resources=VCPU:1&resources1=VCPU:1', '1.24')).message,
    ).toMatch(/\('resources1' was unexpected\)$/);
  });

  it('reads numeric suffixes before 1.33 and any suffix after', () => {
    expect(fail(() => parseAllocationCandidatesQuery('resources01=VCPU:1', '1.30')).message).toBe(
      "Invalid query string parameters: 'resources01' does not match any of the regexes: '^member_of([1-9][0-9]*)?$', '^required([1-9][0-9]*)?$', '^resources([1-9][0-9]*)?$'",
    );
    const r = parseAllocationCandidatesQuery(
      'resources01=VCPU:1&resources1=VCPU:1&group_policy=none',
      '1.33',
    );
    expect(r.groups.map((g) => g.suffix)).toEqual(['01', '1']);
  });

  it("appends jsonschema's report exactly as Placement 8.0 words it", () => {
    // Both texts as Placement 8.0 answered them (error detail, newlines as spaces).
    expect(fail(() => parseAllocationCandidatesQuery('resources=VCPU:1&limit=cow', '1.39')).full).toBe(
      "Invalid query string parameters: 'cow' does not match '^[1-9][0-9]*$'  Failed validating 'pattern' in schema['properties']['limit']:     {'minLength': 1,      'minimum': 1,      'pattern': '^[1-9][0-9]*$',      'type': ['integer', 'string']}  On instance['limit']:     'cow'",
    );
    expect(fail(() => parseAllocationCandidatesQuery('resources=VCPU:1&x=1', '1.39')).full).toBe(
      "Invalid query string parameters: 'x' does not match any of the regexes: '^in_tree([a-zA-Z0-9_-]{1,64})?$', '^member_of([a-zA-Z0-9_-]{1,64})?$', '^required([a-zA-Z0-9_-]{1,64})?$', '^resources([a-zA-Z0-9_-]{1,64})?$'  Failed validating 'additionalProperties' in schema:     {'additionalProperties': False,      'patternProperties': {'^in_tree([a-zA-Z0-9_-]{1,64})?$': {'type': 'string'},                            '^member_of([a-zA-Z0-9_-]{1,64})?$': {'type': 'string'},                            '^required([a-zA-Z0-9_-]{1,64})?$': {'type': 'string'},                            '^resources([a-zA-Z0-9_-]{1,64})?$': {'type': 'string'}},      'properties': {'group_policy': {'enum': ['none', 'isolate'],                                      'type': 'string'},                     'limit': {'minLength': 1,                               'minimum': 1,                               'pattern': '^[1-9][0-9]*$',                               'type': ['integer', 'string']},                     'root_required': {'type': ['string']},                     'same_subtree': {'type': ['string']}},      'type': 'object'}  On instance:     {'resources': 'VCPU:1', 'x': '1'}",
    );
    expect(fail(() => parseResourceProvidersQuery('uuid=x', '1.39')).full).toBe(
      "Invalid query string parameters: 'x' is not a 'uuid'  Failed validating 'format' in schema['properties']['uuid']:     {'format': 'uuid', 'type': 'string'}  On instance['uuid']:     'x'",
    );
  });

  it('reports the first limit value Placement would choke on', () => {
    expect(fail(() => parseAllocationCandidatesQuery('resources=VCPU:1&limit=0', '1.16')).message).toBe(
      "Invalid query string parameters: '0' does not match '^[1-9][0-9]*$'",
    );
    expect(
      fail(() => parseAllocationCandidatesQuery('resources=VCPU:1&limit=cow&limit=1', '1.16')),
    ).toMatchObject({ path: '/limit', message: expect.stringContaining("'cow'") });
    expect(
      fail(() => parseAllocationCandidatesQuery('resources=VCPU:1&limit=-2&limit=1', '1.16')),
    ).toMatchObject({ path: '/limit', hint: expect.stringContaining('once') });
  });

  it('uses the first of repeated limit and group_policy values the way Placement does', () => {
    // The last value passes the schema; the first is read with int() and a truth test.
    const q = (text: string) =>
      parseAllocationCandidatesQuery(`resources1=VCPU:1&resources2=VCPU:1&${text}`, '1.39');
    expect(q('group_policy=none&limit=0&limit=3').limit).toBeUndefined();
    expect(q('group_policy=none&limit=+7&limit=3').limit).toBe(7);
    expect(q('group_policy=none&limit= 07&limit=3').limit).toBe(7);
    expect(q('group_policy=bogus&group_policy=isolate').groupPolicy).toBe('none');
    expect(q('group_policy=isolate&group_policy=none').groupPolicy).toBe('isolate');
    expect(fail(() => q('group_policy=isolate&group_policy=bogus')).message).toBe(
      "Invalid query string parameters: 'bogus' is not one of ['none', 'isolate']",
    );
  });

  it('applies the orphan rules below 1.36 in order', () => {
    expect(
      fail(() => parseAllocationCandidatesQuery('required=A&resources1=VCPU:1&required1=B', '1.35')).message,
    ).toBe(
      'All traits parameters must be associated with resources.  Found the following orphaned traits keys: required',
    );
    expect(
      fail(() => parseAllocationCandidatesQuery(`member_of1=${A}&resources=VCPU:1`, '1.35')).message,
    ).toBe(
      'All member_of parameters must be associated with resources. Found the following orphaned member_of keys: member_of1',
    );
    expect(fail(() => parseAllocationCandidatesQuery(`in_tree1=${A}&resources=VCPU:1`, '1.35')).message).toBe(
      'All request groups must specify resources.',
    );
    expect(fail(() => parseAllocationCandidatesQuery('required=!A&resources1=VCPU:1', '1.35')).message).toBe(
      'All request groups must specify resources.',
    );
  });

  it('applies the resourceless-group rules from 1.36', () => {
    expect(fail(() => parseAllocationCandidatesQuery('required1=A', '1.36'))).toMatchObject({
      message: 'There must be at least one resources or resources[$S] parameter.',
      code: 'placement.query.missing_value',
    });
    expect(fail(() => parseAllocationCandidatesQuery('required=A&resources1=VCPU:1', '1.36'))).toMatchObject({
      message:
        "Resourceless suffixed group request should be specified in `same_subtree` query param: bad group(s) - [''].",
      code: 'placement.query.bad_value',
    });
    expect(
      fail(() => parseAllocationCandidatesQuery('resources1=VCPU:1&same_subtree=1,2', '1.36')).message,
    ).toBe("Real suffixes should be specified in `same_subtree`: ['2'] not found in ['1'].");
    const ok = parseAllocationCandidatesQuery(
      'resources1=VCPU:1&required2=A&same_subtree=1,2&group_policy=none',
      '1.36',
    );
    expect(ok.groups[1]?.resources).toEqual({});
  });

  it('rejects conflicting traits per group, sorted', () => {
    expect(
      fail(() => parseAllocationCandidatesQuery('resources=VCPU:1&required=B,A,!A,!B', '1.22')).message,
    ).toBe(
      'Conflicting required and forbidden traits found in the following traits keys: required: (A), required: (B)',
    );
    expect(
      fail(() => parseAllocationCandidatesQuery('resources=VCPU:1&required=in:A,B&required=!A,!B', '1.39'))
        .message,
    ).toBe('Conflicting required and forbidden traits found in the following traits keys: required: (A, B)');
  });

  it('checks root_required and same_subtree', () => {
    expect(
      fail(() => parseAllocationCandidatesQuery('resources=VCPU:1&root_required=A&root_required=B', '1.35')),
    ).toMatchObject({
      code: 'placement.query.duplicate_key',
      message: "Query parameter 'root_required' may be specified only once.",
    });
    expect(
      fail(() => parseAllocationCandidatesQuery('resources=VCPU:1&root_required=A,!A', '1.35')),
    ).toMatchObject({
      code: 'placement.query.bad_value',
      message: 'Conflicting required and forbidden traits found in root_required: A',
    });
    expect(
      fail(() => parseAllocationCandidatesQuery('resources=VCPU:1&root_required=in:A', '1.39')).message,
    ).toMatch(/only supported since microversion 1\.39/);
    expect(
      fail(() => parseAllocationCandidatesQuery('resources1=VCPU:1&same_subtree=1,', '1.36')).message,
    ).toBe('Empty string (unsuffixed group) can not be specified in `same_subtree` ');
  });

  it('requires group_policy with two suffixed groups, resourceless ones included', () => {
    const e = fail(() =>
      parseAllocationCandidatesQuery('resources1=VCPU:1&required2=A&same_subtree=1,2', '1.36'),
    );
    expect(e.message).toBe(
      'The "group_policy" parameter is required when specifying more than one "resources{N}" parameter.',
    );
    expect(e.hint).toMatch(/group_policy=none/);
  });

  it("reads a key with a trailing newline as Python's $ does", () => {
    const r = parseAllocationCandidatesQuery([['resources1\n', 'VCPU:1']], '1.25');
    expect(r.groups[0]?.suffix).toBe('1');
  });

  it('accepts records and URLSearchParams', () => {
    const a = parseAllocationCandidatesQuery({ resources: 'VCPU:1', member_of: [A, `!${B}`] }, '1.32');
    const b = parseAllocationCandidatesQuery(
      new URLSearchParams(`resources=VCPU:1&member_of=${A}&member_of=!${B}`),
      '1.32',
    );
    expect(a).toEqual(b);
    expect(a.groups[0]?.memberOf).toEqual([[A]]);
  });
});

describe('validatePlacementQuery', () => {
  it('returns the request or the error', () => {
    expect(validatePlacementQuery('resource_providers', 'name=x', '1.0')).toMatchObject({
      ok: true,
      diagnostics: [],
    });
    const r = validatePlacementQuery('allocation_candidates', 'x=1', '1.39');
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.diagnostics.length).toBeGreaterThan(0);
    expect(r.diagnostics).toEqual(r.error.diagnostics);
    expect(r.diagnostics[0]?.code).toMatch(/^placement-query\//);
  });

  it('returns a bad microversion as our error instead of throwing', () => {
    for (const version of ['2.0', '1.40', 'one']) {
      const r = validatePlacementQuery('resource_providers', 'name=x', version);
      expect(r).toMatchObject({
        ok: false,
        error: { status: 400, code: 'placement-query/invalid-microversion' },
      });
    }
  });

  it('never throws anything but our error on arbitrary input (property)', () => {
    const keys = fc.constantFrom(
      'resources',
      'resources1',
      'resources_X',
      'required',
      'required1',
      'member_of',
      'member_of1',
      'in_tree',
      'in_tree2',
      'limit',
      'group_policy',
      'root_required',
      'same_subtree',
      'name',
      'uuid',
    );
    const piece = fc.oneof(
      fc.string(),
      fc.constantFrom(A, B, 'in:', '!', '!in:', ',', ':', 'VCPU', '1', 'CUSTOM_X'),
    );
    const value = fc.array(piece, { maxLength: 4 }).map((p) => p.join(''));
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.oneof(keys, fc.string()), value), { maxLength: 6 }),
        fc.integer({ min: 0, max: 39 }),
        fc.constantFrom('allocation_candidates', 'resource_providers') as fc.Arbitrary<
          'allocation_candidates' | 'resource_providers'
        >,
        (pairs, minor, endpoint) => {
          const r = validatePlacementQuery(endpoint, pairs, `1.${minor}`);
          if (!r.ok) {
            expect([400, 404]).toContain(r.error.status);
            expect(r.error.diagnostics.length).toBe(1);
          }
        },
      ),
      { numRuns: 2000 },
    );
  });
});
