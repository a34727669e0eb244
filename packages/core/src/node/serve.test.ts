import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it, vi } from 'vitest';
import { httpRequest, rawRequest } from '../../../../test-support/raw-http.js';
import { exitCodeFor } from '../cli/run.js';
import { isStackspecError, type StackspecError } from '../errors.js';
import { bytesResponse, DEFAULT_MAX_HEADER_BYTES, type OversizedHead, startServer } from './serve.js';

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

describe('startServer with an oversized request head', () => {
  const longLine = `GET /compute/${'a'.repeat(100_000)} HTTP/1.1\r\nHost: x\r\n\r\n`;
  const longHeaders = `GET /placement/x HTTP/1.1\r\nHost: x\r\nX-Big: ${'b'.repeat(100_000)}\r\n\r\n`;

  it('answers a long request line with 414 and long headers with 400, then serves on', async () => {
    const server = await startServer(() => new Response('ok'));
    try {
      const line = await rawRequest(server.url, longLine);
      expect(line.status).toBe(414);
      expect(line.headers['content-type']).toBe('application/json');
      expect(line.headers.connection).toBe('close');
      expect(JSON.parse(line.body.toString())).toEqual({
        error: {
          status: 414,
          code: 'http/request-line-too-long',
          message: `The request line is longer than this server accepts (${DEFAULT_MAX_HEADER_BYTES} bytes for the request line and headers together).`,
        },
      });
      const headers = await rawRequest(server.url, longHeaders);
      expect(headers.status).toBe(400);
      expect(JSON.parse(headers.body.toString()).error.code).toBe('http/headers-too-large');
      expect(await (await fetch(server.url)).text()).toBe('ok');
    } finally {
      await server.close();
    }
  });

  it("gives the head to the handler's own hook, with the path, for the service's body", async () => {
    const seen: OversizedHead[] = [];
    const handler = Object.assign(() => new Response('ok'), {
      oversizedHead: (head: OversizedHead) => {
        seen.push(head);
        return Response.json({ mine: head.status }, { status: head.status, headers: { 'x-a': '1' } });
      },
    });
    const server = await startServer(handler);
    try {
      const r = await rawRequest(server.url, longHeaders);
      expect(r.status).toBe(400);
      expect(r.headers['x-a']).toBe('1');
      expect(JSON.parse(r.body.toString())).toEqual({ mine: 400 });
      await rawRequest(server.url, longLine);
      expect(seen.map((h) => [h.status, h.path?.slice(0, 10)])).toEqual([
        [400, '/placement'],
        [414, '/compute/a'],
      ]);
    } finally {
      await server.close();
    }
  });

  it('prefers the hook in its options, and falls back on the neutral body when a hook throws', async () => {
    const errors: unknown[] = [];
    const server = await startServer(() => new Response('ok'), {
      oversizedHead: () => {
        throw new Error('hook failed');
      },
      onError: (e) => errors.push(e),
    });
    try {
      const r = await rawRequest(server.url, longLine);
      expect(r.status).toBe(414);
      expect(JSON.parse(r.body.toString()).error.status).toBe(414);
      expect(errors).toHaveLength(1);
    } finally {
      await server.close();
    }
  });

  it('reads heads up to maxHeaderBytes, and tells the parts apart when they come slowly', async () => {
    const server = await startServer((req) => new Response(String(new URL(req.url).pathname.length)), {
      maxHeaderBytes: 32 * 1024,
    });
    try {
      // 20 KB is past Node's own 16 KiB default but within the limit given.
      const fine = await rawRequest(server.url, httpRequest('GET', `/${'a'.repeat(20_000)}`));
      expect(fine.status).toBe(200);
      expect(fine.body.toString()).toBe('20001');
      // The limit is passed pieces after the request line began.
      expect((await rawRequest(server.url, longLine, { chunkSize: 4096 })).status).toBe(414);
      expect((await rawRequest(server.url, longHeaders, { chunkSize: 4096 })).status).toBe(400);
    } finally {
      await server.close();
    }
  });

  it('keeps Node’s bare 400 for requests it cannot parse otherwise', async () => {
    const server = await startServer(() => new Response('ok'));
    try {
      const r = await rawRequest(server.url, 'NOT HTTP AT ALL\r\n\r\n');
      expect(r.status).toBe(400);
      expect(r.body.length).toBe(0);
    } finally {
      await server.close();
    }
  });

  it('refuses a head limit below 1 KiB', async () => {
    await expect(startServer(() => new Response(''), { maxHeaderBytes: 10 })).rejects.toMatchObject({
      code: 'serve/bad-option',
    });
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
