// The bounds of the deploy templates API on each store: a request body is
// refused past its limit (413, Ironic's body) whether or not it declares its
// length, a body that is not UTF-8 is refused before anything is stored, and
// a detailed list of large templates ends early with a `next` link that
// leads, page by page, to every template.
import { afterAll, describe, expect, it } from 'vitest';
import { createDeployTemplatesApi, IRONIC_MAX_BODY_BYTES } from '../src/api.js';
import { DEFAULT_MAX_LIST_BYTES } from '../src/service.js';
import { testStores } from './support/stores.js';

const V = { 'X-OpenStack-Ironic-API-Version': '1.55', 'Content-Type': 'application/json' };
const template = (name: string, padding = 0) =>
  JSON.stringify({
    name,
    steps: [
      { interface: 'raid', step: 'create_configuration', args: { pad: 'x'.repeat(padding) }, priority: 10 },
    ],
  });

const kinds = (await testStores()).filter((k) => k.available);

describe.each(kinds)('deploy template API limits on $name', (stores) => {
  afterAll(() => stores.close());

  const api = async (options: Parameters<typeof createDeployTemplatesApi>[0] = {}) =>
    createDeployTemplatesApi({ store: await stores.make('limits'), publicUrl: 'http://x', ...options });

  it('refuses a body past the limit with 413, from its declared length or while reading it', async () => {
    const handler = await api();
    const big = template('CUSTOM_BIG', IRONIC_MAX_BODY_BYTES);
    const declared = await handler(
      new Request('http://x/v1/deploy_templates', {
        method: 'POST',
        headers: { ...V, 'Content-Length': String(Buffer.byteLength(big)) },
        body: big,
      }),
    );
    expect(declared.status).toBe(413);
    expect(declared.headers.get('x-openstack-ironic-api-version')).toBeNull();
    expect(await declared.text()).toBe(
      `{"error_message": "{\\"code\\": 413, \\"title\\": \\"Request Entity Too Large\\", \\"description\\": \\"Request is too large. Larger than max_request_body_size (${IRONIC_MAX_BODY_BYTES}).\\"}"}`,
    );
    // Without a length the body is read up to the limit and no further.
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        controller.enqueue(new Uint8Array(16 * 1024).fill(0x20));
      },
    });
    const streamed = await handler(
      new Request('http://x/v1/deploy_templates', {
        method: 'POST',
        headers: V,
        body: stream,
        duplex: 'half',
      } as RequestInit),
    );
    expect(streamed.status).toBe(413);
    expect(await streamed.text()).toContain(`Request is too large. Larger than ${IRONIC_MAX_BODY_BYTES}.`);
    // A template just under the limit goes in.
    const fits = template('CUSTOM_FITS', IRONIC_MAX_BODY_BYTES - 200);
    const ok = await handler(
      new Request('http://x/v1/deploy_templates', { method: 'POST', headers: V, body: fits }),
    );
    expect(ok.status).toBe(201);
    expect((await handler.service.store.list({})).map((t) => t.name)).toEqual(['CUSTOM_FITS']);
    await stores.cleanup();
  });

  it('refuses a body that is not UTF-8 and stores nothing', async () => {
    const handler = await api();
    const body = Uint8Array.from([
      ...new TextEncoder().encode(template('CUSTOM_A').slice(0, -4)),
      0xc3,
      0x28,
      0x5d,
      0x7d,
    ]);
    const r = await handler(
      new Request('http://x/v1/deploy_templates', { method: 'POST', headers: V, body }),
    );
    expect(r.status).toBe(400);
    expect(await r.text()).toBe(
      '{"error_message": "{\\"code\\": 400, \\"title\\": \\"Bad Request\\", \\"description\\": \\"\\"}"}',
    );
    const plain = await handler(
      new Request('http://x/v1/deploy_templates', {
        method: 'POST',
        headers: { ...V, 'Content-Type': 'text/plain' },
        body,
      }),
    );
    expect(plain.status).toBe(400);
    expect(await plain.text()).toContain('The server could not comply with the request');
    expect(await handler.service.store.list({})).toEqual([]);
    await stores.cleanup();
  });

  it('cuts a detailed list at maxListBytes with a next link that leads to every template', async () => {
    const handler = await api({ maxListBytes: 64 * 1024 });
    for (let i = 0; i < 12; i += 1) {
      const r = await handler(
        new Request('http://x/v1/deploy_templates', {
          method: 'POST',
          headers: V,
          body: template(`CUSTOM_T${String(i).padStart(2, '0')}`, 20_000),
        }),
      );
      expect(r.status).toBe(201);
    }
    const seen: string[] = [];
    let url: string | undefined = 'http://x/v1/deploy_templates?detail=True';
    let pages = 0;
    while (url) {
      const r = await handler(new Request(url, { headers: V }));
      expect(r.status).toBe(200);
      const text = await r.text();
      // A page holds at most the limit, plus the one template that started it.
      expect(text.length).toBeLessThan(64 * 1024 + 21_000);
      const body = JSON.parse(text) as {
        deploy_templates: { name: string; steps: unknown[] }[];
        next?: string;
      };
      for (const t of body.deploy_templates) {
        expect(t.steps).toHaveLength(1);
        seen.push(t.name);
      }
      url = body.next;
      pages += 1;
      expect(pages).toBeLessThan(20);
    }
    expect(pages).toBeGreaterThan(3);
    expect(seen).toEqual(Array.from({ length: 12 }, (_, i) => `CUSTOM_T${String(i).padStart(2, '0')}`));
    await stores.cleanup();
  });

  it('returns a whole page of small templates within the default list limit', async () => {
    const handler = await api({ maxLimit: 5 });
    for (let i = 0; i < 6; i += 1) {
      await handler(
        new Request('http://x/v1/deploy_templates', {
          method: 'POST',
          headers: V,
          body: template(`CUSTOM_S${i}`),
        }),
      );
    }
    const r = await handler(new Request('http://x/v1/deploy_templates?detail=True', { headers: V }));
    const body = (await r.json()) as { deploy_templates: unknown[]; next?: string };
    expect(body.deploy_templates).toHaveLength(5);
    expect(body.next).toMatch(/limit=5&marker=/);
    expect(DEFAULT_MAX_LIST_BYTES).toBe(4 * 1024 * 1024);
    await stores.cleanup();
  });
});

describe('deploy template API limit options', () => {
  it('refuses limits that are not sizes when the API is made', () => {
    expect(() => createDeployTemplatesApi({ maxBodyBytes: -1 })).toThrow(
      /maxBodyBytes must be a number of bytes/,
    );
    expect(() => createDeployTemplatesApi({ maxListBytes: 0 })).toThrow(
      /maxListBytes must be a number of bytes/,
    );
  });
});
