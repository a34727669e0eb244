// Which store a `stackspec-baremetal` command uses when the command line and the
// environment disagree. An option the user typed must never lose to an exported
// variable: `--data-dir "$DIR"` with DIR unset reaches the command as an empty
// option, and used to fall through to OS_ENDPOINT's server without a word.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryIO } from '../../../test-support/cli.js';
import { runBaremetalCli } from '../src/cli.js';

let dir: string;

// Nothing listens on port 9: a command that went to this server would fail to connect.
const NO_SERVER = 'http://127.0.0.1:9';
const steps = JSON.stringify([{ interface: 'raid', step: 'create_configuration', args: {}, priority: 10 }]);
const create = ['deploy', 'template', 'create', 'CUSTOM_MINE', '--steps', steps, '-f', 'value', '-c', 'name'];

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'dt-store-choice-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('stackspec-baremetal: an explicit store option against the environment', () => {
  it('creates in --data-dir, not on the server OS_ENDPOINT names', async () => {
    const data = join(dir, 'explicit');
    const io = memoryIO({ cwd: dir, env: { OS_ENDPOINT: NO_SERVER } });
    expect(await runBaremetalCli(['--data-dir', data, ...create], io)).toBe(0);
    expect(io.out()).toBe('CUSTOM_MINE\n');
    expect(io.err()).toBe('');
    expect(existsSync(data)).toBe(true);
  });

  it('refuses an empty --data-dir instead of falling back to OS_ENDPOINT', async () => {
    const io = memoryIO({ cwd: dir, env: { OS_ENDPOINT: NO_SERVER } });
    expect(await runBaremetalCli(['--data-dir', '', ...create], io)).toBe(2);
    expect(io.out()).toBe('');
    expect(io.err()).toContain('error: --data-dir is empty');
    expect(io.err()).not.toContain('127.0.0.1:9');
  });

  it('refuses an empty --os-endpoint instead of falling back to STACKSPEC_DATA_DIR', async () => {
    const data = join(dir, 'from-env');
    const io = memoryIO({ cwd: dir, env: { STACKSPEC_DATA_DIR: data } });
    expect(await runBaremetalCli(['--os-endpoint', '', 'deploy', 'template', 'list'], io)).toBe(2);
    expect(io.err()).toContain('error: --os-endpoint is empty');
    // The directory of the variable was never opened.
    expect(existsSync(data)).toBe(false);
  });

  it('refuses an empty --database-url for serve instead of serving STACKSPEC_DATA_DIR', async () => {
    const data = join(dir, 'serve-env');
    const io = memoryIO({ cwd: dir, env: { STACKSPEC_DATA_DIR: data } });
    expect(await runBaremetalCli(['--database-url', '', 'serve', '--port', '0'], io)).toBe(2);
    expect(io.err()).toContain('error: --database-url is empty');
    expect(existsSync(data)).toBe(false);
  });

  it('refuses --os-endpoint and --data-dir given together, with a usage error', async () => {
    const io = memoryIO({ cwd: dir, env: {} });
    expect(
      await runBaremetalCli(['--os-endpoint', NO_SERVER, '--data-dir', join(dir, 'both'), ...create], io),
    ).toBe(2);
    expect(io.err()).toContain('error: Give only one of --os-endpoint and --data-dir');
    expect(existsSync(join(dir, 'both'))).toBe(false);
  });
});
