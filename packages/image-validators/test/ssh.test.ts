import { spawn, spawnSync } from 'node:child_process';
import { createHmac, randomBytes } from 'node:crypto';
import { appendFileSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
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
import { sshString } from '../src/ssh-wire.js';
import { validateImage } from '../src/validate.js';
import { remoteContract } from './remote-contract.js';
import { sshdAvailable, startSshd, type TestSshd } from './support/sshd.js';
import { describeWithTestUsers, type TestUser } from './support/users.js';

describe('known_hosts parsing', () => {
  // Ed25519 public key blobs (their type name, then 32 bytes), as known_hosts lines carry them.
  const ed25519 = () => Buffer.concat([sshString('ssh-ed25519'), sshString(randomBytes(32))]);
  const blob = ed25519();
  const other = ed25519();
  const b64 = (b: Buffer) => b.toString('base64');

  it('finds plain, port-qualified, pattern and hashed entries and keeps revoked keys apart', () => {
    const salt = randomBytes(20);
    const hash = createHmac('sha1', salt).update('[10.0.0.5]:2222').digest();
    const text = [
      '# comment',
      `10.0.0.5 ssh-ed25519 ${b64(other)}`,
      `[10.0.0.5]:2222,other ssh-ed25519 ${b64(blob)} comment`,
      `|1|${b64(salt)}|${b64(hash)} ssh-ed25519 ${b64(other)}`,
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
      await expect(wrong.exec('true')).rejects.toMatchObject({ code: 'image/remote/host-key-rejected' });
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

    // Runs `use` with an ssh-agent that holds the client key, listening on a socket named `name`.
    const withAgent = async (name: string, use: (sock: string) => Promise<void>) => {
      const sock = join(sshd.dir, name);
      const agent = spawn('ssh-agent', ['-D', '-a', sock], { stdio: 'ignore' });
      try {
        // ssh-add fails until the agent listens.
        let added = 1;
        for (let i = 0; i < 100 && added !== 0; i += 1) {
          added =
            spawnSync('ssh-add', [sshd.clientKeyPath], { env: { ...process.env, SSH_AUTH_SOCK: sock } })
              .status ?? 1;
        }
        expect(added).toBe(0);
        await use(sock);
      } finally {
        agent.kill();
      }
    };

    it('authenticates through an ssh-agent', async () => {
      await withAgent('agent.sock', async (sock) => {
        const { privateKeyPath: _unused, ...withoutKey } = base();
        const remote = createSshRemote({ ...withoutKey, agent: sock });
        expect((await remote.exec('echo agent')).stdout).toBe('agent\n');
        await remote.close();
      });
    });

    it('reports failed authentication and unreachable hosts as remote errors', async () => {
      const stranger = join(sshd.dir, 'stranger');
      spawnSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', stranger]);
      const denied = createSshRemote({ ...base(), privateKeyPath: stranger });
      await expect(denied.exec('true')).rejects.toMatchObject({ code: 'image/remote/auth-failed' });
      const missingKey = createSshRemote({ ...base(), privateKeyPath: join(sshd.dir, 'nope') });
      await expect(missingKey.exec('true')).rejects.toMatchObject({ code: 'image/remote/auth-failed' });
      const closed = createSshRemote({ ...base(), port: 1 });
      await expect(closed.exec('true')).rejects.toMatchObject({ code: 'image/remote/connect-failed' });
      const report = await validateImage(loadImageSpec('validators: []\n'), closed);
      expect(report.failure?.code).toBe('image/remote/connect-failed');
    });

    // The command line's way to name the test server.
    const hostArgs = () => ['--host', `${sshd.username}@127.0.0.1`, '--port', String(sshd.port)];

    it('runs the CLI over SSH with host-key checking on', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'siv-ssh-cli-'));
      const spec = join(dir, 'image.yaml');
      writeFileSync(spec, 'validators:\n  - os_case:\n      - debian: [{package: dpkg}]\n');
      const io = memoryIO({ cwd: dir });
      const argv = ['validate', spec, ...hostArgs(), '--identity', sshd.clientKeyPath];
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

    describe('without a key given, as ssh does', () => {
      // A home folder whose .ssh holds the given files (mode 0600, as ssh-keygen leaves keys).
      const homeWith = (files: Record<string, string>): string => {
        const home = mkdtempSync(join(sshd.dir, 'home-'));
        mkdirSync(join(home, '.ssh'), { mode: 0o700 });
        for (const [name, from] of Object.entries(files)) copyFileSync(from, join(home, '.ssh', name));
        return home;
      };
      const keygen = (name: string, type: 'ed25519' | 'ecdsa' | 'rsa', passphrase = '') => {
        const path = join(sshd.dir, name);
        const r = spawnSync('ssh-keygen', ['-q', '-t', type, '-N', passphrase, '-C', name, '-f', path]);
        expect(r.status, String(r.stderr)).toBe(0);
        return path;
      };
      const noKey = (): SshRemoteOptions => {
        const { privateKeyPath: _key, ...rest } = base();
        return { ...rest, agent: false };
      };
      let encrypted: string;
      let strangerRsa: string;
      let stranger: string;
      let garbage: string;
      beforeAll(() => {
        encrypted = keygen('locked_rsa', 'rsa', 'open sesame');
        strangerRsa = keygen('stranger_rsa', 'rsa');
        stranger = keygen('stranger_ecdsa', 'ecdsa');
        garbage = join(sshd.dir, 'not-a-key');
        writeFileSync(garbage, 'this is not a key\n');
        // The server accepts the encrypted key: only a passphrase stands between it and a login.
        appendFileSync(join(sshd.dir, 'authorized_keys'), readFileSync(`${encrypted}.pub`));
      });

      it('logs in with ~/.ssh/id_ed25519, passing over an encrypted key and an agent that is not there', async () => {
        const home = homeWith({ id_rsa: encrypted, id_ed25519: sshd.clientKeyPath });
        const remote = createSshRemote({ ...noKey(), home, agent: join(sshd.dir, 'no-agent.sock') });
        try {
          expect((await remote.exec('echo default')).stdout).toBe('default\n');
        } finally {
          await remote.close();
        }
      });

      it("tries the default keys in OpenSSH's order, and says which it tried and skipped when none is accepted", async () => {
        const home = homeWith({ id_rsa: strangerRsa, id_ecdsa: stranger, id_ed25519: garbage });
        const remote = createSshRemote({ ...noKey(), home });
        const at = (name: string) => join(home, '.ssh', name);
        await expect(remote.exec('true')).rejects.toMatchObject({
          code: 'image/remote/auth-failed',
          message:
            `Authentication as ${sshd.username}@127.0.0.1 failed; tried ${at('id_rsa')}, ${at('id_ecdsa')}. ` +
            `${at('id_ed25519')} was skipped: it is not a private key ssh2 can read (Unsupported key format).`,
          diagnostics: [expect.objectContaining({ hint: expect.stringContaining('ssh-add') })],
        });
        const empty = createSshRemote({ ...noKey(), home: homeWith({}) });
        await expect(empty.exec('true')).rejects.toMatchObject({
          code: 'image/remote/auth-failed',
          message: `Authentication as ${sshd.username}@127.0.0.1 failed: there was no key, agent or password to try.`,
        });
      });

      it('opens an encrypted default key with the passphrase given, and says when it does not', async () => {
        const home = homeWith({ id_rsa: encrypted });
        const remote = createSshRemote({ ...noKey(), home, passphrase: 'open sesame' });
        try {
          expect((await remote.exec('echo unlocked')).stdout).toBe('unlocked\n');
        } finally {
          await remote.close();
        }
        const wrong = createSshRemote({ ...noKey(), home, passphrase: 'nope' });
        await expect(wrong.exec('true')).rejects.toMatchObject({
          code: 'image/remote/auth-failed',
          message: expect.stringContaining(
            `${join(home, '.ssh', 'id_rsa')} was skipped: the passphrase does not decrypt it.`,
          ),
        });
      });

      it('refuses a given key that is encrypted when no passphrase is given, before connecting', async () => {
        const remote = createSshRemote({ ...base(), privateKeyPath: encrypted });
        await expect(remote.exec('true')).rejects.toMatchObject({
          code: 'image/remote/auth-failed',
          message: `The private key ${encrypted} cannot be used: it is encrypted and no passphrase was given.`,
        });
        const opened = createSshRemote({ ...base(), privateKeyPath: encrypted, passphrase: 'open sesame' });
        try {
          expect((await opened.exec('echo given')).stdout).toBe('given\n');
        } finally {
          await opened.close();
        }
      });

      it('runs the CLI with the default key of $HOME, or the agent of $SSH_AUTH_SOCK, when --identity is not given', async () => {
        const dir = mkdtempSync(join(tmpdir(), 'siv-ssh-home-'));
        const spec = join(dir, 'image.yaml');
        writeFileSync(spec, 'validators:\n  - script: {who: {inline: "id -un"}}\n');
        const argv = ['validate', spec, ...hostArgs(), '--known-hosts', sshd.knownHosts];
        const run = async (env: Record<string, string>, extra: string[] = []) => {
          const io = memoryIO({ cwd: dir, env: { NO_COLOR: '1', ...env } });
          const code = await runCli(() => runImageCli([...argv, ...extra], io), io);
          return { code, out: io.out(), err: io.err() };
        };
        const withKey = await run({ HOME: homeWith({ id_ed25519: sshd.clientKeyPath }) });
        expect(withKey.code, withKey.err).toBe(0);
        expect(withKey.out).toContain('✔ image is valid');
        const locked = homeWith({ id_rsa: encrypted });
        const refused = await run({ HOME: locked });
        expect(refused.code).toBe(1);
        expect(refused.out).toContain(`${join(locked, '.ssh', 'id_rsa')} was skipped: it is encrypted`);
        const unlocked = await run({ HOME: locked, PASS: 'open sesame' }, ['--passphrase-env', 'PASS']);
        expect(unlocked.code, unlocked.out).toBe(0);
        await withAgent('cli-agent.sock', async (sock) => {
          const viaAgent = await run({ HOME: homeWith({}), SSH_AUTH_SOCK: sock });
          expect(viaAgent.code, viaAgent.out).toBe(0);
        });
      });
    });

    it('times out a command that does not finish', async () => {
      const remote = createSshRemote({ ...base(), timeoutMs: 300 });
      await expect(remote.exec('sleep 3')).rejects.toMatchObject({ code: 'image/remote/timeout' });
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
        await expect(wrong.exec('true')).rejects.toMatchObject({ code: 'image/remote/auth-failed' });
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

      it('reports a sudo that wants a password as image/remote/sudo-failed, not as a failed check', async () => {
        const plain = users.plain();
        const remote = createSshRemote(as(plain));
        try {
          expect((await remote.exec('id -un')).stdout).toBe(`${plain.name}\n`);
          const report = await validateImage(loadImageSpec('validators:\n  - package: dpkg\n'), remote, {
            reconcile: false,
            families: { debian: 'debian' },
          });
          expect(report.failure).toMatchObject({ code: 'image/remote/sudo-failed' });
          expect(report.failure?.message).toMatch(/passwordless sudo for siv[0-9a-f]+@\[127\.0\.0\.1\]/);
        } finally {
          await remote.close();
        }
      });
    });
  },
);
