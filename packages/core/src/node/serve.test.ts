import { describe, expect, it } from 'vitest';
import { startServer } from './serve.js';

describe('startServer', () => {
  it('serves a fetch handler on a free loopback port and closes cleanly', async () => {
    const server = await startServer(async (req) =>
      Response.json({ path: new URL(req.url).pathname, method: req.method }),
    );
    try {
      expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const r = await fetch(`${server.url}/v1/x?y=1`, { method: 'POST', body: '{}' });
      expect(await r.json()).toEqual({ path: '/v1/x', method: 'POST' });
    } finally {
      await server.close();
    }
    await expect(fetch(`${server.url}/`)).rejects.toThrow();
  });

  it('answers 500 without leaking when the handler throws', async () => {
    const errors: unknown[] = [];
    const server = await startServer(
      () => {
        throw new Error('secret detail');
      },
      { onError: (e) => errors.push(e) },
    );
    try {
      const r = await fetch(server.url);
      expect(r.status).toBe(500);
      expect(await r.text()).not.toContain('secret');
      expect(errors).toHaveLength(1);
    } finally {
      await server.close();
    }
  });

  it('closes when its signal aborts', async () => {
    const controller = new AbortController();
    const server = await startServer(() => new Response('ok'), { signal: controller.signal });
    controller.abort();
    await server.close();
    await expect(fetch(server.url)).rejects.toThrow();
  });
});
