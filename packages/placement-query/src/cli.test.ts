import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '@stackspec/core/cli';
import { describe, expect, it } from 'vitest';
import { memoryIO } from '../../../test-support/cli.js';
import { runPlacementCli } from './cli.js';
import { createPlacementHandler } from './http/service.js';

const fixtures = new URL('./fixtures/', import.meta.url).pathname;

async function run(argv: string[], options = {}, cwd = fixtures) {
  const f = memoryIO({ cwd });
  const code = await runCli(() => runPlacementCli(argv, f, options), f);
  return { code, out: f.out(), err: f.err() };
}

const A = '0000000a-0000-4000-8000-00000000000a';

/**
 * Starts `serve` on a free port in this process; resolves once it listens,
 * or fails with what it printed when it exits first (a refused option, a
 * locked directory), so that a test never waits for a server that is gone.
 */
async function startServe(argv: string[], cwd = fixtures) {
  const controller = new AbortController();
  const f = memoryIO({ cwd });
  let url = '';
  let ready: () => void = () => {};
  const listening = new Promise<void>((r) => {
    ready = r;
  });
  const done = runCli(
    () =>
      runPlacementCli(['serve', '--port', '0', ...argv], f, {
        signal: controller.signal,
        onListening: (u: string) => {
          url = u;
          ready();
        },
      }),
    f,
  );
  await Promise.race([
    listening,
    done.then((code) => {
      if (!url) throw new Error(`serve exited with ${code} before listening:\n${f.err()}`);
    }),
  ]);
  return {
    url,
    err: f.err,
    stop: () => {
      controller.abort();
      return done;
    },
  };
}

describe('stackspec-placement', () => {
  it('parse shows the typed request', async () => {
    const r = await run(['parse', `/allocation_candidates?resources=VCPU:1&member_of=!${A}`, '-m', '1.32']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out)).toMatchObject({
      endpoint: 'allocation_candidates',
      groups: [{ forbiddenAggregates: [A] }],
    });
  });

  it("parse prints Placement's 400 and exits 1", async () => {
    const r = await run(['parse', `member_of=!${A}`, '-e', 'resource_providers', '-m', '1.31']);
    expect(r.code).toBe(1);
    expect(r.err).toContain('Forbidden member_of parameters are not supported in the specified microversion');
  });

  it('parse names the status and the parameter at fault, with a hint', async () => {
    const r = await run(['parse', 'resources1=VCPU:0&resources=MEMORY_MB:1', '-m', '1.39']);
    expect(r.code).toBe(1);
    expect(r.err).toContain(
      'error: Requested resource VCPU requires amount >= 1. Got: 0. (HTTP 400, parameter resources1)',
    );
    const inside = await run(['parse', `member_of=in:${A},!${A}&resources=VCPU:1`]);
    expect(inside.err).toContain('(HTTP 400, parameter member_of)');
    expect(inside.err).toMatch(/hint: '!' cannot appear inside in:/);
  });

  it('parse explains a route that does not exist yet (404) instead of an empty message', async () => {
    const r = await run(['parse', 'resources=VCPU:1', '-m', '1.9']);
    expect(r.code).toBe(1);
    expect(r.err).toContain('error: GET /allocation_candidates exists from microversion 1.10. (HTTP 404)');
    expect(r.err).toContain('hint: ask for microversion 1.10 or later');
  });

  it('query reports an unknown trait as the 400 it is, naming the parameter', async () => {
    const r = await run(['query', '-i', 'spec-example.yaml', 'resources=VCPU:1&required=CUSTOM_NOPE']);
    expect(r.code).toBe(1);
    expect(r.err).toContain('No such trait(s): CUSTOM_NOPE. (HTTP 400, parameter required)');
  });

  it('rejects a microversion Placement does not serve with exit 2', async () => {
    const r = await run(['parse', 'resources=VCPU:1', '-m', '1.40']);
    expect(r.code).toBe(2);
  });

  it('query lists providers and candidates over an inventory file', async () => {
    const providers = await run([
      'query',
      '-i',
      'spec-example.yaml',
      `/resource_providers?member_of=!${A}`,
      '-f',
      'value',
      '-c',
      'name',
    ]);
    expect(providers.code).toBe(0);
    expect(providers.out.trim().split('\n')).toEqual([
      'numa1_1',
      'numa1_2',
      'cn2',
      'numa2_1',
      'numa2_2',
      'ss1',
      'ss2',
    ]);
    const table = await run([
      'query',
      '-i',
      'spec-example.yaml',
      `resources=VCPU:1,DISK_GB:10&member_of=!${A}`,
    ]);
    expect(table.out).toContain('numa2_1: VCPU=1; ss1: DISK_GB=10');
    const json = await run(['query', '-i', 'spec-example.yaml', 'resources=DISK_GB:10', '-f', 'json']);
    expect(Object.keys(JSON.parse(json.out).provider_summaries)).toHaveLength(2);
  });

  it('query reads an inventory over the default size with --max-inventory-mb', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pq-'));
    // A cloud file over core's default 10 MiB limit (a long comment stands in for 200k providers).
    const providers = Array.from({ length: 10 }, (_, i) => `  - name: rp${i}`).join('\n');
    writeFileSync(join(dir, 'big.yaml'), `# ${'x'.repeat(11 * 1024 * 1024)}\nproviders:\n${providers}\n`);
    const refused = await run(['query', '-i', 'big.yaml', '/resource_providers?name=rp7'], {}, dir);
    // Refused by size before a byte is read, as an input that cannot be used.
    expect(refused.code).toBe(2);
    expect(refused.err).toMatch(
      /^big\.yaml {2}error {2}The file holds \d+ bytes, more than the limit of 10485760 bytes; it is not read\. {2}\(fs\/too-large\)$/m,
    );
    expect(refused.err).toContain('Raise the limit with --max-inventory-mb N (in MiB).');
    const read = await run(
      [
        'query',
        '-i',
        'big.yaml',
        '--max-inventory-mb',
        '20',
        '/resource_providers?name=rp7',
        '-f',
        'value',
        '-c',
        'name',
      ],
      {},
      dir,
    );
    expect(read.code).toBe(0);
    expect(read.out.trim()).toBe('rp7');
  }, 60_000);

  it('query reports a bad inventory with its location and exits 1', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pq-'));
    writeFileSync(join(dir, 'bad.yaml'), 'providers:\n  - name: a\n    traits: [HW_CPU_X86_AVXX]\n');
    const r = await run(['query', '-i', 'bad.yaml', 'resources=VCPU:1'], {}, dir);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/bad\.yaml:3:\d+/);
  });

  it('from-flavor prints the query Nova would send, with the reservation flow', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pq-'));
    writeFileSync(join(dir, 'aggs.yaml'), `- uuid: ${A}\n  metadata: {reservation: r1}\n`);
    const r = await run(
      [
        'from-flavor',
        '--vcpus',
        '2',
        '--ram',
        '1024',
        '--aggregates',
        'aggs.yaml',
        '--default-forbidden-prefix',
        'reservation:',
        '--limit',
        '0',
      ],
      {},
      dir,
    );
    expect(r.code).toBe(0);
    expect(r.out.trim()).toBe(`/allocation_candidates?resources=VCPU:2,MEMORY_MB:1024&member_of=!${A}`);
    const reserved = await run(
      [
        'from-flavor',
        '--vcpus',
        '2',
        '-p',
        'reservation=r1',
        '--aggregates',
        'aggs.yaml',
        '--required-member-prefix',
        'reservation:',
        '--json',
      ],
      {},
      dir,
    );
    expect(JSON.parse(reserved.out).query).toContain(`member_of=${A}`);
  });

  it('from-flavor reads a flavor file, taking bare integers in extra specs as Nova strings', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pq-'));
    writeFileSync(
      join(dir, 'f.yaml'),
      'vcpus: 2\nmemory_mb: 1024\nextra_specs:\n  "resources:VCPU": 4\n  "trait:HW_CPU_X86_AVX2": required\n',
    );
    const r = await run(['from-flavor', '--flavor', 'f.yaml', '--limit', '0'], {}, dir);
    expect(r.code).toBe(0);
    expect(r.out.trim()).toBe(
      '/allocation_candidates?resources=VCPU:4,MEMORY_MB:1024&required=HW_CPU_X86_AVX2',
    );
  });

  it('from-flavor points at the line of a flavor file that is not a mapping or has a bad value', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pq-'));
    writeFileSync(join(dir, 'list.yaml'), '- vcpus: 2\n');
    const list = await run(['from-flavor', '--flavor', 'list.yaml'], {}, dir);
    expect(list.code).toBe(1);
    expect(list.err).toMatch(/list\.yaml:1:1 +error +The document must be a mapping/);
    writeFileSync(join(dir, 'bool.yaml'), 'vcpus: 2\nextra_specs:\n  "hw:mem_encryption": yes\n  ok: x\n');
    const bool = await run(['from-flavor', '--flavor', 'bool.yaml'], {}, dir);
    expect(bool.code).toBe(1);
    expect(bool.err).toMatch(/bool\.yaml:3:\d+ +error +.*must be a string/);
    writeFileSync(join(dir, 'vcpus.yaml'), 'vcpus: two\n');
    const vcpus = await run(['from-flavor', '--flavor', 'vcpus.yaml'], {}, dir);
    expect(vcpus.code).toBe(1);
    expect(vcpus.err).toMatch(/vcpus\.yaml:1:\d+ +error/);
  });

  it('from-flavor reads image properties and reports what Nova would refuse', async () => {
    const ok = await run([
      'from-flavor',
      '--vcpus',
      '1',
      '-p',
      'hw:mem_encryption=true',
      '--image-property',
      'hw_firmware_type=uefi',
      '--image-property',
      'trait:HW_CPU_X86_AVX2=required',
      '--limit',
      '0',
    ]);
    expect(ok.code).toBe(0);
    expect(ok.out.trim()).toBe(
      '/allocation_candidates?resources=VCPU:1,MEM_ENCRYPTION_CONTEXT:1&required=HW_CPU_X86_AVX2',
    );
    const refused = await run(['from-flavor', '--vcpus', '1', '-p', 'hw:mem_encryption=true']);
    expect(refused.code).toBe(1);
    expect(refused.err).toContain('hw_firmware_type=uefi');
    expect((await run(['from-flavor', '--image-property', 'oops'])).code).toBe(2);
  });

  it('refuses a FIFO or a device as an input file, saying what it is, without waiting on it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pq-'));
    expect(spawnSync('mkfifo', [join(dir, 'pipe.yaml')]).status).toBe(0);
    const pipe = await run(['query', '-i', 'pipe.yaml', 'resources=VCPU:1'], {}, dir);
    expect(pipe.code).toBe(2);
    expect(pipe.err).toContain(
      'pipe.yaml  error  The file cannot be read: it is a named pipe (FIFO), not a regular file.  (fs/unreadable)',
    );
    const zero = await run(['from-flavor', '--flavor', '/dev/zero'], {}, dir);
    expect(zero.code).toBe(2);
    expect(zero.err).toContain(
      '/dev/zero  error  The file cannot be read: it is a device, not a regular file.',
    );
    const missing = await run(['serve', '-i', 'nowhere.yaml', '--port', '0'], {}, dir);
    expect(missing.code).toBe(2);
    expect(missing.err).toContain('nowhere.yaml  error  The file does not exist.  (fs/not-found)');
  });

  it("serve refuses Placement's generation settings out of range, before reading anything", async () => {
    const strategy = await run(['serve', '--allocation-candidates-generation-strategy', 'sideways']);
    expect(strategy.code).toBe(2);
    expect(strategy.err).toContain(
      '--allocation-candidates-generation-strategy must be depth-first or breadth-first, not sideways',
    );
    const cap = await run(['serve', '--max-allocation-candidates', '-2']);
    expect(cap.code).toBe(2);
    expect(cap.err).toContain('Expected -1 or a non-negative integer, got -2');
  });

  it('serve --help says where writes are kept, and that --ephemeral loses them', async () => {
    const help = await run(['serve', '--help']);
    expect(help.code).toBe(0);
    const text = help.out.replace(/\s+/g, ' ');
    expect(text).toContain(
      'PGlite in a data directory (the default, ./placement-data, locked to one process)',
    );
    expect(text).toContain(
      'With --ephemeral, writes are kept in memory only: stopping the server loses every provider, inventory, trait and allocation written through the API, and the inventory file is never changed.',
    );
  });

  it('serve answers on a port until stopped, its state kept in the data directory it names', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'placement-serve-'));
    try {
      const dataDir = join(dir, 'data');
      const s = await startServe(['-i', 'spec-example.yaml', '--data-dir', dataDir]);
      try {
        expect(s.err()).toMatch(
          /^Placement API \(microversions 1\.0-1\.\d+\) on http:\/\/127\.0\.0\.1:\d+ with 8 providers\nState kept in PGlite in .+: writes survive a restart; the directory is locked to this process\.\nLoaded spec-example\.yaml into the empty database: 8 providers/,
        );
        expect(s.err()).toContain(`PGlite in ${dataDir}`);
        const r = await fetch(`${s.url}/resource_providers?name=cn1`, {
          headers: { 'openstack-api-version': 'placement 1.39' },
        });
        const body = (await r.json()) as { resource_providers: { name: string }[] };
        expect(body.resource_providers[0]?.name).toBe('cn1');
      } finally {
        expect(await s.stop()).toBe(0);
      }
      // Started again, it serves what the directory holds and leaves the file unread.
      const again = await startServe(['-i', 'spec-example.yaml', '--data-dir', dataDir]);
      try {
        expect(again.err()).toContain(
          'The database already holds 8 providers; spec-example.yaml was not loaded',
        );
        expect(again.err()).toContain('with 8 providers');
      } finally {
        expect(await again.stop()).toBe(0);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('serve --ephemeral answers from memory only, and says that writes are lost on stop', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'placement-serve-'));
    try {
      const s = await startServe(['-i', join(fixtures, 'spec-example.yaml'), '--ephemeral'], dir);
      try {
        expect(s.err()).toMatch(
          /^Placement API \(microversions 1\.0-1\.\d+\) on http:\/\/127\.0\.0\.1:\d+ with 8 providers\nWrites are kept in memory only \(--ephemeral\): stopping the server loses every provider/,
        );
        const health = await fetch(`${s.url}/healthz`);
        expect(health.status).toBe(200);
        expect(await health.json()).toMatchObject({ status: 'ok', store: { kind: 'memory' } });
      } finally {
        expect(await s.stop()).toBe(0);
      }
      // Nothing was written where it ran: no default data directory.
      expect(readdirSync(dir)).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('serve --auth trusted-headers checks Placement as shipped, its new defaults with --enforce-new-defaults', async () => {
    // Nova's service user: an admin of the service project, not system-scoped.
    const projectAdmin = async (flags: string[]) => {
      const s = await startServe(['--ephemeral', '--auth', 'trusted-headers', ...flags]);
      try {
        const r = await fetch(`${s.url}/resource_providers`, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'openstack-api-version': 'placement 1.39',
            'x-roles': 'admin,member,reader',
            'x-project-id': 'service',
          },
          body: JSON.stringify({ name: 'cn1' }),
        });
        return r.status;
      } finally {
        expect(await s.stop()).toBe(0);
      }
    };
    expect(await projectAdmin([])).toBe(200);
    expect(await projectAdmin(['--enforce-new-defaults'])).toBe(403);
    const alone = await run(['serve', '--enforce-new-defaults']);
    expect(alone.code).toBe(2);
    expect(alone.err).toContain(
      '--enforce-new-defaults changes the policy checked under --auth trusted-headers',
    );
    const help = (await run(['serve', '--help'])).out.replace(/\s+/g, ' ');
    expect(help).toContain('writes need admin in any scope');
    expect(help).toContain('--enforce-new-defaults');
  });

  it('serve refuses a data directory another server holds, naming it, and exits 2', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'placement-serve-'));
    try {
      const first = await startServe(['--data-dir', dir]);
      try {
        const second = await run(['serve', '--port', '0', '--data-dir', dir]);
        expect(second.code).toBe(2);
        expect(second.err).toContain(`in use by this process (pid ${process.pid})`);
        expect(second.err).toContain('Another process has this data directory open');
      } finally {
        expect(await first.stop()).toBe(0);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('load replays an inventory into a Placement endpoint', async () => {
    const handler = createPlacementHandler();
    const fakeFetch = ((input: string, init: RequestInit) =>
      handler(new Request(input, init))) as typeof fetch;
    const r = await run(['load', '-i', 'spec-example.yaml', '--url', 'http://placement.test'], {
      fetch: fakeFetch,
    });
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/Loaded 8 providers/);
    expect(handler.store.providerByName('numa1_1')?.aggregates.size).toBe(1);
  });
});
