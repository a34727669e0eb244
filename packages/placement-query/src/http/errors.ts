import {
  bytesResponse,
  HTTP_STATUS_TEXT,
  HttpError,
  isStackspecError,
  placementErrorBody,
  type ServiceCall,
  type ServiceFailure,
} from '@stackspec/core';
import { PLACEMENT_ERROR_CODES } from '../errors.js';
import { atLeast, MAX_MICROVERSION, MIN_MICROVERSION } from '../microversion.js';

/**
 * An error of Placement's HTTP layer (a body it cannot read, a media type it
 * does not take, a policy refusal): core's `HttpError` with Placement's
 * generic code, and for the statuses whose webob page words it from the
 * request (415), the whole `detail`.
 */
export class PlacementHttpError extends HttpError {
  readonly detail: string | undefined;

  constructor(status: number, message: string, detail?: string) {
    super(status, message, { code: PLACEMENT_ERROR_CODES.default });
    this.name = 'PlacementHttpError';
    this.detail = detail;
  }
}

const encoder = new TextEncoder();

/** A JSON response in the bytes Placement's handler sends (no stream to copy into). */
export function jsonBytesResponse(status: number, body: unknown, headers: Record<string, string>): Response {
  return bytesResponse(encoder.encode(JSON.stringify(body)), {
    status,
    headers: { ...headers, 'content-type': 'application/json' },
  });
}

const NOT_ALLOWED = 'The method specified is not allowed for this resource.';

/** webob's detail of a 405, which names the method. */
function notAllowedDetail(method: string): string {
  return `The method ${method} is not allowed for this resource. \n\n ${NOT_ALLOWED}`;
}

/**
 * Placement's error body for every refusal of the HTTP kit and every error a
 * handler throws (the kit's error-body hook): webob's title and detail,
 * Placement's `code` from 1.23, the request id, and the version headers once
 * the version is known. A 404 for a path no route has names no `Vary`; a
 * refused version carries no code and, on 406, the supported range. Errors
 * of core's family keep their status, message and code; anything else is
 * Placement's 500.
 */
export function renderPlacementError(failure: ServiceFailure, call: ServiceCall): Response {
  const headers = call.responseHeaders();
  const withCode = call.version !== undefined && atLeast(call.version, 23);
  const respond = (status: number, message: string, code?: string, detail?: string) =>
    jsonBytesResponse(
      status,
      placementErrorBody(status, message, {
        withCode,
        ...(code === undefined ? {} : { code }),
        ...(call.requestId === undefined ? {} : { requestId: call.requestId }),
        ...(detail === undefined ? {} : { detail }),
      }),
      headers,
    );
  switch (failure.reason) {
    case 'version': {
      const body = placementErrorBody(failure.status, failure.message, {
        ...(call.requestId === undefined ? {} : { requestId: call.requestId }),
        ...(failure.status === 406
          ? {
              detail: `The resource could not be generated that was acceptable to your browser (content of type application/json. \n\n ${failure.message}`,
              extra: { max_version: MAX_MICROVERSION, min_version: MIN_MICROVERSION },
            }
          : {}),
      });
      return jsonBytesResponse(failure.status, body, headers);
    }
    case 'not-found':
      // Placement's router answers before its version middleware adds Vary.
      delete headers.vary;
      return respond(404, '');
    case 'method-not-allowed':
      headers.allow = failure.allow.join(', ');
      return respond(405, NOT_ALLOWED, undefined, notAllowedDetail(call.method));
    case 'below-version':
      return failure.status === 405
        ? respond(405, NOT_ALLOWED, undefined, notAllowedDetail(call.method))
        : respond(failure.status, '');
    case 'body-too-large':
      return respond(413, `The request body is larger than ${failure.limit} bytes.`);
    default: {
      const e = failure.error;
      if (e instanceof PlacementHttpError) return respond(e.status, e.message, e.code, e.detail);
      if (isStackspecError(e)) return respond(e.status, e.message, e.code);
      return respond(500, 'An unexpected error prevented the server from fulfilling your request.');
    }
  }
}

/** webob's explanation of a status, as Placement puts it in pages it does not render itself. */
export function explanationOf(status: number): string {
  return HTTP_STATUS_TEXT[status]?.explanation ?? '';
}
