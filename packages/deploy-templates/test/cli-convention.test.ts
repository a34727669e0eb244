import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CliIO } from '@stackspec/core/cli';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeCliConvention, runInProcess } from '../../../test-support/cli-convention.js';
import { createPgliteStore } from '../src/adapters/pglite.js';
import { runBaremetalCli } from '../src/cli.js';
import { type DeployTemplatesServer, serveDeployTemplates } from '../src/index.js';

let dir: string;
let server: DeployTemplatesServer;

const steps = JSON.stringify([
  { interface: 'bios', step: 'apply_configuration', args: { settings: [] }, priority: 150 },
]);

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'dt-convention-'));
  server = await serveDeployTemplates({ port: 0, store: createPgliteStore() });
  const created = await runInProcess(cli, ['deploy', 'template', 'create', 'CUSTOM_BIOS', '--steps', steps]);
  if (created.code !== 0) throw new Error(created.stderr);
});
afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

// Every run talks to the test's server, as `openstack --os-endpoint` would.
const cli = {
  run: (argv: readonly string[], io: CliIO) =>
    runBaremetalCli(['--os-endpoint', server.url, '--os-auth-type', 'none', ...argv], io),
  cwd: () => dir,
};

describeCliConvention({
  command: 'stackspec-baremetal',
  ...cli,
  json: [
    ['deploy', 'template', 'list', '-f', 'json'],
    ['deploy', 'template', 'show', 'CUSTOM_BIOS', '-f', 'json'],
  ],
  usage: ['deploy', 'template', 'list', '--sort', 'bogus'],
  // A template that is not there: the service refuses the request (HTTP 404), exit 1.
  findings: ['deploy', 'template', 'show', 'CUSTOM_MISSING'],
  clean: ['deploy', 'template', 'show', 'CUSTOM_BIOS'],
  crash: ['deploy', 'template', 'list'],
});

describe('stackspec-baremetal output options', () => {
  it('selects columns with -c, by label or field, in table, value and csv', async () => {
    const list = ['deploy', 'template', 'list', '--long', '-c', 'Name', '-c', 'steps'];
    const table = await runInProcess(cli, [...list, '-f', 'table']);
    expect(table.stdout.split('\n')[1]).toMatch(/^\| Name +\| Steps +\|$/);
    const value = await runInProcess(cli, [...list, '-f', 'value']);
    expect(value.stdout).toBe(
      "CUSTOM_BIOS [{'interface': 'bios', 'step': 'apply_configuration', 'args': {'settings': []}, 'priority': 150}]\n",
    );
    const csv = await runInProcess(cli, [...list, '-f', 'csv']);
    expect(csv.stdout.split('\n')[0]).toBe('"Name","Steps"');
  });
});
