import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type CliIO, runCli } from '@stackspec/core/cli';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeCliConvention, runInProcess } from '../../../test-support/cli-convention.js';
import { REPO_ROOT } from '../../../test-support/shared.js';
import type { Checkers } from '../src/check.js';
import { runStackspec } from '../src/program.js';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'stackspec-convention-'));
  writeFileSync(join(dir, 'good.yaml'), 'name: m1.pinned\nextra_specs:\n  hw:cpu_policy: dedicated\n');
  writeFileSync(join(dir, 'bad.yaml'), 'name: m1.typo\nextra_specs:\n  hw:cpu_polcy: dedicated\n');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const cloud = join(REPO_ROOT, 'examples/cloud');
const stackspec = {
  run: (argv: readonly string[], io: CliIO) => runCli(() => runStackspec(argv, io), io),
  cwd: () => dir,
};

describeCliConvention({
  command: 'stackspec',
  ...stackspec,
  json: [
    ['check', 'good.yaml', '-f', 'json'],
    ['schedule', '--flavor', 'FlavorVMXMirror', cloud, '-f', 'json'],
  ],
  usage: ['check', '-f', 'xml'],
  findings: ['check', 'bad.yaml'],
  clean: ['check', 'good.yaml'],
  crash: ['check', 'good.yaml'],
});

describe('stackspec check reports', () => {
  it('as GitHub Actions annotations with -f github', async () => {
    const r = await runInProcess(stackspec, ['check', 'good.yaml', 'bad.yaml', '-f', 'github']);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(
      /^::error file=bad\.yaml,line=3,col=3,endLine=3,endColumn=15,title=extra-specs\/unknown-key::.*hw:cpu_polcy.*%0ADid you mean hw:cpu_policy\?\n$/,
    );
    const clean = await runInProcess(stackspec, ['check', 'good.yaml', '-f', 'github']);
    expect([clean.code, clean.stdout]).toEqual([0, '']);
  });

  it('as SARIF whose rules link to the error code page', async () => {
    const r = await runInProcess(stackspec, ['check', 'bad.yaml', '-f', 'sarif']);
    const rules = JSON.parse(r.stdout).runs[0].tool.driver.rules as { id: string; helpUri: string }[];
    expect(rules.map((rule) => [rule.id, rule.helpUri])).toEqual([
      [
        'extra-specs/unknown-key',
        'https://github.com/stackspec/stackspec/blob/main/docs/reference/error-codes.md#extra-specs_unknown-key',
      ],
    ]);
  });

  it('exits 2 when a checker crashes, still reporting every file', async () => {
    const checkers = (): Checkers => ({
      flavor: () => {
        throw new TypeError('boom');
      },
    });
    const io = {
      run: (argv: readonly string[], cliIO: CliIO) =>
        runCli(() => runStackspec(argv, cliIO, { checkers }), cliIO),
      cwd: () => dir,
    };
    const r = await runInProcess(io, ['check', 'good.yaml']);
    expect(r.code).toBe(2);
    expect(r.stdout).toContain('(stackspec/check/internal)');
    expect(r.stdout).toContain('boom');
  });

  it('keeps the long --format spelling', async () => {
    const r = await runInProcess(stackspec, ['check', 'good.yaml', '--format', 'json']);
    expect(JSON.parse(r.stdout).summary.errors).toBe(0);
    expect(r.stderr).toBe('');
  });
});
