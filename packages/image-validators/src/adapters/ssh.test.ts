import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isStackspecError } from '@stackspec/core';
import { Server, utils } from 'ssh2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeFifo, makeSparseFile } from '../../../../test-support/hostile-files.js';
import { shellQuote } from '../shell.js';
import { createSshRemote, type SshRemoteOptions, sshFingerprint } from './ssh.js';

// An in-process SSH server for the cases a real sshd cannot stage on demand:
// password logins, a channel that dies without an exit status.
describe('SSH remote against an in-process server', () => {
  const hostKey = utils.generateKeyPairSync('ed25519');
  const hostBlob = utils.parseKey(hostKey.public);
  let server: Server;
  let port = 0;
  const commands: string[] = [];
  const clients: { end(): void }[] = [];

  beforeAll(async () => {
    server = new Server({ hostKeys: [hostKey.private] }, (client) => {
      clients.push(client);
      let user = '';
      client.on('authentication', (ctx) => {
        user = ctx.username;
        const known = ctx.username === 'ops' || ctx.username === 'nosudo';
        if (ctx.method === 'password' && known && ctx.password === 's3cret') ctx.accept();
        else ctx.reject(['password']);
      });
      client.on('session', (accept) => {
        const session = accept();
        session.on('exec', (acceptExec, _reject, info) => {
          const stream = acceptExec();
          commands.push(info.command);
          if (info.command.includes('vanish')) {
            stream.close();
            return;
          }
          if (info.command === 'sudo -n true' && user === 'nosudo') {
            stream.stderr.write('sudo: a password is required\n');
            stream.exit(1);
            stream.end();
            return;
          }
          stream.write(`ran: ${info.command}\n`);
          stream.exit(0);
          stream.end();
        });
      });
      client.on('error', () => {});
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    port = (server.address() as { port: number }).port;
  });
  afterAll(async () => {
    for (const c of clients) c.end();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  const fingerprint = () => {
    if (hostBlob instanceof Error || Array.isArray(hostBlob)) throw new Error('bad test key');
    return sshFingerprint(hostBlob.getPublicSSH());
  };
  // `ops` with its password, checking the host key by fingerprint.
  const login = (options: Partial<SshRemoteOptions> = {}) =>
    createSshRemote({
      host: '127.0.0.1',
      port,
      username: 'ops',
      password: 's3cret',
      hostKeys: [fingerprint()],
      ...options,
    });

  it('logs in with a password and wraps root commands in sudo for other users', async () => {
    const remote = login();
    const r = await remote.exec('id -u', { asRoot: true, env: { A: "it's" } });
    expect(r.exitCode).toBe(0);
    expect(commands.at(-1)).toBe(`sudo -n -- sh -c ${shellQuote(`export A=${shellQuote("it's")}; id -u`)}`);
    await remote.exec('whoami');
    expect(commands.at(-1)).toBe('sh -c whoami');
    await remote.close();
  });

  it('checks passwordless sudo once, and fails root commands clearly when sudo wants a password', async () => {
    const ops = login();
    const before = commands.length;
    await ops.exec('true', { asRoot: true });
    await ops.writeFile('/tmp/x', 'x', { asRoot: true });
    expect(commands.slice(before).filter((c) => c === 'sudo -n true')).toHaveLength(1);
    await ops.close();
    const remote = login({ username: 'nosudo' });
    expect((await remote.exec('whoami')).exitCode).toBe(0);
    for (const attempt of [
      remote.exec('id -u', { asRoot: true }),
      remote.writeFile('/x', 'x', { asRoot: true }),
    ]) {
      await expect(attempt).rejects.toMatchObject({
        code: 'image/remote/sudo-failed',
        message: expect.stringMatching(/nosudo@\[127\.0\.0\.1\]:\d+.*sudo: a password is required/),
      });
    }
    await remote.close();
  });

  it('refuses a port outside 1..65535 and a bad output limit at once', () => {
    for (const bad of [0, 70000, 1.5, Number.NaN]) {
      expect(() => createSshRemote({ host: 'h', username: 'u', port: bad })).toThrow(
        expect.objectContaining({ code: 'image/remote/invalid-option' }),
      );
    }
    expect(() => createSshRemote({ host: 'h', username: 'u', maxOutputBytes: 0 })).toThrow(
      expect.objectContaining({ code: 'image/remote/invalid-option' }),
    );
  });

  it('keeps only the first maxOutputBytes of a stream', async () => {
    const remote = login({ maxOutputBytes: 8 });
    expect((await remote.exec('long')).stdout).toBe('ran: sh ');
    await remote.close();
  });

  it('rejects a wrong password as an authentication failure', async () => {
    const remote = login({ password: 'nope' });
    await expect(remote.exec('true')).rejects.toMatchObject({ code: 'image/remote/auth-failed' });
  });

  it('tries only the methods the server offers: no default key or agent where only passwords are taken', async () => {
    const home = mkdtempSync(join(tmpdir(), 'siv-home-'));
    try {
      mkdirSync(join(home, '.ssh'));
      writeFileSync(join(home, '.ssh', 'id_ed25519'), utils.generateKeyPairSync('ed25519').private);
      const remote = login({ password: 'nope', home, agent: join(home, 'agent.sock') });
      await expect(remote.exec('true')).rejects.toMatchObject({
        code: 'image/remote/auth-failed',
        message: 'Authentication as ops@127.0.0.1 failed; tried the password.',
      });
      const right = login({ home });
      expect((await right.exec('true')).exitCode).toBe(0);
      await right.close();
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  it('reads key files and known_hosts with a bound: a FIFO, a device or a huge file is named, never waited on', async () => {
    const home = mkdtempSync(join(tmpdir(), 'siv-home-'));
    try {
      mkdirSync(join(home, '.ssh'));
      const at = (name: string) => join(home, '.ssh', name);
      makeFifo(at('id_rsa'));
      symlinkSync('/dev/zero', at('id_ecdsa'));
      makeSparseFile(at('id_ed25519'), 2 ** 30);
      const defaults = login({ password: 'nope', home, agent: false });
      await expect(defaults.exec('true')).rejects.toMatchObject({
        code: 'image/remote/auth-failed',
        message:
          'Authentication as ops@127.0.0.1 failed; tried the password. ' +
          `${at('id_rsa')} was skipped: it is a named pipe (FIFO), not a regular file. ` +
          `${at('id_ecdsa')} was skipped: it is a device, not a regular file. ` +
          `${at('id_ed25519')} was skipped: it holds ${2 ** 30} bytes, more than the limit of 1048576 bytes.`,
      });
      const given = login({ privateKeyPath: at('id_rsa') });
      await expect(given.exec('true')).rejects.toMatchObject({
        code: 'image/remote/auth-failed',
        message: `The private key ${at('id_rsa')} could not be read: it is a named pipe (FIFO), not a regular file.`,
      });
      makeFifo(at('known_hosts'));
      const unknown = login({ hostKeys: [], home });
      await expect(unknown.exec('true')).rejects.toMatchObject({
        code: 'image/remote/host-key-rejected',
        message: expect.stringContaining(
          `is not trusted by ${at('known_hosts')}, which cannot be read (it is a named pipe (FIFO), not a regular file).`,
        ),
      });
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  describe('as the ssh config and known_hosts say', () => {
    const homes: string[] = [];
    afterAll(() => {
      for (const h of homes) rmSync(h, { recursive: true, force: true });
    });
    /** A home folder whose .ssh holds this config and, when given, this known_hosts text. */
    const homeWith = (config: string, knownHosts?: string) => {
      const home = mkdtempSync(join(tmpdir(), 'siv-home-'));
      homes.push(home);
      mkdirSync(join(home, '.ssh'));
      writeFileSync(join(home, '.ssh', 'config'), config);
      if (knownHosts !== undefined) writeFileSync(join(home, '.ssh', 'known_hosts'), knownHosts);
      return home;
    };
    const hostKeyLine = () => {
      if (hostBlob instanceof Error || Array.isArray(hostBlob)) throw new Error('bad test key');
      return `${hostBlob.type} ${hostBlob.getPublicSSH().toString('base64')}`;
    };
    // Only the files of the test's home: the machine's /etc/ssh is kept out.
    const isolated = { systemConfigFile: false, globalKnownHostsFiles: [] } as const;
    /** ops's password login to the test server, with only `home`'s known_hosts trusted. */
    const opsLogin = (home: string): SshRemoteOptions => ({
      host: '127.0.0.1',
      port,
      username: 'ops',
      password: 's3cret',
      home,
      ...isolated,
    });

    it('connects to a Host alias with the HostName, Port and User of ~/.ssh/config', async () => {
      const home = homeWith(`Host lab\n  HostName 127.0.0.1\n  Port ${port}\n  User ops\n`);
      const remote = createSshRemote({
        host: 'lab',
        home,
        password: 's3cret',
        hostKeys: [fingerprint()],
        ...isolated,
      });
      try {
        expect((await remote.exec('whoami')).stdout).toBe('ran: sh -c whoami\n');
      } finally {
        await remote.close();
      }
      // A user given wins over the config's, as `ssh user@lab` does.
      const other = createSshRemote({
        host: 'lab',
        username: 'nobody',
        home,
        password: 's3cret',
        hostKeys: [fingerprint()],
        ...isolated,
      });
      await expect(other.exec('true')).rejects.toMatchObject({
        message: expect.stringMatching(/^Authentication as nobody@127\.0\.0\.1 failed/),
      });
    });

    it('throws a located error at once for config lines it cannot use, and passes warnings on', () => {
      const home = homeWith('Host lab\n  HostName 127.0.0.1\n  Port 99999\n');
      const config = join(home, '.ssh', 'config');
      let thrown: unknown;
      try {
        createSshRemote({ host: 'lab', home, ...isolated });
      } catch (e) {
        thrown = e;
      }
      expect(isStackspecError(thrown) && thrown.kind).toBe('spec');
      expect(thrown).toMatchObject({
        code: 'image/ssh-config/invalid',
        diagnostics: [expect.objectContaining({ code: 'image/ssh-config/bad-value', file: config, line: 3 })],
      });
      expect((thrown as Error).message).toBe(
        `${config}:3: Port must be a whole number from 1 to 65535, but it is "99999".`,
      );
      const warnings: string[] = [];
      const warned = homeWith('Host lab\n  Frobnicate yes\n  HostName 127.0.0.1\n');
      createSshRemote({
        host: 'lab',
        home: warned,
        ...isolated,
        onWarning: (d) => warnings.push(`${d.line}: ${d.message}`),
      });
      expect(warnings).toEqual([
        '2: Frobnicate is not an ssh_config keyword this client knows; the line is ignored.',
      ]);
    });

    it('refuses a ProxyCommand it cannot run, and jump hosts that loop', () => {
      const proxied = homeWith('Host lab\n  ProxyCommand nc %h %p\n');
      expect(() => createSshRemote({ host: 'lab', home: proxied, ...isolated })).toThrow(
        expect.objectContaining({
          code: 'image/ssh-config/invalid',
          diagnostics: [expect.objectContaining({ line: 2, code: 'image/ssh-config/unsupported' })],
        }),
      );
      const loop = homeWith('Host a\n  ProxyJump b\nHost b\n  ProxyJump a\n');
      expect(() => createSshRemote({ host: 'a', home: loop, ...isolated })).toThrow(
        expect.objectContaining({
          code: 'image/remote/invalid-option',
          message: expect.stringContaining('a → b → a'),
        }),
      );
      expect(() =>
        createSshRemote({ host: 'x', proxyJump: 'ops@:22', ...isolated, configFile: false }),
      ).toThrow(expect.objectContaining({ code: 'image/remote/invalid-option' }));
    });

    it('with accept-new, adds the key of a new host to known_hosts and trusts it from then on', async () => {
      const home = homeWith('');
      const knownHosts = join(home, '.ssh', 'known_hosts');
      const warnings: string[] = [];
      const options = opsLogin(home);
      const strict = createSshRemote(options);
      await expect(strict.exec('true')).rejects.toMatchObject({
        code: 'image/remote/host-key-rejected',
        message:
          `The host key of [127.0.0.1]:${port} (${fingerprint()}) is not trusted by ${knownHosts}, which does not exist. ` +
          `Once its fingerprint is checked, add it to ${knownHosts}, or let StrictHostKeyChecking accept-new add it.`,
      });
      const fresh = createSshRemote({
        ...options,
        strictHostKeyChecking: 'accept-new',
        onWarning: (d) => warnings.push(d.message),
      });
      expect((await fresh.exec('true')).exitCode).toBe(0);
      await fresh.close();
      expect(readFileSync(knownHosts, 'utf8')).toBe(`[127.0.0.1]:${port} ${hostKeyLine()}\n`);
      expect(warnings).toEqual([
        `Permanently added the ssh-ed25519 key ${fingerprint()} of [127.0.0.1]:${port} to ${knownHosts}.`,
      ]);
      const again = createSshRemote(options);
      expect((await again.exec('true')).exitCode).toBe(0);
      await again.close();
    });

    it('trusts a key listed only in a global known_hosts file, named by GlobalKnownHostsFile', async () => {
      const home = homeWith('Host lab\n  HostName 127.0.0.1\n  GlobalKnownHostsFile ~/global_hosts\n');
      writeFileSync(join(home, 'global_hosts'), `[127.0.0.1]:${port} ${hostKeyLine()}\n`);
      const options: SshRemoteOptions = {
        host: 'lab',
        port,
        username: 'ops',
        password: 's3cret',
        home,
        systemConfigFile: false,
      };
      const remote = createSshRemote(options);
      try {
        expect((await remote.exec('true')).exitCode).toBe(0);
      } finally {
        await remote.close();
      }
      // The option wins over the config: with no global file, the key is unknown.
      const without = createSshRemote({ ...options, globalKnownHostsFiles: [] });
      await expect(without.exec('true')).rejects.toMatchObject({ code: 'image/remote/host-key-rejected' });
    });

    it('refuses a changed key, naming the line; with StrictHostKeyChecking no connects but sends no password', async () => {
      const otherKey = utils.parseKey(utils.generateKeyPairSync('ed25519').public);
      if (otherKey instanceof Error || Array.isArray(otherKey)) throw new Error('bad test key');
      const stale = `[127.0.0.1]:${port} ssh-ed25519 ${otherKey.getPublicSSH().toString('base64')}`;
      const home = homeWith('', `# lab\n${stale}\n`);
      const knownHosts = join(home, '.ssh', 'known_hosts');
      const options = opsLogin(home);
      const refused = createSshRemote(options);
      await expect(refused.exec('true')).rejects.toMatchObject({
        code: 'image/remote/host-key-rejected',
        message: expect.stringContaining(
          `(${fingerprint()}) does not match the ssh-ed25519 key listed for it in ${knownHosts}:2`,
        ),
        diagnostics: [
          expect.objectContaining({
            file: knownHosts,
            line: 2,
            hint: expect.stringContaining(`ssh-keygen -R '[127.0.0.1]:${port}'`),
          }),
        ],
      });
      const warnings: string[] = [];
      const lax = createSshRemote({
        ...options,
        strictHostKeyChecking: 'no',
        onWarning: (d) => warnings.push(d.code),
      });
      await expect(lax.exec('true')).rejects.toMatchObject({
        code: 'image/remote/auth-failed',
        message: 'Authentication as ops@127.0.0.1 failed: there was no key, agent or password to try.',
      });
      expect(warnings).toEqual(['image/remote/host-key-changed']);
    });
  });

  it('turns a channel that closes without an exit status into a remote error', async () => {
    const remote = login();
    try {
      await remote.exec('vanish');
      expect.unreachable();
    } catch (e) {
      expect(isStackspecError(e) && e.code).toBe('image/remote/connection-lost');
    } finally {
      await remote.close();
    }
  });
});
