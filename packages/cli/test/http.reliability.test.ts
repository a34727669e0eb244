// Hostile requests to the real `stackspec serve --auth trusted-headers`, a
// separate process, over loopback sockets: bodies that are not UTF-8 (400,
// nothing stored), a 100 KB request line and 100 KB of headers (414 and
// 400 in the service's body, and the server serves on), bodies past each
// API's limit (413 in the service's body), writes without roles (403 on
// every API that writes), and 200 templates near the body limit listed in
// detail by three clients at once with the server's peak memory bounded.
// Every case has an upper bound on its time.
import { describe, expect, it } from 'vitest';
import { processMemoryMiB, resetPeakMemory } from '../../../test-support/memory.js';
import { httpRequest, rawRequest } from '../../../test-support/raw-http.js';
import { serveFolderForSuite } from './process.js';

const ADMIN = {
  'X-Roles': 'admin,member,reader',
  'OpenStack-System-Scope': 'all',
  'Content-Type': 'application/json',
};
const COMPUTE = { 'OpenStack-API-Version': 'compute 2.86' };
const PLACEMENT = { 'OpenStack-API-Version': 'placement 1.39' };
const IRONIC = { 'X-OpenStack-Ironic-API-Version': '1.55' };
// The per-request body limits: Nova's and ours for Ironic (oslo's 112 KiB), Placement's 1 MiB, Heat's 32 MiB.
const SMALL_LIMIT = 114_688;
const text = (s: string) => new TextEncoder().encode(s);
const notUtf8 = (prefix: string, suffix: string) =>
  Uint8Array.from([...text(prefix), 0xff, 0xfe, ...text(suffix)]);

/** Runs `fn`, failing when it takes longer than `ms`. */
async function within<T>(ms: number, fn: () => Promise<T>): Promise<T> {
  const started = performance.now();
  const out = await fn();
  expect(performance.now() - started).toBeLessThan(ms);
  return out;
}

const memory = (pid: number) => processMemoryMiB(pid) ?? { peak: Number.NaN, now: Number.NaN };

const served = serveFolderForSuite(
  'stackspec-http-reliability-',
  { 'flavors.yaml': 'name: m1\nextra_specs: {}\n' },
  ['--auth', 'trusted-headers', 'flavors.yaml'],
);

const json = async (path: string, headers: Record<string, string> = {}) => {
  const r = await fetch(`${served.url}${path}`, { headers: { ...ADMIN, ...headers } });
  return { status: r.status, body: (await r.json()) as Record<string, unknown> };
};

describe('stackspec serve under hostile requests', () => {
  it('refuses bodies that are not UTF-8 on every API with a 400 and stores nothing', async () => {
    await within(10_000, async () => {
      const compute = await rawRequest(
        served.url,
        httpRequest(
          'POST',
          '/compute/v2.1/flavors/m1/os-extra_specs',
          { ...ADMIN, ...COMPUTE },
          notUtf8('{"extra_specs": {"a": "', '"}}'),
        ),
      );
      expect(compute.status).toBe(400);
      expect(JSON.parse(compute.body.toString())).toEqual({
        badRequest: { code: 400, message: 'Malformed request body' },
      });

      const placement = await rawRequest(
        served.url,
        httpRequest(
          'POST',
          '/placement/resource_providers',
          { ...ADMIN, ...PLACEMENT },
          notUtf8('{"name": "', '"}'),
        ),
      );
      expect(placement.status).toBe(400);
      const detail = (JSON.parse(placement.body.toString()) as { errors: { detail: string }[] }).errors[0]
        ?.detail;
      expect(detail).toContain(
        "Malformed JSON: 'utf-8' codec can't decode byte 0xff in position 10: invalid start byte",
      );

      const baremetal = await rawRequest(
        served.url,
        httpRequest(
          'POST',
          '/baremetal/v1/deploy_templates',
          { ...ADMIN, ...IRONIC },
          notUtf8(
            '{"name": "CUSTOM_BAD", "steps": [{"interface": "raid", "step": "x", "args": {"a": "',
            '"}, "priority": 1}]}',
          ),
        ),
      );
      expect(baremetal.status).toBe(400);
      expect(baremetal.body.toString()).toBe(
        '{"error_message": "{\\"code\\": 400, \\"title\\": \\"Bad Request\\", \\"description\\": \\"\\"}"}',
      );

      const orchestration = await rawRequest(
        served.url,
        httpRequest(
          'POST',
          '/orchestration/v1/admin/capabilities/summary',
          ADMIN,
          notUtf8('{"files": {"a.yaml": "', '"}}'),
        ),
      );
      expect(orchestration.status).toBe(400);
      expect(JSON.parse(orchestration.body.toString())).toMatchObject({ code: 400, title: 'Bad Request' });

      // Nothing was stored anywhere.
      expect((await json('/compute/v2.1/flavors/m1/os-extra_specs', COMPUTE)).body).toEqual({
        extra_specs: {},
      });
      expect((await json('/placement/resource_providers', PLACEMENT)).body).toEqual({
        resource_providers: [],
      });
      expect((await json('/baremetal/v1/deploy_templates', IRONIC)).body.deploy_templates).toEqual([]);
    });
  });

  it.each([
    [
      'compute',
      '/compute/v2.1/flavors',
      (b: string) => expect(JSON.parse(b)).toHaveProperty('computeFault.code', 414),
    ],
    [
      'placement',
      '/placement/resource_providers',
      (b: string) => expect(JSON.parse(b)).toHaveProperty(['errors', 0, 'status'], 414),
    ],
    [
      'baremetal',
      '/baremetal/v1/deploy_templates',
      (b: string) => expect(JSON.parse(JSON.parse(b).error_message)).toHaveProperty('code', 414),
    ],
    [
      'orchestration',
      '/orchestration/v1',
      (b: string) => expect(JSON.parse(b)).toHaveProperty('error.type', 'HTTPRequestURITooLong'),
    ],
    [
      'no service',
      '/elsewhere',
      (b: string) => expect(JSON.parse(b)).toHaveProperty('error.code', 'http/request-line-too-long'),
    ],
  ])(
    'answers a 100 KB request line to %s with 414 in its body, then serves on',
    async (_api, path, check) => {
      await within(5_000, async () => {
        const r = await rawRequest(
          served.url,
          `GET ${path}?q=${'a'.repeat(100_000)} HTTP/1.1\r\nHost: x\r\n\r\n`,
        );
        expect(r.status).toBe(414);
        expect(r.headers.connection).toBe('close');
        check(r.body.toString());
        expect((await fetch(`${served.url}/healthz`)).status).toBe(200);
      });
    },
  );

  it('answers 100 KB of headers with 400 in the service body, sent at once or slowly, then serves on', async () => {
    await within(10_000, async () => {
      const head = `GET /placement/resource_providers HTTP/1.1\r\nHost: x\r\n${Array.from({ length: 1000 }, (_, i) => `X-Filler-${i}: ${'b'.repeat(90)}`).join('\r\n')}\r\n\r\n`;
      expect(head.length).toBeGreaterThan(100_000);
      for (const chunkSize of [undefined, 4096]) {
        const r = await rawRequest(served.url, head, chunkSize ? { chunkSize } : {});
        expect(r.status).toBe(400);
        expect(JSON.parse(r.body.toString())).toHaveProperty(['errors', 0, 'title'], 'Bad Request');
      }
      expect((await fetch(`${served.url}/healthz`)).status).toBe(200);
    });
  });

  it("refuses bodies past each API's limit with 413 in its body", async () => {
    await within(20_000, async () => {
      const big = (size: number) => `{"pad": "${'x'.repeat(size)}"}`;
      const compute = await rawRequest(
        served.url,
        httpRequest(
          'POST',
          '/compute/v2.1/flavors/m1/os-extra_specs',
          { ...ADMIN, ...COMPUTE, Accept: 'application/json' },
          big(SMALL_LIMIT),
        ),
      );
      expect(compute.status).toBe(413);
      expect(JSON.parse(compute.body.toString())).toHaveProperty('code', '413 Request Entity Too Large');
      const placement = await rawRequest(
        served.url,
        httpRequest('POST', '/placement/resource_providers', { ...ADMIN, ...PLACEMENT }, big(1024 * 1024)),
      );
      expect(placement.status).toBe(413);
      expect(JSON.parse(placement.body.toString())).toHaveProperty(
        ['errors', 0, 'title'],
        'Request Entity Too Large',
      );
      const baremetal = await rawRequest(
        served.url,
        httpRequest('POST', '/baremetal/v1/deploy_templates', { ...ADMIN, ...IRONIC }, big(SMALL_LIMIT)),
      );
      expect(baremetal.status).toBe(413);
      expect(JSON.parse(JSON.parse(baremetal.body.toString()).error_message)).toMatchObject({
        code: 413,
        description: `Request is too large. Larger than max_request_body_size (${SMALL_LIMIT}).`,
      });
      const orchestration = await rawRequest(
        served.url,
        httpRequest('POST', '/orchestration/v1/admin/capabilities/summary', ADMIN, big(32 * 1024 * 1024)),
        { timeoutMs: 15_000 },
      );
      expect(orchestration.status).toBe(413);
      expect(JSON.parse(orchestration.body.toString())).toMatchObject({
        code: 413,
        error: { type: 'RequestLimitExceeded' },
      });
    });
  });

  it('refuses writes without roles on every API that writes, with its 403', async () => {
    await within(10_000, async () => {
      const post = (path: string, headers: Record<string, string>, body: unknown) =>
        fetch(`${served.url}${path}`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', ...headers },
          body: JSON.stringify(body),
        });
      const compute = await post('/compute/v2.1/flavors/m1/os-extra_specs', COMPUTE, {
        extra_specs: { 'hw:numa_nodes': '1' },
      });
      expect(compute.status).toBe(403);
      expect(await compute.json()).toHaveProperty('forbidden.code', 403);
      const del = await fetch(`${served.url}/compute/v2.1/flavors/m1/os-extra_specs/hw:numa_nodes`, {
        method: 'DELETE',
        headers: COMPUTE,
      });
      expect(del.status).toBe(403);
      const placement = await post('/placement/resource_providers', PLACEMENT, { name: 'cn1' });
      expect(placement.status).toBe(403);
      expect(await placement.json()).toHaveProperty(['errors', 0, 'status'], 403);
      const baremetal = await post('/baremetal/v1/deploy_templates', IRONIC, {
        name: 'CUSTOM_X',
        steps: [{ interface: 'raid', step: 'x', args: {}, priority: 1 }],
      });
      expect(baremetal.status).toBe(403);
      expect(
        JSON.parse(((await baremetal.json()) as { error_message: string }).error_message),
      ).toHaveProperty(
        'faultstring',
        'Access was denied to the following resource: baremetal:deploy_template:create',
      );
    });
  });

  it('lists 200 templates near the body limit to three clients at once within bounded memory', async () => {
    const args = { blob: 'x'.repeat(SMALL_LIMIT - 400) };
    const created = await within(90_000, async () => {
      let next = 0;
      const worker = async () => {
        while (next < 200) {
          const i = next++;
          const r = await fetch(`${served.url}/baremetal/v1/deploy_templates`, {
            method: 'POST',
            headers: { ...ADMIN, ...IRONIC },
            body: JSON.stringify({
              name: `CUSTOM_BIG_${String(i).padStart(3, '0')}`,
              steps: [{ interface: 'raid', step: 'create_configuration', args, priority: 10 }],
            }),
          });
          expect(r.status).toBe(201);
          await r.arrayBuffer();
        }
      };
      await Promise.all([worker(), worker(), worker(), worker()]);
      return next;
    });
    expect(created).toBe(200);
    const pid = served.server.child.pid as number;
    // Starting the server (PGlite, and tsx when run from source) sets a peak of its own; measure the lists alone.
    resetPeakMemory(pid);
    const before = memory(pid).now;
    // Each client reads every page, following `next` as Ironic's clients do.
    const client = async () => {
      let page: string | undefined = `${served.url}/baremetal/v1/deploy_templates?detail=True`;
      let count = 0;
      let largest = 0;
      while (page) {
        const r = await fetch(page, { headers: { ...ADMIN, ...IRONIC } });
        const body = await r.text();
        largest = Math.max(largest, body.length);
        const parsed = JSON.parse(body) as { deploy_templates: unknown[]; next?: string };
        count += parsed.deploy_templates.length;
        page = parsed.next;
      }
      return { count, largest };
    };
    const results = await within(60_000, () => Promise.all([client(), client(), client()]));
    for (const r of results) {
      expect(r.count).toBe(200);
      // A page stops at 4 MiB of JSON (plus the template that passes it).
      expect(r.largest).toBeLessThan(4 * 1024 * 1024 + SMALL_LIMIT * 2);
    }
    const peak = memory(pid).peak;
    console.log(
      `stackspec serve: ${before.toFixed(0)} MiB before the lists, peak ${peak.toFixed(0)} MiB during them`,
    );
    // Measured: some 95 MiB more; whole lists, as before pages were cut by size, took some 390 MiB more.
    expect(peak - before).toBeLessThan(200);
  }, 180_000);
});
