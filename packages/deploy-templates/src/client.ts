import { HttpError } from '@stackspec/core';
import type { DeployTemplateService, QueryParams } from './service.js';
import { MAX_VERSION_HEADER, VERSION_HEADER } from './versions.js';

/** What the CLI needs from a deploy template API, local or remote. */
export interface DeployTemplateClient {
  /** One list page; `query` as the API takes it. */
  list(
    query: Record<string, string>,
  ): Promise<{ deploy_templates: Record<string, unknown>[]; next?: string }>;
  /** Follows a `next` link returned by {@link DeployTemplateClient.list}. */
  next(url: string): Promise<{ deploy_templates: Record<string, unknown>[]; next?: string }>;
  show(ident: string, fields?: readonly string[]): Promise<Record<string, unknown>>;
  create(body: Record<string, unknown>): Promise<Record<string, unknown>>;
  patch(ident: string, operations: readonly Record<string, unknown>[]): Promise<Record<string, unknown>>;
  delete(ident: string): Promise<void>;
  close(): Promise<void>;
}

const LOCAL = 'http://localhost';

/** A client that calls a service in this process (no HTTP, no policy). */
export function createLocalClient(service: DeployTemplateService): DeployTemplateClient {
  const ctx = { baseUrl: LOCAL };
  return {
    list: (query) => service.list(query, ctx) as ReturnType<DeployTemplateClient['list']>,
    next(url) {
      const q: Record<string, string> = {};
      for (const [k, v] of new URL(url).searchParams) q[k] = v;
      return service.list(q as QueryParams, ctx) as ReturnType<DeployTemplateClient['list']>;
    },
    show: (ident, fields) => service.show(ident, fields?.length ? { fields: fields.join(',') } : {}, ctx),
    create: async (body) => (await service.create(body, {}, ctx)).body,
    patch: (ident, ops) => service.update(ident, ops, {}, ctx),
    delete: (ident) => service.delete(ident, {}, ctx),
    close: () => service.store.close(),
  };
}

/** Options for {@link createHttpClient}. */
export interface HttpClientOptions {
  /** Server root, e.g. `http://127.0.0.1:6385` (the client appends `/v1/...`). */
  endpoint: string;
  /** Microversion to send; when omitted the client starts at 1.115 and negotiates down on a 406. */
  version?: string;
  /** Extra headers (an `X-Auth-Token`, identity headers for a trusted proxy). */
  headers?: Record<string, string>;
  /** The fetch to use (default the global one). */
  fetch?: typeof fetch;
}

function errorText(status: number, text: string): string {
  try {
    const outer = JSON.parse(text) as { error_message?: unknown };
    const inner =
      typeof outer.error_message === 'string' ? JSON.parse(outer.error_message) : outer.error_message;
    const message = (inner as { faultstring?: string; description?: string } | undefined) ?? {};
    return message.faultstring ?? message.description ?? text;
  } catch {
    return text || `HTTP ${status}`;
  }
}

/**
 * A client for an Ironic-compatible server (ours or the real Ironic). Like
 * python-ironicclient it negotiates the microversion: unless one is given,
 * it asks for 1.115 and, on a 406, retries with the server's maximum.
 * Server errors become core errors whose message is `<message> (HTTP <code>)`.
 */
export function createHttpClient(options: HttpClientOptions): DeployTemplateClient {
  const root = options.endpoint.replace(/\/+$/, '');
  const doFetch = options.fetch ?? fetch;
  let version = options.version ?? '1.115';
  const fixed = options.version !== undefined;

  async function call(method: string, url: string, body?: unknown): Promise<unknown> {
    for (let attempt = 0; attempt < 2; attempt += 1) {
      const headers = new Headers({
        ...options.headers,
        [VERSION_HEADER]: version,
        accept: 'application/json',
      });
      if (body !== undefined) headers.set('content-type', 'application/json');
      let res: Response;
      try {
        res = await doFetch(url, {
          method,
          headers,
          ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
        });
      } catch (e) {
        throw new HttpError(503, `Unable to reach ${root}: ${(e as Error).message}`, {
          code: 'deploy-templates/unreachable',
          cause: e,
        });
      }
      const max = res.headers.get(MAX_VERSION_HEADER);
      if (res.status === 406 && !fixed && max && max !== version && attempt === 0) {
        version = max;
        continue;
      }
      const text = await res.text();
      if (!res.ok) {
        throw new HttpError(res.status, `${errorText(res.status, text)} (HTTP ${res.status})`, {
          code: 'deploy-templates/server-error',
        });
      }
      return text ? JSON.parse(text) : undefined;
    }
    throw new HttpError(406, 'The server refused every API version offered (HTTP 406)');
  }

  const url = (path: string, query: Record<string, string> = {}) => {
    const q = new URLSearchParams(query).toString();
    return `${root}/v1/deploy_templates${path}${q ? `?${q}` : ''}`;
  };
  const enc = encodeURIComponent;
  return {
    list: (query) => call('GET', url('', query)) as ReturnType<DeployTemplateClient['list']>,
    next: (nextUrl) => call('GET', nextUrl) as ReturnType<DeployTemplateClient['list']>,
    show: (ident, fields) =>
      call('GET', url(`/${enc(ident)}`, fields?.length ? { fields: fields.join(',') } : {})) as Promise<
        Record<string, unknown>
      >,
    create: (body) => call('POST', url(''), body) as Promise<Record<string, unknown>>,
    patch: (ident, ops) => call('PATCH', url(`/${enc(ident)}`), ops) as Promise<Record<string, unknown>>,
    delete: async (ident) => {
      await call('DELETE', url(`/${enc(ident)}`));
    },
    close: async () => undefined,
  };
}
