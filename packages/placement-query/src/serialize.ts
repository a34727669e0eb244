import { createDiagnostic, pyCompare, pySortedSet, ValidationError } from '@stackspec/core';
import { atLeast, toMicroversion } from './microversion.js';
import { parsePlacementQuery } from './parse.js';
import {
  type AllocationCandidatesRequest,
  type PlacementQuery,
  PlacementQuerySchema,
  type RequestGroup,
  type ResourceAmounts,
  type ResourceProvidersRequest,
} from './request.js';

type Pair = [string, string];

function encode(text: string): string {
  return encodeURIComponent(text).replace(/%3A/gi, ':').replace(/%2C/gi, ',');
}

function resourcesText(resources: ResourceAmounts): string {
  return Object.entries(resources)
    .map(([rc, n]) => `${rc}:${n}`)
    .join(',');
}

function setText(set: readonly string[]): string {
  return set.length === 1 ? (set[0] as string) : `in:${set.join(',')}`;
}

// Required traits go in Nova's comma form (`required=A,B,!C`); from 1.39 an
// any-of set needs its own `required=in:…`. Runs of single traits stay
// together, so the sets keep their order.
function traitPairs(
  key: string,
  required: readonly (readonly string[])[],
  forbidden: readonly string[],
  anyOf: boolean,
): Pair[] {
  if (!required.length && !forbidden.length) return [];
  const bang = forbidden.map((t) => `!${t}`);
  if (!anyOf) return [[key, [...required.map((s) => s.join(',')), ...bang].join(',')]];
  const out: Pair[] = [];
  let run: string[] = [];
  for (const set of required) {
    if (set.length === 1) {
      run.push(set[0] as string);
      continue;
    }
    if (run.length) out.push([key, run.join(',')]);
    run = [];
    out.push([key, setText(set)]);
  }
  if (run.length || bang.length) out.push([key, [...run, ...bang].join(',')]);
  return out;
}

function memberOfPairs(
  key: string,
  memberOf: readonly (readonly string[])[],
  forbidden: readonly string[],
): Pair[] {
  const out: Pair[] = memberOf.map((s) => [key, setText(s)] as Pair);
  if (forbidden.length) out.push([key, `!${setText(forbidden)}`]);
  return out;
}

function groupPairs(group: RequestGroup, anyOf: boolean): Pair[] {
  const s = group.suffix;
  const out: Pair[] = [];
  if (Object.keys(group.resources).length) out.push([`resources${s}`, resourcesText(group.resources)]);
  out.push(...traitPairs(`required${s}`, group.requiredTraits, group.forbiddenTraits, anyOf));
  out.push(...memberOfPairs(`member_of${s}`, group.memberOf, group.forbiddenAggregates));
  if (group.inTree !== undefined) out.push([`in_tree${s}`, group.inTree]);
  return out;
}

function candidatesPairs(request: AllocationCandidatesRequest): Pair[] {
  const anyOf = atLeast(toMicroversion(request.microversion), 39);
  const out: Pair[] = [];
  for (const group of request.groups) out.push(...groupPairs(group, anyOf));
  if (request.limit !== undefined) out.push(['limit', String(request.limit)]);
  if (request.groupPolicy) out.push(['group_policy', request.groupPolicy]);
  if (request.rootRequired) {
    const r = request.rootRequired;
    out.push(['root_required', [...r.required, ...r.forbidden.map((t) => `!${t}`)].join(',')]);
  }
  for (const set of request.sameSubtree) out.push(['same_subtree', set.join(',')]);
  return out;
}

function providersPairs(request: ResourceProvidersRequest): Pair[] {
  const anyOf = atLeast(toMicroversion(request.microversion), 39);
  const out: Pair[] = [];
  if (request.name) out.push(['name', request.name]);
  if (request.uuid !== undefined) out.push(['uuid', request.uuid]);
  if (request.inTree !== undefined) out.push(['in_tree', request.inTree]);
  if (request.resources && Object.keys(request.resources).length) {
    out.push(['resources', resourcesText(request.resources)]);
  }
  out.push(...memberOfPairs('member_of', request.memberOf, request.forbiddenAggregates));
  out.push(...traitPairs('required', request.requiredTraits, request.forbiddenTraits, anyOf));
  return out;
}

/** The canonical form of a typed query: sets sorted and without repeats, as the parsers produce them. */
export function normalizePlacementQuery<T extends PlacementQuery>(request: T): T {
  const groupish = <G extends Omit<RequestGroup, 'suffix' | 'resources'>>(g: G): G => ({
    ...g,
    requiredTraits: g.requiredTraits.map(pySortedSet),
    forbiddenTraits: pySortedSet(g.forbiddenTraits),
    memberOf: g.memberOf.map(pySortedSet),
    forbiddenAggregates: pySortedSet(g.forbiddenAggregates),
  });
  if (request.endpoint === 'resource_providers') return groupish(request) as T;
  return {
    ...request,
    ...(request.rootRequired
      ? {
          rootRequired: {
            required: pySortedSet(request.rootRequired.required),
            forbidden: pySortedSet(request.rootRequired.forbidden),
          },
        }
      : {}),
    sameSubtree: request.sameSubtree.map(pySortedSet),
    groups: request.groups.map(groupish),
  } as T;
}

function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => pyCompare(a, b)))
      : v,
  );
}

/**
 * Writes a typed query back as a query string that Placement reads as the
 * same request at the request's microversion (`parse(serialize(x))` equals
 * `x` in canonical form). Sets come out as `in:` lists, forbidden ones as
 * `!`/`!in:`; required traits in the comma form Nova uses (`required=A,B,!C`), and from 1.39 each any-of set in its own `required=in:…`.
 *
 * Throws Placement's own 400 when the request breaks its rules at that
 * microversion (an orphaned group, a missing `group_policy`, a key the
 * version lacks), and a `placement-query/not-serializable` ValidationError
 * when a name cannot be written in a query (a trait with a comma, a
 * resource class with a colon).
 *
 * @example
 * serializePlacementQuery({ endpoint: 'resource_providers', microversion: '1.32',
 *   memberOf: [], forbiddenAggregates: [aggA], requiredTraits: [], forbiddenTraits: [] });
 * // 'member_of=!<aggA>'
 */
export function serializePlacementQuery(request: PlacementQuery): string {
  const checked = PlacementQuerySchema.safeParse(request);
  if (!checked.success) {
    const issue = checked.error.issues[0];
    const message =
      `The request is not a typed Placement query: ${issue?.path.join('.') || 'request'} ${issue?.message ?? ''}`.trim();
    throw new ValidationError(message, {
      code: 'placement-query/invalid-request',
      diagnostics: [
        createDiagnostic({
          code: 'placement-query/invalid-request',
          message,
          path: issue ? `/${issue.path.join('/')}` : '',
        }),
      ],
    });
  }
  const normal = normalizePlacementQuery(request);
  const pairs =
    normal.endpoint === 'allocation_candidates' ? candidatesPairs(normal) : providersPairs(normal);
  const text = pairs.map(([k, v]) => `${encode(k)}=${encode(v)}`).join('&');
  const back = parsePlacementQuery(request.endpoint, text, request.microversion);
  if (canonical(back) !== canonical(normal)) {
    const message =
      'The request cannot be written as a Placement query: a name contains a character the query syntax reserves (",", ":", a leading "!" or "in:", surrounding spaces) or an empty value.';
    throw new ValidationError(message, {
      code: 'placement-query/not-serializable',
      diagnostics: [createDiagnostic({ code: 'placement-query/not-serializable', message, path: '' })],
    });
  }
  return text;
}
