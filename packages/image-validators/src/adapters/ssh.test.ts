import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isStackspecError } from '@stackspec/core';
import { Server, utils } from 'ssh2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
        code: 'remote/sudo-failed',
        message: expect.stringMatching(/nosudo@\[127\.0\.0\.1\]:\d+.*sudo: a password is required/),
      });
    }
    await remote.close();
  });

  it('refuses a port outside 1..65535 and a bad output limit at once', () => {
    for (const bad of [0, 70000, 1.5, Number.NaN]) {
      expect(() => createSshRemote({ host: 'h', username: 'u', port: bad })).toThrow(
        expect.objectContaining({ code: 'remote/invalid-option' }),
      );
    }
    expect(() => createSshRemote({ host: 'h', username: 'u', maxOutputBytes: 0 })).toThrow(
      expect.objectContaining({ code: 'remote/invalid-option' }),
    );
  });

  it('keeps only the first maxOutputBytes of a stream', async () => {
    const remote = login({ maxOutputBytes: 8 });
    expect((await remote.exec('long')).stdout).toBe('ran: sh ');
    await remote.close();
  });

  it('rejects a wrong password as an authentication failure', async () => {
    const remote = login({ password: 'nope' });
    await expect(remote.exec('true')).rejects.toMatchObject({ code: 'remote/auth-failed' });
  });

  it('tries only the methods the server offers: no default key or agent where only passwords are taken', async () => {
    const home = mkdtempSync(join(tmpdir(), 'siv-home-'));
    try {
      mkdirSync(join(home, '.ssh'));
      writeFileSync(join(home, '.ssh', 'id_ed25519'), utils.generateKeyPairSync('ed25519').private);
      const remote = login({ password: 'nope', home, agent: join(home, 'agent.sock') });
      await expect(remote.exec('true')).rejects.toMatchObject({
        code: 'remote/auth-failed',
        message: 'Authentication as ops@127.0.0.1 failed; tried the password.',
      });
      const right = login({ home });
      expect((await right.exec('true')).exitCode).toBe(0);
      await right.close();
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  it('turns a channel that closes without an exit status into a remote error', async () => {
    const remote = login();
    try {
      await remote.exec('vanish');
      expect.unreachable();
    } catch (e) {
      expect(isStackspecError(e) && e.code).toBe('remote/connection-lost');
    } finally {
      await remote.close();
    }
  });
});
