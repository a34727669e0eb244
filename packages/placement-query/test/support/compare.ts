// Compares one answer of OpenStack's Placement with ours.
import type { SendResult } from './oracle.js';

export interface Verdict {
  /** `same`, an intended difference id from conformance-differences.json, or `unexplained`. */
  kind: string;
  detail?: string;
}

interface ErrorBody {
  errors?: { detail?: string; code?: string }[];
}

/** The message part of a Placement error detail (after webob's explanation, trailing spaces cut). */
export function messageOf(body: unknown): { message: string; code: string | undefined } {
  const e = (body as ErrorBody)?.errors?.[0];
  const detail = e?.detail ?? '';
  const i = detail.indexOf('\n\n ');
  return { message: (i >= 0 ? detail.slice(i + 3) : detail).replace(/\s+$/, ''), code: e?.code };
}

type AllocReq = {
  allocations: Record<string, { resources: Record<string, number> }>;
  mappings?: Record<string, string[]>;
};

function sortedEntries<T>(o: Record<string, T>): [string, T][] {
  return Object.entries(o).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

type ListAllocReq = {
  allocations: { resource_provider: { uuid: string }; resources: Record<string, number> }[];
};

/** A canonical text for an allocation request; `withAmounts: false` keeps only providers and classes. */
export function requestKey(request: AllocReq | ListAllocReq, withAmounts = true): string {
  // Below 1.12 allocations are a list of {resource_provider, resources}.
  const r: AllocReq = Array.isArray(request.allocations)
    ? {
        allocations: Object.fromEntries(
          (request as ListAllocReq).allocations.map((a) => [
            a.resource_provider.uuid,
            { resources: a.resources },
          ]),
        ),
      }
    : (request as AllocReq);
  const allocs = sortedEntries(r.allocations).map(([u, v]) => [
    u,
    sortedEntries(v.resources).map(([rc, n]) => (withAmounts ? `${rc}=${n}` : rc)),
  ]);
  const maps = r.mappings ? sortedEntries(r.mappings).map(([s, l]) => [s, [...l].sort()]) : [];
  return JSON.stringify([allocs, maps]);
}

function multiset(keys: string[]): Map<string, number> {
  const m = new Map<string, number>();
  for (const k of keys) m.set(k, (m.get(k) ?? 0) + 1);
  return m;
}

function sameMultiset(a: string[], b: string[]): boolean {
  if (a.length !== b.length) return false;
  const ma = multiset(a);
  for (const [k, n] of multiset(b)) if (ma.get(k) !== n) return false;
  return true;
}

function subset(small: string[], big: string[]): boolean {
  const mb = new Set(big);
  return small.every((k) => mb.has(k));
}

function normSummaries(s: Record<string, Record<string, unknown>>): string {
  return JSON.stringify(
    sortedEntries(s).map(([u, v]) => [
      u,
      { ...v, ...(Array.isArray(v.traits) ? { traits: [...(v.traits as string[])].sort() } : {}) },
    ]),
  );
}

export interface QueryFacts {
  endpoint: 'resource_providers' | 'allocation_candidates';
  query: string;
  /** UUIDs of sharing providers in the inventory. */
  sharing: Set<string>;
  /** Both answers to the same query without `limit`, when the query has one. */
  unlimited?: { theirs: SendResult; ours: SendResult };
}

function hasInflationRisk(query: string): boolean {
  const params = new URLSearchParams(query);
  if (params.get('group_policy') === 'none') return false;
  const classesOf = (k: string) => (params.get(k) ?? '').split(',').map((p) => p.split(':')[0]);
  const unsuffixed = new Set(classesOf('resources'));
  for (const key of params.keys()) {
    if (
      key.startsWith('resources') &&
      key !== 'resources' &&
      classesOf(key).some((c) => c && unsuffixed.has(c))
    )
      return true;
  }
  return false;
}

/** How Placement reads a repeated `limit`: int() of the first value, 0 meaning none. */
function effectiveLimit(query: string): number | undefined {
  const first = new URLSearchParams(query).getAll('limit')[0];
  if (first === undefined) return undefined;
  const n = Number(first.trim().replaceAll('_', ''));
  return Number.isInteger(n) ? n : undefined;
}

export function compare(theirs: SendResult, ours: SendResult, facts: QueryFacts): Verdict {
  if (theirs.status === 500 && ours.status === 400) return { kind: 'placement-500' };
  const limit = effectiveLimit(facts.query);
  if (theirs.status === 200 && ours.status === 400 && limit !== undefined && limit < 0)
    return { kind: 'negative-limit' };
  if (theirs.status !== ours.status) {
    return {
      kind: 'unexplained',
      detail: `status ${theirs.status} vs ours ${ours.status}: ${JSON.stringify(theirs.body).slice(0, 300)} | ${JSON.stringify(ours.body).slice(0, 300)}`,
    };
  }
  if (theirs.status >= 400) {
    const t = messageOf(theirs.body);
    const o = messageOf(ours.body);
    if (t.code !== o.code) return { kind: 'unexplained', detail: `code ${t.code} vs ours ${o.code}` };
    if (t.message === o.message) return { kind: 'same' };
    return {
      kind: 'unexplained',
      detail: `message\n    theirs: ${t.message.slice(0, 300)}\n    ours:   ${o.message}`,
    };
  }
  if (facts.endpoint === 'resource_providers') {
    const norm = (b: unknown) =>
      JSON.stringify(
        [...((b as { resource_providers: { uuid: string }[] }).resource_providers ?? [])].sort((a, c) =>
          a.uuid < c.uuid ? -1 : 1,
        ),
      );
    return norm(theirs.body) === norm(ours.body)
      ? { kind: 'same' }
      : {
          kind: 'unexplained',
          detail: `providers differ:\n    theirs ${norm(theirs.body).slice(0, 400)}\n    ours   ${norm(ours.body).slice(0, 400)}`,
        };
  }
  type Body = {
    allocation_requests: AllocReq[];
    provider_summaries: Record<string, Record<string, unknown>>;
  };
  const tb = theirs.body as Body;
  const ob = ours.body as Body;
  const tk = tb.allocation_requests.map((r) => requestKey(r));
  const ok = ob.allocation_requests.map((r) => requestKey(r));
  const params = new URLSearchParams(facts.query);
  if (params.has('limit')) {
    // Judge the full answers first; the limited ones must then be the first
    // `limit` of each side's full answer.
    if (!facts.unlimited) return { kind: 'unexplained', detail: 'no unlimited answers to compare with' };
    params.delete('limit');
    const full = compare(facts.unlimited.theirs, facts.unlimited.ours, {
      endpoint: facts.endpoint,
      query: params.toString(),
      sharing: facts.sharing,
    });
    if (full.kind === 'unexplained') return { kind: 'unexplained', detail: `without limit: ${full.detail}` };
    const keys = (r: SendResult) => (r.body as Body).allocation_requests.map((a) => requestKey(a));
    const theirsFull = keys(facts.unlimited.theirs);
    const oursFull = keys(facts.unlimited.ours);
    const n = limit !== undefined && limit > 0 ? limit : Number.POSITIVE_INFINITY;
    if (ok.length !== Math.min(n, oursFull.length))
      return { kind: 'unexplained', detail: `ours: ${ok.length} candidates under limit=${n}` };
    if (tk.length !== Math.min(n, theirsFull.length))
      return { kind: 'unexplained', detail: `Placement: ${tk.length} candidates under limit=${n}` };
    if (!subset(ok, oursFull))
      return { kind: 'unexplained', detail: 'our limited answer is not within our full one' };
    if (!subset(tk, theirsFull))
      return { kind: 'unexplained', detail: "Placement's limited answer is not within its full one" };
    if (full.kind !== 'same') return full;
    if (!sameMultiset(tk, ok)) return { kind: 'limit-order' };
    return normSummaries(tb.provider_summaries) === normSummaries(ob.provider_summaries)
      ? { kind: 'same' }
      : { kind: 'unexplained', detail: 'summaries differ under limit' };
  }
  if (sameMultiset(tk, ok)) {
    return normSummaries(tb.provider_summaries) === normSummaries(ob.provider_summaries)
      ? { kind: 'same' }
      : {
          kind: 'unexplained',
          detail: `summaries differ:\n    theirs ${normSummaries(tb.provider_summaries).slice(0, 600)}\n    ours   ${normSummaries(ob.provider_summaries).slice(0, 600)}`,
        };
  }
  // Shapes (providers and classes) equal, amounts not: Placement's shared-record defect.
  const ts = tb.allocation_requests.map((r) => requestKey(r, false));
  const os = ob.allocation_requests.map((r) => requestKey(r, false));
  if (hasInflationRisk(facts.query) && sameMultiset(ts, os)) return { kind: 'amount-inflation' };
  if (subset(tk, ok)) {
    const theirsSet = new Set(tk);
    const extra = ob.allocation_requests.filter((r) => !theirsSet.has(requestKey(r)));
    const onlySharing = extra.every(
      (r) =>
        (r.mappings?.[''] ?? []).every((u) => facts.sharing.has(u)) && (r.mappings?.[''] ?? []).length > 0,
    );
    if (onlySharing) return { kind: 'sharing-anchor-dedupe' };
  }
  return {
    kind: 'unexplained',
    detail: `candidates differ (${tk.length} vs ours ${ok.length}):\n    theirs ${JSON.stringify([...tk].sort()).slice(0, 700)}\n    ours   ${JSON.stringify([...ok].sort()).slice(0, 700)}`,
  };
}
