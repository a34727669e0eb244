import { isStackspecError } from '@stackspec/core';
import { Server, utils } from 'ssh2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shellQuote } from './shell.js';
import { createSshRemote, sshFingerprint } from './ssh.js';

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
      client.on('authentication', (ctx) => {
        if (ctx.method === 'password' && ctx.username === 'ops' && ctx.password === 's3cret') ctx.accept();
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

  it('logs in with a password and wraps root commands in sudo for other users', async () => {
    const remote = createSshRemote({
      host: '127.0.0.1',
      port,
      username: 'ops',
      password: 's3cret',
      hostKeys: [fingerprint()],
    });
    const r = await remote.exec('id -u', { asRoot: true, env: { A: "it's" } });
    expect(r.exitCode).toBe(0);
    expect(commands.at(-1)).toBe(`sudo -n -- sh -c ${shellQuote(`export A=${shellQuote("it's")}; id -u`)}`);
    await remote.exec('whoami');
    expect(commands.at(-1)).toBe('sh -c whoami');
    await remote.close();
  });

  it('rejects a wrong password as an authentication failure', async () => {
    const remote = createSshRemote({
      host: '127.0.0.1',
      port,
      username: 'ops',
      password: 'nope',
      hostKeys: [fingerprint()],
    });
    await expect(remote.exec('true')).rejects.toMatchObject({ code: 'remote/auth-failed' });
  });

  it('turns a channel that closes without an exit status into a remote error', async () => {
    const remote = createSshRemote({
      host: '127.0.0.1',
      port,
      username: 'ops',
      password: 's3cret',
      hostKeys: [fingerprint()],
    });
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
