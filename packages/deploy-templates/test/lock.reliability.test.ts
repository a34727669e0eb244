// Two processes on one PGlite data directory, started as users start them:
// separate processes of the real commands (built in CI, from source
// elsewhere). PGlite has no locking between processes; without the
// directory lock a second server starts beside the first, each sees only
// its own writes, and acknowledged creates are lost. Each case bounds the
// time of every refusal (nothing may wait for the holder) and the memory of
// the processes.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { USE_BUILT } from '../../../test-support/bin.js';
import { type Finished, run, type Started, start } from './support/processes.js';

// A refused opener must end promptly: process start-up (tsx compiles the
// sources outside CI) plus a lock check, never a wait for the holder.
const REFUSED_WITHIN_MS = 15_000;
// Any one process of these cases: a PGlite server holds about 150 MB.
const MAX_PEAK_BYTES = 1024 * 1024 * 1024;
const STEPS = '[{"interface": "raid", "step": "create_configuration", "args": {}, "priority": 10}]';
const HEADERS = { 'X-OpenStack-Ironic-API-Version': '1.55', 'Content-Type': 'application/json' };

let cwd: string;
const servers: Started[] = [];
beforeAll(() => {
  cwd = mkdtempSync(join(tmpdir(), 'dt-lock-'));
});
afterEach(() => {
  for (const s of servers.splice(0)) s.child.kill('SIGKILL');
});
afterAll(() => rmSync(cwd, { recursive: true, force: true }));

/** `stackspec-baremetal --data-dir DIR serve --port 0`, once it listens. */
async function serveBaremetal(dir: string): Promise<{ server: Started; url: string }> {
  const server = start('stackspec-baremetal', ['--data-dir', dir, 'serve', '--port', '0'], { cwd });
  servers.push(server);
  const [, url] = await server.waitFor(/on (http:\/\/\S+) \(/, 'stderr');
  return { server, url: url as string };
}

function expectRefused(r: Finished, dir: string, holder: number, hint: RegExp): void {
  expect(r.code, r.err).toBe(2);
  expect(r.err).toMatch(
    new RegExp(
      `^error: The directory ${dir} is in use by process ${holder} on \\S+ \\(stackspec-baremetal --data-dir ${dir} serve --port 0\\), since \\d{4}-`,
    ),
  );
  expect(r.err).toMatch(hint);
  expect(r.ms).toBeLessThan(REFUSED_WITHIN_MS);
  if (r.peak !== undefined) expect(r.peak).toBeLessThan(MAX_PEAK_BYTES);
}

async function names(url: string): Promise<string[]> {
  const r = await fetch(`${url}/v1/deploy_templates`, { headers: HEADERS });
  return ((await r.json()) as { deploy_templates: { name: string }[] }).deploy_templates.map((t) => t.name);
}

describe(`two processes on one PGlite data directory (${USE_BUILT ? 'built' : 'from source'})`, () => {
  it('refuses a second server, a command and stackspec serve at once, naming the server', async () => {
    const dir = join(cwd, 'held');
    const { server, url } = await serveBaremetal(dir);
    const holder = server.child.pid as number;
    const [second, create, combined] = await Promise.all([
      run('stackspec-baremetal', ['--data-dir', dir, 'serve', '--port', '0'], { cwd, timeout: 60_000 }),
      run(
        'stackspec-baremetal',
        ['--data-dir', dir, 'deploy', 'template', 'create', 'CUSTOM_BESIDE', '--steps', STEPS],
        { cwd, timeout: 60_000 },
      ),
      run('stackspec', ['serve', '--data-dir', dir, '--port', '0'], { cwd, timeout: 60_000 }),
    ]);
    expectRefused(second, dir, holder, /hint: .*clients can use it with --os-endpoint/);
    expect(second.err).not.toContain('Serving');
    expectRefused(create, dir, holder, /hint: .*send the command to it instead with --os-endpoint/);
    expectRefused(combined, dir, holder, /hint: .*clients can use it with --os-endpoint/);
    expect(combined.out).toBe('');
    // What the hint says works: the command through the server.
    const through = await run(
      'stackspec-baremetal',
      [
        '--os-endpoint',
        url,
        'deploy',
        'template',
        'create',
        'CUSTOM_THROUGH',
        '--steps',
        STEPS,
        '-f',
        'value',
        '-c',
        'name',
      ],
      { cwd },
    );
    expect(through).toMatchObject({ code: 0, out: 'CUSTOM_THROUGH\n' });
    expect(await names(url)).toEqual(['CUSTOM_THROUGH']);
    const peak = server.peak();
    if (peak !== undefined) expect(peak).toBeLessThan(MAX_PEAK_BYTES);
    // Stopped normally, the server releases the directory: the next opener takes it without a word.
    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
    const after = await run(
      'stackspec-baremetal',
      ['--data-dir', dir, 'deploy', 'template', 'list', '-f', 'value', '-c', 'name'],
      {
        cwd,
      },
    );
    expect(after).toMatchObject({ code: 0, out: 'CUSTOM_THROUGH\n', err: '' });
  }, 180_000);

  it('takes over the lock of a server killed with SIGKILL, saying so, with every acknowledged create', async () => {
    const dir = join(cwd, 'killed');
    const { server, url } = await serveBaremetal(dir);
    const holder = server.child.pid as number;
    // A create load, killed in the middle: what got a 201 must survive.
    const acknowledged: string[] = [];
    let stop = false;
    const worker = async (w: number) => {
      for (let i = 0; !stop; i += 1) {
        const name = `CUSTOM_W${w}_${i}`;
        const r = await fetch(`${url}/v1/deploy_templates`, {
          method: 'POST',
          headers: HEADERS,
          body: JSON.stringify({ name, steps: JSON.parse(STEPS) }),
        }).catch(() => undefined);
        if (r?.status === 201) acknowledged.push(name);
        else if (r === undefined) return;
      }
    };
    const load = Promise.all([0, 1, 2, 3].map(worker));
    while (acknowledged.length < 40) await new Promise((resolve) => setTimeout(resolve, 20));
    server.child.kill('SIGKILL');
    stop = true;
    await load;
    expect(await server.exited).toBe(null);
    const kept = [...acknowledged];

    const reopened = await run(
      'stackspec-baremetal',
      ['--data-dir', dir, 'deploy', 'template', 'list', '--limit', '0', '-f', 'value', '-c', 'name'],
      { cwd, timeout: 60_000 },
    );
    expect(reopened.code, reopened.err).toBe(0);
    expect(reopened.err).toMatch(
      new RegExp(
        `^warning: Took over the lock on ${dir} left by process ${holder} on \\S+ \\(stackspec-baremetal --data-dir ${dir} serve --port 0\\), since \\S+: process ${holder} is no longer running\\.`,
      ),
    );
    const listed = new Set(reopened.out.trim().split('\n'));
    expect(kept.filter((name) => !listed.has(name))).toEqual([]);
    expect(reopened.ms).toBeLessThan(30_000);
    if (reopened.peak !== undefined) expect(reopened.peak).toBeLessThan(MAX_PEAK_BYTES);

    // The directory is consistent: a new server on it serves the same templates, one row per name.
    const next = await serveBaremetal(dir);
    const served = await names(next.url);
    expect(served.length).toBe(new Set(served).size);
    expect(new Set(served)).toEqual(listed);
    expect(next.server.err()).not.toContain('warning');
  }, 180_000);
});
