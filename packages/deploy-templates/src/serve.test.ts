import { createServer } from 'node:net';
import { HttpError, isStackspecError } from '@stackspec/core';
import { describe, expect, it } from 'vitest';
import { serveDeployTemplates } from './serve.js';
import type { DeployTemplateStore } from './store/types.js';

/** An empty store that records close() and can be told to fail on reads. */
function watched(failWith?: Error) {
  const state = { closed: 0 };
  const unused = () => Promise.reject(new Error('not used by these tests'));
  const store: DeployTemplateStore = {
    create: unused,
    getByUuid: unused,
    getByName: unused,
    listByNames: unused,
    modify: unused,
    delete: unused,
    list: () => (failWith ? Promise.reject(failWith) : Promise.resolve([])),
    close: async () => {
      state.closed += 1;
    },
  };
  return { store, state };
}

describe('serveDeployTemplates', () => {
  it('serves the API and closes the store with the server', async () => {
    const { store, state } = watched();
    const server = await serveDeployTemplates({ port: 0, store });
    const res = await fetch(`${server.url}/v1/deploy_templates`, {
      headers: { 'X-OpenStack-Ironic-API-Version': '1.55' },
    });
    expect(res.status).toBe(200);
    await server.close();
    expect(state.closed).toBe(1);
  });

  it('fails before listening when the store cannot be opened, and closes it', async () => {
    const down = new HttpError(500, 'The deploy template storage failed: connect ECONNREFUSED');
    const { store, state } = watched(down);
    const error = await serveDeployTemplates({ port: 0, store }).catch((e: unknown) => e);
    expect(isStackspecError(error) && error.message).toBe(down.message);
    expect(state.closed).toBe(1);
  });

  it("closes the store when the port is taken, and rejects with core's located usage error", async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as { port: number }).port;
    const { store, state } = watched();
    try {
      const error = await serveDeployTemplates({ port, store }).catch((e: unknown) => e);
      expect(isStackspecError(error)).toBe(true);
      expect(error).toMatchObject({
        code: 'serve/address-in-use',
        message: `Port ${port} on 127.0.0.1 is already in use.`,
        cause: { code: 'EADDRINUSE' },
      });
      expect((error as { diagnostics: { hint?: string }[] }).diagnostics[0]?.hint).toMatch(/--port 0/);
      expect(state.closed).toBe(1);
    } finally {
      taken.close();
    }
  });
});
