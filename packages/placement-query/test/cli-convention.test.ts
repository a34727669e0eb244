import { join } from 'node:path';
import { type CliIO, runCli } from '@stackspec/core/cli';
import { describe, expect, it } from 'vitest';
import { memoryIO } from '../../../test-support/cli.js';
import { describeCliConvention, runInProcess } from '../../../test-support/cli-convention.js';
import { REPO_ROOT } from '../../../test-support/shared.js';
import { runPlacementCli } from '../src/cli.js';

const inventory = join(REPO_ROOT, 'examples/cloud/inventory.yaml');
// A Placement that accepts every request, so that `load` runs without a server.
const fetchAll = (async () => new Response('{}', { status: 200 })) as typeof fetch;

const cli = {
  run: (argv: readonly string[], io: CliIO) =>
    runCli(() => runPlacementCli(argv, io, { fetch: fetchAll }), io),
  cwd: () => REPO_ROOT,
};

describeCliConvention({
  command: 'stackspec-placement',
  ...cli,
  json: [
    ['parse', 'resources=VCPU:1', '-f', 'json'],
    ['query', '-i', inventory, 'resources=VCPU:1', '-f', 'json'],
    ['from-flavor', '--vcpus', '1', '--ram', '512', '-f', 'json'],
    ['load', '-i', inventory, '--url', 'http://placement.invalid', '-f', 'json'],
  ],
  usage: ['parse', 'resources=VCPU:1', '-m', '9.9'],
  // Placement's 400: a finding about the query, not a fault of the command line.
  findings: ['parse', 'resources=VCPU:0'],
  clean: ['parse', 'resources=VCPU:1'],
  crash: ['parse', 'resources=VCPU:1'],
});

describe('stackspec-placement output options', () => {
  it('selects columns with -c in table, value and csv', async () => {
    const argv = [
      'query',
      '-i',
      inventory,
      '/resource_providers?name=bm-01',
      '-c',
      'name',
      '-c',
      'generation',
    ];
    const table = await runInProcess(cli, [...argv, '-f', 'table']);
    expect(table.stdout.split('\n')[1]).toMatch(/^\| name +\| generation \|$/);
    expect((await runInProcess(cli, [...argv, '-f', 'value'])).stdout).toBe('bm-01 2\n');
    expect((await runInProcess(cli, [...argv, '-f', 'csv'])).stdout).toBe('"name","generation"\n"bm-01",2\n');
  });

  it('prints parse as YAML with -f yaml', async () => {
    const r = await runInProcess(cli, ['parse', 'resources=VCPU:1', '-f', 'yaml']);
    expect(r.stdout).toMatch(/^endpoint: allocation_candidates\n/);
  });

  it('keeps from-flavor --json working for now, with a deprecation note', async () => {
    const old = await runInProcess(cli, ['from-flavor', '--vcpus', '1', '--json']);
    const current = await runInProcess(cli, ['from-flavor', '--vcpus', '1', '-f', 'json']);
    expect(old.code).toBe(0);
    expect(old.stdout).toBe(current.stdout);
    expect(JSON.parse(old.stdout).query).toBe('resources=VCPU:1&limit=1000');
    expect(old.stderr).toBe(
      'warning: --json is deprecated and will be removed in the next minor version; use -f json instead.\n',
    );
    expect(current.stderr).toBe('');
  });
});

describe('stackspec-placement load', () => {
  async function load(tty: boolean, now: () => number) {
    const memory = memoryIO({ cwd: REPO_ROOT, env: { NO_COLOR: '1' } });
    const io: CliIO = { ...memory, stderr: { ...memory.stderr, isTTY: tty, columns: 40 }, now };
    const code = await cli.run(['load', '-i', inventory, '--url', 'http://placement.invalid'], io);
    return { code, stdout: memory.out(), stderr: memory.err() };
  }
  const slowClock = () => {
    let t = 0;
    return () => {
      t += 1000;
      return t;
    };
  };

  it('shows its progress on a terminal, cut to its width, once it has taken a second', async () => {
    const r = await load(true, slowClock());
    expect(r.code).toBe(0);
    const lines = r.stderr.split('\r\u001b[K').filter(Boolean);
    expect(lines[0]).toMatch(/^loading: request 1\/\d+, /);
    expect(lines.every((l) => l.length <= 39)).toBe(true);
    expect(r.stderr.endsWith('\r\u001b[K')).toBe(true);
    expect(r.stdout).toMatch(/^Loaded \d+ providers and \d+ consumers in \d+ requests\.\n$/);
  });

  it('shows nothing when standard error is not a terminal, or the load is quick', async () => {
    expect((await load(false, slowClock())).stderr).toBe('');
    expect((await load(true, () => 0)).stderr).toBe('');
  });
});
