// `stackspec-placement` run as a user runs it: a separate process, real
// streams, real exit codes and signals. CI builds first and sets
// STACKSPEC_REQUIRE_BUILT=1, so the built bin runs there; elsewhere the same
// entry point runs from source, since a local dist may be stale.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { binArgs, USE_BUILT, workspaceBins } from '../../../test-support/bin.js';

const PKG = join(__dirname, '..');
const A = '0000000a-0000-4000-8000-00000000000a';

let root: string;
beforeAll(() => {
  // Throws when the build is required but missing.
  binArgs('stackspec-placement');
  root = mkdtempSync(join(tmpdir(), 'stackspec-placement-process-'));
  copyFileSync(join(PKG, 'src/fixtures/spec-example.yaml'), join(root, 'cloud.yaml'));
  writeFileSync(join(root, 'list.yaml'), '- vcpus: 2\n');
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** The file that runs: the built bin, or its source. */
function binFile(): string {
  const bin = workspaceBins().get('stackspec-placement');
  if (!bin) throw new Error('no workspace package has the command stackspec-placement');
  return USE_BUILT ? bin.built : bin.source;
}

function entry(): string[] {
  return binArgs('stackspec-placement');
}

function placement(args: string[]) {
  const r = spawnSync(process.execPath, [...entry(), ...args], {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '' },
    timeout: 120_000,
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

describe(`stackspec-placement as a process (${USE_BUILT ? 'built' : 'from source'})`, () => {
  it('starts with a node shebang and prints its help, exit 0', () => {
    expect(readFileSync(binFile(), 'utf8').split('\n')[0]).toBe('#!/usr/bin/env node');
    const help = placement(['--help']);
    expect(help.code).toBe(0);
    for (const command of ['parse', 'query', 'from-flavor', 'serve', 'load'])
      expect(help.out).toContain(command);
  });

  it('parse: the typed request on stdout, exit 0', () => {
    const r = placement(['parse', `resources=VCPU:1&member_of=!in:${A}`, '-m', '1.32']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out)).toMatchObject({ groups: [{ forbiddenAggregates: [A] }] });
    expect(r.err).toBe('');
  });

  it("parse: Placement's 400 on stderr with the parameter, exit 1", () => {
    const r = placement(['parse', 'resources1=VCPU:0&resources=VCPU:1']);
    expect(r.code).toBe(1);
    expect(r.out).toBe('');
    expect(r.err).toContain('(HTTP 400, parameter resources1)');
  });

  it('usage errors exit 2', () => {
    expect(placement(['frobnicate']).code).toBe(2);
    expect(placement(['parse', 'resources=VCPU:1', '-m', '2.0']).code).toBe(2);
    expect(placement(['query', '-i', 'missing.yaml', 'resources=VCPU:1']).code).toBe(2);
  });

  it('query: candidates over an inventory file as a table', () => {
    const r = placement(['query', '-i', 'cloud.yaml', `resources=VCPU:1,DISK_GB:10&member_of=!${A}`]);
    expect(r.code).toBe(0);
    expect(r.out).toContain('numa2_1: VCPU=1; ss1: DISK_GB=10');
  });

  it('from-flavor: a flavor file that is not a mapping is located, exit 1', () => {
    const r = placement(['from-flavor', '--flavor', 'list.yaml']);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/list\.yaml:1:1 {2}error {2}The document must be a mapping/);
  });

  it('serve: answers HTTP until SIGTERM, then exits 0', async () => {
    const child: ChildProcess = spawn(
      process.execPath,
      [...entry(), 'serve', '-i', 'cloud.yaml', '--port', '0'],
      {
        cwd: root,
        env: { ...process.env, NO_COLOR: '1' },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const url = await new Promise<string>((resolve, reject) => {
      let err = '';
      const timer = setTimeout(() => reject(new Error(`serve did not start: ${err}`)), 60_000);
      child.stderr?.on('data', (d) => {
        err += String(d);
        const m = / on (http:\/\/[^ ]+) with /.exec(err);
        if (m) {
          clearTimeout(timer);
          resolve(m[1] as string);
        }
      });
    });
    try {
      const r = await fetch(`${url}/resource_providers?member_of=!${A}`, {
        headers: { 'openstack-api-version': 'placement 1.32' },
      });
      expect(r.status).toBe(200);
      const body = (await r.json()) as { resource_providers: { name: string }[] };
      expect(body.resource_providers.map((p) => p.name)).toContain('cn2');
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
  }, 90_000);
});
