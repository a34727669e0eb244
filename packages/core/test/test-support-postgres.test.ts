// test-support/postgres.ts prepares PostgreSQL for every package's
// integration tests; vitest only collects tests under packages/, so its own
// tests live here. Every branch runs against a fake machine and server; the
// real ones run against a throwaway server (initdb in a temporary folder, on
// a free port), never the shared cluster on 5432.
import { execFileSync, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  type CommandResult,
  ensurePostgres,
  type PostgresHost,
  preparePostgres,
  type SqlClientClass,
} from '../../../test-support/postgres.js';
import { isRoot, serviceAvailable } from '../../../test-support/require.js';
import { REPO_ROOT } from '../../../test-support/shared.js';

interface FakeServer {
  up: boolean;
  databases: Set<string>;
  /** Users allowed to create databases. */
  creators: Set<string>;
  /** What the server answers every connection, when set. */
  refuse?: { code?: string; message: string };
}

function fakeClient(server: FakeServer): SqlClientClass {
  return class {
    readonly #url: URL;
    constructor(config: { connectionString: string }) {
      this.#url = new URL(config.connectionString);
    }
    async connect() {
      if (!server.up) throw Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
      if (server.refuse) throw Object.assign(new Error(server.refuse.message), { code: server.refuse.code });
      const db = this.#url.pathname.slice(1);
      if (!server.databases.has(db)) {
        throw Object.assign(new Error(`database "${db}" does not exist`), { code: '3D000' });
      }
    }
    async query(sql: string) {
      const create = /^CREATE DATABASE "(.*)"$/.exec(sql);
      if (!create) return;
      if (!server.creators.has(this.#url.username)) {
        throw Object.assign(new Error('permission denied to create database'), { code: '42501' });
      }
      if (server.databases.has(create[1] as string)) {
        throw Object.assign(new Error('already exists'), { code: '42P04' });
      }
      server.databases.add(create[1] as string);
    }
    async end() {}
  };
}

interface FakeHostOptions {
  root?: boolean;
  clusters?: string;
  startFails?: string;
  runuser?: boolean;
}

function fakeHost(server: FakeServer, options: FakeHostOptions = {}) {
  const calls: string[] = [];
  const host: PostgresHost = {
    run(command, args): CommandResult {
      calls.push([command, ...args].join(' '));
      if (command === 'pg_lsclusters') {
        const status = server.up ? 'online' : 'down';
        const text = options.clusters ?? `15 main 5432 ${status} postgres /var/lib/postgresql/15/main log\n`;
        return { status: 0, stdout: text, stderr: '' };
      }
      if (command === 'pg_ctlcluster') {
        if (options.startFails) return { status: 1, stdout: '', stderr: options.startFails };
        server.up = true;
        return { status: 0, stdout: '', stderr: '' };
      }
      // su hands one command line to a shell: let a real shell split it.
      const words =
        command === 'su'
          ? spawnSync('/bin/sh', ['-c', `printf '%s\\n' ${args[2]}`], { encoding: 'utf8' })
              .stdout.split('\n')
              .slice(0, -1)
          : args;
      const sql = words[words.length - 1] ?? '';
      const create = /CREATE DATABASE "(.*)"/.exec(sql);
      if (create) server.databases.add(create[1] as string);
      return { status: 0, stdout: '', stderr: '' };
    },
    isRoot: () => options.root ?? false,
    exists: (path) =>
      path === '/usr/bin/pg_lsclusters' || (path === '/usr/sbin/runuser' && options.runuser !== false),
    sleep: async () => undefined,
  };
  return { host, calls };
}

const URL_TEST = 'postgres://postgres@127.0.0.1:5432/test';

describe('preparePostgres on a fake machine', () => {
  const server = (init: Partial<FakeServer> = {}): FakeServer => ({
    up: true,
    databases: new Set(['postgres', 'test']),
    creators: new Set(['postgres']),
    ...init,
  });

  it('does nothing when the database answers', async () => {
    const s = server();
    const { host, calls } = fakeHost(s);
    expect(await preparePostgres(fakeClient(s), URL_TEST, host)).toEqual({ ok: true, actions: [] });
    expect(calls).toEqual([]);
  });

  it('starts the cluster on the port of the URL when nothing answers', async () => {
    const s = server({ up: false });
    const { host, calls } = fakeHost(s, {
      clusters: '14 old 5433 down postgres /x log\n15 main 5432 down postgres /y log\n',
    });
    expect(await preparePostgres(fakeClient(s), URL_TEST, host)).toEqual({
      ok: true,
      actions: ['started cluster 15/main'],
    });
    expect(calls).toEqual([
      'pg_lsclusters --no-header',
      'pg_ctlcluster --skip-systemctl-redirect 15 main start',
    ]);
  });

  it('says why a cluster that is down could not be started', async () => {
    const s = server({ up: false });
    const { host } = fakeHost(s, {
      startFails: 'You must run this program as the cluster owner (postgres) or root',
    });
    const r = await preparePostgres(fakeClient(s), URL_TEST, host);
    expect(r.ok).toBe(false);
    expect(!r.ok && r.reason).toBe(
      'cluster 15/main is down and pg_ctlcluster could not start it (You must run this program as the cluster owner (postgres) or root); start it as root or as the postgres user',
    );
  });

  it('carries on when another test file started the cluster meanwhile', async () => {
    const s = server({ up: false });
    const { host } = fakeHost(s, { startFails: 'Cluster is already running.' });
    const run = host.run;
    host.run = (command, args) => {
      if (command === 'pg_ctlcluster') s.up = true;
      return run(command, args);
    };
    expect(await preparePostgres(fakeClient(s), URL_TEST, host)).toEqual({
      ok: true,
      actions: ['cluster 15/main was started meanwhile'],
    });
  });

  it('reports a port no local cluster uses, and never starts anything for a remote server', async () => {
    const s = server({ up: false });
    const { host, calls } = fakeHost(s);
    const other = await preparePostgres(fakeClient(s), 'postgres://postgres@127.0.0.1:6543/test', host);
    expect(!other.ok && other.reason).toBe(
      'nothing answers at 127.0.0.1:6543, and no local cluster (pg_lsclusters) uses port 6543',
    );
    calls.length = 0;
    const remote = await preparePostgres(fakeClient(s), 'postgres://postgres@db.example:5432/test', host);
    expect(!remote.ok && remote.reason).toBe(
      'nothing usable answers at db.example:5432: connect ECONNREFUSED',
    );
    expect(calls).toEqual([]);
  });

  it("creates a missing database through the URL's own user when it may", async () => {
    const s = server({ databases: new Set(['postgres']) });
    const { host, calls } = fakeHost(s, { root: true });
    expect(await preparePostgres(fakeClient(s), URL_TEST, host)).toEqual({
      ok: true,
      actions: ['created database test'],
    });
    expect(calls).toEqual([]);
  });

  it('creates it as the postgres user over the local socket when root and the user may not', async () => {
    const s = server({ databases: new Set(['postgres']) });
    const { host, calls } = fakeHost(s, { root: true });
    const r = await preparePostgres(fakeClient(s), 'postgres://app@127.0.0.1:5432/test', host);
    expect(r).toEqual({ ok: true, actions: ['created database test as the postgres user'] });
    expect(calls).toEqual([
      'runuser -u postgres -- psql -X -q -v ON_ERROR_STOP=1 -p 5432 -d postgres -c CREATE DATABASE "test"',
    ]);
  });

  it('falls back to su without runuser, quoting for the shell', async () => {
    const s = server({ databases: new Set(['postgres']) });
    const { host, calls } = fakeHost(s, { root: true, runuser: false });
    await preparePostgres(fakeClient(s), "postgres://app@127.0.0.1:5432/it's", host);
    expect(calls).toEqual([
      `su postgres -c 'psql' '-X' '-q' '-v' 'ON_ERROR_STOP=1' '-p' '5432' '-d' 'postgres' '-c' 'CREATE DATABASE "it'\\''s"'`,
    ]);
    expect(s.databases.has("it's")).toBe(true);
  });

  it('says how to create the database when it may not', async () => {
    const s = server({ databases: new Set(['postgres']) });
    const { host, calls } = fakeHost(s, { root: false });
    const r = await preparePostgres(fakeClient(s), 'postgres://app@127.0.0.1:5432/test', host);
    expect(!r.ok && r.reason).toBe(
      'database test does not exist and app cannot create it (permission denied to create database); run createdb test as the postgres user',
    );
    expect(calls).toEqual([]);
  });

  it('takes a database another test file created meanwhile', async () => {
    const s = server({ databases: new Set(['postgres']) });
    const { host } = fakeHost(s);
    const Client = fakeClient(s);
    const Racing = class extends Client {
      override async query(sql: string) {
        s.databases.add('test');
        return super.query(sql);
      }
    };
    expect(await preparePostgres(Racing, URL_TEST, host)).toEqual({
      ok: true,
      actions: ['created database test'],
    });
  });

  it('explains a refusal by pg_hba.conf and changes nothing', async () => {
    const s = server({
      refuse: { message: 'SASL: SCRAM-SERVER-FIRST-MESSAGE: client password must be a string' },
    });
    const { host, calls } = fakeHost(s, { root: true });
    const r = await preparePostgres(fakeClient(s), URL_TEST, host);
    expect(!r.ok && r.reason).toBe(
      'PostgreSQL at 127.0.0.1:5432 refuses postgres: SASL: SCRAM-SERVER-FIRST-MESSAGE: client password must be a string. Let postgres in from 127.0.0.1 without a password (pg_hba.conf: host all postgres 127.0.0.1/32 trust; .ci/run adds it when run as root) or set STACKSPEC_PG_URL to a URL with a password',
    );
    expect(calls).toEqual([]);
  });

  it('names a role that does not exist', async () => {
    const s = server({ refuse: { code: '28000', message: 'role "app" does not exist' } });
    const r = await preparePostgres(fakeClient(s), 'postgres://app@127.0.0.1:5432/test', fakeHost(s).host);
    expect(!r.ok && r.reason).toBe(
      'PostgreSQL at 127.0.0.1:5432 has no role app (role "app" does not exist); use the postgres user or create the role (createuser)',
    );
  });
});

describe('ensurePostgres', () => {
  it('prints what it did and answers true', async () => {
    const s: FakeServer = { up: false, databases: new Set(['postgres']), creators: new Set(['postgres']) };
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    try {
      expect(await ensurePostgres(fakeClient(s), URL_TEST, fakeHost(s).host)).toBe(true);
      expect(warn.mock.calls).toEqual([
        ['PostgreSQL for tests: started cluster 15/main'],
        ['PostgreSQL for tests: created database test'],
      ]);
    } finally {
      warn.mockRestore();
    }
  });

  it('skips with the reason locally and fails when oracles are required', async () => {
    const s: FakeServer = { up: false, databases: new Set(), creators: new Set() };
    const { host } = fakeHost(s, { clusters: '' });
    const saved = process.env.STACKSPEC_REQUIRE_ORACLES;
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    try {
      delete process.env.STACKSPEC_REQUIRE_ORACLES;
      expect(await ensurePostgres(fakeClient(s), URL_TEST, host)).toBe(false);
      expect(warn.mock.calls[0]?.[0]).toMatch(
        /^skipping: PostgreSQL unavailable \(nothing answers at 127\.0\.0\.1:5432/,
      );
      process.env.STACKSPEC_REQUIRE_ORACLES = '1';
      await expect(ensurePostgres(fakeClient(s), URL_TEST, host)).rejects.toThrow(/^PostgreSQL unavailable/);
    } finally {
      if (saved === undefined) delete process.env.STACKSPEC_REQUIRE_ORACLES;
      else process.env.STACKSPEC_REQUIRE_ORACLES = saved;
      warn.mockRestore();
    }
  });
});

// A throwaway server needs root (to act as the postgres user), PostgreSQL's
// programs, and `pg`, which this folder borrows from deploy-templates (the
// package whose tests use these helpers) rather than adding a dependency.
const PG_BIN = existsSync('/usr/lib/postgresql')
  ? join('/usr/lib/postgresql', readdirSync('/usr/lib/postgresql').sort().at(-1) ?? '', 'bin')
  : '';
function pgClient(): SqlClientClass | undefined {
  try {
    return createRequire(join(REPO_ROOT, 'packages/deploy-templates/package.json'))('pg').Client;
  } catch {
    return undefined;
  }
}
const canRunThrowaway = serviceAvailable(
  'throwaway PostgreSQL server',
  !isRoot()
    ? { ok: false, reason: 'needs root to run initdb as the postgres user' }
    : !existsSync(join(PG_BIN, 'initdb'))
      ? { ok: false, reason: 'initdb not found under /usr/lib/postgresql; install postgresql' }
      : !pgClient()
        ? { ok: false, reason: 'pg is not installed in packages/deploy-templates' }
        : { ok: true },
);

describe.runIf(canRunThrowaway)('preparePostgres against a throwaway server', () => {
  let dir: string;
  let port: number;
  const asPostgres = (command: string, ...args: string[]) =>
    execFileSync('runuser', ['-u', 'postgres', '--', join(PG_BIN, command), ...args], {
      encoding: 'utf8',
      stdio: 'pipe',
    });
  const pgCtl = (...args: string[]) => asPostgres('pg_ctl', '-D', join(dir, 'data'), '-w', ...args);
  const url = (user: string, db: string) => `postgres://${user}@127.0.0.1:${port}/${db}`;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'stackspec-pg-'));
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }));
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }));
    chownSync(dir, uid, gid);
    port = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const p = (probe.address() as { port: number }).port;
        probe.close(() => resolve(p));
      });
    });
    // Debian's defaults for a fresh cluster: peer on the socket, a password over TCP.
    asPostgres(
      'initdb',
      '-D',
      join(dir, 'data'),
      '-U',
      'postgres',
      '--auth-local=peer',
      '--auth-host=scram-sha-256',
      '-N',
    );
    pgCtl(
      '-l',
      join(dir, 'log'),
      '-o',
      `-p ${port} -k /var/run/postgresql -c listen_addresses=127.0.0.1 -c fsync=off`,
      'start',
    );
  }, 120_000);

  afterAll(() => {
    if (existsSync(join(dir, 'data', 'postmaster.pid'))) pgCtl('-m', 'immediate', 'stop');
    rmSync(dir, { recursive: true, force: true });
  });

  it('explains the password a fresh Debian cluster asks over TCP', async () => {
    const r = await preparePostgres(pgClient() as SqlClientClass, url('postgres', 'test'));
    expect(r.ok).toBe(false);
    expect(!r.ok && r.reason).toContain(`PostgreSQL at 127.0.0.1:${port} refuses postgres: `);
    expect(!r.ok && r.reason).toContain('pg_hba.conf: host all postgres 127.0.0.1/32 trust');
    expect(r.actions).toEqual([]);
  });

  it('creates the missing database through the superuser, or as the postgres user for a user that may not', async () => {
    writeFileSync(
      join(dir, 'data', 'pg_hba.conf'),
      'local all all peer\nhost all postgres 127.0.0.1/32 trust\nhost all app 127.0.0.1/32 trust\n',
    );
    pgCtl('reload');
    spawnSync('runuser', [
      '-u',
      'postgres',
      '--',
      'psql',
      '-X',
      '-q',
      '-p',
      String(port),
      '-c',
      'CREATE ROLE app LOGIN NOCREATEDB',
    ]);
    const Client = pgClient() as SqlClientClass;
    expect(await preparePostgres(Client, url('postgres', 'test'))).toEqual({
      ok: true,
      actions: ['created database test'],
    });
    expect(await preparePostgres(Client, url('postgres', 'test'))).toEqual({ ok: true, actions: [] });
    expect(await preparePostgres(Client, url('app', 'apptest'))).toEqual({
      ok: true,
      actions: ['created database apptest as the postgres user'],
    });
  });

  it('reports a stopped server that is no cluster of pg_lsclusters without starting anything', async () => {
    pgCtl('-m', 'fast', 'stop');
    const r = await preparePostgres(pgClient() as SqlClientClass, url('postgres', 'test'));
    expect(!r.ok && r.reason).toBe(
      `nothing answers at 127.0.0.1:${port}, and no local cluster (pg_lsclusters) uses port ${port}`,
    );
  });
});
