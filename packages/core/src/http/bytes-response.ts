// A registered symbol, so that a response made by one copy of core (ESM or
// CommonJS) is recognised by the other.
const BYTES = Symbol.for('@stackspec/core.bytesResponse');

/**
 * A `Response` whose body is bytes already in memory, such as a large JSON
 * document rendered straight into a buffer.
 *
 * `startServer` (`@stackspec/core/node`) writes those bytes to the socket as
 * they are, in one write with a `Content-Length`, without a stream or a
 * copy. Anywhere else it is an ordinary `Response` whose body yields the
 * same bytes (a `new Response(bytes)` would copy them first). The caller
 * must not change the bytes afterwards. Uses only web APIs.
 *
 * @example
 * return bytesResponse(new TextEncoder().encode(JSON.stringify(body)), { headers: { 'content-type': 'application/json' } });
 */
export function bytesResponse(body: Uint8Array, init: ResponseInit = {}): Response {
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (body.byteLength) controller.enqueue(body);
      controller.close();
    },
  });
  const response = new Response(stream, init);
  Object.defineProperty(response, BYTES, { value: body });
  return response;
}

/**
 * The bytes of a {@link bytesResponse} whose body nobody has read yet, for a
 * server to write directly; `undefined` for any other response.
 */
export function bytesOfResponse(response: Response): Uint8Array | undefined {
  const body = (response as { [BYTES]?: Uint8Array })[BYTES];
  return body === undefined || response.bodyUsed ? undefined : body;
}
