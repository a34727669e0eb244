import type { Diagnostic } from '../diagnostic.js';
import { describeError, isStackspecError } from '../errors.js';
import { pyJsonDumps } from '../python.js';
import { jsonResponse } from './json.js';

/** Reason phrases and webob's stock explanations, which OpenStack services put in error bodies. */
export const HTTP_STATUS_TEXT: Readonly<Record<number, { title: string; explanation: string }>> = {
  400: {
    title: 'Bad Request',
    explanation:
      'The server could not comply with the request since it is either malformed or otherwise incorrect.',
  },
  401: {
    title: 'Unauthorized',
    explanation:
      'This server could not verify that you are authorized to access the document you requested. Either you supplied the wrong credentials (e.g., bad password), or your browser does not understand how to supply the credentials required.',
  },
  403: { title: 'Forbidden', explanation: 'Access was denied to this resource.' },
  404: { title: 'Not Found', explanation: 'The resource could not be found.' },
  405: {
    title: 'Method Not Allowed',
    explanation:
      'The server could not comply with the request since it is either malformed or otherwise incorrect.',
  },
  406: {
    title: 'Not Acceptable',
    explanation:
      'The server could not comply with the request since it is either malformed or otherwise incorrect.',
  },
  409: { title: 'Conflict', explanation: 'There was a conflict when trying to complete your request.' },
  413: {
    title: 'Request Entity Too Large',
    explanation: 'The body of your request was too large for this server.',
  },
  414: { title: 'Request-URI Too Long', explanation: 'The request URI was too long for this server.' },
  415: {
    title: 'Unsupported Media Type',
    explanation:
      'The server could not comply with the request since it is either malformed or otherwise incorrect.',
  },
  500: {
    title: 'Internal Server Error',
    explanation: 'The server has either erred or is incapable of performing the requested operation.',
  },
  503: {
    title: 'Service Unavailable',
    explanation: 'The server is currently unavailable. Please try again at a later time.',
  },
};

function statusText(status: number): { title: string; explanation: string } {
  return HTTP_STATUS_TEXT[status] ?? { title: `HTTP ${status}`, explanation: '' };
}

const NOVA_FAULT_NAMES: Readonly<Record<number, string>> = {
  400: 'badRequest',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'itemNotFound',
  405: 'badMethod',
  409: 'conflictingRequest',
  413: 'overLimit',
  415: 'badMediaType',
  429: 'overLimit',
  501: 'notImplemented',
  503: 'serviceUnavailable',
};

/** Nova's fault body: `{"badRequest": {"code": 400, "message": "…"}}` (`computeFault` for unlisted statuses). */
export function novaErrorBody(
  status: number,
  message: string,
): Record<string, { code: number; message: string }> {
  return { [NOVA_FAULT_NAMES[status] ?? 'computeFault']: { code: status, message } };
}

/** Options for {@link placementErrorBody}. */
export interface PlacementErrorOptions {
  /** Placement error code (`placement.query.bad_value`…); included when `withCode` is true. */
  code?: string;
  /** Whether the request's microversion is 1.23 or newer, where errors carry `code`. */
  withCode?: boolean;
  /** The request id (`req-<uuid>`), when one was assigned. */
  requestId?: string;
  /** Extra members (a 406 carries `max_version` and `min_version`). */
  extra?: Record<string, unknown>;
  /**
   * The whole `detail`, for the statuses whose webob page words it from the
   * request (405 names the method, 406 and 415 the media type) instead of
   * the stock sentence.
   */
  detail?: string;
}

/**
 * Placement's error body, as the API-WG guideline shapes it:
 * `{"errors": [{"status", "title", "detail", "code"?, "request_id"?}]}`.
 * `detail` is webob's stock sentence, a blank line, then the message,
 * exactly as Placement renders it.
 */
export function placementErrorBody(
  status: number,
  message: string,
  options: PlacementErrorOptions = {},
): { errors: Record<string, unknown>[] } {
  const { title, explanation } = statusText(status);
  const detail = options.detail ?? `${explanation}\n\n ${message}  `;
  const error: Record<string, unknown> = { status, title, detail };
  if (options.withCode) error.code = options.code ?? 'placement.undefined_code';
  if (options.requestId) error.request_id = options.requestId;
  Object.assign(error, options.extra);
  return { errors: [error] };
}

/**
 * Ironic's error body, byte for byte as Ironic writes it:
 * `{"error_message": "<JSON text>"}`, both levels written with Python's
 * `json.dumps` spacing (serialize the outer object with `pyJsonDumps`, as
 * {@link errorResponse} does). Controller errors (the `fault` style) wrap
 * `{"faultcode": "Client", "faultstring": "…", "debuginfo": null}`, with
 * `Server` from status 500 up; errors raised before the controller (the
 * `webob` style: version gate, 404/405 of unknown routes, 406) wrap
 * `{"code": 405, "title": "Method Not Allowed", "description": "…"}`.
 *
 * @example
 * ironicErrorBody(404, 'Deploy template x could not be found.').error_message;
 * // '{"faultcode": "Client", "faultstring": "Deploy template x could not be found.", "debuginfo": null}'
 */
export function ironicErrorBody(
  status: number,
  message: string,
  style: 'fault' | 'webob' = 'fault',
): { error_message: string } {
  const inner =
    style === 'fault'
      ? { faultcode: status >= 500 ? 'Server' : 'Client', faultstring: message, debuginfo: null }
      : { code: status, title: statusText(status).title, description: message };
  return { error_message: pyJsonDumps(inner) };
}

/** Heat's error body, as {@link heatErrorBody} builds it. */
export interface HeatErrorBody {
  code: number;
  title: string;
  explanation: string;
  error: { type: string; message: string; traceback: null; diagnostics?: readonly Diagnostic[] };
}

/**
 * Heat's error body: the status as `code`, webob's `title` and
 * `explanation`, and `error` with the Python exception's class name as
 * `type`, its `message` and `traceback` (always `null`: Heat leaves it out
 * unless debugging). Located diagnostics, when given, travel along in
 * `error.diagnostics`, which Heat clients ignore. An unlisted status gets
 * the title `HTTP <status>` and an empty explanation.
 *
 * @example
 * heatErrorBody(404, 'NotFound', 'The resource could not be found.').error.type; // 'NotFound'
 */
export function heatErrorBody(
  status: number,
  type: string,
  message: string,
  diagnostics: readonly Diagnostic[] = [],
): HeatErrorBody {
  const { title, explanation } = statusText(status);
  return {
    code: status,
    title,
    explanation,
    error: { type, message, traceback: null, ...(diagnostics.length ? { diagnostics } : {}) },
  };
}

/** The error body styles of the services stackspec mirrors. */
export type ErrorBodyStyle = 'nova' | 'placement' | 'ironic' | 'plain';

/** Options for {@link errorResponse}. */
export interface ErrorResponseOptions {
  style: ErrorBodyStyle;
  headers?: ConstructorParameters<typeof Headers>[0];
  /** Placement-specific details. */
  placement?: PlacementErrorOptions;
  /** Ironic body style (default `fault`). */
  ironicStyle?: 'fault' | 'webob';
}

/**
 * Renders any thrown value as an HTTP error in a service's body format.
 * Core errors keep their status and message; anything else becomes a 500
 * whose body does not leak the foreign message. Ironic bodies are written
 * with Python's `json.dumps` spacing, the others with `JSON.stringify`.
 */
export function errorResponse(error: unknown, options: ErrorResponseOptions): Response {
  const known = isStackspecError(error);
  const status = known ? error.status : 500;
  const message = known
    ? error.message
    : 'An unexpected error prevented the server from fulfilling your request.';
  let body: unknown;
  switch (options.style) {
    case 'nova':
      body = novaErrorBody(status, message);
      break;
    case 'placement':
      body = placementErrorBody(status, message, options.placement);
      break;
    case 'ironic':
      body = ironicErrorBody(status, message, options.ironicStyle);
      break;
    default:
      body = {
        error: {
          status,
          code: known ? error.code : 'http/internal',
          message,
          ...(known && error.diagnostics.length ? { diagnostics: error.diagnostics } : {}),
        },
      };
  }
  if (options.style === 'ironic') {
    // Ironic writes its outer body with json.dumps too; keep its exact bytes.
    const headers = new Headers(options.headers);
    if (!headers.has('content-type')) headers.set('content-type', 'application/json');
    return new Response(pyJsonDumps(body), { status, headers });
  }
  return jsonResponse(body, { status, ...(options.headers ? { headers: options.headers } : {}) });
}

/** Describes a foreign error for logs (never for response bodies). */
export function errorForLog(error: unknown): string {
  return isStackspecError(error) ? `${error.code}: ${error.message}` : describeError(error);
}
