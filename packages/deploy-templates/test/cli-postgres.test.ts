// stackspec-baremetal on a PostgreSQL server: the embedded store opened with
// --database-url, and `serve --database-url … --auth trusted-headers`. The
// command keeps its tables in the database's public schema, so this file
// owns a database of its own and drops it at the end.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryIO } from '../../../test-support/cli.js';
import { ensurePostgres, POSTGRES_URL } from '../../../test-support/postgres.js';
import { runSql } from '../../../test-support/postgres-roles.js';
import { runBaremetalCli } from '../src/cli.js';

const available = await ensurePostgres(pg.Client);
const database = `dt_cli_${process.pid}_${Math.random().toString(36).slice(2, 10)}`;
const url = Object.assign(new URL(POSTGRES_URL), { pathname: `/${database}` }).href;
const steps = JSON.stringify([
  { interface: 'raid', step: 'create_configuration', args: { logical_disks: [] }, priority: 10 },
]);

const admin = (sql: string) => runSql(pg.Client, POSTGRES_URL, sql);

describe.runIf(available)('stackspec-baremetal on PostgreSQL (--database-url)', () => {
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'dt-cli-pg-'));
    await admin(`CREATE DATABASE "${database}"`);
  });
  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true });
    await admin(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
  });

  const cli = async (args: string[]) => {
    const io = memoryIO({ cwd: dir, env: {} });
    const code = await runBaremetalCli(['--database-url', url, ...args], io);
    return { code, stdout: io.out(), stderr: io.err() };
  };

  it('keeps templates in the database between commands', async () => {
    expect((await cli(['deploy', 'template', 'create', 'CUSTOM_PG', '--steps', steps])).code).toBe(0);
    expect(await cli(['deploy', 'template', 'list', '-f', 'value', '-c', 'name'])).toMatchObject({
      code: 0,
      stdout: 'CUSTOM_PG\n',
    });
    const shown = await cli(['deploy', 'template', 'show', 'CUSTOM_PG', '-f', 'json']);
    expect(JSON.parse(shown.stdout)).toMatchObject({ name: 'CUSTOM_PG', updated_at: null });
    expect(await cli(['deploy', 'template', 'create', 'CUSTOM_PG', '--steps', steps])).toMatchObject({
      code: 1,
      stderr: 'A deploy template with name CUSTOM_PG already exists. (HTTP 409)\n',
    });
    expect((await cli(['deploy', 'template', 'delete', 'CUSTOM_PG'])).code).toBe(0);
  });

  it('serves the same database with the policy from trusted headers', async () => {
    const controller = new AbortController();
    const io = memoryIO({ cwd: dir, env: {} });
    let listening: (url: string) => void = () => undefined;
    const ready = new Promise<string>((resolve) => {
      listening = resolve;
    });
    const done = runBaremetalCli(
      ['--database-url', url, 'serve', '--port', '0', '--auth', 'trusted-headers'],
      io,
      { signal: controller.signal, onListening: listening },
    );
    try {
      const base = await ready;
      const send = (headers: Record<string, string>, method = 'GET', body?: unknown) =>
        fetch(`${base}/v1/deploy_templates`, {
          method,
          headers: {
            'X-OpenStack-Ironic-API-Version': '1.55',
            'content-type': 'application/json',
            ...headers,
          },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
      const reader = { 'X-Roles': 'reader', 'OpenStack-System-Scope': 'all' };
      const systemAdmin = { 'X-Roles': 'admin,member,reader', 'OpenStack-System-Scope': 'all' };
      const template = { name: 'CUSTOM_SERVED', steps: JSON.parse(steps) };
      expect((await send(reader, 'POST', template)).status).toBe(403);
      expect((await send(systemAdmin, 'POST', template)).status).toBe(201);
      const listed = (await (await send(reader)).json()) as { deploy_templates: { name: string }[] };
      expect(listed.deploy_templates.map((t) => t.name)).toEqual(['CUSTOM_SERVED']);
      // The command opening the database directly sees what the server wrote.
      expect((await cli(['deploy', 'template', 'list', '-f', 'value', '-c', 'name'])).stdout).toBe(
        'CUSTOM_SERVED\n',
      );
    } finally {
      controller.abort();
    }
    expect(await done).toBe(0);
    expect(io.err()).toContain('(store: PostgreSQL, auth: trusted-headers, API 1.1-1.115)');
  });
});
