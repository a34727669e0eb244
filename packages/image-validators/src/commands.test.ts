import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  batchCheckCommand,
  checkCommand,
  installCommand,
  packageWord,
  readBatchCheck,
  recognizePackageCommand,
  runScriptCommand,
  scriptFile,
  splitWords,
} from './commands.js';

const pkgs = [{ name: 'nfs-utils' }, { name: 'lzo', version: '2.0' }];

describe('package commands', () => {
  it("builds Sahara's exact commands in sahara style", () => {
    expect(checkCommand(pkgs, 'redhat', 'sahara')).toBe('rpm -q nfs-utils lzo-2.0');
    expect(installCommand(pkgs, 'redhat', 'sahara')).toBe('yum install -y nfs-utils lzo-2.0');
    expect(checkCommand(pkgs, 'debian', 'sahara')).toBe('dpkg -s nfs-utils lzo-2.0');
    expect(installCommand(pkgs, 'debian', 'sahara')).toBe(
      'DEBIAN_FRONTEND=noninteractive apt-get -y install nfs-utils lzo-2.0',
    );
  });

  it('pins apt packages with = and checks their version in batched style', () => {
    expect(packageWord({ name: 'lzo', version: '2.0' }, 'debian', 'batched')).toBe('lzo=2.0');
    expect(installCommand(pkgs, 'debian', 'batched')).toBe(
      'DEBIAN_FRONTEND=noninteractive apt-get -y install nfs-utils lzo=2.0',
    );
    expect(installCommand(pkgs, 'redhat', 'batched', 'dnf')).toBe('dnf install -y nfs-utils lzo-2.0');
    const auto = installCommand(pkgs, 'redhat', 'batched', 'auto');
    expect(auto).toBe(
      'if command -v dnf >/dev/null 2>&1; then dnf install -y nfs-utils lzo-2.0; else yum install -y nfs-utils lzo-2.0; fi',
    );
    expect(recognizePackageCommand(auto)).toEqual({
      kind: 'install',
      family: 'redhat',
      packages: ['nfs-utils', 'lzo-2.0'],
    });
    expect(checkCommand([{ name: 'a' }], 'debian', 'batched')).toBe('dpkg -s a');
    // biome-ignore lint/suspicious/noTemplateCurlyInString: dpkg-query's own format syntax.
    expect(checkCommand(pkgs, 'debian', 'batched')).toContain("dpkg-query -W -f='${Status} ${Version}' lzo");
  });

  it('quotes hostile package names', () => {
    expect(checkCommand([{ name: 'x; rm -rf /' }], 'debian', 'sahara')).toBe("dpkg -s 'x; rm -rf /'");
  });

  it('checks each package of a batch and reads the verdicts back', () => {
    const cmd = batchCheckCommand([{ name: 'a' }, { name: 'b' }, { name: 'c', version: '1' }], 'debian');
    expect(recognizePackageCommand(cmd)).toEqual({
      kind: 'batch-check',
      family: 'debian',
      packages: ['a', 'b', 'c=1'],
    });
    expect(readBatchCheck('siv-missing:1\nsiv-done\n', 3)).toEqual(new Set([1]));
    expect(readBatchCheck('siv-missing:1\n', 3)).toBeUndefined();
    expect(readBatchCheck('siv-missing:7\nsiv-done\n', 3)).toBeUndefined();
    expect(readBatchCheck('', 0)).toBeUndefined();
  });

  it('runs a batch through a real shell with the verdict of each package alone', () => {
    // `true`/`false` stand in for dpkg: a fake dpkg on PATH answers for two names.
    const dir = spawnSync('mktemp', ['-d'], { encoding: 'utf8' }).stdout.trim();
    spawnSync('/bin/sh', [
      '-c',
      `printf '#!/bin/sh\\n[ "$2" = have ]\\n' > ${dir}/dpkg && chmod +x ${dir}/dpkg`,
    ]);
    const marker = `${dir}/pwned`;
    const cmd = batchCheckCommand(
      [
        { name: 'have' },
        { name: 'miss' },
        { name: `$(touch ${marker})` },
        { name: 'have', version: `\`touch ${marker}\`` },
      ],
      'debian',
    );
    const r = spawnSync('/bin/sh', ['-c', cmd], { encoding: 'utf8', env: { PATH: `${dir}:/usr/bin:/bin` } });
    expect(readBatchCheck(r.stdout, 4)).toEqual(new Set([1, 2, 3]));
    expect(existsSync(marker)).toBe(false);
  });

  it('recognises every command it generates', () => {
    expect(recognizePackageCommand('rpm -q a b-1')).toEqual({
      kind: 'check',
      family: 'redhat',
      packages: ['a', 'b-1'],
    });
    expect(recognizePackageCommand("dpkg -s 'a b'")).toEqual({
      kind: 'check',
      family: 'debian',
      packages: ['a b'],
    });
    expect(recognizePackageCommand('yum install -y a')).toMatchObject({ kind: 'install', packages: ['a'] });
    expect(recognizePackageCommand('dnf install -y a')).toMatchObject({ kind: 'install', family: 'redhat' });
    expect(recognizePackageCommand(checkCommand(pkgs, 'debian', 'batched'))).toEqual({
      kind: 'check',
      family: 'debian',
      packages: ['nfs-utils', 'lzo=2.0'],
    });
    expect(recognizePackageCommand('echo hi')).toBeUndefined();
    expect(recognizePackageCommand(batchCheckCommand([{ name: 'a' }], 'redhat'))).toMatchObject({
      family: 'redhat',
    });
  });

  it('splits words the way a shell would for our quoting', () => {
    expect(splitWords("a 'b c' 'it'\\''s' d\\ e")).toEqual(['a', 'b c', "it's", 'd e']);
  });
});

describe('script files', () => {
  it('lays the file out like Sahara: exports, newline, body', () => {
    expect(
      scriptFile(
        [
          ['a', 'x y'],
          ['test_only', '1'],
        ],
        '#!/bin/bash\necho',
        false,
      ),
    ).toBe("export a='x y'\nexport test_only=1\n#!/bin/bash\necho");
  });

  it('keeps the shebang on line 1 in batched style, bash when none is named', () => {
    expect(scriptFile([['a', '1']], '#!/bin/sh\necho', true)).toBe('#!/bin/sh\nexport a=1\necho');
    expect(scriptFile([['a', '1']], 'echo', true)).toBe('#!/bin/bash\nexport a=1\necho');
    expect(scriptFile([], '#!/bin/sh', true)).toBe('#!/bin/sh\n');
  });

  it('runs a script from stdin in one command and removes it', () => {
    const dir = spawnSync('mktemp', ['-d'], { encoding: 'utf8' }).stdout.trim();
    const r = spawnSync('/bin/sh', ['-c', runScriptCommand(dir)], {
      input: scriptFile(
        [['V', "it's $(x)"]],
        '#!/bin/sh\nprintf %s "$V"; read line && echo got-stdin; exit 3',
        true,
      ),
      encoding: 'utf8',
    });
    expect(r.status).toBe(3);
    expect(r.stdout).toBe("it's $(x)");
    expect(spawnSync('ls', ['-A', dir], { encoding: 'utf8' }).stdout).toBe('');
  });
});
