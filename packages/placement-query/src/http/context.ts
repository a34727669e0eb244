import {
  isStackspecError,
  isUuidLike,
  type JsonSchemaObject,
  type Microversion,
  pyUnicodeDecodeErrorText,
  type ServiceCall,
} from '@stackspec/core';
import type { FindCandidatesOptions } from '../engine/candidates.js';
import type { Provider, ProviderStore } from '../model/store.js';
import { QueryParams } from '../query-params.js';
import { queryInstance } from '../query-schemas.js';
import { findSchemaFailure, schemaFailureText } from '../schema-report.js';
import { findProvider } from '../service/resource-providers.js';
import type { PlacementStore, WriteIntent } from '../store/types.js';
import { PlacementHttpError } from './errors.js';

/** How Placement's schemas are checked: `format: uuid` with oslo's is_uuid_like (registered in placement.util). */
export const SCHEMA_OPTIONS = { formats: { uuid: isUuidLike } };

/** Placement's 400 for a value its JSON schema refuses, with jsonschema's report after `what`. */
export function checkSchema(value: unknown, schema: JsonSchemaObject, what: string): void {
  const failure = findSchemaFailure(value, schema, SCHEMA_OPTIONS);
  if (failure) throw new PlacementHttpError(400, `${what}: ${schemaFailureText(failure)}`);
}

/**
 * Placement's 415 unless the body is `application/json` (parameters
 * allowed), which its handlers check before the policy and the body.
 */
export function requireJson(request: Request): void {
  const type = (request.headers.get('content-type') ?? '').split(';')[0]?.trim() ?? '';
  if (type !== 'application/json') {
    const shown = type || 'None';
    const message = `The media type ${shown} is not supported, use application/json`;
    throw new PlacementHttpError(
      415,
      message,
      `The request media type ${shown} is not supported by this server. \n\n ${message}`,
    );
  }
}

/** What the Placement service hands every request: the state it serves and how. */
export interface PlacementState {
  /** The state served, in memory or kept in a database. */
  readonly placement: PlacementStore;
  /** Path the API is mounted under (`/placement`), for links and `Location`. */
  readonly prefix: string;
  readonly search: FindCandidatesOptions;
}

/**
 * What a Placement route handler works with: the request as the kit read
 * it (route parameters decoded as Placement's WSGI server decodes the path,
 * the negotiated version), the state it serves, and Placement's ways of
 * reading a body, a query and the provider a path names.
 */
export class PlacementContext {
  readonly url: URL;
  readonly version: Microversion;
  readonly placement: PlacementStore;
  readonly prefix: string;
  readonly search: FindCandidatesOptions;

  constructor(
    readonly call: ServiceCall,
    state: PlacementState,
    /** When the request is answered (for `Last-Modified`). */
    readonly now: Date,
  ) {
    this.url = call.url;
    this.version = call.version as Microversion;
    this.placement = state.placement;
    this.prefix = state.prefix;
    this.search = state.search;
  }

  /** The in-memory state reads are answered from. */
  get store(): ProviderStore {
    return this.placement.store;
  }

  /**
   * Runs a write: its rows locked, decided on the current state, committed
   * (when there is a database), applied, then answered from the state it
   * made (see `WriteIntent`).
   */
  write<T>(intent: WriteIntent<T, ResponseParts>): Promise<ResponseParts> {
    return this.placement.write(intent);
  }

  /** A `{name}` segment of the route. */
  param(name: string): string {
    return this.call.params[name] as string;
  }

  /** The absolute URL of a path of this API, for `Location`. */
  location(path: string): string {
    return `${this.url.origin}${this.prefix}${path}`;
  }

  /** The provider the route's `{uuid}` names, or Placement's 404 (in the endpoint's own words, when given). */
  provider(message?: (uuid: string) => string): Provider {
    return findProvider(this.store, this.param('uuid'), message);
  }

  /** The query string, checked against one of Placement's query schemas. */
  query(schema: JsonSchemaObject): QueryParams {
    const q = new QueryParams([...this.url.searchParams]);
    checkSchema(queryInstance(q.pairs), schema, 'Invalid query string parameters');
    return q;
  }

  /**
   * The request body: JSON only (415 otherwise), decoded strictly (a 400
   * quoting Python's `UnicodeDecodeError`, as Placement does), within the
   * service's body limit (413), and valid against `schema` (400 with
   * jsonschema's report).
   */
  async json(schema: JsonSchemaObject): Promise<unknown> {
    requireJson(this.call.request);
    let data: unknown;
    try {
      data = await this.call.json({ describeInvalidUtf8: pyUnicodeDecodeErrorText });
    } catch (e) {
      if (!isStackspecError(e)) throw e;
      // Core's 413 carries its own code; Placement's body keeps the generic one.
      if (e.status === 413) throw new PlacementHttpError(413, e.message);
      throw new PlacementHttpError(400, `Malformed JSON: ${e.message}`);
    }
    checkSchema(data, schema, 'JSON does not validate');
    return data;
  }
}

/** A handler's answer, which the service turns into a response with Placement's headers. */
export interface ResponseParts {
  status: number;
  body?: unknown;
  /** A body already written as JSON. */
  raw?: Uint8Array;
  headers?: Record<string, string>;
  /** Add Cache-Control/Last-Modified from 1.15 (successful GETs and some writes). */
  cache?: boolean;
}

/** A handler of one method of one Placement route. */
export type PlacementHandlerFn = (ctx: PlacementContext) => ResponseParts | Promise<ResponseParts>;

/** A method that exists only from a microversion on (`'1.10'`); below it 404, or 405 when said. */
export interface PlacementMethod {
  readonly handle: PlacementHandlerFn;
  readonly minVersion: string;
  readonly belowMinVersion?: 404 | 405;
}

/** One route of Placement's API: the path as its API reference writes it, and its methods. */
export interface PlacementRoute {
  readonly path: string;
  readonly methods: Readonly<Record<string, PlacementHandlerFn | PlacementMethod>>;
}

/** A method of a route that exists from microversion `minVersion` on. */
export function since(minVersion: string, handle: PlacementHandlerFn): PlacementMethod {
  return { handle, minVersion };
}
