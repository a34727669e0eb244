// `stackspec-baremetal` run as a user runs it: a separate process, real
// streams, signals and exit codes. CI builds first and sets
// STACKSPEC_REQUIRE_BUILT=1, so the built bin runs there; elsewhere the same
// entry point runs from source, since a local dist may be stale.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const PKG = join(import.meta.dirname, '..');
const BUILT = join(PKG, 'dist/bin/stackspec-baremetal.js');
const useBuilt = process.env.STACKSPEC_REQUIRE_BUILT === '1';
// tsx's loader by absolute URL: the process runs in a temporary folder.
const TSX_LOADER = pathToFileURL(
  join(dirname(createRequire(import.meta.url).resolve('tsx/package.json')), 'dist/loader.mjs'),
).href;
const ENTRY = useBuilt
  ? [BUILT]
  : ['--conditions=@stackspec/source', '--import', TSX_LOADER, join(PKG, 'src/bin/stackspec-baremetal.ts')];
const ENV = { ...process.env, NO_COLOR: '1', FORCE_COLOR: '', OS_ENDPOINT: '', STACKSPEC_DATABASE_URL: '' };
const STEPS = '[{"interface": "raid", "step": "create_configuration", "args": {}, "priority": 10}]';

let cwd: string;
beforeAll(() => {
  if (useBuilt && !existsSync(BUILT)) {
    throw new Error(`STACKSPEC_REQUIRE_BUILT is set but ${BUILT} is missing; run pnpm build first`);
  }
  cwd = mkdtempSync(join(tmpdir(), 'dt-process-'));
});
afterAll(() => rmSync(cwd, { recursive: true, force: true }));

function baremetal(args: string[]) {
  const r = spawnSync(process.execPath, [...ENTRY, ...args], {
    cwd,
    encoding: 'utf8',
    env: ENV,
    timeout: 120_000,
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

describe(`stackspec-baremetal as a process (${useBuilt ? 'built' : 'from source'})`, () => {
  it('prints its help and exits 0', () => {
    const help = baremetal(['--help']);
    expect(help.code).toBe(0);
    expect(help.out).toContain('serve');
    expect(help.out).toContain('deploy');
  });

  it('keeps templates in a data directory and exits 2 on a bad command line', () => {
    expect(
      baremetal(['--data-dir', 'db', 'deploy', 'template', 'create', 'CUSTOM_P', '--steps', STEPS]).code,
    ).toBe(0);
    const listed = baremetal(['--data-dir', 'db', 'deploy', 'template', 'list', '-f', 'json']);
    expect(listed.code).toBe(0);
    expect(JSON.parse(listed.out)).toEqual([{ UUID: expect.any(String), Name: 'CUSTOM_P' }]);
    const nowhere = baremetal(['deploy', 'template', 'list']);
    expect(nowhere.code).toBe(2);
    expect(nowhere.err).toContain('Say where the templates are');
  });

  it('serves until SIGTERM, then exits 0', async () => {
    const child: ChildProcess = spawn(process.execPath, [...ENTRY, 'serve', '--port', '0'], {
      cwd,
      env: ENV,
    });
    let err = '';
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    const url = await new Promise<string>((resolve, reject) => {
      child.stderr?.setEncoding('utf8').on('data', (s: string) => {
        err += s;
        const m = /on (http:\/\/\S+) \(/.exec(err);
        if (m?.[1]) resolve(m[1]);
      });
      void exited.then((code) => reject(new Error(`exited ${code} before listening: ${err}`)));
    });
    try {
      const res = await fetch(`${url}/v1/deploy_templates`, {
        headers: { 'X-OpenStack-Ironic-API-Version': '1.55' },
      });
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ deploy_templates: [] });
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
  });

  it('exits 1 at once when the database cannot be reached', () => {
    const r = baremetal(['--database-url', 'postgres://postgres@127.0.0.1:9/none', 'serve', '--port', '0']);
    expect(r.code).toBe(1);
    expect(r.err).toContain('Cannot serve on 127.0.0.1:0 (store: PostgreSQL)');
  });
});
