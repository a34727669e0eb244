// Debian's python3-ironicclient (through python3-openstackclient) drives our
// server exactly as an operator would: create, list, show, set, unset, delete,
// once with the server on PGlite and once on PostgreSQL.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { oracleAvailable } from '../../../test-support/python.js';
import { type DeployTemplatesServer, serveDeployTemplates } from '../src/index.js';
import { step as raidStep } from './conformance-cases.js';
import { testStores } from './support/stores.js';

const run = promisify(execFile);
const available = oracleAvailable('python-ironicclient', ['ironicclient', 'openstackclient']);

const kinds = available ? (await testStores()).filter((k) => k.available) : [];

describe.runIf(available).each(kinds)('python-ironicclient against our server on $name', (stores) => {
  let server: DeployTemplatesServer;
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'dt-osc-'));
    server = await serveDeployTemplates({ port: 0, store: await stores.make('osc') });
  });
  afterAll(async () => {
    await server?.close();
    await stores.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const osc = async (...args: string[]) => {
    try {
      const r = await run(
        '/usr/bin/openstack',
        ['--os-auth-type', 'none', '--os-endpoint', server.url, 'baremetal', 'deploy', 'template', ...args],
        { cwd: dir, env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dir }, timeout: 120_000 },
      );
      return { code: 0, stdout: r.stdout, stderr: r.stderr };
    } catch (e) {
      const err = e as { code?: number; stdout?: string; stderr?: string };
      return { code: err.code ?? -1, stdout: err.stdout ?? '', stderr: err.stderr ?? '' };
    }
  };

  it('round-trips create, list, show, set, unset and delete', async () => {
    const steps = [raidStep()];
    writeFileSync(join(dir, 'mirror.yaml'), JSON.stringify(steps));
    const created = await osc(
      'create',
      'CUSTOM_BM_CONFIG_RAID_DISK_MIRROR',
      '--steps',
      'mirror.yaml',
      '--extra',
      'flavor=mirror',
      '-f',
      'json',
    );
    expect(created.code).toBe(0);
    const template = JSON.parse(created.stdout) as {
      uuid: string;
      steps: unknown;
      extra: unknown;
      name: string;
    };
    expect(template.steps).toEqual(steps);
    expect(template.extra).toEqual({ flavor: 'mirror' });

    const list = await osc('list', '-f', 'json');
    expect(JSON.parse(list.stdout)).toEqual([
      { UUID: template.uuid, Name: 'CUSTOM_BM_CONFIG_RAID_DISK_MIRROR' },
    ]);

    expect(
      (await osc('set', template.uuid, '--name', 'CUSTOM_BM_CONFIG_RAID_DISK_STRIPE', '--extra', 'level=0'))
        .code,
    ).toBe(0);
    expect((await osc('unset', 'CUSTOM_BM_CONFIG_RAID_DISK_STRIPE', '--extra', 'flavor')).code).toBe(0);
    const shown = JSON.parse((await osc('show', template.uuid, '-f', 'json')).stdout) as Record<
      string,
      unknown
    >;
    expect(shown).toMatchObject({
      name: 'CUSTOM_BM_CONFIG_RAID_DISK_STRIPE',
      extra: { level: 0 },
      uuid: template.uuid,
    });
    expect(shown.updated_at).not.toBeNull();

    const long = JSON.parse((await osc('list', '--long', '--limit', '0', '-f', 'json')).stdout) as Record<
      string,
      unknown
    >[];
    expect(long[0]).toMatchObject({ Name: 'CUSTOM_BM_CONFIG_RAID_DISK_STRIPE', Steps: steps });

    const deleted = await osc('delete', 'CUSTOM_BM_CONFIG_RAID_DISK_STRIPE');
    expect(deleted.stdout).toContain(`Deleted deploy template CUSTOM_BM_CONFIG_RAID_DISK_STRIPE`);
    expect(JSON.parse((await osc('list', '-f', 'json')).stdout)).toEqual([]);
    // Each openstack invocation starts a Python interpreter (2-4 s on a busy machine).
  }, 240_000);

  it('shows our validation message the way the client shows Ironic’s', async () => {
    const r = await osc(
      'create',
      'not-a-trait',
      '--steps',
      '[{"interface": "raid", "step": "x", "args": {}, "priority": 1}]',
    );
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain("'not-a-trait' is not valid under any of the given schemas");
    expect(r.stderr).toContain('(HTTP 400)');
  }, 60_000);
});
