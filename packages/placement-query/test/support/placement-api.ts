// Requests to Placement as the suites send them: to a fetch handler in the
// test process, or to a running server at microversion 1.39; JSON in and out.
const HEADERS = { 'openstack-api-version': 'placement 1.39', 'content-type': 'application/json' };

/** A server's answer: its status and its body parsed (`{}` when empty). */
export interface Reply {
  status: number;
  body: Record<string, unknown>;
}

/** Sends `method path` to the server at `url`, with `body` as JSON when given. */
export async function callPlacement(
  url: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<Reply> {
  const r = await fetch(`${url}${path}`, {
    method,
    headers: HEADERS,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await r.text();
  return { status: r.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

/**
 * A request to Placement's fetch handler for `method path` at `version`,
 * with `body` as JSON (a string is sent as it is, to test what is not JSON)
 * and `headers` over the defaults.
 */
export function placementRequest(
  method: string,
  path: string,
  body?: unknown,
  version = '1.39',
  headers: Record<string, string> = {},
): Request {
  return new Request(`http://placement.test${path}`, {
    method,
    headers: {
      'openstack-api-version': `placement ${version}`,
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...headers,
    },
    ...(body !== undefined ? { body: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
  });
}
