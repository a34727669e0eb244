import { spawn, spawnSync } from 'node:child_process';
import { createHmac, randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '@stackspec/core/cli';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryIO } from '../../../test-support/cli.js';
import { serviceAvailable } from '../../../test-support/require.js';
import {
  createSshRemote,
  knownHostKeys,
  type SshRemoteOptions,
  sshFingerprint,
} from '../src/adapters/ssh.js';
import { runImageCli } from '../src/cli.js';
import { loadImageSpec } from '../src/load.js';
import { validateImage } from '../src/validate.js';
import { remoteContract } from './remote-contract.js';
import { sshdAvailable, startSshd, type TestSshd } from './support/sshd.js';
import { describeWithTestUsers, type TestUser } from './support/users.js';

describe('known_hosts parsing', () => {
  const blob = randomBytes(32);
  const other = randomBytes(32);
  const b64 = (b: Buffer) => b.toString('base64');

  it('finds plain, port-qualified, pattern and hashed entries and keeps revoked keys apart', () => {
    const salt = randomBytes(20);
    const hash = createHmac('sha1', salt).update('[10.0.0.5]:2222').digest();
    const text = [
      '# comment',
      `10.0.0.5 ssh-ed25519 ${b64(other)}`,
      `[10.0.0.5]:2222,other ssh-ed25519 ${b64(blob)} comment`,
      `|1|${b64(salt)}|${b64(hash)} ssh-rsa ${b64(other)}`,
      `10.0.0.* ssh-ed25519 ${b64(blob)}`,
      `!10.0.0.9,10.0.0.* ssh-ed25519 ${b64(other)}`,
      `@revoked * ssh-ed25519 ${b64(other)}`,
      `@cert-authority * ssh-ed25519 ${b64(other)}`,
      'garbage',
    ].join('\n');
    const found = knownHostKeys(text, '10.0.0.5', 2222);
    expect(found.keys.map(b64)).toEqual([b64(blob), b64(other)]);
    expect(found.revoked.map(b64)).toEqual([b64(other)]);
    expect(knownHostKeys(text, '10.0.0.5').keys.map(b64)).toEqual([b64(other), b64(blob), b64(other)]);
    expect(knownHostKeys(text, '10.0.0.9').keys.map(b64)).toEqual([b64(blob)]);
  });

  it('prints OpenSSH fingerprints', () => {
    expect(sshFingerprint(Buffer.from('abc'))).toBe('SHA256:ungWv48Bz+pBQUDeXa4iI7ADYaOWF3qctBD/YfIAFa0');
  });
});

describe.runIf(serviceAvailable('sshd on 127.0.0.1', sshdAvailable()))(
  'SSH remote against a real sshd',
  () => {
    let sshd: TestSshd;
    const base = (): SshRemoteOptions => ({
      host: '127.0.0.1',
      port: sshd.port,
      username: sshd.username,
      privateKeyPath: sshd.clientKeyPath,
      knownHostsFile: sshd.knownHosts,
    });

    beforeAll(async () => {
      sshd = await startSshd();
    });
    afterAll(async () => {
      await sshd?.stop();
    });

    remoteContract('ssh', async () => ({ remote: createSshRemote(base()) }), 'shell');

    it('validates the machine over SSH with one connection', async () => {
      const remote = createSshRemote(base());
      try {
        const spec = loadImageSpec(
          'validators:\n  - package: [dpkg, bash]\n  - script: {who: {inline: "id -un", output: user}}\n',
        );
        const report = await validateImage(spec, remote, {
          reconcile: false,
          families: { debian: 'debian' },
        });
        expect(report.ok, report.failure?.message).toBe(true);
        expect(report.variables.user).toBe('root\n');
      } finally {
        await remote.close();
      }
    });

    it('accepts the host key by fingerprint or key line, and refuses anything else', async () => {
      const fp = spawnSync('ssh-keygen', ['-lf', join(sshd.dir, 'host_ed25519.pub')], {
        encoding: 'utf8',
      }).stdout.split(' ')[1] as string;
      for (const hostKeys of [[fp], [sshd.hostKey]]) {
        const remote = createSshRemote({ ...base(), knownHostsFile: '/nonexistent', hostKeys });
        expect((await remote.exec('echo ok')).stdout).toBe('ok\n');
        await remote.close();
      }
      const wrong = createSshRemote({
        ...base(),
        hostKeys: ['SHA256:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'],
      });
      await expect(wrong.exec('true')).rejects.toMatchObject({ code: 'remote/host-key-rejected' });
      const empty = join(sshd.dir, 'empty_known_hosts');
      writeFileSync(empty, '');
      const unknown = createSshRemote({ ...base(), knownHostsFile: empty });
      await expect(unknown.exec('true')).rejects.toThrow(/is not trusted by .*empty_known_hosts/);
    });

    it('verifies against hashed known_hosts entries, and skips verification only when told to', async () => {
      const hashed = join(sshd.dir, 'hashed_known_hosts');
      writeFileSync(hashed, `[127.0.0.1]:${sshd.port} ${sshd.hostKey}\n`);
      spawnSync('ssh-keygen', ['-H', '-f', hashed]);
      const remote = createSshRemote({ ...base(), knownHostsFile: hashed });
      expect((await remote.exec('true')).exitCode).toBe(0);
      await remote.close();
      const insecure = createSshRemote({
        ...base(),
        knownHostsFile: '/nonexistent',
        insecureSkipHostKeyCheck: true,
      });
      expect((await insecure.exec('true')).exitCode).toBe(0);
      await insecure.close();
    });

    it('authenticates through an ssh-agent', async () => {
      const sock = join(sshd.dir, 'agent.sock');
      const agent = spawn('ssh-agent', ['-D', '-a', sock], { stdio: 'ignore' });
      try {
        let added = 1;
        for (let i = 0; i < 100 && added !== 0; i += 1) {
          added =
            spawnSync('ssh-add', [sshd.clientKeyPath], { env: { ...process.env, SSH_AUTH_SOCK: sock } })
              .status ?? 1;
        }
        expect(added).toBe(0);
        const { privateKeyPath: _unused, ...withoutKey } = base();
        const remote = createSshRemote({ ...withoutKey, agent: sock });
        expect((await remote.exec('echo agent')).stdout).toBe('agent\n');
        await remote.close();
      } finally {
        agent.kill();
      }
    });

    it('reports failed authentication and unreachable hosts as remote errors', async () => {
      const stranger = join(sshd.dir, 'stranger');
      spawnSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', stranger]);
      const denied = createSshRemote({ ...base(), privateKeyPath: stranger });
      await expect(denied.exec('true')).rejects.toMatchObject({ code: 'remote/auth-failed' });
      const missingKey = createSshRemote({ ...base(), privateKeyPath: join(sshd.dir, 'nope') });
      await expect(missingKey.exec('true')).rejects.toMatchObject({ code: 'remote/auth-failed' });
      const closed = createSshRemote({ ...base(), port: 1 });
      await expect(closed.exec('true')).rejects.toMatchObject({ code: 'remote/connect-failed' });
      const report = await validateImage(loadImageSpec('validators: []\n'), closed);
      expect(report.failure?.code).toBe('remote/connect-failed');
    });

    it('runs the CLI over SSH with host-key checking on', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'siv-ssh-cli-'));
      const spec = join(dir, 'image.yaml');
      writeFileSync(spec, 'validators:\n  - os_case:\n      - debian: [{package: dpkg}]\n');
      const io = memoryIO({ cwd: dir });
      const argv = [
        'validate',
        spec,
        '--host',
        `${sshd.username}@127.0.0.1`,
        '--port',
        String(sshd.port),
        '--identity',
        sshd.clientKeyPath,
      ];
      const ok = await runCli(() => runImageCli([...argv, '--known-hosts', sshd.knownHosts], io), io);
      expect(ok, io.err()).toBe(0);
      expect(io.out()).toContain(`on ${sshd.username}@127.0.0.1:${sshd.port}: check only`);
      expect(io.out()).toContain('✔ image is valid (debian, debian family)');
      const again = memoryIO({ cwd: dir });
      const refused = await runCli(
        () => runImageCli([...argv, '--known-hosts', join(dir, 'none')], again),
        again,
      );
      expect(refused).toBe(1);
      expect(again.out()).toMatch(
        /validation failed: The machine could not run `distro`: The host key of \[127\.0\.0\.1\]:\d+ \(SHA256:/,
      );
    });

    it('times out a command that does not finish', async () => {
      const remote = createSshRemote({ ...base(), timeoutMs: 300 });
      await expect(remote.exec('sleep 3')).rejects.toMatchObject({ code: 'remote/timeout' });
      await remote.close();
    });

    // Root commands of a user that is not root go through `sudo -n -- sh -c '…'`: the same
    // contract (hostile values included) must hold through that layer.
    describeWithTestUsers('as a user that is not root', (users) => {
      const as = (user: TestUser): SshRemoteOptions => ({ ...base(), username: user.name });

      remoteContract(
        'ssh through sudo',
        async () => ({ remote: createSshRemote(as(users.sudoer())) }),
        'shell',
      );

      it('logs in with a password and runs plain commands as the user', async () => {
        const sudoer = users.sudoer();
        const { privateKeyPath: _key, ...noKey } = as(sudoer);
        const remote = createSshRemote({ ...noKey, password: sudoer.password });
        try {
          expect((await remote.exec('id -un')).stdout).toBe(`${sudoer.name}\n`);
          expect((await remote.exec('id -u', { asRoot: true })).stdout).toBe('0\n');
        } finally {
          await remote.close();
        }
        const wrong = createSshRemote({ ...noKey, password: `${sudoer.password}x` });
        await expect(wrong.exec('true')).rejects.toMatchObject({ code: 'remote/auth-failed' });
      });

      it('validates through sudo: checks, scripts and copy_script as root', async () => {
        const sudoer = users.sudoer();
        const remote = createSshRemote(as(sudoer));
        try {
          const spec = loadImageSpec(
            [
              'validators:',
              '  - package: [dpkg, bash]',
              '  - script: {who: {inline: "id -u; printf %s \\"$SIV_RECONCILE\\"", output: who}}',
              `  - copy_script: {a/b/siv-${sudoer.name}: {inline: "x"}}`,
              '',
            ].join('\n'),
          );
          for (const mode of ['batched', 'sahara'] as const) {
            const report = await validateImage(spec, remote, {
              reconcile: false,
              mode,
              families: { debian: 'debian' },
            });
            expect(report.ok, report.failure?.message).toBe(true);
            expect(report.variables.who).toBe('0\n0');
            const owner = await remote.exec(`stat -c %u /tmp/siv-${sudoer.name}`);
            expect(owner.stdout).toBe('0\n');
          }
          await remote.exec(`rm -f /tmp/siv-${sudoer.name}`, { asRoot: true });
        } finally {
          await remote.close();
        }
      });

      it('reports a sudo that wants a password as remote/sudo-failed, not as a failed check', async () => {
        const plain = users.plain();
        const remote = createSshRemote(as(plain));
        try {
          expect((await remote.exec('id -un')).stdout).toBe(`${plain.name}\n`);
          const report = await validateImage(loadImageSpec('validators:\n  - package: dpkg\n'), remote, {
            reconcile: false,
            families: { debian: 'debian' },
          });
          expect(report.failure).toMatchObject({ code: 'remote/sudo-failed' });
          expect(report.failure?.message).toMatch(/passwordless sudo for siv[0-9a-f]+@\[127\.0\.0\.1\]/);
        } finally {
          await remote.close();
        }
      });
    });
  },
);
