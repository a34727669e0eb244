import { optionsOf, requireBytes } from '../arguments.js';
import { createDiagnostic } from '../diagnostic.js';
import { DEFAULT_MAX_DEPTH } from '../document.js';
import { ValidationError } from '../errors.js';
import { findJsonSyntaxProblem, findJsonTooDeep } from '../json-syntax.js';
import { readBodyBytes } from './body.js';
import { findUtf8Problem, invalidUtf8Error, type Utf8Problem } from './utf8.js';

/**
 * A JSON response with `Content-Type: application/json`. `body` `undefined`
 * gives an empty body (for 204).
 */
export function jsonResponse(body: unknown, init: ResponseInit = {}): Response {
  const headers = new Headers(init.headers);
  if (body === undefined) return new Response(null, { ...init, headers });
  if (!headers.has('content-type')) headers.set('content-type', 'application/json');
  return new Response(JSON.stringify(body), { ...init, headers });
}

/** Options for {@link readJsonBody}. */
export interface ReadJsonBodyOptions {
  /** Largest accepted body in bytes (default 1 MiB). */
  maxBytes?: number;
  /** Value returned for an empty body (default: a `http/empty-body` error). */
  emptyValue?: unknown;
  /** Deepest nesting of arrays and objects accepted (default 200, as for documents). */
  maxDepth?: number;
  /**
   * `strict` (default): bytes that are not UTF-8 are a 400
   * (`http/invalid-utf8`), as every OpenStack service answers. `replace`
   * turns them into U+FFFD instead (the old behaviour; avoid it for
   * anything that stores the text).
   */
  utf8?: 'strict' | 'replace';
  /**
   * Words for the `http/invalid-utf8` error's message instead of core's
   * sentence, given the body and where it breaks (a service quoting
   * Python's `UnicodeDecodeError` passes `pyUnicodeDecodeErrorText`).
   */
  describeInvalidUtf8?: (bytes: Uint8Array, problem: Utf8Problem) => string;
}

/**
 * Reads and parses a request's JSON body: the bytes come from
 * {@link readBodyBytes} (cut off as soon as they pass `maxBytes`, whatever
 * `Content-Length` says), and nesting is measured in one pass before parsing.
 *
 * Throws `HttpError` 413 with `http/body-too-large` for a body past the
 * limit, and `ValidationError` (400) with `http/invalid-utf8` (bytes that
 * are not UTF-8, unless `utf8: 'replace'`), `http/empty-body`,
 * `http/invalid-json` (the message says where the JSON breaks) or
 * `http/too-deep`: the services answer 400 for a body they cannot parse.
 */
export async function readJsonBody(request: Request, options: ReadJsonBodyOptions = {}): Promise<unknown> {
  const bytes = await readBodyBytes(request, { maxBytes: options.maxBytes });
  return parseJsonBytes(bytes, options);
}

/**
 * Decodes and parses a JSON body already read into bytes, with the checks
 * and errors of {@link readJsonBody} (everything but the size limit).
 */
export function parseJsonBytes(
  bytes: Uint8Array,
  options: Omit<ReadJsonBodyOptions, 'maxBytes'> = {},
): unknown {
  requireBytes(bytes, 'The body of parseJsonBytes');
  options = optionsOf(options, 'parseJsonBytes');
  if (options.utf8 !== 'replace') {
    const problem = findUtf8Problem(bytes);
    if (problem) {
      const error = invalidUtf8Error(bytes, problem);
      if (!options.describeInvalidUtf8) throw error;
      const message = options.describeInvalidUtf8(bytes, problem);
      throw new ValidationError(message, {
        code: error.code,
        diagnostics: error.diagnostics.map((d) => ({ ...d, message })),
      });
    }
  }
  const text = new TextDecoder('utf-8', { fatal: false }).decode(bytes);
  if (!text.trim()) {
    if ('emptyValue' in options) return options.emptyValue;
    throw new ValidationError('The request body is empty; a JSON document was expected.', {
      code: 'http/empty-body',
    });
  }
  const maxDepth = options.maxDepth ?? DEFAULT_MAX_DEPTH;
  const deep = findJsonTooDeep(text, maxDepth);
  if (deep !== undefined) {
    const message = `The request body nests deeper than the limit of ${maxDepth} levels (at character ${deep + 1}).`;
    throw new ValidationError(message, {
      code: 'http/too-deep',
      diagnostics: [createDiagnostic({ code: 'http/too-deep', message })],
    });
  }
  try {
    return JSON.parse(text);
  } catch {
    const problem = findJsonSyntaxProblem(text);
    const where = problem ? ` at character ${problem.offset + 1}` : '';
    const message = `The request body is not valid JSON${where}: ${problem?.message ?? 'it could not be parsed.'}`;
    throw new ValidationError(message, {
      code: 'http/invalid-json',
      diagnostics: [createDiagnostic({ code: 'http/invalid-json', message })],
    });
  }
}
