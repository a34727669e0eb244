// The differential suite's verdict on one pair of answers: the conformance
// suite's comparison (status, message and code, provider lists, candidate
// multisets, summaries, the listed intended differences), made stricter:
// error bodies must match in full (title and detail, jsonschema's report
// included), and under `limit`, where Placement's order is unspecified, each
// side's provider summaries must be exactly what Placement derives for the
// candidates that side kept: its full answer's summaries, cut to the trees
// those candidates allocate from.
import { compare, type QueryFacts, requestKey, type Verdict } from '../support/compare.js';
import type { SendResult } from '../support/oracle.js';

interface ErrorBody {
  errors?: { title?: string; detail?: string; code?: string; status?: number }[];
}

type Summaries = Record<string, { root_provider_uuid?: string } & Record<string, unknown>>;
type AllocationRequest = {
  allocations:
    | Record<string, { resources: Record<string, number> }>
    | { resource_provider: { uuid: string } }[];
  mappings?: Record<string, string[]>;
};
interface CandidatesBody {
  allocation_requests: AllocationRequest[];
  provider_summaries: Summaries;
}

/** What the judge needs besides the two answers. */
export interface JudgeFacts extends QueryFacts {
  /** Provider uuid → root uuid, for summaries below 1.29. */
  roots: Map<string, string>;
}

/** The error object of a Placement error body, without its request id. */
function errorOf(body: unknown): string {
  const e = (body as ErrorBody)?.errors?.[0];
  if (!e) return JSON.stringify(body);
  return JSON.stringify({ status: e.status, title: e.title, detail: e.detail, code: e.code });
}

// Python lists printed in a message, items sorted: Placement prints some
// sets (resourceless suffixes) in hash order, which Python randomises.
const sortLists = (text: string) =>
  text.replace(/\[('[^\]]*')\]/g, (_m, items: string) => `[${items.split(', ').sort().join(', ')}]`);

function allocated(r: AllocationRequest): string[] {
  return Array.isArray(r.allocations)
    ? r.allocations.map((a) => a.resource_provider.uuid)
    : Object.keys(r.allocations);
}

function normalise(s: Summaries): string {
  return JSON.stringify(
    Object.keys(s)
      .sort()
      .map((u) => {
        const v = s[u] as Record<string, unknown>;
        return [
          u,
          { ...v, ...(Array.isArray(v.traits) ? { traits: [...(v.traits as string[])].sort() } : {}) },
        ];
      }),
  );
}

/**
 * The summaries Placement gives for the candidates of `limited`, derived from
 * `full` (the same query without limit): every summarised provider whose root
 * is the root of a provider some kept candidate allocates from.
 */
function expectedSummaries(
  full: CandidatesBody,
  limited: CandidatesBody,
  roots: Map<string, string>,
): Summaries {
  const rootOf = (u: string) => full.provider_summaries[u]?.root_provider_uuid ?? roots.get(u) ?? u;
  const kept = new Set(limited.allocation_requests.flatMap(allocated).map(rootOf));
  const out: Summaries = {};
  for (const [u, s] of Object.entries(full.provider_summaries)) if (kept.has(rootOf(u))) out[u] = s;
  return out;
}

function inflationRisk(query: string): boolean {
  const params = new URLSearchParams(query);
  if (params.get('group_policy') === 'none') return false;
  const classesOf = (k: string) => (params.get(k) ?? '').split(',').map((p) => p.split(':')[0]);
  const unsuffixed = new Set(classesOf('resources'));
  return [...params.keys()].some(
    (k) => k.startsWith('resources') && k !== 'resources' && classesOf(k).some((c) => c && unsuffixed.has(c)),
  );
}

/**
 * Placement keeps a sharing-only unsuffixed request at one anchor only (see
 * conformance-differences.json), so it can have fewer candidates than we
 * do. Accepted when Placement's candidates are within ours and every extra
 * one of ours uses a sharing provider (in its unsuffixed mapping when the
 * answer has mappings). Where Placement's amount defect may apply, shapes
 * (providers and classes) are compared instead of amounts.
 */
function sharingDedupe(theirs: CandidatesBody, ours: CandidatesBody, facts: JudgeFacts): boolean {
  const withAmounts = !inflationRisk(facts.query);
  const tk = new Set(theirs.allocation_requests.map((r) => requestKey(r as never, withAmounts)));
  const ok = new Set(ours.allocation_requests.map((r) => requestKey(r as never, withAmounts)));
  for (const k of tk) if (!ok.has(k)) return false;
  const extra = ours.allocation_requests.filter((r) => !tk.has(requestKey(r as never, withAmounts)));
  return (
    extra.length > 0 &&
    extra.every((r) => {
      const used = r.mappings ? (r.mappings[''] ?? []) : allocated(r);
      return used.some((u) => facts.sharing.has(u));
    })
  );
}

function candidatesVerdict(theirs: SendResult, ours: SendResult, facts: JudgeFacts): Verdict {
  const verdict = compare(theirs, ours, facts);
  if (verdict.kind !== 'unexplained' || theirs.status !== 200 || ours.status !== 200) return verdict;
  const t = theirs.body as CandidatesBody;
  const o = ours.body as CandidatesBody;
  if (sharingDedupe(t, o, facts)) return { kind: 'sharing-anchor-dedupe' };
  if (inflationRisk(facts.query)) {
    const shapes = new Set(o.allocation_requests.map((r) => requestKey(r as never, false)));
    if (t.allocation_requests.every((r) => shapes.has(requestKey(r as never, false))))
      return { kind: 'inflation-drops' };
  }
  return verdict;
}

/** The verdict on one query: `same`, an intended difference's id, or `unexplained` with a detail. */
export function judge(theirs: SendResult, ours: SendResult, facts: JudgeFacts): Verdict {
  if (theirs.status >= 400 && theirs.status === ours.status) {
    const base = compare(theirs, ours, facts);
    const t = errorOf(theirs.body);
    const o = errorOf(ours.body);
    if (t === o) return base;
    if (sortLists(t) === sortLists(o)) return { kind: 'set-order' };
    return { kind: 'unexplained', detail: `error body\n    theirs: ${t}\n    ours:   ${o}` };
  }
  const params = new URLSearchParams(facts.query);
  if (
    facts.endpoint !== 'allocation_candidates' ||
    !params.has('limit') ||
    !facts.unlimited ||
    theirs.status !== 200
  )
    return candidatesVerdict(theirs, ours, facts);
  if (ours.status !== 200) return compare(theirs, ours, facts);

  // With limit: the full answers first, then each limited one against its own full one.
  params.delete('limit');
  const full = candidatesVerdict(facts.unlimited.theirs, facts.unlimited.ours, {
    ...facts,
    query: params.toString(),
  });
  if (full.kind === 'unexplained') return { kind: 'unexplained', detail: `without limit: ${full.detail}` };
  const bodies = {
    theirs: { full: facts.unlimited.theirs.body as CandidatesBody, limited: theirs.body as CandidatesBody },
    ours: { full: facts.unlimited.ours.body as CandidatesBody, limited: ours.body as CandidatesBody },
  };
  const limit = Number(new URLSearchParams(facts.query).getAll('limit')[0]);
  for (const side of ['theirs', 'ours'] as const) {
    const { full: f, limited: l } = bodies[side];
    const all = new Set(f.allocation_requests.map((r) => requestKey(r as never)));
    const who = side === 'ours' ? 'our' : "Placement's";
    if (l.allocation_requests.length !== Math.min(limit, f.allocation_requests.length))
      return {
        kind: 'unexplained',
        detail: `${who} answer has ${l.allocation_requests.length} candidates under limit=${limit}`,
      };
    if (!l.allocation_requests.every((r) => all.has(requestKey(r as never))))
      return { kind: 'unexplained', detail: `${who} limited answer is not within its full one` };
    const want = normalise(expectedSummaries(f, l, facts.roots));
    const got = normalise(l.provider_summaries);
    if (want !== got)
      return {
        kind: 'unexplained',
        detail: `${who} summaries under limit are not those of the trees its candidates use:\n    expected ${want.slice(0, 400)}\n    got      ${got.slice(0, 400)}`,
      };
  }
  if (full.kind !== 'same') return full;
  // Our candidates' summaries must also be what Placement shows for those trees.
  const want = normalise(expectedSummaries(bodies.theirs.full, bodies.ours.limited, facts.roots));
  if (want !== normalise(bodies.ours.limited.provider_summaries))
    return {
      kind: 'unexplained',
      detail: "summaries of our limited candidates differ from Placement's for the same trees",
    };
  const tk = bodies.theirs.limited.allocation_requests.map((r) => requestKey(r as never)).sort();
  const ok = bodies.ours.limited.allocation_requests.map((r) => requestKey(r as never)).sort();
  return JSON.stringify(tk) === JSON.stringify(ok) ? { kind: 'same' } : { kind: 'limit-order' };
}
