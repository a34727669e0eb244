// SSH as users configure it, against real sshds: a bastion, a target that only
// the bastion can reach, and a server on the target's own loopback (two hops
// away). See support/netns.ts for how "only through the bastion" is made real.
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '@stackspec/core/cli';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryIO } from '../../../test-support/cli.js';
import { serviceAvailable } from '../../../test-support/require.js';
import { createSshRemote, knownHostKeys } from '../src/adapters/ssh.js';
import { runImageCli } from '../src/cli.js';
import { createJumpLab, type JumpLab, netnsAvailable } from './support/netns.js';
import { keygen, sshdAvailable, startSshd, type TestSshd } from './support/sshd.js';

// One command in the spec reports the addresses of the machine's network namespace, so each test
// sees where its commands really ran.
const SPEC =
  'validators:\n  - script: {where: {inline: "ip -4 -o addr show | awk \'{print $4}\'", output: where}}\n';

async function cli(argv: string[], env: Record<string, string>, cwd: string) {
  const io = memoryIO({ cwd, env: { NO_COLOR: '1', ...env } });
  const code = await runCli(() => runImageCli(argv, io), io);
  return { code, out: io.out(), err: io.err() };
}

describe('the ssh config on the command line', () => {
  it('refuses a config line it cannot use with exit 2, naming the file and line', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'siv-sshcfg-'));
    try {
      const config = join(dir, 'config');
      writeFileSync(config, 'Host lab\n  HostName 10.0.0.5\n  Port twenty-two\n');
      writeFileSync(join(dir, 'image.yaml'), 'validators: []\n');
      const r = await cli(
        ['validate', join(dir, 'image.yaml'), '--host', 'lab', '-F', 'config'],
        { HOME: dir },
        dir,
      );
      expect(r.code).toBe(2);
      expect(r.err).toContain(`${config}:3`);
      expect(r.err).toContain('Port must be a whole number from 1 to 65535, but it is "twenty-two".');
      const misspelt = join(dir, 'misspelt');
      writeFileSync(misspelt, 'Host lab\n  ProxyJmp bastion\n');
      const typo = await cli(
        ['validate', join(dir, 'image.yaml'), '--host', 'lab', '--ssh-config', misspelt],
        { HOME: dir },
        dir,
      );
      expect(typo.code).toBe(2);
      expect(typo.err).toContain(`${misspelt}:2`);
      expect(typo.err).toContain('ProxyJmp is not an ssh_config keyword; did you mean ProxyJump?');
      const alone = await cli(
        ['validate', join(dir, 'image.yaml'), '--local', '-F', 'config'],
        { HOME: dir },
        dir,
      );
      expect(alone.code).toBe(2);
      expect(alone.err).toContain('only apply with --host');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe.runIf(
  serviceAvailable('sshd', sshdAvailable()) &&
    serviceAvailable('network namespaces (root, iproute2)', netnsAvailable()),
)('SSH through jump hosts named in the ssh config, against real sshds', () => {
  let lab: JumpLab;
  let dir: string;
  let clientKey: string;
  let caKey: string;
  let bastion: TestSshd;
  let target: TestSshd;
  let inner: TestSshd;

  beforeAll(async () => {
    lab = createJumpLab();
    dir = mkdtempSync(join(tmpdir(), 'siv-jump-'));
    clientKey = join(dir, 'client');
    caKey = join(dir, 'host_ca');
    keygen(clientKey);
    keygen(caKey);
    const common = { clientKeyPath: clientKey };
    bastion = await startSshd({ ...common, netns: lab.bastionNs, listen: [lab.bastionAddress], port: 22 });
    target = await startSshd({
      ...common,
      netns: lab.targetNs,
      listen: [lab.targetAddress],
      port: 2222,
      hostCertificate: { caKeyPath: caKey, principals: [lab.targetAddress, 'target.lab.example'] },
    });
    inner = await startSshd({ ...common, netns: lab.targetNs, listen: ['127.0.0.1'], port: 22 });
    writeFileSync(join(dir, 'image.yaml'), SPEC);
  });
  afterAll(async () => {
    await Promise.all([bastion?.stop(), target?.stop(), inner?.stop()]);
    lab?.remove();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const CONFIG = () =>
    [
      '# Only this file knows how to reach the lab.',
      'Host bastion',
      `  HostName ${lab.bastionAddress}`,
      'Host target',
      `  HostName ${lab.targetAddress}`,
      '  Port 2222',
      '  ProxyJump bastion',
      'Host inner',
      '  HostName 127.0.0.1',
      '  ProxyJump bastion,target',
      'Host *',
      '  User root',
      '  IdentityFile ~/.ssh/id_%r_lab',
      '  IdentitiesOnly yes',
      '',
    ].join('\n');
  const hostLine = (s: TestSshd) => `${s.port === 22 ? s.address : `[${s.address}]:${s.port}`} ${s.hostKey}`;
  const caLine = () => `${readFileSync(`${caKey}.pub`, 'utf8').trim().split(/\s+/).slice(0, 2).join(' ')}`;

  /** A home folder with this .ssh/config and known_hosts, and the client key as ~/.ssh/id_root_lab. */
  const homeWith = (config: string, knownHosts: readonly string[]) => {
    const home = mkdtempSync(join(dir, 'home-'));
    mkdirSync(join(home, '.ssh'), { mode: 0o700 });
    copyFileSync(clientKey, join(home, '.ssh', 'id_root_lab'));
    writeFileSync(join(home, '.ssh', 'config'), config);
    writeFileSync(join(home, '.ssh', 'known_hosts'), knownHosts.map((l) => `${l}\n`).join(''));
    return home;
  };
  const validate = (home: string, host: string, extra: string[] = []) =>
    cli(
      ['validate', join(dir, 'image.yaml'), '--host', host, '--format', 'json', ...extra],
      { HOME: home },
      dir,
    );
  const whereItRan = (out: string) => String(JSON.parse(out).variables.where);

  it('cannot reach the target without the bastion', async () => {
    const direct = createSshRemote({
      host: lab.targetAddress,
      port: 2222,
      configFile: false,
      insecureSkipHostKeyCheck: true,
      privateKeyPath: clientKey,
      username: 'root',
      readyTimeoutMs: 5000,
    });
    await expect(direct.exec('true')).rejects.toMatchObject({ code: 'image/remote/connect-failed' });
  });

  it('validates `--host target` through a ProxyJump bastion named only in ~/.ssh/config, host keys checked', async () => {
    const home = homeWith(CONFIG(), [hostLine(bastion), hostLine(target)]);
    const r = await validate(home, 'target');
    expect(r.code, r.err + r.out).toBe(0);
    expect(JSON.parse(r.out).ok).toBe(true);
    // The commands ran in the target's namespace: its link address, not the bastion's.
    expect(whereItRan(r.out)).toContain(`${lab.targetAddress}/30`);
    expect(whereItRan(r.out)).not.toContain(lab.bastionAddress);
    const text = await cli(['validate', join(dir, 'image.yaml'), '--host', 'target'], { HOME: home }, dir);
    expect(text.out).toContain('on target: check only');
    expect(text.out).toContain('✔ image is valid');
  });

  it('goes through two hops, each resolved through the config', async () => {
    const home = homeWith(CONFIG(), [hostLine(bastion), hostLine(target), hostLine(inner)]);
    const r = await validate(home, 'inner');
    expect(r.code, r.err + r.out).toBe(0);
    // 127.0.0.1 of the target's namespace, which only the target itself can reach.
    expect(whereItRan(r.out)).toContain('127.0.0.1/8');
    expect(whereItRan(r.out)).toContain(`${lab.targetAddress}/30`);
    // The library, with the same config: one connection per hop, all closed by close().
    const remote = createSshRemote({ host: 'inner', home, env: {}, systemConfigFile: false });
    try {
      expect((await remote.exec('id -un')).stdout).toBe('root\n');
      expect((await remote.exec('echo again')).stdout).toBe('again\n');
    } finally {
      await remote.close();
    }
  });

  it('refuses a wrong target key with the known_hosts file and line to fix', async () => {
    // The target listed with the bastion's key: a changed key, as after a reinstall or an attack.
    const wrong = `[${lab.targetAddress}]:2222 ${bastion.hostKey}`;
    const home = homeWith(CONFIG(), [hostLine(bastion), wrong]);
    const knownHosts = join(home, '.ssh', 'known_hosts');
    const r = await cli(['validate', join(dir, 'image.yaml'), '--host', 'target'], { HOME: home }, dir);
    expect(r.code).toBe(1);
    expect(r.out).toContain(`The host key of [${lab.targetAddress}]:2222 (SHA256:`);
    expect(r.out).toContain(`does not match the ssh-ed25519 key listed for it in ${knownHosts}:2`);
    // Not listed at all: refused too, naming the files read.
    const unknown = homeWith(CONFIG(), [hostLine(bastion)]);
    const u = await cli(['validate', join(dir, 'image.yaml'), '--host', 'target'], { HOME: unknown }, dir);
    expect(u.code).toBe(1);
    expect(u.out).toContain(`is not trusted by ${join(unknown, '.ssh', 'known_hosts')}`);
    // A wrong bastion key stops the route at the bastion.
    const badBastion = homeWith(CONFIG(), [`${lab.bastionAddress} ${target.hostKey}`, hostLine(target)]);
    const b = await cli(['validate', join(dir, 'image.yaml'), '--host', 'target'], { HOME: badBastion }, dir);
    expect(b.code).toBe(1);
    expect(b.out).toContain(`The host key of ${lab.bastionAddress} (SHA256:`);
    expect(b.out).toContain(`${join(badBastion, '.ssh', 'known_hosts')}:1`);
  });

  it('with StrictHostKeyChecking accept-new, adds the new target key to known_hosts (hashed when asked)', async () => {
    for (const hash of [false, true]) {
      const config = CONFIG().replace(
        '  ProxyJump bastion\n',
        // Said both ways: Debian's /etc/ssh/ssh_config hashes by default, and is read after ours.
        `  ProxyJump bastion\n  StrictHostKeyChecking accept-new\n  HashKnownHosts ${hash ? 'yes' : 'no'}\n`,
      );
      const home = homeWith(config, [hostLine(bastion)]);
      const knownHosts = join(home, '.ssh', 'known_hosts');
      const r = await validate(home, 'target');
      expect(r.code, r.err + r.out).toBe(0);
      expect(r.err).toContain(`Permanently added the ssh-ed25519 key`);
      const written = readFileSync(knownHosts, 'utf8');
      const added = written.trim().split('\n')[1] as string;
      expect(added.startsWith('|1|')).toBe(hash);
      const blob = Buffer.from(target.hostKey.split(' ')[1] as string, 'base64');
      expect(knownHostKeys(written, lab.targetAddress, 2222).keys).toEqual([blob]);
      // Known now: the next run passes with checking strict again, and adds nothing.
      const strict = homeWith(CONFIG(), []);
      writeFileSync(join(strict, '.ssh', 'known_hosts'), written);
      const again = await validate(strict, 'target');
      expect(again.code, again.out).toBe(0);
      expect(readFileSync(join(strict, '.ssh', 'known_hosts'), 'utf8')).toBe(written);
    }
  });

  it('accepts a host certificate signed by a CA of an @cert-authority line, and only for the principals it lists', async () => {
    const pattern = `[${lab.targetAddress.replace(/\.\d+$/, '.*')}]:2222`;
    const home = homeWith(CONFIG(), [hostLine(bastion), `@cert-authority ${pattern} ${caLine()}`]);
    const r = await validate(home, 'target');
    expect(r.code, r.err + r.out).toBe(0);
    expect(whereItRan(r.out)).toContain(`${lab.targetAddress}/30`);

    // The same certificate, for a name it does not list (HostKeyAlias decides the name checked).
    const aliased = CONFIG().replace('  Port 2222\n', '  Port 2222\n  HostKeyAlias other.lab.example\n');
    const wrongName = homeWith(aliased, [hostLine(bastion), `@cert-authority * ${caLine()}`]);
    const n = await cli(['validate', join(dir, 'image.yaml'), '--host', 'target'], { HOME: wrongName }, dir);
    expect(n.code).toBe(1);
    expect(n.out).toContain(
      'Its host certificate was not accepted: other.lab.example is not among its principals',
    );

    // Another CA: the certificate proves nothing.
    const otherCa = join(dir, 'other_ca');
    keygen(otherCa);
    const otherLine = readFileSync(`${otherCa}.pub`, 'utf8').trim().split(/\s+/).slice(0, 2).join(' ');
    const stranger = homeWith(CONFIG(), [hostLine(bastion), `@cert-authority ${pattern} ${otherLine}`]);
    const s = await cli(['validate', join(dir, 'image.yaml'), '--host', 'target'], { HOME: stranger }, dir);
    expect(s.code).toBe(1);
    expect(s.out).toMatch(/signed by the CA SHA256:\S+, which no @cert-authority line trusts/);

    // A revoked CA is never trusted.
    const revoked = homeWith(CONFIG(), [
      hostLine(bastion),
      `@cert-authority ${pattern} ${caLine()}`,
      `@revoked * ${caLine()}`,
    ]);
    const v = await cli(['validate', join(dir, 'image.yaml'), '--host', 'target'], { HOME: revoked }, dir);
    expect(v.code).toBe(1);
    expect(v.out).toContain(`is revoked by ${join(revoked, '.ssh', 'known_hosts')}:3`);
  });

  it('reads only the file given with -F, as ssh does', async () => {
    const home = homeWith('', [hostLine(bastion), hostLine(target)]);
    const config = join(home, 'lab_config');
    writeFileSync(config, CONFIG());
    expect((await validate(home, 'target')).code).toBe(1);
    const r = await validate(home, 'target', ['-F', config]);
    expect(r.code, r.err + r.out).toBe(0);
  });

  it('says which hop refused the login', async () => {
    const config = CONFIG().replace(
      `  HostName ${lab.bastionAddress}\n`,
      `  HostName ${lab.bastionAddress}\n  User siv-no-such-user\n`,
    );
    const home = homeWith(config, [hostLine(bastion), hostLine(target)]);
    const r = await cli(['validate', join(dir, 'image.yaml'), '--host', 'target'], { HOME: home }, dir);
    expect(r.code).toBe(1);
    expect(r.out).toContain(
      `Authentication as siv-no-such-user@${lab.bastionAddress} (the jump host bastion (${lab.bastionAddress})) failed`,
    );
  });
});
