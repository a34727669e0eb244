import { type CliIO, runCli } from '@stackspec/core/cli';
import { describe, expect, it } from 'vitest';
import { describeCliConvention, runInProcess } from '../../../test-support/cli-convention.js';
import { REPO_ROOT } from '../../../test-support/shared.js';
import { runImageCli } from '../src/cli.js';

const spec = 'examples/cloud/image/image.yaml';
const cli = {
  run: (argv: readonly string[], io: CliIO) => runCli(() => runImageCli(argv, io), io),
  cwd: () => REPO_ROOT,
};

describeCliConvention({
  command: 'stackspec-image',
  ...cli,
  json: [
    ['explain', spec, '-f', 'json'],
    ['validate', spec, '--dry-run', '--assume-installed', '-f', 'json'],
  ],
  usage: ['validate', spec],
  // On an empty simulated machine, the first package check fails.
  findings: ['validate', spec, '--dry-run'],
  clean: ['validate', spec, '--dry-run', '--assume-installed'],
  crash: ['explain', spec],
});

describe('stackspec-image formats', () => {
  it('keeps the long --format spelling', async () => {
    const r = await runInProcess(cli, ['explain', spec, '--format', 'json']);
    expect(JSON.parse(r.stdout).file).toBe(spec);
  });
});
