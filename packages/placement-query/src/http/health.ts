import { jsonResponse } from '@stackspec/core';
import type { PlacementStore } from '../store/types.js';

/**
 * `GET /healthz` of a Placement server: 200 `{"status": "ok", …}` while it
 * can vouch for its state, 503 `{"status": "unavailable", "reason": …}`
 * while its database is out of reach (its reads are refused then too), with
 * the store it uses and the last change it applied.
 */
export function placementHealthResponse(placement: PlacementStore): Response {
  const h = placement.health();
  return jsonResponse(
    {
      status: h.status,
      store: { kind: h.kind, description: h.description, position: h.position },
      ...(h.reason ? { reason: h.reason } : {}),
    },
    { status: h.status === 'ok' ? 200 : 503 },
  );
}

/** A handler that answers `GET /healthz` itself and passes every other request to `handler`. */
export function withHealthz(
  handler: (request: Request) => Promise<Response>,
  placement: PlacementStore,
): (request: Request) => Promise<Response> {
  return (request) => {
    if (new URL(request.url).pathname === '/healthz')
      return Promise.resolve(placementHealthResponse(placement));
    return handler(request);
  };
}
