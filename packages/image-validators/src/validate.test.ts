import { isStackspecError } from '@stackspec/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createDryRunRemote, type DryRunRemote, type SimulatedScript } from './adapters/dry-run.js';
import { loadImageSpec } from './load.js';
import type { Remote } from './remote.js';
import { shellQuote } from './shell.js';
import {
  saharaCommandMessage,
  type ValidateImageOptions,
  type ValidationEvent,
  validateImage,
} from './validate.js';
import { defineValidator } from './validator-definition.js';

const load = (text: string, opts: Parameters<typeof loadImageSpec>[1] = {}) =>
  loadImageSpec(text, { filename: 'image.yaml', ...opts });

function commands(remote: DryRunRemote): string[] {
  return remote.calls.flatMap((c) =>
    c.op === 'exec' ? [c.command] : c.op === 'writeFile' ? [`write ${c.path}`] : [],
  );
}

const sahara: ValidateImageOptions = { mode: 'sahara', uuid: () => 'uuid' };

describe('validateImage: package', () => {
  const spec = load('validators:\n  - package: [nfs-utils, {lzo: {version: "2.0"}}]\n');

  it('passes with one check when everything is installed', async () => {
    const remote = createDryRunRemote({ distro: 'centos', machine: { installed: ['nfs-utils', 'lzo-2.0'] } });
    const r = await validateImage(spec, remote, { ...sahara, reconcile: false });
    expect(r.ok).toBe(true);
    expect(commands(remote)).toEqual(['rpm -q nfs-utils lzo-2.0']);
    expect(r.commandCount).toBe(2);
    expect(r.results).toMatchObject([
      { type: 'package', status: 'passed', line: 2, path: '/validators/0', mode: 'check' },
    ]);
  });

  it('fails in check mode with the command, its output and a located diagnostic', async () => {
    const remote = createDryRunRemote({ distro: 'centos', machine: { installed: ['nfs-utils'] } });
    const r = await validateImage(spec, remote, { ...sahara, reconcile: false });
    expect(r.ok).toBe(false);
    expect(commands(remote)).toEqual(['rpm -q nfs-utils lzo-2.0']);
    expect(r.failure).toMatchObject({
      code: 'image/command-failed',
      type: 'package',
      path: '/validators/0',
      line: 2,
      command: 'rpm -q nfs-utils lzo-2.0',
      exitCode: 1,
      stdout: 'package lzo-2.0 is not installed\n',
    });
    expect(r.failure?.saharaMessage).toBe(
      'Image has failed validation: Error during command execution: "rpm -q nfs-utils lzo-2.0"\nReturn code: 1\nSTDOUT:\npackage lzo-2.0 is not installed\n',
    );
    expect(r.diagnostics).toMatchObject([{ code: 'image/command-failed', file: 'image.yaml', line: 2 }]);
  });

  it('installs all packages in one command and checks again in fix mode', async () => {
    const remote = createDryRunRemote({ distro: 'centos', machine: { installed: [] } });
    const r = await validateImage(spec, remote, sahara);
    expect(r.ok).toBe(true);
    expect(commands(remote)).toEqual([
      'rpm -q nfs-utils lzo-2.0',
      'yum install -y nfs-utils lzo-2.0',
      'rpm -q nfs-utils lzo-2.0',
    ]);
    expect(r.results[0]?.status).toBe('fixed');
  });

  it('stops after a failed install', async () => {
    const remote = createDryRunRemote({ distro: 'ubuntu', machine: { installable: [] } });
    const r = await validateImage(spec, remote, sahara);
    expect(commands(remote)).toEqual([
      'dpkg -s nfs-utils lzo-2.0',
      'DEBIAN_FRONTEND=noninteractive apt-get -y install nfs-utils lzo-2.0',
    ]);
    expect(r.failure).toMatchObject({ exitCode: 100, command: expect.stringContaining('apt-get') });
  });

  it('fails on a distribution without a known family (Sahara has no plain debian)', async () => {
    const remote = createDryRunRemote({ distro: 'debian' });
    const r = await validateImage(spec, remote, sahara);
    expect(r.failure).toMatchObject({
      code: 'image/unknown-distro',
      saharaMessage: 'Image has failed validation: Unknown distro: cannot verify or install packages.',
    });
    const ours = await validateImage(spec, createDryRunRemote({ distro: 'debian', machine: {} }), {});
    expect(ours.ok).toBe(true);
    expect(ours.family).toBe('debian');
    const extra = await validateImage(spec, createDryRunRemote({ distro: 'arch' }), {
      families: { arch: 'redhat' },
    });
    expect(extra.family).toBe('redhat');
  });

  it('batches checks of every reachable package into one command', async () => {
    const tree = load(
      [
        'validators:',
        '  - package: a',
        '  - os_case:',
        '      - centos: [{package: b}]',
        '      - ubuntu: [{package: never}]',
        '  - package: [c, {d: {version: "1"}}]',
        '',
      ].join('\n'),
    );
    const remote = createDryRunRemote({ distro: 'centos', machine: { installed: ['a', 'b', 'c', 'd-1'] } });
    const r = await validateImage(tree, remote, { reconcile: false });
    expect(r.ok).toBe(true);
    const cmds = commands(remote);
    expect(cmds).toHaveLength(1);
    expect(cmds[0]).toContain("rpm -q 'd-1'".replace(/'/g, ''));
    expect(cmds[0]).not.toContain('never');
    expect(r.results.map((x) => x.commands.length)).toEqual([1, 0, 0, 0]);
  });

  it('installs only the missing packages of a validator when batching', async () => {
    const remote = createDryRunRemote({ distro: 'ubuntu', machine: { installed: ['a'] } });
    const r = await validateImage(load('validators:\n  - package: [a, b, {c: {version: "2"}}]\n'), remote);
    expect(r.ok).toBe(true);
    const cmds = commands(remote);
    expect(cmds[1]).toBe('DEBIAN_FRONTEND=noninteractive apt-get -y install b c=2');
    expect(cmds).toHaveLength(3);
  });

  it('falls back to one check per validator when the batch answer is unusable', async () => {
    const remote = createDryRunRemote({ distro: 'ubuntu' });
    const r = await validateImage(load('validators:\n  - package: a\n  - package: b\n'), remote, {
      reconcile: false,
    });
    expect(r.ok).toBe(true);
    expect(commands(remote).slice(1)).toEqual(['dpkg -s a', 'dpkg -s b']);
  });
});

describe('validateImage: any', () => {
  const spec = load('validators:\n  - package: ok\n  - any:\n      - package: x\n      - package: y\n');
  const alwaysMissing = () => ({
    distro: 'centos',
    respond: (cmd: string) =>
      /^rpm -q (x|y)$/.test(cmd)
        ? { exitCode: 1, stdout: `package ${cmd.slice(7)} is not installed\n` }
        : undefined,
    machine: { installed: ['ok'], installable: ['x', 'y'] },
  });

  it('checks the branches in check mode, then fixes them in order (Sahara counts)', async () => {
    const check = createDryRunRemote(alwaysMissing());
    const r1 = await validateImage(spec, check, { ...sahara, reconcile: false });
    expect(commands(check)).toHaveLength(3);
    expect(r1.failure?.code).toBe('image/all-failed');
    expect(r1.failure?.saharaMessage).toBe(
      'Image has failed validation: All validations have failed: Image has failed validation: Error during command execution: "rpm -q x"\nReturn code: 1\nSTDOUT:\npackage x is not installed\n;Image has failed validation: Error during command execution: "rpm -q y"\nReturn code: 1\nSTDOUT:\npackage y is not installed\n',
    );
    expect(r1.failure?.causes).toHaveLength(2);
    const fix = createDryRunRemote(alwaysMissing());
    const r2 = await validateImage(spec, fix, sahara);
    expect(commands(fix)).toHaveLength(9);
    expect(r2.ok).toBe(false);
    expect(r2.results.filter((x) => x.type === 'package').map((x) => `${x.mode}:${x.status}`)).toEqual([
      'fix:passed',
      'check:failed',
      'check:failed',
      'fix:failed',
      'fix:failed',
    ]);
  });

  it('stops at the first passing branch without fixing anything', async () => {
    const remote = createDryRunRemote({ distro: 'centos', machine: { installed: ['ok', 'y'] } });
    const r = await validateImage(spec, remote, sahara);
    expect(r.ok).toBe(true);
    expect(commands(remote)).toEqual(['rpm -q ok', 'rpm -q x', 'rpm -q y']);
  });

  it('fixes the first branch that can be fixed', async () => {
    const remote = createDryRunRemote({
      distro: 'centos',
      machine: { installed: ['ok'], installable: ['y'] },
    });
    const r = await validateImage(spec, remote, sahara);
    expect(r.ok).toBe(true);
    expect(commands(remote).slice(3)).toEqual([
      'rpm -q x',
      'yum install -y x',
      'rpm -q y',
      'yum install -y y',
      'rpm -q y',
    ]);
  });

  it('fails when empty', async () => {
    const r = await validateImage(load('validators:\n  - any: []\n'), createDryRunRemote(), {});
    expect(r.failure).toMatchObject({
      code: 'image/all-failed',
      saharaMessage: 'Image has failed validation: All validations have failed: ',
    });
  });
});

describe('validateImage: cases and arguments', () => {
  it('runs the first os_case branch matching the distro or its family', async () => {
    const spec = load(
      'validators:\n  - os_case:\n      - redhat: [{package: fam}]\n      - centos: [{package: own}]\n      - ubuntu: [{package: deb}]\n',
    );
    const remote = createDryRunRemote({ distro: 'centos', machine: { installed: ['fam'] } });
    await validateImage(spec, remote, sahara);
    expect(commands(remote)).toEqual(['rpm -q fam']);
    const none = await validateImage(spec, createDryRunRemote({ distro: 'gentoo' }), sahara);
    expect(none.ok).toBe(true);
    expect(none.results[0]?.status).toBe('skipped');
  });

  it('matches argument_case keys with their YAML types', async () => {
    const spec = (key: string) =>
      load(
        `arguments:\n  scala: {default: 1}\nvalidators:\n  - argument_case:\n      argument_name: scala\n      cases:\n        ${key}: [{package: hit}]\n`,
      );
    const ran = async (key: string, args: ValidateImageOptions['arguments'] = {}) => {
      const remote = createDryRunRemote({ distro: 'ubuntu', machine: { installed: ['hit'] } });
      await validateImage(spec(key), remote, { ...sahara, arguments: args });
      return commands(remote).length > 0;
    };
    expect(await ran('1')).toBe(true);
    expect(await ran('"1"')).toBe(false);
    expect(await ran('1.0')).toBe(true);
    expect(await ran('"1"', { scala: '1' })).toBe(true);
    expect(await ran('1', { scala: '1' })).toBe(false);
    expect(await ran('yes', { scala: 1 })).toBe(true);
  });

  it('fails argument_case on an unknown argument, and argument_set can define it', async () => {
    const bad = await validateImage(
      load('validators:\n  - argument_case: {argument_name: nope, cases: {a: []}}\n'),
      createDryRunRemote(),
    );
    expect(bad.failure).toMatchObject({
      code: 'image/argument-not-found',
      saharaMessage: 'Image has failed validation: Argument nope not found.',
      line: 2,
    });
    const remote = createDryRunRemote({ machine: { installed: ['yes'] } });
    const ok = await validateImage(
      load(
        'validators:\n  - argument_set: {argument_name: nope, value: a}\n  - argument_case: {argument_name: nope, cases: {a: [{package: "yes"}]}}\n',
      ),
      remote,
      sahara,
    );
    expect(ok.ok).toBe(true);
    expect(ok.variables.nope).toBe('a');
  });

  const argSpec = load(
    [
      'arguments:',
      '  java: {default: openjdk, choices: [openjdk, oracle-java]}',
      '  token: {required: true}',
      'validators:',
      '  - argument_case: {argument_name: distro, cases: {ubuntu: []}}',
      '',
    ].join('\n'),
  );

  it('resolves declared arguments, drops undeclared ones and enforces choices', async () => {
    const r = await validateImage(argSpec, createDryRunRemote(), { arguments: { token: 't', stray: 'x' } });
    expect(r.ok).toBe(true);
    expect(r.arguments).toEqual({ java: 'openjdk', token: 't', distro: 'ubuntu' });
    const missing = await validateImage(argSpec, createDryRunRemote(), {});
    expect(missing.failure).toMatchObject({
      code: 'image/argument-required',
      saharaMessage: 'Image has failed validation: Argument token is required for image processing.',
      line: 3,
    });
    expect(missing.commandCount).toBe(0);
    const choice = await validateImage(argSpec, createDryRunRemote(), {
      arguments: { token: 't', java: 'ibm' },
    });
    expect(choice.failure?.saharaMessage).toBe(
      "Image has failed validation: Value for argument java must be one of ['openjdk', 'oracle-java'].",
    );
  });

  it('keeps env variables but refuses ones that clash with arguments', async () => {
    const r = await validateImage(argSpec, createDryRunRemote(), {
      arguments: { token: 't' },
      env: { EXTRA: 'v' },
    });
    expect(r.variables.EXTRA).toBe('v');
    const clash = await validateImage(argSpec, createDryRunRemote(), {
      arguments: { token: 't' },
      env: { java: 'x' },
    });
    expect(clash.failure?.code).toBe('image/env-conflict');
    const reserved = await validateImage(argSpec, createDryRunRemote(), {
      arguments: { token: 't' },
      env: { distro: 'x' },
    });
    expect(reserved.failure?.code).toBe('image/env-conflict');
  });

  it('refuses a NUL byte in an argument or env value before running anything', async () => {
    const remote = createDryRunRemote();
    const arg = await validateImage(argSpec, remote, { arguments: { token: 'a\u0000b' } });
    expect(arg.failure).toMatchObject({ code: 'image/argument-invalid', line: 3, path: '/arguments/token' });
    expect(arg.failure?.message).toMatch(/token contains a NUL byte/);
    const env = await validateImage(argSpec, remote, { arguments: { token: 't' }, env: { X: '\u0000' } });
    expect(env.failure).toMatchObject({ code: 'image/env-invalid' });
    expect(remote.calls).toEqual([]);
  });
});

describe('validateImage: options', () => {
  const spec = load('validators:\n  - package: a\n');

  it('rejects options of the wrong shape with located diagnostics, before anything runs', async () => {
    const cases: [unknown, string, string][] = [
      [{ mode: 'nonsense' }, 'image/options/invalid-value', '/mode'],
      [{ reconcil: false }, 'image/options/unknown-key', '/reconcil'],
      [{ tempDir: 'tmp' }, 'image/options/custom', '/tempDir'],
      [{ arguments: { a: {} } }, 'image/options/invalid-type', '/arguments/a'],
      [{ env: { A: 1 } }, 'image/options/invalid-type', '/env/A'],
      [{ onProgress: 'yes' }, 'image/options/custom', '/onProgress'],
      [{ maxOutputChars: -1 }, 'image/options/too-small', '/maxOutputChars'],
      [null, 'image/options/invalid-type', ''],
    ];
    for (const [options, code, path] of cases) {
      const remote = createDryRunRemote();
      try {
        await validateImage(spec, remote, options as ValidateImageOptions);
        expect.unreachable(JSON.stringify(options));
      } catch (e) {
        expect(isStackspecError(e) && e.code, JSON.stringify(options)).toBe(code);
        expect(isStackspecError(e) && e.diagnostics[0]?.path).toBe(path);
      }
      expect(remote.calls).toEqual([]);
    }
  });

  it('accepts every documented option', async () => {
    const r = await validateImage(spec, createDryRunRemote(), {
      reconcile: false,
      arguments: {},
      env: { A: 'b' },
      mode: 'batched',
      families: { ubuntu: 'debian' },
      redhatInstaller: 'dnf',
      tempDir: '/var/tmp',
      onProgress: () => {},
      uuid: () => 'u',
      maxOutputChars: 10,
    });
    expect(r).toMatchObject({ ok: true, mode: 'batched', reconcile: false });
  });
});

describe('saharaCommandMessage', () => {
  it("words a failed command as Sahara's remote error does, keeping printable text only", () => {
    expect(
      saharaCommandMessage('rpm -q a', { exitCode: 1, stdout: 'package a is not installed\n', stderr: '' }),
    ).toBe(
      'Error during command execution: "rpm -q a"\nReturn code: 1\nSTDOUT:\npackage a is not installed\n',
    );
    expect(saharaCommandMessage('x', { exitCode: 0, stdout: '', stderr: 'caf\u00e9\u0007 \u2713\n' })).toBe(
      'Error during command execution: "x"\nSTDERR:\ncaf \n',
    );
    expect(saharaCommandMessage('x', { exitCode: 2, stdout: 'o', stderr: 'e' })).toBe(
      'Error during command execution: "x"\nReturn code: 2\nSTDERR:\ne\nSTDOUT:\no',
    );
  });
});

describe('validateImage: scripts', () => {
  const spec = load(
    [
      'arguments:',
      '  java_distro: {default: openjdk}',
      '  ratio: {default: 2.0}',
      'validators:',
      '  - script: {find: {inline: "echo find", output: JRE_HOME}}',
      '  - script: {use: {inline: "echo use", env_vars: [JRE_HOME, java_distro, undeclared, ratio]}}',
      '',
    ].join('\n'),
  );

  it("exports variables in Sahara's order and captures raw stdout", async () => {
    const seen: SimulatedScript[] = [];
    const remote = createDryRunRemote({
      distro: 'centos',
      machine: {
        script: (s) => {
          seen.push(s);
          return s.body.includes('find') ? { stdout: '/usr/lib/jvm\n' } : {};
        },
      },
    });
    const r = await validateImage(spec, remote, {
      ...sahara,
      reconcile: false,
      env: { undeclared_env: 'e' },
    });
    expect(r.ok).toBe(true);
    expect(commands(remote)).toEqual([
      'write /tmp/uuid.sh',
      'chmod +x /tmp/uuid.sh',
      'bash -c /tmp/uuid.sh',
      'write /tmp/uuid.sh',
      'chmod +x /tmp/uuid.sh',
      'bash -c /tmp/uuid.sh',
    ]);
    const file = remote.calls.find((c) => c.op === 'writeFile');
    expect(file?.op === 'writeFile' && file.content).toBe(
      'export distro=centos\nexport test_only=1\nexport SIV_DISTRO=centos\nexport SIV_RECONCILE=0\necho find',
    );
    expect(seen[1]?.env).toEqual({
      java_distro: 'openjdk',
      ratio: '2.0',
      distro: 'centos',
      JRE_HOME: '/usr/lib/jvm\n',
      test_only: '1',
      SIV_DISTRO: 'centos',
      SIV_RECONCILE: '0',
    });
    expect(r.variables.JRE_HOME).toBe('/usr/lib/jvm\n');
  });

  it('runs each script in one round trip when batching, marking fix mode', async () => {
    const seen: SimulatedScript[] = [];
    const remote = createDryRunRemote({
      machine: {
        script: (s) => {
          seen.push(s);
          return {};
        },
      },
    });
    const r = await validateImage(spec, remote, { reconcile: true });
    expect(r.ok).toBe(true);
    expect(commands(remote)).toHaveLength(2);
    expect(remote.calls[1]).toMatchObject({ op: 'exec', options: { asRoot: true } });
    expect(seen.map((s) => [s.env.test_only, s.env.SIV_RECONCILE])).toEqual([
      ['0', '1'],
      ['0', '1'],
    ]);
  });

  it('fails with the script output and exit status', async () => {
    const remote = createDryRunRemote({ machine: { script: () => ({ exitCode: 2, stderr: 'no java\n' }) } });
    const r = await validateImage(spec, remote, { reconcile: false });
    expect(r.failure).toMatchObject({
      code: 'image/command-failed',
      type: 'script',
      exitCode: 2,
      stderr: 'no java\n',
      line: 5,
    });
    expect(r.failure?.message).toContain("The script 'find' failed");
    expect(r.diagnostics[0]?.hint).toContain('no java');
  });

  it("names Sahara's script path in saharaMessage and the command it ran in command", async () => {
    const remote = createDryRunRemote({ machine: { script: () => ({ exitCode: 2, stderr: 'no java\n' }) } });
    const r = await validateImage(spec, remote, { ...sahara, reconcile: false });
    expect(r.failure).toMatchObject({ command: 'bash -c /tmp/uuid.sh', exitCode: 2 });
    expect(r.failure?.saharaMessage).toBe(
      'Image has failed validation: Error during command execution: "/tmp/uuid.sh"\nReturn code: 2\nSTDERR:\nno java\n',
    );
  });

  it('quotes the script path in Sahara mode, so a hostile tempDir stays a path', async () => {
    const remote = createDryRunRemote({ machine: {} });
    const tempDir = "/tmp/a b;touch X'$(id)";
    const r = await validateImage(spec, remote, { ...sahara, reconcile: false, tempDir });
    expect(r.ok, r.failure?.message).toBe(true);
    const path = `${tempDir}/uuid.sh`;
    expect(commands(remote).slice(0, 3)).toEqual([
      `write ${path}`,
      `chmod +x ${shellQuote(path)}`,
      `bash -c ${shellQuote(shellQuote(path))}`,
    ]);
  });

  it('turns a script output that no later script can receive into a located failure, keeping the report', async () => {
    const remote = createDryRunRemote({
      machine: { script: (s) => (s.body.includes('find') ? { stdout: 'a\u0000b' } : {}) },
    });
    const r = await validateImage(spec, remote, { reconcile: false });
    expect(r.ok).toBe(false);
    expect(r.failure).toMatchObject({ code: 'image/shell/nul-byte', type: 'script', line: 6 });
    expect(r.failure?.message).toMatch(/JRE_HOME contains a NUL byte/);
    expect(r.results.map((x) => x.status)).toEqual(['passed', 'failed']);
    expect(r.variables.JRE_HOME).toBe('a\u0000b');
  });

  it('writes consecutive copy_script files with one tar command, and falls back when tar fails', async () => {
    const spec = load(
      'validators:\n  - copy_script: {a/b/one.sh: {inline: "1"}}\n  - copy_script: {a/b/two.json: {inline: "2"}}\n  - copy_script: {a/b/three: {inline: "3"}}\n',
    );
    const remote = createDryRunRemote({ machine: {} });
    const r = await validateImage(spec, remote, { reconcile: false });
    expect(r.ok).toBe(true);
    expect(commands(remote)).toEqual(['tar -x -m -f - -C /']);
    expect([...remote.files]).toEqual([
      ['/tmp/one.sh', '1'],
      ['/tmp/two.json', '2'],
      ['/tmp/three', '3'],
    ]);
    expect(r.results.map((x) => [x.status, x.commands.length])).toEqual([
      ['passed', 1],
      ['passed', 0],
      ['passed', 0],
    ]);
    const noTar = createDryRunRemote({
      respond: (c) => (c.startsWith('tar ') ? { exitCode: 127, stderr: 'tar: not found\n' } : undefined),
    });
    const f = await validateImage(spec, noTar, { reconcile: false });
    expect(f.ok).toBe(true);
    expect(commands(noTar)).toEqual([
      'tar -x -m -f - -C /',
      'write /tmp/one.sh',
      'write /tmp/two.json',
      'write /tmp/three',
    ]);
    expect(f.results[0]?.commands.map((c) => c.exitCode ?? 'write')).toEqual([127, 'write']);
  });

  it('copies copy_script bodies to /tmp in both modes', async () => {
    const remote = createDryRunRemote();
    const r = await validateImage(
      load('validators:\n  - copy_script: {a/b/c.sh: {inline: "body"}}\n'),
      remote,
      { reconcile: false },
    );
    expect(r.ok).toBe(true);
    expect(remote.files.get('/tmp/c.sh')).toBe('body');
  });
});

describe('validateImage: remotes, custom validators and progress', () => {
  it('reports a remote that cannot run commands instead of throwing', async () => {
    const broken: Remote = {
      exec: () => Promise.reject(new Error('connection reset')),
      writeFile: () => Promise.resolve(),
      distro: () => Promise.resolve('ubuntu'),
    };
    const r = await validateImage(load('validators:\n  - package: a\n'), broken);
    expect(r.ok).toBe(false);
    expect(r.failure).toMatchObject({ code: 'image/remote/failed' });
    expect(r.failure?.message).toContain('connection reset');
    const noDistro = await validateImage(load('validators: []\n'), {
      ...broken,
      distro: () => Promise.reject(new Error('x')),
    });
    expect(noDistro.failure?.code).toBe('image/remote/failed');
  });

  it('runs custom validators with recorded commands, variables and nested lists', async () => {
    const fileExists = defineValidator({
      load: (value, ctx) => ({
        path: String((value as { path: unknown }).path),
        next: ctx.loadValidators((value as { next: unknown }).next, ['next']),
      }),
      async validate(config, ctx) {
        const r = await ctx.exec(`test -e ${shellQuote(config.path)}`);
        if (r.exitCode !== 0) ctx.fail(`${config.path} is missing`);
        ctx.variables.set('found', config.path);
        await ctx.validate(config.next);
      },
      children: (c) => c.next,
      describe: (c) => c.path,
    });
    const spec = load(
      'validators:\n  - any:\n      - file_exists: {path: /nope, next: []}\n      - file_exists: {path: /etc, next: [{package: p}]}\n',
      {
        validatorMap: { file_exists: fileExists },
      },
    );
    const remote = createDryRunRemote({
      respond: (c) => (c.includes('/nope') ? { exitCode: 1 } : undefined),
    });
    const r = await validateImage(spec, remote, { reconcile: false });
    expect(r.ok).toBe(true);
    expect(r.variables.found).toBe('/etc');
    expect(r.results.map((x) => x.label)).toEqual([
      'any (2)',
      'file_exists /nope',
      'file_exists /etc',
      'package p',
    ]);
    const crash = defineValidator({
      load: () => 1,
      validate: async () => {
        throw new Error('bug');
      },
    });
    const c = await validateImage(
      load('validators:\n  - any: [{crash: 1}, {package: a}]\n', { validatorMap: { crash } }),
      createDryRunRemote(),
    );
    expect(c.failure).toMatchObject({ code: 'image/validator-crashed', line: 2 });
  });

  it('reports progress for every validator start and end', async () => {
    const events: string[] = [];
    const onProgress = (e: ValidationEvent) =>
      events.push(e.type === 'prefetch' ? `prefetch ${e.packages}` : `${e.type} ${e.result.label}`);
    await validateImage(load('validators:\n  - all: [{package: a}]\n'), createDryRunRemote({ machine: {} }), {
      onProgress,
    });
    expect(events).toEqual([
      'start all (1)',
      'start package a',
      'prefetch 1',
      'end package a',
      'end all (1)',
    ]);
  });
});

// Random trees of packages, cases, any/all and scripts, run in both command
// styles against the same simulated machine: verdicts must agree, and check
// mode must never install anything.
describe('validateImage: properties', () => {
  const names = ['p1', 'p2', 'p3', 'p4'];
  type Tree = string;
  const leaf: fc.Arbitrary<Tree> = fc.oneof(
    fc.subarray(names, { minLength: 1 }).map((ps) => `{package: [${ps.join(', ')}]}`),
    fc.constantFrom('s1', 's2', 's3').map((s) => `{script: {${s}: {inline: "${s}"}}}`),
    fc.constantFrom('x', 'y').map((v) => `{argument_set: {argument_name: arg, value: ${v}}}`),
  );
  const tree: fc.Arbitrary<Tree> = fc.letrec<{ node: Tree }>((tie) => ({
    node: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      leaf,
      fc.array(tie('node'), { maxLength: 3 }).map((xs) => `{any: [${xs.join(', ')}]}`),
      fc.array(tie('node'), { maxLength: 3 }).map((xs) => `{all: [${xs.join(', ')}]}`),
      fc
        .tuple(fc.array(tie('node'), { maxLength: 2 }), fc.array(tie('node'), { maxLength: 2 }))
        .map(([a, b]) => `{os_case: [{ubuntu: [${a.join(', ')}]}, {redhat: [${b.join(', ')}]}]}`),
      fc
        .tuple(fc.array(tie('node'), { maxLength: 2 }), fc.array(tie('node'), { maxLength: 2 }))
        .map(
          ([a, b]) =>
            `{argument_case: {argument_name: arg, cases: {x: [${a.join(', ')}], y: [${b.join(', ')}]}}}`,
        ),
    ),
  })).node;
  const world = fc.record({
    distro: fc.constantFrom('ubuntu', 'centos'),
    installed: fc.subarray(names),
    installable: fc.subarray(names),
    failing: fc.subarray(['s1', 's2', 's3']),
    // A script that installs p4 when run in fix mode (the batch cache must notice).
    installer: fc.constantFrom('s1', 's2', 's3', 'none'),
    reconcile: fc.boolean(),
    validators: fc.array(tree, { maxLength: 4 }),
  });

  it('gives the same verdict batched and unbatched, and check mode installs nothing', async () => {
    await fc.assert(
      fc.asyncProperty(world, async (w) => {
        const spec = load(`arguments:\n  arg: {default: x}\nvalidators: [${w.validators.join(', ')}]\n`);
        const run = async (mode: 'batched' | 'sahara') => {
          const remote: DryRunRemote = createDryRunRemote({
            distro: w.distro,
            machine: {
              installed: w.installed,
              installable: w.installable,
              script: (s) => {
                const id = s.body.trim().split('\n').pop() ?? '';
                if (id === w.installer && s.env.test_only === '0')
                  (remote.installed as Set<string>).add('p4');
                return w.failing.includes(id) ? { exitCode: 1 } : {};
              },
            },
          });
          const report = await validateImage(spec, remote, { mode, reconcile: w.reconcile, uuid: () => 'u' });
          return { report, remote };
        };
        const a = await run('sahara');
        const b = await run('batched');
        expect(b.report.ok).toBe(a.report.ok);
        expect(b.report.failure?.code).toBe(a.report.failure?.code);
        expect([...b.remote.installed].sort()).toEqual([...a.remote.installed].sort());
        if (!w.reconcile) {
          for (const r of [a, b]) {
            expect(commands(r.remote).some((c) => /install -y/.test(c))).toBe(false);
            expect([...r.remote.installed].sort()).toEqual([...w.installed].sort());
          }
        }
      }),
      { numRuns: 300 },
    );
  });
});
