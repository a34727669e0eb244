// The handler behind a real HTTP server, as a non-Python client would use it.
import { startServer } from '@stackspec/core/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCapabilitiesHandler } from '../src/index.js';

let server: Awaited<ReturnType<typeof startServer>>;

beforeAll(async () => {
  server = await startServer(createCapabilitiesHandler(), { port: 0, host: '127.0.0.1' });
});

afterAll(async () => {
  await server.close();
});

describe('capabilities API over HTTP', () => {
  it('answers a resolution query and a bad request with Heat bodies', async () => {
    const base = `http://127.0.0.1:${server.port}/v1/demo`;
    const files = {
      'a/puppet.yaml': 'heat_template_version: wallaby\ncapabilities: {deployment: puppet}\n',
      'a/docker.yaml': 'heat_template_version: wallaby\ncapabilities: {deployment: docker}\n',
      'env.yaml':
        'requires: {deployment: docker}\nresource_registry:\n  OS::X: [a/puppet.yaml, a/docker.yaml]\n',
    };
    const ok = await fetch(`${base}/capabilities/resolve`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ files, environment_files: ['env.yaml'] }),
    });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('content-type')).toContain('application/json');
    expect(((await ok.json()) as { choices: unknown }).choices).toEqual({ 'OS::X': 'a/docker.yaml' });

    const bad = await fetch(`${base}/capabilities/resolve`, { method: 'POST', body: '[]' });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ code: 400, title: 'Bad Request', error: { traceback: null } });
  });
});
