import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';

export const SSHD = '/usr/sbin/sshd';

/** A throwaway sshd on 127.0.0.1, its host key and a client key authorised for the current user. */
export interface TestSshd {
  /** The first address it listens on (127.0.0.1 unless `listen` said otherwise). */
  address: string;
  port: number;
  dir: string;
  username: string;
  /** `ssh-ed25519 AAAA…` line of the server's host key. */
  hostKey: string;
  clientKeyPath: string;
  /** A known_hosts file listing the server under `[127.0.0.1]:port`. */
  knownHosts: string;
  stop(): Promise<void>;
}

/** Whether a test sshd can run here; the reason when not. */
export function sshdAvailable(): { ok: true } | { ok: false; reason: string } {
  if (!existsSync(SSHD))
    return { ok: false, reason: `${SSHD} is not installed (apt-get install openssh-server)` };
  if (spawnSync('ssh-keygen', ['-?']).error) return { ok: false, reason: 'ssh-keygen is not installed' };
  return { ok: true };
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** Makes an unencrypted ed25519 key pair at `path` and `path.pub`. */
export function keygen(path: string): void {
  const r = spawnSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'stackspec-test', '-f', path]);
  if (r.status !== 0) throw new Error(`ssh-keygen failed: ${r.stderr}`);
}

/** Options of {@link startSshd}; without any, a server on a free port of 127.0.0.1. */
export interface SshdOptions {
  /** Run inside this network namespace (`ip netns exec`), where any port is free. */
  netns?: string;
  /** Addresses to listen on; with `port`, default 127.0.0.1. */
  listen?: readonly string[];
  /** Default a free port of 127.0.0.1. */
  port?: number;
  /** A client key (its `.pub` beside it) to authorise instead of a new one. */
  clientKeyPath?: string;
  /** Sign the host key with this CA (a private key file) for these principals, and serve the certificate. */
  hostCertificate?: { caKeyPath: string; principals: readonly string[] };
}

/** Starts sshd in the foreground and resolves once it listens. */
export async function startSshd(options: SshdOptions = {}): Promise<TestSshd> {
  const dir = mkdtempSync(join(tmpdir(), 'siv-sshd-'));
  keygen(join(dir, 'host_ed25519'));
  const clientKeyPath = options.clientKeyPath ?? join(dir, 'client_ed25519');
  if (!options.clientKeyPath) keygen(clientKeyPath);
  writeFileSync(join(dir, 'authorized_keys'), readFileSync(`${clientKeyPath}.pub`));
  const certificate: string[] = [];
  if (options.hostCertificate) {
    const { caKeyPath, principals } = options.hostCertificate;
    const args = [
      '-q',
      '-s',
      caKeyPath,
      '-I',
      'siv-test-host',
      '-h',
      '-n',
      principals.join(','),
      '-V',
      '-5m:+1h',
    ];
    const r = spawnSync('ssh-keygen', [...args, join(dir, 'host_ed25519.pub')], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`ssh-keygen -s failed: ${r.stderr}`);
    certificate.push(`HostCertificate ${join(dir, 'host_ed25519-cert.pub')}`);
  }
  // sshd reads the keys file as the user logging in, so test users other than root must reach it;
  // the private keys in here keep their own 0600 modes.
  chmodSync(dir, 0o755);
  chmodSync(join(dir, 'authorized_keys'), 0o644);
  // Privilege separation needs this directory when sshd starts as root.
  if (process.getuid?.() === 0) mkdirSync('/run/sshd', { recursive: true, mode: 0o755 });
  const port = options.port ?? (await freePort());
  const listen = options.listen ?? ['127.0.0.1'];
  const config = join(dir, 'sshd_config');
  writeFileSync(
    config,
    [
      `Port ${port}`,
      ...listen.map((a) => `ListenAddress ${a}`),
      `HostKey ${join(dir, 'host_ed25519')}`,
      ...certificate,
      `PidFile ${join(dir, 'sshd.pid')}`,
      `AuthorizedKeysFile ${join(dir, 'authorized_keys')}`,
      // For the throwaway users' passwords; root may still only log in with a key.
      'PasswordAuthentication yes',
      'KbdInteractiveAuthentication no',
      'PubkeyAuthentication yes',
      'PermitRootLogin prohibit-password',
      'UsePAM no',
      'StrictModes no',
      'LogLevel INFO',
      '',
    ].join('\n'),
  );
  // `ip netns exec` execs sshd in place, so the child is sshd itself and SIGTERM reaches it.
  const argv = ['-D', '-e', '-f', config];
  const child: ChildProcess = options.netns
    ? spawn('ip', ['netns', 'exec', options.netns, SSHD, ...argv], { stdio: ['ignore', 'ignore', 'pipe'] })
    : spawn(SSHD, argv, { stdio: ['ignore', 'ignore', 'pipe'] });
  await new Promise<void>((resolve, reject) => {
    let log = '';
    const onData = (b: Buffer) => {
      log += b.toString();
      if ((log.match(/Server listening on \S+ port/g) ?? []).length >= listen.length) {
        child.stderr?.off('data', onData);
        resolve();
      }
    };
    child.stderr?.on('data', onData);
    child.once('exit', (code) => reject(new Error(`sshd exited with ${code}: ${log}`)));
    child.once('error', reject);
  });
  const hostKey = readFileSync(join(dir, 'host_ed25519.pub'), 'utf8')
    .trim()
    .split(/\s+/)
    .slice(0, 2)
    .join(' ');
  const knownHosts = join(dir, 'known_hosts');
  const address = listen[0] as string;
  writeFileSync(knownHosts, `${port === 22 ? address : `[${address}]:${port}`} ${hostKey}\n`);
  return {
    address,
    port,
    dir,
    username: userInfo().username,
    hostKey,
    clientKeyPath,
    knownHosts,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
