import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type CliIO, runCli } from '@stackspec/core/cli';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeCliConvention, runInProcess } from '../../../test-support/cli-convention.js';
import { runHeatCli } from '../src/cli/program.js';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'heat-convention-'));
  mkdirSync(join(dir, 'puppet'));
  writeFileSync(
    join(dir, 'puppet/controller.yaml'),
    'heat_template_version: 2015-10-15\ncapabilities:\n  deployment: puppet\n  resource_type: OS::TripleO::Controller\nresources: {}\n',
  );
  writeFileSync(join(dir, 'broken.yaml'), 'heat_template_version: 2015-10-15\nresources:\n  server: {}\n');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const cli = {
  run: (argv: readonly string[], io: CliIO) => runCli(() => runHeatCli(argv, io), io),
  cwd: () => dir,
};

describeCliConvention({
  command: 'stackspec-heat',
  ...cli,
  json: [
    ['validate', 'puppet/controller.yaml', '-f', 'json'],
    ['capabilities-find', '-r', '--capability', 'deployment=puppet', '-f', 'json', '.'],
    ['template-capabilities', 'puppet/controller.yaml', '-f', 'json'],
  ],
  usage: ['capabilities-find', '-f', 'xml', '.'],
  findings: ['validate', 'broken.yaml'],
  clean: ['validate', 'puppet/controller.yaml'],
  crash: ['validate', 'puppet/controller.yaml'],
});

describe('stackspec-heat validate reports', () => {
  it('selects columns with -c in table, value and csv', async () => {
    const argv = ['validate', 'broken.yaml', '-c', 'code', '-c', 'line'];
    const table = await runInProcess(cli, [...argv, '-f', 'table']);
    expect(table.stdout.split('\n')[1]).toMatch(/^\| line +\| code +\|$/);
    const value = await runInProcess(cli, [...argv, '-f', 'value']);
    expect(value.stdout).toBe('3 heat/template/resource-without-type\n');
    const csv = await runInProcess(cli, [...argv, '-f', 'csv']);
    expect(csv.stdout).toBe('"line","code"\n3,"heat/template/resource-without-type"\n');
  });

  it('as GitHub annotations and as SARIF whose rules link to the error code page', async () => {
    const github = await runInProcess(cli, ['validate', 'broken.yaml', '-f', 'github']);
    expect(github.code).toBe(1);
    expect(github.stdout).toMatch(
      /^::error file=broken\.yaml,line=3,col=\d+,.*title=heat\/template\/resource-without-type::.+\n$/,
    );
    const sarif = JSON.parse((await runInProcess(cli, ['validate', 'broken.yaml', '-f', 'sarif'])).stdout);
    expect(sarif.runs[0].tool.driver).toMatchObject({
      name: 'stackspec-heat',
      rules: [
        {
          id: 'heat/template/resource-without-type',
          helpUri:
            'https://github.com/stackspec/stackspec/blob/main/docs/reference/error-codes.md#heat_template_resource-without-type',
        },
      ],
    });
  });
});
