import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { memoryIO } from '../../../test-support/cli.js';
import { createPgliteStore } from '../src/adapters/pglite.js';
import { runBaremetalCli } from '../src/cli.js';
import { type DeployTemplatesServer, serveDeployTemplates } from '../src/index.js';

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

let dir: string;
let db: PGlite;
let server: DeployTemplatesServer;
let n = 0;

const io = (stdin = '') => memoryIO({ cwd: dir, env: {}, stdin });

async function run(args: string[], stdin = ''): Promise<Run> {
  const fake = io(stdin);
  const code = await runBaremetalCli(['--os-endpoint', server.url, '--os-auth-type', 'none', ...args], fake);
  return { code, stdout: fake.out(), stderr: fake.err() };
}

const steps = [
  { interface: 'raid', step: 'create_configuration', args: { logical_disks: [] }, priority: 10 },
];

/** `deploy template ARGS` against the test's server. */
const template = (...args: string[]) => run(['deploy', 'template', ...args]);

/** `deploy template plan` for a node's driver steps and instance traits, given as the command takes them. */
const planSteps = (driverSteps: string, instanceTraits: string, ...args: string[]) =>
  template('plan', '--driver-steps', driverSteps, '--instance-traits', instanceTraits, ...args);

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'dt-cli-'));
  db = await PGlite.create();
});
afterAll(async () => {
  await server?.close();
  await db.close();
  rmSync(dir, { recursive: true, force: true });
});
beforeEach(async () => {
  await server?.close();
  n += 1;
  server = await serveDeployTemplates({ port: 0, store: createPgliteStore({ db, schema: `cli_${n}` }) });
});

describe('stackspec-baremetal deploy template (against a server)', () => {
  it('creates from a JSON string and prints the object with sorted fields', async () => {
    const r = await template(
      'create',
      'CUSTOM_A',
      '--steps',
      JSON.stringify(steps),
      '--extra',
      'count=3',
      '--extra',
      'who=me',
      '-f',
      'json',
    );
    expect(r.code).toBe(0);
    const shown = JSON.parse(r.stdout) as Record<string, unknown>;
    expect(Object.keys(shown)).toEqual(['created_at', 'extra', 'name', 'steps', 'updated_at', 'uuid']);
    expect(shown.extra).toEqual({ count: 3, who: 'me' });
  });

  it('reads --steps from a YAML file and from standard input', async () => {
    writeFileSync(
      join(dir, 'steps.yaml'),
      '- interface: bios\n  step: apply_configuration\n  args: {settings: []}\n  priority: 150\n',
    );
    expect((await template('create', 'CUSTOM_F', '--steps', 'steps.yaml')).code).toBe(0);
    expect(
      (await run(['deploy', 'template', 'create', 'CUSTOM_S', '--steps', '-'], JSON.stringify(steps))).code,
    ).toBe(0);
    const r = await template('show', 'CUSTOM_F', '-c', 'steps', '-f', 'value');
    expect(r.stdout.trim()).toBe(
      "[{'interface': 'bios', 'step': 'apply_configuration', 'args': {'settings': []}, 'priority': 150}]",
    );
  });

  it('points at the line of a broken steps file', async () => {
    writeFileSync(join(dir, 'broken.yaml'), '- interface: bios\n  step: [unclosed\n');
    const r = await template('create', 'CUSTOM_B', '--steps', 'broken.yaml');
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/broken\.yaml:\d+:\d+/);
  });

  it('rejects a --steps value that is neither a file nor JSON', async () => {
    const r = await template('create', 'CUSTOM_B', '--steps', '{not json');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("Value '{not json' is not a file and cannot be parsed as JSON");
  });

  it('reads a JSON string as the OpenStack client does: a repeated key keeps its last value', async () => {
    const repeated = '[{"interface": "raid", "interface": "bios", "step": "s", "args": {}, "priority": 1}]';
    const r = await template('create', 'CUSTOM_R', '--steps', repeated, '-f', 'json');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).steps[0].interface).toBe('bios');
  });

  it('prints the server’s message and HTTP status on failure', async () => {
    const r = await template('create', 'bad-name', '--steps', JSON.stringify(steps));
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      "Schema error for template: 'bad-name' is not valid under any of the given schemas. Possible root cause: 'bad-name' does not match '^CUSTOM_[A-Z0-9_]+$' (HTTP 400)\n",
    );
  });

  it('lists with default, long and chosen columns, pages and sorts client side', async () => {
    for (const name of ['CUSTOM_C', 'CUSTOM_A', 'CUSTOM_B']) {
      await template('create', name, '--steps', JSON.stringify(steps));
    }
    const plain = await template('list', '-f', 'json');
    // Keyed by the OpenStack client's column headings.
    expect((JSON.parse(plain.stdout) as Record<string, unknown>[]).map((r) => Object.keys(r))).toEqual([
      ['UUID', 'Name'],
      ['UUID', 'Name'],
      ['UUID', 'Name'],
    ]);
    const long = await template('list', '--long', '-f', 'json');
    expect(Object.keys((JSON.parse(long.stdout) as Record<string, unknown>[])[0] ?? {})).toEqual([
      'UUID',
      'Name',
      'Steps',
      'Extra',
      'Created At',
      'Updated At',
    ]);
    const sorted = await template('list', '--sort', 'name:desc', '-f', 'value', '-c', 'name');
    expect(sorted.stdout.trim().split('\n')).toEqual(['CUSTOM_C', 'CUSTOM_B', 'CUSTOM_A']);
    const page = await template('list', '--limit', '2', '-f', 'value', '-c', 'name');
    expect(page.stdout.trim().split('\n')).toEqual(['CUSTOM_C', 'CUSTOM_A']);
    const fields = await template('list', '--fields', 'name', 'extra', '-f', 'json');
    expect(JSON.parse(fields.stdout)[0]).toEqual({ Name: 'CUSTOM_C', Extra: {} });
    // -c takes the heading, as the OpenStack client's does, or the field name.
    const byLabel = await template('list', '-f', 'value', '-c', 'Name');
    expect(byLabel.stdout.trim().split('\n')).toEqual(['CUSTOM_C', 'CUSTOM_A', 'CUSTOM_B']);
    expect((await template('list', '--long', '--fields', 'name')).code).toBe(2);
    expect((await template('list', '--limit', '-1')).stderr).toContain(
      'Expected non-negative --limit, got -1',
    );
  });

  it('follows every page with --limit 0', async () => {
    await server.close();
    n += 1;
    server = await serveDeployTemplates({
      port: 0,
      maxLimit: 2,
      store: createPgliteStore({ db, schema: `cli_${n}` }),
    });
    for (const name of ['CUSTOM_1', 'CUSTOM_2', 'CUSTOM_3', 'CUSTOM_4', 'CUSTOM_5']) {
      await template('create', name, '--steps', JSON.stringify(steps));
    }
    expect((await template('list', '-f', 'value', '-c', 'name')).stdout.trim().split('\n')).toHaveLength(2);
    expect(
      (await template('list', '--limit', '0', '-f', 'value', '-c', 'name')).stdout.trim().split('\n'),
    ).toHaveLength(5);
  });

  it('sets and unsets with one patch and says when there is nothing to do', async () => {
    await template('create', 'CUSTOM_A', '--steps', JSON.stringify(steps), '--extra', 'a=1');
    const set = await template('set', 'CUSTOM_A', '--name', 'CUSTOM_Z', '--extra', 'b={"x": 1}');
    expect(set).toEqual({ code: 0, stdout: '', stderr: '' });
    expect((await template('unset', 'CUSTOM_Z', '--extra', 'a')).code).toBe(0);
    const shown = JSON.parse((await template('show', 'CUSTOM_Z', '-f', 'json')).stdout);
    expect(shown.extra).toEqual({ b: { x: 1 } });
    expect((await template('set', 'CUSTOM_Z')).stdout).toBe('Please specify what to set.\n');
    expect((await template('unset', 'CUSTOM_Z')).stdout).toBe('Please specify what to unset.\n');
    expect((await template('set', 'CUSTOM_Z', '--extra', 'novalue')).stderr).toContain(
      'Attributes must be a list of PATH=VALUE not "novalue"',
    );
  });

  it('deletes several templates and reports each failure at the end', async () => {
    await template('create', 'CUSTOM_A', '--steps', JSON.stringify(steps));
    const r = await template('delete', 'CUSTOM_NOPE', 'CUSTOM_A');
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('Deleted deploy template CUSTOM_A\n');
    expect(r.stderr).toBe(
      'Failed to delete deploy template CUSTOM_NOPE: Deploy template CUSTOM_NOPE could not be found. (HTTP 404)\n',
    );
  });

  it('plans the deploy steps of a node from the stored templates', async () => {
    await template('create', 'CUSTOM_RAID', '--steps', JSON.stringify(steps));
    const driver = [
      { interface: 'deploy', step: 'deploy', priority: 100 },
      {
        interface: 'raid',
        step: 'create_configuration',
        priority: 0,
        argsinfo: { logical_disks: { required: true } },
      },
    ];
    const r = await planSteps(JSON.stringify(driver), 'CUSTOM_RAID,CUSTOM_OTHER', '-f', 'json');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual([
      { priority: 100, interface: 'deploy', step: 'deploy', args: {}, origin: 'driver' },
      {
        priority: 10,
        interface: 'raid',
        step: 'create_configuration',
        args: { logical_disks: [] },
        origin: 'template CUSTOM_RAID',
      },
    ]);
    const bad = await planSteps(JSON.stringify(driver.slice(0, 1)), 'CUSTOM_RAID');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain(
      'Matching deploy templates: CUSTOM_RAID. Errors: node does not support this deploy step',
    );
    expect(bad.stderr).toContain('deploy-templates/unsupported-step');
  });

  it('points into --driver-steps when the steps given are malformed, and exits 2', async () => {
    const inline = await planSteps('[null]', 'CUSTOM_X');
    expect(inline.code).toBe(2);
    expect(inline.stderr).toMatch(
      /^--driver-steps:1:2 {2}error {2}.*mapping.*\(deploy-templates\/invalid-type\)/,
    );
    expect(inline.stderr).not.toContain('internal error');
    writeFileSync(
      join(dir, 'driver.yaml'),
      '- {interface: deploy, step: deploy, priority: 100}\n- interface: raid\n  step: create_configuration\n  priority: high\n',
    );
    const file = await planSteps('driver.yaml', 'CUSTOM_X');
    expect(file.code).toBe(2);
    expect(file.stderr).toContain("driver.yaml:4:13  error  'priority' must be an integer of 0 or more");
    const negativePriority = '[{"interface": "raid", "step": "x", "priority": -1}]';
    const user = await planSteps('driver.yaml', 'CUSTOM_X', '--user-steps', negativePriority);
    expect(user.code).toBe(2);
    expect(user.stderr).toContain('--user-steps:1:');
  });

  it('shows chosen fields, in every output format of the OpenStack client', async () => {
    await template('create', 'CUSTOM_A', '--steps', JSON.stringify(steps), '--extra', 'k=v');
    const fields = await template('show', 'CUSTOM_A', '--fields', 'name', 'extra', '-f', 'json');
    expect(JSON.parse(fields.stdout)).toEqual({ extra: { k: 'v' }, name: 'CUSTOM_A' });
    const table = await template('show', 'CUSTOM_A', '--fields', 'name', 'extra', '-f', 'table');
    expect(table.stdout).toBe(
      [
        '+-------+------------+',
        '| Field | Value      |',
        '+-------+------------+',
        "| extra | {'k': 'v'} |",
        '| name  | CUSTOM_A   |',
        '+-------+------------+',
        '',
      ].join('\n'),
    );
    const yaml = await template('show', 'CUSTOM_A', '--fields', 'name', 'extra', '-f', 'yaml');
    expect(yaml.stdout).toBe('extra:\n  k: v\nname: CUSTOM_A\n');
    const shell = await template('show', 'CUSTOM_A', '-f', 'shell', '-c', 'extra', '-c', 'name');
    expect(shell.stdout).toBe('extra="{\'k\': \'v\'}"\nname="CUSTOM_A"\n');
    const list = await template('list', '-f', 'table');
    expect(list.stdout).toMatch(/^\+-+\+-+\+\n\| UUID +\| Name +\|\n/);
    expect(list.stdout).toContain('| CUSTOM_A |');
  });

  it('sends the microversion given with --os-baremetal-api-version', async () => {
    await template('create', 'CUSTOM_A', '--steps', JSON.stringify(steps));
    const old = await run(['--os-baremetal-api-version', '1.54', 'deploy', 'template', 'list']);
    expect(old).toMatchObject({
      code: 1,
      stderr: 'The API version does not allow deploy templates (HTTP 404)\n',
    });
    const ok = await run([
      '--os-baremetal-api-version',
      '1.55',
      'deploy',
      'template',
      'list',
      '-f',
      'value',
      '-c',
      'name',
    ]);
    expect(ok).toMatchObject({ code: 0, stdout: 'CUSTOM_A\n' });
  });

  it('reports an unreachable server', async () => {
    const fake = io();
    const code = await runBaremetalCli(
      ['--os-endpoint', 'http://127.0.0.1:9', 'deploy', 'template', 'list'],
      fake,
    );
    expect(code).toBe(1);
    expect(fake.err()).toContain('Unable to reach http://127.0.0.1:9');
  });

  it('refuses to guess where templates live', async () => {
    const fake = io();
    expect(await runBaremetalCli(['deploy', 'template', 'list'], fake)).toBe(2);
    expect(fake.err()).toContain('--os-endpoint URL');
  });
});

describe('stackspec-baremetal with an embedded store', () => {
  it('keeps templates in a PGlite data directory between commands', async () => {
    const data = join(dir, 'embedded');
    const create = io();
    expect(
      await runBaremetalCli(
        ['--data-dir', data, 'deploy', 'template', 'create', 'CUSTOM_E', '--steps', JSON.stringify(steps)],
        create,
      ),
    ).toBe(0);
    const list = io();
    expect(
      await runBaremetalCli(
        ['deploy', 'template', 'list', '--data-dir', data, '-f', 'value', '-c', 'name'],
        list,
      ),
    ).toBe(0);
    expect(list.out()).toBe('CUSTOM_E\n');
    const dup = io();
    expect(
      await runBaremetalCli(
        ['--data-dir', data, 'deploy', 'template', 'create', 'CUSTOM_E', '--steps', JSON.stringify(steps)],
        dup,
      ),
    ).toBe(1);
    expect(dup.err()).toBe('A deploy template with name CUSTOM_E already exists. (HTTP 409)\n');
  });

  it('uses an explicit --data-dir even when OS_ENDPOINT is exported', async () => {
    const data = join(dir, 'explicit-over-env');
    // Nothing listens on port 9: a command that went there would fail.
    const env = {
      OS_ENDPOINT: 'http://127.0.0.1:9',
      STACKSPEC_DATABASE_URL: 'postgres://x@127.0.0.1:9/none',
    };
    const create = memoryIO({ cwd: dir, env });
    const args = ['deploy', 'template', 'create', 'CUSTOM_MINE', '--steps', JSON.stringify(steps)];
    expect(await runBaremetalCli(['--data-dir', data, ...args], create)).toBe(0);
    expect(create.err()).toBe('');
    const list = memoryIO({ cwd: dir, env: { STACKSPEC_DATA_DIR: join(dir, 'elsewhere') } });
    expect(
      await runBaremetalCli(
        ['--data-dir', data, 'deploy', 'template', 'list', '-f', 'value', '-c', 'name'],
        list,
      ),
    ).toBe(0);
    expect(list.out()).toBe('CUSTOM_MINE\n');
    // An explicit --os-endpoint wins over a data directory from the environment.
    const remote = memoryIO({ cwd: dir, env: { STACKSPEC_DATA_DIR: data } });
    expect(
      await runBaremetalCli(
        ['--os-endpoint', server.url, 'deploy', 'template', 'list', '-f', 'json'],
        remote,
      ),
    ).toBe(0);
    expect(JSON.parse(remote.out())).toEqual([]);
  });

  it('refuses two places given the same way, saying which', async () => {
    const both = io();
    expect(
      await runBaremetalCli(
        ['--os-endpoint', server.url, '--data-dir', join(dir, 'x'), 'deploy', 'template', 'list'],
        both,
      ),
    ).toBe(2);
    expect(both.err()).toContain('error: Give only one of --os-endpoint and --data-dir');
    const env = memoryIO({
      cwd: dir,
      env: { OS_ENDPOINT: server.url, STACKSPEC_DATA_DIR: join(dir, 'x') },
    });
    expect(await runBaremetalCli(['deploy', 'template', 'list'], env)).toBe(2);
    expect(env.err()).toContain('error: Both OS_ENDPOINT and STACKSPEC_DATA_DIR are set');
    expect(env.err()).toContain('hint: Choose one with --os-endpoint or --data-dir');
  });

  it('plans with the real arguments of an embedded store, and with masked ones from a server', async () => {
    const data = join(dir, 'secrets');
    const secret = [
      { interface: 'bios', step: 'apply_configuration', args: { password: 'hunter2' }, priority: 5 },
    ];
    const driver = JSON.stringify([
      { interface: 'deploy', step: 'deploy', priority: 100 },
      { interface: 'bios', step: 'apply_configuration', priority: 0, argsinfo: { password: {} } },
    ]);
    const plan = ['deploy', 'template', 'plan', '--driver-steps', driver, '--instance-traits', 'CUSTOM_S'];
    const args = ['-f', 'value', '-c', 'args'];
    const local = io();
    await runBaremetalCli(
      ['--data-dir', data, 'deploy', 'template', 'create', 'CUSTOM_S', '--steps', JSON.stringify(secret)],
      io(),
    );
    expect(await runBaremetalCli(['--data-dir', data, ...plan, ...args], local)).toBe(0);
    expect(local.out()).toBe("{}\n{'password': 'hunter2'}\n");
    await run(['deploy', 'template', 'create', 'CUSTOM_S', '--steps', JSON.stringify(secret)]);
    expect((await run([...plan, ...args])).stdout).toBe("{}\n{'password': '******'}\n");
  });
});

describe('stackspec-baremetal migrate, serve --no-migrate and a held data directory', () => {
  it('migrates a data directory once, and serve --no-migrate needs that first', async () => {
    const data = join(dir, 'migrated');
    const early = io();
    expect(await runBaremetalCli(['--data-dir', data, 'serve', '--port', '0', '--no-migrate'], early)).toBe(
      1,
    );
    expect(early.err()).toContain(
      `Cannot serve on 127.0.0.1:0 (store: PGlite in ${data}): The schema public holds no deploy template tables, and this stackspec needs version 1`,
    );
    expect(early.err()).toContain('hint: Run stackspec-baremetal migrate');
    const first = io();
    expect(await runBaremetalCli(['--data-dir', data, 'migrate'], first)).toBe(0);
    expect(first.out()).toBe(
      `Migrated the deploy template tables (store: PGlite in ${data}, schema public) to version 1: applied 1 (deploy templates and their steps).\n`,
    );
    const again = io();
    expect(await runBaremetalCli(['migrate', '--data-dir', data], again)).toBe(0);
    expect(again.out()).toBe(
      `The deploy template tables (store: PGlite in ${data}, schema public) are at version 1 already; nothing to do.\n`,
    );
    const controller = new AbortController();
    const served = io();
    const code = runBaremetalCli(['--data-dir', data, 'serve', '--port', '0', '--no-migrate'], served, {
      signal: controller.signal,
      onListening: () => controller.abort(),
    });
    expect(await code).toBe(0);
    expect(served.err()).toContain(`store: PGlite in ${data}`);
  });

  it('refuses migrate without a database, and PostgreSQL-only flags for PGlite', async () => {
    const nowhere = memoryIO({ cwd: dir, env: { OS_ENDPOINT: 'http://127.0.0.1:9' } });
    expect(await runBaremetalCli(['migrate'], nowhere)).toBe(2);
    expect(nowhere.err()).toContain('error: Say which database to migrate');
    const endpoint = io();
    expect(await runBaremetalCli(['--os-endpoint', 'http://127.0.0.1:9', 'migrate'], endpoint)).toBe(2);
    expect(endpoint.err()).toContain('error: --os-endpoint names a server to talk to');
    const pool = io();
    expect(await runBaremetalCli(['--data-dir', 'x', 'serve', '--pool-size', '4'], pool)).toBe(2);
    expect(pool.err()).toBe(
      'error: --pool-size applies to PostgreSQL only, and this server keeps templates in PGlite in x.\nhint: Give --database-url postgres://… (or STACKSPEC_DATABASE_URL), or leave the option out.\n',
    );
    const timeout = io();
    expect(
      await runBaremetalCli(
        ['--database-url', 'postgres://x@127.0.0.1:9/x', 'serve', '--statement-timeout', '1s'],
        timeout,
      ),
    ).toBe(2);
    expect(timeout.err()).toContain('error: --statement-timeout must be a whole number, not 1s.');
    const memory = io();
    expect(await runBaremetalCli(['serve', '--no-migrate'], memory)).toBe(2);
    expect(memory.err()).toContain('error: --no-migrate needs a database that was migrated before');
  });

  it('refuses a data directory another store holds, naming it and pointing at --os-endpoint', async () => {
    const data = join(dir, 'held');
    const holder = createPgliteStore({ dataDir: data });
    await holder.list();
    try {
      const create = io();
      expect(
        await runBaremetalCli(
          ['--data-dir', data, 'deploy', 'template', 'create', 'CUSTOM_H', '--steps', JSON.stringify(steps)],
          create,
        ),
      ).toBe(2);
      expect(create.err()).toMatch(
        new RegExp(`^error: The directory ${data} is in use by this process \\(pid ${process.pid}\\) on `),
      );
      expect(create.err()).toContain(
        'hint: Another process has this data directory open. If it is a server, send the command to it instead with --os-endpoint',
      );
      const served = io();
      const listening: string[] = [];
      expect(
        await runBaremetalCli(['--data-dir', data, 'serve', '--port', '0'], served, {
          onListening: (url) => listening.push(url),
        }),
      ).toBe(2);
      expect(listening).toEqual([]);
      expect(served.err()).toContain(`error: The directory ${data} is in use by this process`);
      expect(served.err()).toContain(
        'hint: Another process has this data directory open. If it is a server, clients can use it with --os-endpoint',
      );
    } finally {
      await holder.close();
    }
  });
});

describe('stackspec-baremetal --profile 21.4', () => {
  it('validates with the rules of Ironic 21.4 and serves its API range', async () => {
    const data = join(dir, 'profile');
    const create = (name: string, profile: string[]) => {
      const fake = io();
      return runBaremetalCli(
        [
          ...profile,
          '--data-dir',
          data,
          'deploy',
          'template',
          'create',
          name,
          '--steps',
          JSON.stringify(steps),
        ],
        fake,
      ).then((code) => ({ code, stderr: fake.err() }));
    };
    // HW_NVME_BES is a standard trait of os-traits 3.9.0 but not of 2.9.0 (Ironic 21.4's).
    const old = await create('HW_NVME_BES', ['--profile', '21.4']);
    expect(old.code).toBe(1);
    expect(old.stderr).toContain("'HW_NVME_BES' is not valid under any of the given schemas");
    expect((await create('HW_NVME_BES', [])).code).toBe(0);
    const controller = new AbortController();
    const fake = io();
    const done = runBaremetalCli(['--profile', '21.4', 'serve', '--port', '0'], fake, {
      signal: controller.signal,
      onListening: () => controller.abort(),
    });
    expect(await done).toBe(0);
    expect(fake.err()).toContain('API 1.1-1.82');
  });
});

describe('stackspec-baremetal serve', () => {
  it('serves until stopped and answers an API client', async () => {
    const controller = new AbortController();
    const fake = io();
    let listening: (url: string) => void = () => undefined;
    const ready = new Promise<string>((resolve) => {
      listening = resolve;
    });
    const done = runBaremetalCli(['serve', '--port', '0'], fake, {
      signal: controller.signal,
      onListening: listening,
    });
    const url = await ready;
    const res = await fetch(`${url}/v1/deploy_templates`, {
      headers: { 'X-OpenStack-Ironic-API-Version': '1.55' },
    });
    expect(res.status).toBe(200);
    controller.abort();
    expect(await done).toBe(0);
    expect(fake.err()).toContain('store: PGlite in memory, auth: none');
  });

  it('rejects a bad port', async () => {
    const fake = io();
    expect(await runBaremetalCli(['serve', '--port', 'x'], fake)).toBe(2);
  });

  it('exits 1 before listening when the database cannot be reached', async () => {
    const fake = io();
    const listening: string[] = [];
    const code = await runBaremetalCli(
      ['--database-url', 'postgres://postgres@127.0.0.1:9/nothing', 'serve', '--port', '0'],
      fake,
      { onListening: (url) => listening.push(url) },
    );
    expect(code).toBe(1);
    expect(listening).toEqual([]);
    expect(fake.err()).toMatch(
      /^Cannot serve on 127\.0\.0\.1:0 \(store: PostgreSQL\): The deploy template storage failed: connect ECONNREFUSED 127\.0\.0\.1:9\n$/,
    );
  });

  it("exits 2 with core's message and hint when the port is taken", async () => {
    const fake = io();
    const port = new URL(server.url).port;
    const listening: string[] = [];
    const code = await runBaremetalCli(['serve', '--port', port], fake, {
      onListening: (url) => listening.push(url),
    });
    expect(code).toBe(2);
    expect(listening).toEqual([]);
    expect(fake.err()).toBe(
      `error: Port ${port} on 127.0.0.1 is already in use.\nhint: Pick another --port, or --port 0 for a free one.\n`,
    );
  });

  it("exits 2 with core's message when the host is not this machine's", async () => {
    const fake = io();
    // 192.0.2.0/24 is reserved for documentation: no machine has it.
    expect(await runBaremetalCli(['serve', '--host', '192.0.2.1', '--port', '0'], fake)).toBe(2);
    expect(fake.err()).toMatch(/^error: Cannot listen on 192\.0\.2\.1:0: 192\.0\.2\.1 is not an address/);
    expect(fake.err()).toMatch(/\nhint: Pick another --host/);
  });
});

describe('the spec’s two flavors from the command line', () => {
  it('creates the four templates from files and plans both flavors', async () => {
    const fixtures = join(import.meta.dirname, '..', 'src', 'fixtures', 'flavors');
    const files = {
      CUSTOM_BM_CONFIG_RAID_DISK_MIRROR: 'raid-mirror.yaml',
      CUSTOM_BM_CONFIG_RAID_DISK_STRIPE: 'raid-stripe.yaml',
      CUSTOM_BM_CONFIG_BIOS_VMX_ON: 'vmx-on.yaml',
      CUSTOM_BM_CONFIG_BIOS_VMX_OFF: 'vmx-off.yaml',
    };
    for (const [name, file] of Object.entries(files)) {
      expect((await template('create', name, '--steps', join(fixtures, file))).code).toBe(0);
    }
    const driver = join(fixtures, 'driver-steps.yaml');
    const plan = async (traits: string) => {
      const r = await planSteps(driver, traits, '-f', 'json', '-c', 'step', '-c', 'args');
      return JSON.parse(r.stdout) as { step: string; args: Record<string, unknown> }[];
    };
    const mirror = await plan(
      'CUSTOM_CLASS_A,CUSTOM_BM_CONFIG_BIOS_VMX_ON,CUSTOM_BM_CONFIG_RAID_DISK_MIRROR',
    );
    expect(mirror.map((s) => s.step)).toEqual([
      'apply_configuration',
      'deploy',
      'write_image',
      'create_configuration',
    ]);
    expect(mirror[0]?.args).toEqual({ settings: [{ name: 'ProcVirtualization', value: 'Enabled' }] });
    expect(mirror[3]?.args).toMatchObject({ logical_disks: [{ raid_level: '1' }] });
    const stripe = await plan(
      'CUSTOM_CLASS_A,CUSTOM_BM_CONFIG_BIOS_VMX_OFF,CUSTOM_BM_CONFIG_RAID_DISK_STRIPE',
    );
    expect(stripe[0]?.args).toEqual({ settings: [{ name: 'ProcVirtualization', value: 'Disabled' }] });
    expect(stripe[3]?.args).toMatchObject({ logical_disks: [{ raid_level: '0' }] });
  });
});
