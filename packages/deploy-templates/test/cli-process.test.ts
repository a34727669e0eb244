// `stackspec-baremetal` run as a user runs it: a separate process, real
// streams, signals and exit codes (built in CI, from source elsewhere: see
// test-support/bin.ts).
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { binEnv, runBin, startBin, USE_BUILT } from '../../../test-support/bin.js';
import { CLEAN_ENV as ENV } from './support/processes.js';

const STEPS = '[{"interface": "raid", "step": "create_configuration", "args": {}, "priority": 10}]';

let cwd: string;
beforeAll(() => {
  cwd = mkdtempSync(join(tmpdir(), 'dt-process-'));
});
afterAll(() => rmSync(cwd, { recursive: true, force: true }));

async function baremetal(args: string[]) {
  const r = await runBin('stackspec-baremetal', args, { cwd, env: ENV });
  return { code: r.code, out: r.stdout, err: r.stderr };
}

describe(`stackspec-baremetal as a process (${USE_BUILT ? 'built' : 'from source'})`, () => {
  it('prints its help and exits 0', async () => {
    const help = await baremetal(['--help']);
    expect(help.code).toBe(0);
    expect(help.out).toContain('serve');
    expect(help.out).toContain('deploy');
  });

  it('keeps templates in a data directory and exits 2 on a bad command line', async () => {
    expect(
      (await baremetal(['--data-dir', 'db', 'deploy', 'template', 'create', 'CUSTOM_P', '--steps', STEPS]))
        .code,
    ).toBe(0);
    const listed = await baremetal(['--data-dir', 'db', 'deploy', 'template', 'list', '-f', 'json']);
    expect(listed.code).toBe(0);
    expect(JSON.parse(listed.out)).toEqual([{ UUID: expect.any(String), Name: 'CUSTOM_P' }]);
    const nowhere = await baremetal(['deploy', 'template', 'list']);
    expect(nowhere.code).toBe(2);
    expect(nowhere.err).toContain('Say where the templates are');
  });

  it('serves until SIGTERM, then exits 0', async () => {
    // Started rather than run with runBin: this process stops it with a signal.
    const { child, exited, waitFor } = startBin('stackspec-baremetal', ['serve', '--port', '0'], {
      cwd,
      env: binEnv(ENV),
    });
    const url = (await waitFor(/on (http:\/\/\S+) \(/, 'stderr'))[1];
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

  it('exits 1 at once when the database cannot be reached', async () => {
    const r = await baremetal([
      '--database-url',
      'postgres://postgres@127.0.0.1:9/none',
      'serve',
      '--port',
      '0',
    ]);
    expect(r.code).toBe(1);
    expect(r.err).toContain('Cannot serve on 127.0.0.1:0 (store: PostgreSQL)');
  });

  it('exits 2 with a hint when the port is taken', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as { port: number }).port;
    try {
      const r = await baremetal(['serve', '--port', String(port)]);
      expect(r.code).toBe(2);
      expect(r.err).toBe(
        `error: Port ${port} on 127.0.0.1 is already in use.\nhint: Pick another --port, or --port 0 for a free one.\n`,
      );
    } finally {
      taken.close();
    }
  });
});
