import { findAllocationCandidatesAsync } from '../../engine/candidates.js';
import { renderCandidatesBytesAsync } from '../../engine/render.js';
import { parseAllocationCandidatesQuery } from '../../parse.js';
import { type PlacementContext, type PlacementRoute, type ResponseParts, since } from '../context.js';
import { explainCandidatesResponse, isExplainAsked } from '../explain.js';

/**
 * `GET /allocation_candidates`: the search returns to the event loop every
 * few milliseconds (so a long one does not hold up other requests) and
 * stops at `limit` or the configured maximum of candidates.
 */
async function list(ctx: PlacementContext): Promise<ResponseParts> {
  const request = parseAllocationCandidatesQuery(ctx.url.searchParams, ctx.version);
  if (isExplainAsked(ctx.call.request)) return explainCandidatesResponse(ctx, request);
  const result = await findAllocationCandidatesAsync(ctx.store, request, ctx.search);
  return { status: 200, cache: true, raw: await renderCandidatesBytesAsync(result, ctx.version) };
}

/** Allocation candidates (from 1.10). */
export const ALLOCATION_CANDIDATE_ROUTES: readonly PlacementRoute[] = [
  { path: '/allocation_candidates', methods: { GET: since('1.10', list) } },
];
