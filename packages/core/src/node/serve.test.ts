import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it, vi } from 'vitest';
import { exitCodeFor } from '../cli/run.js';
import { isStackspecError, type StackspecError } from '../errors.js';
import { bytesResponse, startServer } from './serve.js';

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

describe('bytesResponse', () => {
  const bytes = new TextEncoder().encode('{"a": "é"}');

  it('is an ordinary response whose body gives the same bytes', async () => {
    const r = bytesResponse(bytes, { status: 201, headers: { 'content-type': 'application/json' } });
    expect(r).toBeInstanceOf(Response);
    expect(r.status).toBe(201);
    expect(r.headers.get('content-type')).toBe('application/json');
    expect(new Uint8Array(await r.arrayBuffer())).toEqual(bytes);
    expect(await bytesResponse(new Uint8Array(0)).text()).toBe('');
  });

  it('is written as it is by startServer, with its status, headers and a Content-Length', async () => {
    const big = new Uint8Array(3 * 1024 * 1024).fill(0x61);
    const server = await startServer((req) => {
      const path = new URL(req.url).pathname;
      if (path === '/big') return bytesResponse(big);
      const r = bytesResponse(bytes, { status: 202, statusText: 'Taken', headers: { 'x-a': '1' } });
      // Headers changed after the response was made still go out.
      r.headers.set('x-b', '2');
      r.headers.append('set-cookie', 'a=1');
      r.headers.append('set-cookie', 'b=2');
      return r;
    });
    try {
      const r = await fetch(`${server.url}/small`);
      expect(r.status).toBe(202);
      expect(r.statusText).toBe('Taken');
      expect(r.headers.get('content-length')).toBe(String(bytes.byteLength));
      expect(r.headers.get('x-a')).toBe('1');
      expect(r.headers.get('x-b')).toBe('2');
      expect(r.headers.getSetCookie()).toEqual(['a=1', 'b=2']);
      expect(new Uint8Array(await r.arrayBuffer())).toEqual(bytes);
      const large = await fetch(`${server.url}/big`);
      expect(large.headers.get('content-length')).toBe(String(big.byteLength));
      // Compared natively: an element-wise comparison of 3 MiB outlasts the keep-alive timeout.
      expect(Buffer.from(await large.arrayBuffer()).equals(big)).toBe(true);
      // HEAD: the headers of the full answer, no body.
      const head = await fetch(`${server.url}/small`, { method: 'HEAD' });
      expect(head.headers.get('content-length')).toBe(String(bytes.byteLength));
      expect(await head.text()).toBe('');
    } finally {
      await server.close();
    }
  });

  it('goes through the ordinary path once its body has been read', async () => {
    // @hono/node-server reports the used body on the console.
    const logged = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const server = await startServer(async () => {
      const r = bytesResponse(bytes);
      await r.arrayBuffer();
      return r;
    });
    try {
      // A used body cannot be sent again, as for any Response.
      expect((await fetch(server.url)).status).toBe(500);
      expect(logged).toHaveBeenCalled();
    } finally {
      logged.mockRestore();
      await server.close();
    }
  });
});

describe('startServer when it cannot listen', () => {
  const handler = () => new Response('ok');

  async function refusal(options: Parameters<typeof startServer>[1]) {
    try {
      const server = await startServer(handler, options);
      await server.close();
    } catch (e) {
      expect(isStackspecError(e)).toBe(true);
      return e as StackspecError;
    }
    return expect.unreachable('startServer listened');
  }

  it('names host and port when the port is taken, with the Node error as its cause', async () => {
    const taken = await startServer(handler);
    try {
      const e = await refusal({ port: taken.port });
      expect(e).toMatchObject({ code: 'serve/address-in-use', kind: 'usage' });
      expect(e.message).toBe(`Port ${taken.port} on 127.0.0.1 is already in use.`);
      expect(e.diagnostics[0]?.hint).toBe('Pick another --port, or --port 0 for a free one.');
      expect((e.cause as { code?: string }).code).toBe('EADDRINUSE');
      expect(exitCodeFor(e)).toBe(2);
    } finally {
      await taken.close();
    }
  });

  it('says a host is not an address of this machine', async () => {
    // 192.0.2.0/24 is reserved for documentation: no machine has it.
    const e = await refusal({ host: '192.0.2.1', port: 6385 });
    expect(e.code).toBe('serve/bad-host');
    expect(e.message).toBe('Cannot listen on 192.0.2.1:6385: 192.0.2.1 is not an address of this machine.');
    expect(e.diagnostics[0]?.hint).toMatch(/^Pick another --host: 127\.0\.0\.1/);
    const v6 = await refusal({ host: '2001:db8::1', port: 6385 });
    expect(v6.message).toBe(
      'Cannot listen on [2001:db8::1]:6385: 2001:db8::1 is not an address of this machine.',
    );
  });

  it('says a host name does not resolve', async () => {
    // .invalid never resolves (RFC 2606); a resolver without network says so too (EAI_AGAIN).
    const e = await refusal({ host: 'no-such-host.invalid', port: 0 });
    expect(e.code).toBe('serve/bad-host');
    expect(e.message).toBe(
      'Cannot listen on no-such-host.invalid:0: the host name no-such-host.invalid does not resolve.',
    );
    expect(['ENOTFOUND', 'EAI_AGAIN', 'EAI_FAIL', 'EAI_NONAME']).toContain(
      (e.cause as { code?: string }).code,
    );
  });

  it.each([
    [-1, '-1'],
    [65536, '65536'],
    [1.5, '1.5'],
    [Number.NaN, 'NaN'],
  ])('refuses the port %s before trying', async (port, shown) => {
    const e = await refusal({ port });
    expect(e.code).toBe('serve/bad-port');
    expect(e.message).toBe(
      `Cannot listen on 127.0.0.1: the port must be a whole number from 0 to 65535, not ${shown}.`,
    );
    expect(e.cause).toBeUndefined();
  });

  it('refuses an empty host instead of listening on every interface', async () => {
    expect((await refusal({ host: '' })).code).toBe('serve/bad-host');
  });

  // Only a process without privileges gets EACCES for a low port: as root the
  // check runs in a child process as user nobody; otherwise in this process.
  it.runIf(privilegedPortsGuarded())('says a privileged port needs privileges', async () => {
    const result = isRoot() ? refusalAsNobody() : await refusal({ port: 1 }).then(summary);
    expect(result).toEqual({
      code: 'serve/permission-denied',
      message: 'Listening on 127.0.0.1:1 is not allowed (EACCES).',
      hint: 'Ports below 1024 need privileges; pick another --port, or --port 0 for a free one.',
      cause: 'EACCES',
    });
  });
});

function summary(e: StackspecError) {
  return {
    code: e.code,
    message: e.message,
    hint: e.diagnostics[0]?.hint,
    cause: (e.cause as { code?: string }).code,
  };
}

function isRoot(): boolean {
  return process.getuid?.() === 0;
}

// Whether binding port 1 needs privileges here (Linux may lower the limit to 0).
function privilegedPortsGuarded(): boolean {
  try {
    return Number(readFileSync('/proc/sys/net/ipv4/ip_unprivileged_port_start', 'utf8')) > 1;
  } catch {
    return process.platform !== 'win32';
  }
}

function refusalAsNobody(): unknown {
  const source = pathToFileURL(join(import.meta.dirname, 'serve.ts')).href;
  const script = `
    const { startServer } = await import(${JSON.stringify(source)});
    try { await startServer(() => new Response(''), { port: 1 }); console.log('null'); process.exit(0); }
    catch (e) { console.log(JSON.stringify({ code: e.code, message: e.message, hint: e.diagnostics[0].hint, cause: e.cause.code })); }
  `;
  const r = spawnSync(
    process.execPath,
    ['--conditions=@stackspec/source', '--import', TSX_LOADER, '--input-type=module', '-e', script],
    {
      encoding: 'utf8',
      uid: 65534,
      gid: 65534,
      cwd: tmpdir(),
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: tmpdir() },
      timeout: 60_000,
    },
  );
  if (r.status !== 0) throw new Error(`the child as nobody failed (${r.status}): ${r.stderr}`);
  return JSON.parse(r.stdout);
}

const TSX_LOADER = pathToFileURL(
  join(dirname(createRequire(import.meta.url).resolve('tsx/package.json')), 'dist/loader.mjs'),
).href;
