import { isStackspecError } from '@stackspec/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parsePlacementQuery, validatePlacementQuery } from './parse.js';
import type { AllocationCandidatesRequest, ResourceProvidersRequest } from './request.js';
import { normalizePlacementQuery, serializePlacementQuery } from './serialize.js';

const A = '11111111-1111-1111-1111-111111111111';
const B = '22222222-2222-2222-2222-222222222222';

const traitName = fc.constantFrom(
  'HW_CPU_X86_AVX',
  'HW_CPU_X86_SSE',
  'CUSTOM_GOLD',
  'CUSTOM_SILVER',
  'STORAGE_DISK_SSD',
);
const aggregate = fc.uuid();
const rcName = fc.constantFrom('VCPU', 'MEMORY_MB', 'DISK_GB', 'CUSTOM_FPGA', 'SRIOV_NET_VF');
const resources = fc.dictionary(rcName, fc.integer({ min: 1, max: 1_000_000 }), { minKeys: 1, maxKeys: 3 });
const set = <T extends string>(arb: fc.Arbitrary<T>, max = 3) =>
  fc.uniqueArray(arb, { minLength: 1, maxLength: max });

describe('serializePlacementQuery', () => {
  it('writes forbidden aggregates with ! and !in:', () => {
    const base: ResourceProvidersRequest = {
      endpoint: 'resource_providers',
      microversion: '1.32',
      memberOf: [[A, B]],
      forbiddenAggregates: [B],
      requiredTraits: [],
      forbiddenTraits: [],
    };
    expect(serializePlacementQuery(base)).toBe(`member_of=in:${A},${B}&member_of=!${B}`);
    expect(serializePlacementQuery({ ...base, memberOf: [], forbiddenAggregates: [B, A] })).toBe(
      `member_of=!in:${A},${B}`,
    );
  });

  it("throws Placement's 400 when the request needs a newer microversion", () => {
    const req: ResourceProvidersRequest = {
      endpoint: 'resource_providers',
      microversion: '1.31',
      memberOf: [],
      forbiddenAggregates: [A],
      requiredTraits: [],
      forbiddenTraits: [],
    };
    expect(() => serializePlacementQuery(req)).toThrow(/Forbidden member_of parameters are not supported/);
  });

  it('refuses names the query syntax cannot carry', () => {
    const req: ResourceProvidersRequest = {
      endpoint: 'resource_providers',
      microversion: '1.39',
      memberOf: [],
      forbiddenAggregates: [],
      requiredTraits: [['A,B']],
      forbiddenTraits: [],
    };
    try {
      serializePlacementQuery(req);
      expect.unreachable();
    } catch (e) {
      expect(isStackspecError(e) && e.code).toBe('placement-query/not-serializable');
    }
  });

  it('rejects something that is not a typed request, pointing at the field', () => {
    try {
      serializePlacementQuery({ endpoint: 'resource_providers', microversion: '2.0' } as never);
      expect.unreachable();
    } catch (e) {
      expect(isStackspecError(e) && e.diagnostics[0]?.path).toBe('/microversion');
    }
  });

  it('round-trips /resource_providers requests (property)', () => {
    const arb: fc.Arbitrary<ResourceProvidersRequest> = fc.record(
      {
        endpoint: fc.constant('resource_providers' as const),
        microversion: fc.constant('1.39'),
        name: fc.option(fc.string({ minLength: 1 }), { nil: undefined }),
        uuid: fc.option(fc.uuid(), { nil: undefined }),
        inTree: fc.option(fc.uuid(), { nil: undefined }),
        resources: fc.option(resources, { nil: undefined }),
        requiredTraits: fc.array(set(traitName), { maxLength: 3 }),
        forbiddenTraits: fc.uniqueArray(traitName, { maxLength: 2 }),
        memberOf: fc.array(set(aggregate), { maxLength: 3 }),
        forbiddenAggregates: fc.uniqueArray(aggregate, { maxLength: 3 }),
      },
      {
        requiredKeys: [
          'endpoint',
          'microversion',
          'requiredTraits',
          'forbiddenTraits',
          'memberOf',
          'forbiddenAggregates',
        ],
      },
    );
    fc.assert(
      fc.property(arb, (req) => {
        const clean = Object.fromEntries(
          Object.entries(req).filter(([, v]) => v !== undefined),
        ) as ResourceProvidersRequest;
        const text = serializePlacementQuery(clean);
        expect(parsePlacementQuery('resource_providers', text, '1.39')).toEqual(
          normalizePlacementQuery(clean),
        );
      }),
      { numRuns: 300 },
    );
  });

  it('round-trips /allocation_candidates requests of every form across 1.10-1.39 (property)', () => {
    // Requests valid by construction at their microversion: each form appears
    // only from the version that introduced it.
    const forbiddenTrait = fc.constantFrom('CUSTOM_BRONZE', 'HW_NIC_SRIOV', 'COMPUTE_STATUS_DISABLED');
    const arb = fc.integer({ min: 10, max: 39 }).chain((minor) => {
      const group = (suffix: string, resourceless: boolean) =>
        fc.record({
          suffix: fc.constant(suffix),
          resources: resourceless ? fc.constant({}) : resources,
          requiredTraits:
            minor >= 17
              ? fc.array(set(traitName, minor >= 39 ? 3 : 1), {
                  minLength: resourceless ? 1 : 0,
                  maxLength: 2,
                })
              : fc.constant([] as string[][]),
          forbiddenTraits:
            minor >= 22 ? fc.uniqueArray(forbiddenTrait, { maxLength: 2 }) : fc.constant([] as string[]),
          memberOf:
            minor >= 21
              ? fc.array(set(aggregate), { maxLength: minor >= 24 ? 2 : 1 })
              : fc.constant([] as string[][]),
          forbiddenAggregates:
            minor >= 32 ? fc.uniqueArray(aggregate, { maxLength: 2 }) : fc.constant([] as string[]),
          inTree: minor >= 31 ? fc.option(fc.uuid(), { nil: undefined }) : fc.constant(undefined),
        });
      const suffixes =
        minor >= 33
          ? fc.uniqueArray(fc.constantFrom('1', '2', '_A', '_NIC', '_CPU'), { maxLength: 3 })
          : minor >= 25
            ? fc.uniqueArray(fc.constantFrom('1', '2', '3'), { maxLength: 3 })
            : fc.constant([] as string[]);
      return fc
        .record({
          suffixed: suffixes,
          unsuffixed: minor >= 25 ? fc.boolean() : fc.constant(true),
          resourcelessMask: fc.array(fc.boolean(), { minLength: 3, maxLength: 3 }),
          policy: fc.constantFrom('none', 'isolate') as fc.Arbitrary<'none' | 'isolate'>,
          withPolicy: fc.boolean(),
          limit:
            minor >= 16
              ? fc.option(fc.integer({ min: 1, max: 50 }), { nil: undefined })
              : fc.constant(undefined),
          root:
            minor >= 35
              ? fc.option(
                  fc.record({
                    required: fc.uniqueArray(traitName, { maxLength: 2 }),
                    forbidden: fc.uniqueArray(forbiddenTrait, { maxLength: 2 }),
                  }),
                  { nil: undefined },
                )
              : fc.constant(undefined),
          extraSubtree: fc.boolean(),
        })
        .chain(
          ({ suffixed, unsuffixed, resourcelessMask, policy, withPolicy, limit, root, extraSubtree }) => {
            const withUnsuffixed = unsuffixed || suffixed.length === 0;
            // Resourceless groups (1.36) must sit in a same_subtree with another group.
            const resourceless = suffixed.filter(
              (_s, i) => minor >= 36 && suffixed.length > 1 && resourcelessMask[i] && i > 0,
            );
            const groups = [
              ...(withUnsuffixed ? [group('', false)] : []),
              ...suffixed.map((s) => group(s, resourceless.includes(s))),
            ];
            const sameSubtree: string[][] = [];
            if (resourceless.length) sameSubtree.push([suffixed[0] as string, ...resourceless]);
            else if (minor >= 36 && extraSubtree && suffixed.length >= 2)
              sameSubtree.push(suffixed.slice(0, 2));
            const rootRequired = root && (root.required.length || root.forbidden.length) ? root : undefined;
            return fc.tuple(...groups).map(
              (gs): AllocationCandidatesRequest => ({
                endpoint: 'allocation_candidates',
                microversion: `1.${minor}`,
                ...(limit ? { limit } : {}),
                ...(suffixed.length >= 2 || (withPolicy && minor >= 25) ? { groupPolicy: policy } : {}),
                ...(rootRequired ? { rootRequired } : {}),
                sameSubtree,
                // An absent in_tree is a missing key, as the parser leaves it.
                groups: gs.map(({ inTree, ...rest }) => (inTree === undefined ? rest : { ...rest, inTree })),
              }),
            );
          },
        );
    });
    const seen = new Set<string>();
    fc.assert(
      fc.property(arb, (req) => {
        const text = serializePlacementQuery(req);
        expect(parsePlacementQuery('allocation_candidates', text, req.microversion)).toEqual(
          normalizePlacementQuery(req),
        );
        for (const [k] of new URLSearchParams(text)) seen.add(k.replace(/(_[A-Z]+|[0-9]+)$/, ''));
        if (req.groups.some((g) => !Object.keys(g.resources).length)) seen.add('(resourceless group)');
        if (req.groups.some((g) => /^[0-9]+$/.test(g.suffix))) seen.add('(numeric suffix)');
        if (req.groups.some((g) => g.forbiddenTraits.length)) seen.add('(forbidden trait)');
      }),
      { numRuns: 1000 },
    );
    // The generator reaches every key.
    expect([...seen].sort()).toEqual(
      [
        '(forbidden trait)',
        '(numeric suffix)',
        '(resourceless group)',
        'group_policy',
        'in_tree',
        'limit',
        'member_of',
        'required',
        'resources',
        'root_required',
        'same_subtree',
      ].sort(),
    );
  });

  it('parse then serialize then parse is stable for any accepted query (property)', () => {
    const key = fc.constantFrom(
      'resources',
      'resources1',
      'required',
      'required1',
      'member_of',
      'member_of1',
      'in_tree1',
      'limit',
      'group_policy',
      'same_subtree',
      'root_required',
    );
    const value = fc.constantFrom(
      'VCPU:1',
      'DISK_GB:5,VCPU:2',
      'CUSTOM_A',
      '!CUSTOM_B',
      'in:CUSTOM_A,CUSTOM_C',
      A,
      `in:${A},${B}`,
      `!${B}`,
      `!in:${A},${B}`,
      '3',
      'none',
      'isolate',
      '1',
      'CUSTOM_A,!CUSTOM_C',
    );
    fc.assert(
      fc.property(
        fc.array(fc.tuple(key, value), { maxLength: 8 }),
        fc.integer({ min: 10, max: 39 }),
        (pairs, minor) => {
          const r = validatePlacementQuery('allocation_candidates', pairs, `1.${minor}`);
          if (!r.ok) return;
          const again = parsePlacementQuery(
            'allocation_candidates',
            serializePlacementQuery(r.request),
            r.request.microversion,
          );
          expect(again).toEqual(r.request);
        },
      ),
      { numRuns: 1000 },
    );
  });
});
