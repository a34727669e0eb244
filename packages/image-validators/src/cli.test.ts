import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '@stackspec/core/cli';
import { describe, expect, it } from 'vitest';
import { memoryIO } from '../../../test-support/cli.js';
import { runImageCli } from './cli.js';

async function cli(...argv: string[]) {
  const streams = memoryIO();
  const code = await runCli(() => runImageCli(argv, streams), streams);
  return { code, out: streams.out(), err: streams.err() };
}

function specDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'siv-cli-'));
  mkdirSync(join(dir, 'common'));
  writeFileSync(join(dir, 'common/setup'), '#!/bin/bash\necho setting up\n');
  writeFileSync(
    join(dir, 'image.yaml'),
    [
      'arguments:',
      '  java_distro:',
      '    description: Which Java to install.',
      '    default: openjdk',
      '    choices: [openjdk, oracle-java]',
      'validators:',
      '  - os_case:',
      '      - redhat: [{package: java-1.8.0-openjdk}]',
      '      - ubuntu: [{package: openjdk-8-jdk}]',
      '  - script: {common/setup: {env_vars: [java_distro]}}',
      '  - package: [wget, {lzo: {version: "2.0"}}]',
      '',
    ].join('\n'),
  );
  return dir;
}

/** The example spec, in a folder of its own. */
const exampleSpec = () => join(specDir(), 'image.yaml');

/** `validate SPEC --dry-run ARGS` with the example spec. */
const dryRun = (...args: string[]) => cli('validate', exampleSpec(), '--dry-run', ...args);

describe('stackspec-image explain', () => {
  it('prints the arguments and the validator tree', async () => {
    const r = await cli('explain', exampleSpec());
    expect(r.code).toBe(0);
    expect(r.out).toContain('java_distro (default "openjdk"; one of "openjdk", "oracle-java")  [line 2]');
    expect(r.out).toContain('Which Java to install.');
    expect(r.out).toContain('1. os_case: first matching distribution or family  [line 7]');
    expect(r.out).toContain('when ubuntu:  [line 9]');
    expect(r.out).toContain('3. package: wget, lzo (= 2.0)  [line 11]');
  });

  it('prints JSON on request', async () => {
    const r = await cli('explain', exampleSpec(), '--format', 'json');
    const json = JSON.parse(r.out);
    expect(json.count).toBe(5);
    expect(json.topLevelCount).toBe(3);
    expect(json.arguments[0]).toMatchObject({ name: 'java_distro', default: 'openjdk', required: false });
  });

  it('exits 2 with located diagnostics for a bad spec', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'siv-cli-'));
    writeFileSync(join(dir, 'image.yaml'), 'validators:\n  - packge: wget\n');
    const r = await cli('explain', join(dir, 'image.yaml'));
    expect(r.code).toBe(2);
    expect(r.err).toContain(`${join(dir, 'image.yaml')}:2:5`);
    expect(r.err).toContain("The validator type 'packge' is not known.");
    expect(r.err).toContain('Did you mean package?');
  });
});

describe('stackspec-image validate', () => {
  it('dry-runs a check on an empty simulated machine and fails at the first package', async () => {
    const r = await dryRun('--distro', 'centos');
    expect(r.code).toBe(1);
    expect(r.out).toContain(
      'on a simulated centos machine (dry run; nothing runs): check only, batched commands',
    );
    expect(r.out).toMatch(/✗ package java-1\.8\.0-openjdk {2}line 8/);
    expect(r.out).toContain('✖ validation failed (centos, redhat family): A package is missing');
    expect(r.out).toContain('command: rpm -q java-1.8.0-openjdk');
  });

  it('dry-runs a reconcile and shows every command it would run', async () => {
    const r = await dryRun('--reconcile', '--arg', 'java_distro=oracle-java');
    expect(r.code).toBe(0);
    expect(r.out).toContain('✓ fixed package openjdk-8-jdk');
    expect(r.out).toContain('$ DEBIAN_FRONTEND=noninteractive apt-get -y install openjdk-8-jdk');
    expect(r.out).toContain('$ DEBIAN_FRONTEND=noninteractive apt-get -y install wget lzo=2.0');
    expect(r.out).toContain('✔ image is valid (ubuntu, debian family)');
  });

  it('passes when everything is assumed installed, in Sahara mode too', async () => {
    const r = await dryRun('--assume-installed', '--mode', 'sahara');
    expect(r.code).toBe(0);
    expect(r.out).toContain('$ dpkg -s wget lzo-2.0');
  });

  it('prints the whole report as JSON', async () => {
    const r = await dryRun('--assume-installed', '--format', 'json');
    const report = JSON.parse(r.out);
    expect(report).toMatchObject({ ok: true, distro: 'ubuntu', reconcile: false, mode: 'batched' });
    expect(report.results.length).toBe(4);
  });

  it('exits 2 with located diagnostics for a bad spec, and for a spec file that is missing', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'siv-cli-'));
    writeFileSync(join(dir, 'image.yaml'), 'validators:\n  - package: {wget: {version: 2}}\n');
    const r = await cli('validate', join(dir, 'image.yaml'), '--dry-run');
    expect(r.code).toBe(2);
    expect(r.err).toContain(`${join(dir, 'image.yaml')}:2:`);
    expect(r.err).toContain("The version of package 'wget' must be a non-empty string");
    const missing = await cli('validate', join(dir, 'nope'), '--dry-run');
    expect(missing.code).toBe(2);
    expect(missing.err).toMatch(/The spec file could not be read: it does not exist\./);
  });

  it('rejects bad command lines with exit code 2', async () => {
    const spec = exampleSpec();
    for (const argv of [
      ['validate', spec],
      ['validate', spec, '--local', '--chroot', '/x'],
      ['validate', spec, '--dry-run', '--arg', 'novalue'],
      ['validate', spec, '--local', '--port', '22'],
      ['validate', spec, '--host', 'h', '--port', 'abc'],
      ['validate', spec, '--host', 'h', '--port', '70000'],
      ['validate', spec, '--host', 'h', '--port', '0'],
      ['validate', spec, '--local', '--assume-installed'],
      ['validate', spec, '--dry-run', '--format', 'xml'],
      ['validate', spec, '--host', 'x@h', '--password-env', 'NOT_SET_ANYWHERE'],
      ['frobnicate'],
    ]) {
      const r = await cli(...argv);
      expect(r.code, argv.join(' ')).toBe(2);
      expect(r.err.length, argv.join(' ')).toBeGreaterThan(0);
    }
  });

  it('warns about undeclared arguments and spec warnings on stderr', async () => {
    const dir = specDir();
    writeFileSync(
      join(dir, 'image.yaml'),
      `extra: 1\n${'arguments:\n  java_distro: {default: openjdk}\n'}validators: []\n`,
    );
    const r = await cli('validate', join(dir, 'image.yaml'), '--dry-run', '--arg', 'java_distr=x');
    expect(r.code).toBe(0);
    expect(r.err).toContain("The spec declares no argument 'java_distr', so --arg java_distr is ignored.");
    expect(r.err).toContain('Did you mean java_distro?');
    expect(r.err).toContain("The top-level key 'extra' is not used");
  });

  it('picks the Red Hat installer', async () => {
    const r = await dryRun('--distro', 'centos', '--reconcile', '--installer', 'dnf');
    expect(r.out).toContain('$ dnf install -y java-1.8.0-openjdk');
    const auto = await dryRun('--distro', 'centos', '--reconcile');
    expect(auto.out).toContain('$ if command -v dnf');
  });

  it('reports a failed argument check as a validation failure', async () => {
    const r = await dryRun('--arg', 'java_distro=ibm');
    expect(r.code).toBe(1);
    expect(r.out).toContain("Value for argument java_distro must be one of ['openjdk', 'oracle-java'].");
  });

  it('validates this machine with --local', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'siv-cli-'));
    writeFileSync(join(dir, 'image.yaml'), 'validators:\n  - script: {probe: {inline: "true"}}\n');
    const r = await cli('validate', join(dir, 'image.yaml'), '--local', '--verbose', '--timeout', '60');
    expect(r.code).toBe(0);
    expect(r.out).toContain('✓ script probe (inline)');
  });

  it('locates a failing script at its line in the spec and names the script file apart', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'siv-cli-'));
    mkdirSync(join(dir, 'common'));
    writeFileSync(join(dir, 'common/check-hostname.sh'), '#!/bin/bash\necho no hostname >&2\nexit 3\n');
    writeFileSync(
      join(dir, 'image.yaml'),
      'validators:\n  - script: {probe: {inline: "true"}}\n  - script: common/check-hostname.sh\n',
    );
    const r = await cli('validate', join(dir, 'image.yaml'), '--local', '--timeout', '60');
    expect(r.code).toBe(1);
    expect(r.out).toContain(`  at ${join(dir, 'image.yaml')}:3 (/validators/1)`);
    expect(r.out).toContain(`  script: ${join(dir, 'common/check-hostname.sh')}`);
    expect(r.out).not.toContain('check-hostname.sh:3');
  });
});
