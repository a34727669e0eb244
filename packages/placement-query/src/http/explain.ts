// Our server's opt-in explanation of GET /allocation_candidates. It rides
// on a request header Placement has never heard of, rather than a query
// parameter, because Placement's query schema refuses any parameter it does
// not know: a header keeps every query string meaning exactly what it means
// to Placement, and a client that does not send it (Nova, osc-placement)
// gets Placement's answer byte for byte. The header is read after the query
// is parsed, so a malformed query still gets Placement's 400, and the
// explanation raises the same 400s as the search (unknown traits, too many
// combinations).
import { explainAllocationCandidates } from '../engine/explain.js';
import type { AllocationCandidatesRequest } from '../request.js';
import type { PlacementContext, ResponseParts } from './context.js';
import { PlacementHttpError } from './errors.js';

/**
 * The request header that asks our server to explain an allocation
 * candidates query instead of answering it: `Stackspec-Explain: json`
 * (`1` and `true` too). Absent, empty, `0` or `false`: Placement's answer.
 */
export const EXPLAIN_HEADER = 'stackspec-explain';

const YES = new Set(['json', '1', 'true']);
const NO = new Set(['', '0', 'false']);

/**
 * Whether the request asks for an explanation (see {@link EXPLAIN_HEADER});
 * any other value of the header is a 400, so that a typo is not taken for
 * "no".
 */
export function isExplainAsked(request: Request): boolean {
  const value = request.headers.get(EXPLAIN_HEADER);
  if (value === null) return false;
  const v = value.trim().toLowerCase();
  if (YES.has(v)) return true;
  if (NO.has(v)) return false;
  throw new PlacementHttpError(
    400,
    `The ${EXPLAIN_HEADER} header must be json, 1 or true to ask for an explanation (0, false or empty for none); got ${JSON.stringify(value)}.`,
  );
}

/**
 * The explanation of `request` as the response (200, JSON described by
 * `AllocationCandidatesExplanationSchema`): counted with the server's own
 * search options, so `returned` is what the same query without the header
 * answers. It runs the engine twice and walks every provider, in one go
 * (no return to the event loop), within the server's combination budget.
 */
export function explainCandidatesResponse(
  ctx: PlacementContext,
  request: AllocationCandidatesRequest,
): ResponseParts {
  const explanation = explainAllocationCandidates(ctx.store, request, { search: ctx.search });
  // An explanation is about this moment's state: never served from a cache.
  return { status: 200, body: explanation, headers: { 'cache-control': 'no-store' } };
}
