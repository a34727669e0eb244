/** The response header Placement, Nova and most OpenStack services name a request's id in. */
export const REQUEST_ID_HEADER = 'x-openstack-request-id';

/**
 * A new request id in OpenStack's form, `req-<uuid>` (oslo.context's), from
 * the web platform's `crypto.randomUUID`: no Node built-in, so handlers that
 * use it run on any runtime with `Request` and `Response`.
 *
 * @example
 * createRequestId(); // 'req-3f0b8f7e-5d6c-4c1e-9a0e-7b1e2f9d4c21'
 */
export function createRequestId(): string {
  return `req-${crypto.randomUUID()}`;
}
