import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeCliConvention, runInProcess } from '../../../test-support/cli-convention.js';
import { runExtraSpecsCli } from '../src/cli.js';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'esv-convention-'));
  writeFileSync(join(dir, 'good.yaml'), 'name: m1.pinned\nextra_specs:\n  hw:cpu_policy: dedicated\n');
  writeFileSync(join(dir, 'bad.yaml'), 'name: m1.typo\nextra_specs:\n  hw:cpu_polcy: dedicated\n');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const cli = { run: runExtraSpecsCli, cwd: () => dir };

describeCliConvention({
  command: 'stackspec-extra-specs',
  ...cli,
  json: [
    ['validate', 'good.yaml', '-f', 'json'],
    ['list', '--namespace', 'hw', '-f', 'json'],
    ['describe', 'hw:cpu_policy', '-f', 'json'],
  ],
  usage: ['validate', '--mode', 'lenient', 'good.yaml'],
  findings: ['validate', 'bad.yaml'],
  clean: ['validate', 'good.yaml'],
  crash: ['list', '--namespace', 'hw'],
});

describe('stackspec-extra-specs output options', () => {
  it('selects columns with -c in table, value and csv', async () => {
    const argv = ['list', '--namespace', 'hw', '-c', 'Name', '-c', 'Type'];
    const table = await runInProcess(cli, [...argv, '-f', 'table']);
    expect(table.stdout.split('\n')[1]).toMatch(/^\| Name +\| Type +\|$/);
    const value = await runInProcess(cli, [...argv, '-f', 'value']);
    expect(value.stdout).toMatch(/^hw:cpu_policy str$/m);
    const csv = await runInProcess(cli, [...argv, '-f', 'csv']);
    expect(csv.stdout.split('\n')[0]).toBe('"Name","Type"');
  });

  it('reports validate problems as GitHub annotations and SARIF with help links', async () => {
    const github = await runInProcess(cli, ['validate', 'bad.yaml', '--spec', 'hw:x=1', '-f', 'github']);
    expect(github.code).toBe(1);
    const lines = github.stdout.trimEnd().split('\n');
    // --spec pairs are in no file: their annotation has no location.
    expect(lines).toEqual([
      expect.stringMatching(/^::error title=extra-specs\/unknown-key::'hw:x' is not a known extra spec/),
      expect.stringMatching(/^::error file=bad\.yaml,line=3,col=3,.*title=extra-specs\/unknown-key::/),
    ]);
    const sarif = JSON.parse((await runInProcess(cli, ['validate', 'bad.yaml', '-f', 'sarif'])).stdout);
    expect(sarif.runs[0].tool.driver).toMatchObject({
      name: 'stackspec-extra-specs',
      rules: [
        {
          id: 'extra-specs/unknown-key',
          helpUri: expect.stringMatching(/error-codes\.md#extra-specs_unknown-key$/),
        },
      ],
    });
  });

  it('takes -f for the format of docs', async () => {
    const md = await runInProcess(cli, ['docs', '-f', 'md']);
    expect(md.stdout).toMatch(/^(<!--[\s\S]*?-->\n\n)?# /);
  });
});
