import { isStackspecError } from '@stackspec/core';
import { describe, expect, it } from 'vitest';
import { createHttpClient } from './client.js';

function fakeServer(max: string) {
  const seen: string[] = [];
  const fetcher = (async (input: string | URL | Request, init?: RequestInit) => {
    const version = new Headers(init?.headers).get('X-OpenStack-Ironic-API-Version') ?? '';
    seen.push(`${init?.method ?? 'GET'} ${String(input)} @${version}`);
    const [, minor] = version.split('.');
    if (Number(minor) > Number(max.split('.')[1])) {
      return new Response('{}', { status: 406, headers: { 'X-OpenStack-Ironic-API-Maximum-Version': max } });
    }
    if (String(input).endsWith('/CUSTOM_NOPE')) {
      const inner = JSON.stringify({
        faultcode: 'Client',
        faultstring: 'Deploy template CUSTOM_NOPE could not be found.',
        debuginfo: null,
      });
      return new Response(JSON.stringify({ error_message: inner }), { status: 404 });
    }
    return new Response(JSON.stringify({ deploy_templates: [] }), { status: 200 });
  }) as typeof fetch;
  return { seen, fetcher };
}

describe('createHttpClient', () => {
  it('negotiates down to the server maximum after a 406, once', async () => {
    const { seen, fetcher } = fakeServer('1.82');
    const client = createHttpClient({ endpoint: 'http://ironic:6385/', fetch: fetcher });
    expect(await client.list({ limit: '5' })).toEqual({ deploy_templates: [] });
    await client.list({});
    expect(seen).toEqual([
      'GET http://ironic:6385/v1/deploy_templates?limit=5 @1.115',
      'GET http://ironic:6385/v1/deploy_templates?limit=5 @1.82',
      'GET http://ironic:6385/v1/deploy_templates @1.82',
    ]);
  });

  it('never lowers a version the user asked for', async () => {
    const { fetcher } = fakeServer('1.82');
    const client = createHttpClient({ endpoint: 'http://ironic:6385', version: '1.99', fetch: fetcher });
    await expect(client.list({})).rejects.toMatchObject({ status: 406 });
  });

  it('turns a server error into `<message> (HTTP <code>)`', async () => {
    const { fetcher } = fakeServer('1.82');
    const client = createHttpClient({ endpoint: 'http://ironic:6385', version: '1.55', fetch: fetcher });
    try {
      await client.show('CUSTOM_NOPE');
      expect.unreachable();
    } catch (e) {
      expect(isStackspecError(e) && e.status).toBe(404);
      expect((e as Error).message).toBe('Deploy template CUSTOM_NOPE could not be found. (HTTP 404)');
    }
  });
});
