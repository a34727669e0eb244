// test-support/bin.ts runs the workspace's commands as processes for every
// package's process-level tests; vitest only collects tests under packages/,
// so its own tests live here. They run real commands: the built ones when
// CI built them (STACKSPEC_REQUIRE_BUILT=1), else the sources through tsx.
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { binArgs, binEnv, runBin, USE_BUILT, workspaceBins } from '../../../test-support/bin.js';

const COMMANDS = [
  'stackspec',
  'stackspec-baremetal',
  'stackspec-extra-specs',
  'stackspec-heat',
  'stackspec-image',
  'stackspec-placement',
];

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'test-support-bin-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('workspaceBins and binArgs', () => {
  it("finds every package's command from its package.json, with a source beside it", () => {
    const bins = workspaceBins();
    expect([...bins.keys()].sort()).toEqual(COMMANDS);
    for (const bin of bins.values()) {
      expect(existsSync(bin.source), bin.source).toBe(true);
      expect(bin.built).toMatch(/\/dist\/bin\/[\w-]+\.js$/);
    }
    expect(bins.get('stackspec-placement')?.source).toMatch(
      /packages\/placement-query\/src\/bin\/stackspec-placement\.ts$/,
    );
  });

  it(`starts the ${USE_BUILT ? 'built file' : 'source through tsx with the source condition'}`, () => {
    const args = binArgs('stackspec-heat');
    if (USE_BUILT) expect(args).toEqual([workspaceBins().get('stackspec-heat')?.built]);
    else {
      expect(args.slice(0, 2)).toEqual(['--conditions=@stackspec/source', '--import']);
      expect(args[2]).toMatch(/^file:\/\/.*\/tsx\/dist\/loader\.mjs$/);
      expect(args[3]).toBe(workspaceBins().get('stackspec-heat')?.source);
    }
  });

  it('refuses an unknown command and names the known ones', () => {
    expect(() => binArgs('stackspec-nova')).toThrow(
      /no workspace package has the command stackspec-nova; known: stackspec, /,
    );
  });
});

describe('binEnv', () => {
  it('is colourless and not CI unless asked, and removes variables set to undefined', () => {
    const saved = { FORCE_COLOR: process.env.FORCE_COLOR, CI: process.env.CI };
    process.env.FORCE_COLOR = '3';
    process.env.CI = 'true';
    try {
      const env = binEnv({ EXTRA: 'x', PATH: undefined });
      expect(env).toMatchObject({ NO_COLOR: '1', EXTRA: 'x' });
      expect(env).not.toHaveProperty('FORCE_COLOR');
      expect(env).not.toHaveProperty('CI');
      expect(env).not.toHaveProperty('PATH');
      expect(binEnv({ FORCE_COLOR: '1', NO_COLOR: undefined })).toMatchObject({ FORCE_COLOR: '1' });
      expect(binEnv({ NO_COLOR: undefined })).not.toHaveProperty('NO_COLOR');
    } finally {
      for (const [k, v] of Object.entries(saved)) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
    }
  });
});

describe(`runBin (${USE_BUILT ? 'built' : 'from source'})`, () => {
  it('feeds standard input and returns the exit code and both streams', async () => {
    const r = await runBin('stackspec-extra-specs', ['validate', '-', '--format', 'json'], {
      stdin: '{"name": "s", "extra_specs": {"hw:cpu_polcy": "dedicated"}}',
    });
    expect(r.code, r.stderr).toBe(1);
    expect(r.signal).toBeNull();
    expect(JSON.parse(r.stdout)).toMatchObject({
      ok: false,
      diagnostics: [
        { file: '<stdin>', code: 'extra-specs/unknown-key', hint: 'Did you mean hw:cpu_policy?' },
      ],
    });
  });

  it('runs in the given folder and returns a usage error as a result', async () => {
    writeFileSync(
      join(dir, 'flavors.yaml'),
      'flavors:\n  - name: a\n    extra_specs:\n      hw:cpu_policy: dedicated\n',
    );
    const ok = await runBin('stackspec-extra-specs', ['validate', 'flavors.yaml'], { cwd: dir });
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toContain('no problems in 1 file');
    const usage = await runBin('stackspec-extra-specs', ['validate', '--no-such-option'], { cwd: dir });
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain('--no-such-option');
  });

  it('passes the environment, and lets a server in this process answer the command', async () => {
    const seen: string[] = [];
    const server = createServer((req, res) => {
      seen.push(`${req.method} ${req.url}`);
      res.setHeader('content-type', 'application/json');
      res.end('{"deploy_templates": []}');
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    try {
      const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const r = await runBin('stackspec-baremetal', ['deploy', 'template', 'list', '-f', 'json'], {
        env: { OS_ENDPOINT: endpoint, STACKSPEC_DATABASE_URL: undefined },
        cwd: dir,
      });
      expect(r.code, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout)).toEqual([]);
      expect(seen).toEqual(['GET /v1/deploy_templates']);
    } finally {
      await new Promise((done) => server.close(done));
    }
  });

  it('kills a command that runs past its timeout and rejects with what it printed', async () => {
    await expect(
      runBin('stackspec-placement', ['serve', '--port', '0'], { cwd: dir, timeout: 4000 }),
    ).rejects.toThrow(
      /^stackspec-placement serve --port 0 did not finish within 4000 ms and was killed\n--- stdout\n/,
    );
  });

  it('rejects an unknown command before starting anything', async () => {
    await expect(runBin('nope', [])).rejects.toThrow(/no workspace package has the command nope/);
  });
});
