import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { describeError, ValidationError } from '@stackspec/core';
import { Client, type ClientChannel, type ConnectConfig } from 'ssh2';
import {
  createSudoCheck,
  type ExecOptions,
  type ExecResult,
  probeDistro,
  type Remote,
  RemoteError,
  replaceFileScript,
} from '../remote.js';
import { shellQuote, withEnv } from '../shell.js';

/** Options of {@link createSshRemote}. */
export interface SshRemoteOptions {
  host: string;
  /** 1 to 65535; default 22. */
  port?: number;
  username: string;
  /** A private key (PEM or OpenSSH format). */
  privateKey?: string | Buffer;
  /** A file holding the private key; read when connecting. */
  privateKeyPath?: string;
  passphrase?: string;
  /** An ssh-agent socket; default `$SSH_AUTH_SOCK` when no key or password is given. */
  agent?: string;
  password?: string;
  /**
   * Keys the server must present: OpenSSH public key lines
   * (`ssh-ed25519 AAAA…`) or fingerprints (`SHA256:…`). When given, the
   * known_hosts file is not consulted.
   */
  hostKeys?: readonly string[];
  /** known_hosts file to verify the server against; default `~/.ssh/known_hosts`. */
  knownHostsFile?: string;
  /**
   * Accept any host key. Off by default; only for throwaway machines on a
   * trusted network (anyone in the middle could then read and change the session).
   */
  insecureSkipHostKeyCheck?: boolean;
  /** Per-command limit in milliseconds; default 300000 (Sahara's command timeout). */
  timeoutMs?: number;
  /** Limit for connecting and authenticating, in milliseconds; default 20000. */
  readyTimeoutMs?: number;
  /** Answer for `distro()` instead of reading /etc/os-release. */
  distro?: string;
  /** Output kept per stream and command, in bytes (the rest is dropped); default 64 MiB. */
  maxOutputBytes?: number;
}

/** A remote over SSH; `close()` ends the connection. */
export interface SshRemote extends Remote {
  close(): Promise<void>;
}

/** The OpenSSH fingerprint of a public key blob: `SHA256:` and unpadded base64. */
export function sshFingerprint(keyBlob: Uint8Array): string {
  return `SHA256:${createHash('sha256').update(keyBlob).digest('base64').replace(/=+$/, '')}`;
}

function hostPattern(host: string, port: number): string {
  return port === 22 ? host : `[${host}]:${port}`;
}

function globMatch(pattern: string, text: string): boolean {
  const re = new RegExp(
    `^${pattern
      .replace(/[.+^${}()|[\]\\]/g, '\\$&')
      .replace(/\*/g, '.*')
      .replace(/\?/g, '.')}$`,
    'i',
  );
  return re.test(text);
}

function hostMatches(field: string, names: readonly string[]): boolean {
  if (field.startsWith('|1|')) {
    const [, , salt, hash] = field.split('|');
    if (!salt || !hash) return false;
    const expected = Buffer.from(hash, 'base64');
    return names.some((name) => {
      const got = createHmac('sha1', Buffer.from(salt, 'base64')).update(name).digest();
      return got.length === expected.length && timingSafeEqual(got, expected);
    });
  }
  let matched = false;
  for (const pattern of field.split(',')) {
    const negated = pattern.startsWith('!');
    const p = negated ? pattern.slice(1) : pattern;
    if (names.some((n) => globMatch(p, n))) {
      if (negated) return false;
      matched = true;
    }
  }
  return matched;
}

/**
 * Keys a known_hosts text lists for a host (and port), with revoked keys
 * apart. Hashed host names, patterns with `*`/`?`/`!` and `[host]:port` are
 * understood; `@cert-authority` lines are skipped (certificates are not supported).
 */
export function knownHostKeys(text: string, host: string, port = 22): { keys: Buffer[]; revoked: Buffer[] } {
  const names = [hostPattern(host, port)];
  const keys: Buffer[] = [];
  const revoked: Buffer[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (!line || line.startsWith('#')) continue;
    const parts = line.split(/\s+/);
    let marker: string | undefined;
    if (parts[0]?.startsWith('@')) marker = parts.shift();
    const [hosts, , blob] = parts;
    if (!hosts || !blob || marker === '@cert-authority') continue;
    if (!hostMatches(hosts, names)) continue;
    const key = Buffer.from(blob, 'base64');
    (marker === '@revoked' ? revoked : keys).push(key);
  }
  return { keys, revoked };
}

function expectedKeys(
  options: SshRemoteOptions,
  port: number,
): { blobs: Buffer[]; fingerprints: string[]; revoked: Buffer[]; source: string } {
  if (options.hostKeys?.length) {
    const blobs: Buffer[] = [];
    const fingerprints: string[] = [];
    for (const k of options.hostKeys) {
      const t = k.trim();
      if (t.startsWith('SHA256:')) fingerprints.push(t.replace(/=+$/, ''));
      else {
        const blob = t.split(/\s+/)[1];
        if (blob) blobs.push(Buffer.from(blob, 'base64'));
      }
    }
    return { blobs, fingerprints, revoked: [], source: 'the given host keys' };
  }
  const file = options.knownHostsFile ?? join(homedir(), '.ssh', 'known_hosts');
  let text = '';
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    // A missing file simply knows no hosts; the connection is then refused below.
  }
  const { keys, revoked } = knownHostKeys(text, options.host, port);
  return { blobs: keys, fingerprints: [], revoked, source: file };
}

/**
 * A machine reached over SSH (the `ssh2` library), authenticating with a
 * key, an agent or a password. The server's host key is verified against
 * `hostKeys` or the known_hosts file unless explicitly told not to.
 * Commands run with `sh -c`; `asRoot` for a non-root user goes through
 * `sudo -n` with the whole command quoted, so nothing is expanded before
 * sudo runs it. One connection serves every call until `close()`.
 *
 * Errors (`RemoteError`): `remote/host-key-rejected`, `remote/auth-failed`,
 * `remote/connect-failed`, `remote/timeout`, `remote/channel-failed`,
 * `remote/connection-lost`, and `remote/sudo-failed` when a root command is
 * asked for, the user is not root and `sudo -n true` fails (checked once per
 * remote). A `port` outside 1..65535 or a `maxOutputBytes` that is not a
 * positive whole number throws a `ValidationError` (`remote/invalid-option`)
 * at once.
 *
 * @example
 * const remote = createSshRemote({ host: '10.0.0.5', username: 'centos', privateKeyPath: '~/.ssh/id_ed25519' });
 * try { await validateImage(spec, remote, { reconcile: false }); } finally { await remote.close(); }
 */
export function createSshRemote(options: SshRemoteOptions): SshRemote {
  const port = options.port ?? 22;
  if (!Number.isInteger(port) || port < 1 || port > 65535) {
    throw new ValidationError(`The SSH port must be a whole number from 1 to 65535, but it is ${port}.`, {
      code: 'remote/invalid-option',
    });
  }
  const maxBytes = options.maxOutputBytes ?? 64 * 1024 * 1024;
  if (!Number.isInteger(maxBytes) || maxBytes < 1) {
    throw new ValidationError(`maxOutputBytes must be a positive whole number, but it is ${maxBytes}.`, {
      code: 'remote/invalid-option',
    });
  }
  const timeoutMs = options.timeoutMs ?? 300_000;
  let connecting: Promise<Client> | undefined;
  let client: Client | undefined;

  const connect = (): Promise<Client> => {
    if (connecting) return connecting;
    connecting = new Promise<Client>((resolve, reject) => {
      const conn = new Client();
      let rejectedKey: string | undefined;
      const expected = options.insecureSkipHostKeyCheck ? undefined : expectedKeys(options, port);
      const config: ConnectConfig = {
        host: options.host,
        port,
        username: options.username,
        readyTimeout: options.readyTimeoutMs ?? 20_000,
        hostVerifier: (key: Buffer) => {
          if (!expected) return true;
          const ok =
            !expected.revoked.some((r) => r.equals(key)) &&
            (expected.blobs.some((b) => b.equals(key)) ||
              expected.fingerprints.includes(sshFingerprint(key)));
          if (!ok) rejectedKey = sshFingerprint(key);
          return ok;
        },
      };
      try {
        if (options.privateKey) config.privateKey = options.privateKey;
        else if (options.privateKeyPath) {
          config.privateKey = readFileSync(options.privateKeyPath.replace(/^~(?=\/)/, homedir()));
        }
      } catch (e) {
        reject(
          new RemoteError(`The private key could not be read: ${describeError(e)}`, {
            code: 'remote/auth-failed',
          }),
        );
        return;
      }
      if (options.passphrase) config.passphrase = options.passphrase;
      if (options.password) config.password = options.password;
      const agent =
        options.agent ?? (!config.privateKey && !options.password ? process.env.SSH_AUTH_SOCK : undefined);
      if (agent) config.agent = agent;
      conn.on('ready', () => {
        client = conn;
        resolve(conn);
      });
      conn.on('error', (e: Error & { level?: string }) => {
        connecting = undefined;
        client = undefined;
        if (rejectedKey) {
          reject(
            new RemoteError(
              `The host key of ${hostPattern(options.host, port)} (${rejectedKey}) is not trusted by ${expected?.source}.`,
              { code: 'remote/host-key-rejected', cause: e },
            ),
          );
        } else if (e.level === 'client-authentication') {
          reject(
            new RemoteError(`Authentication as ${options.username}@${options.host} failed.`, {
              code: 'remote/auth-failed',
              cause: e,
            }),
          );
        } else {
          reject(
            new RemoteError(`Could not connect to ${hostPattern(options.host, port)}: ${e.message}`, {
              code: 'remote/connect-failed',
              cause: e,
            }),
          );
        }
      });
      conn.on('close', () => {
        client = undefined;
        connecting = undefined;
      });
      conn.connect(config);
    });
    return connecting;
  };

  const run = async (command: string, input?: string | Uint8Array): Promise<ExecResult> => {
    const conn = await connect();
    return new Promise<ExecResult>((resolve, reject) => {
      const onChannel = (err: Error | undefined, stream: ClientChannel) => {
        if (err) {
          reject(
            new RemoteError(`Could not open a channel: ${err.message}`, {
              code: 'remote/channel-failed',
              cause: err,
            }),
          );
          return;
        }
        const out: Buffer[] = [];
        const errOut: Buffer[] = [];
        let outBytes = 0;
        let errBytes = 0;
        let exitCode: number | undefined;
        const timer = setTimeout(() => {
          stream.close();
          reject(
            new RemoteError(`The command did not finish within ${timeoutMs} ms.`, { code: 'remote/timeout' }),
          );
        }, timeoutMs);
        // Keep the first maxBytes of each stream, so a runaway command cannot exhaust our memory.
        stream.on('data', (b: Buffer) => {
          if (outBytes < maxBytes) out.push(b.subarray(0, maxBytes - outBytes));
          outBytes += b.length;
        });
        stream.stderr.on('data', (b: Buffer) => {
          if (errBytes < maxBytes) errOut.push(b.subarray(0, maxBytes - errBytes));
          errBytes += b.length;
        });
        stream.on('exit', (code: number | null, signal?: string) => {
          exitCode = code ?? (signal ? 128 : 1);
        });
        stream.on('close', () => {
          clearTimeout(timer);
          if (exitCode === undefined) {
            // The channel closed without an exit status: the connection went away mid-command.
            reject(
              new RemoteError('The connection closed before the command finished.', {
                code: 'remote/connection-lost',
              }),
            );
            return;
          }
          resolve({
            exitCode,
            stdout: Buffer.concat(out).toString('utf8'),
            stderr: Buffer.concat(errOut).toString('utf8'),
          });
        });
        if (input !== undefined) stream.end(input);
        else stream.end();
      };
      try {
        conn.exec(command, onChannel);
      } catch (e) {
        reject(
          new RemoteError(`Could not start the command: ${describeError(e)}`, {
            code: 'remote/channel-failed',
            cause: e,
          }),
        );
      }
    });
  };

  const sudoReady = createSudoCheck(
    () => run('sudo -n true'),
    `${options.username}@${hostPattern(options.host, port)}`,
  );
  const wrap = async (script: string, asRoot: boolean | undefined, args: readonly string[] = []) => {
    const tail = args.length ? ` sh ${args.map(shellQuote).join(' ')}` : '';
    const inner = `sh -c ${shellQuote(script)}${tail}`;
    if (!asRoot || options.username === 'root') return inner;
    await sudoReady();
    return `sudo -n -- ${inner}`;
  };

  const exec = async (command: string, opts: ExecOptions = {}) =>
    run(await wrap(withEnv(command, opts.env), opts.asRoot), opts.input);

  return {
    exec,
    async writeFile(path, content, opts = {}) {
      const r = await run(await wrap(replaceFileScript(opts.mode), opts.asRoot, [path]), content);
      if (r.exitCode !== 0) {
        throw new RemoteError(`Could not write ${path}: ${r.stderr.trim() || `exit status ${r.exitCode}`}`, {
          code: 'remote/write-failed',
        });
      }
    },
    async distro() {
      if (options.distro) return options.distro.toLowerCase();
      return probeDistro((c) => exec(c));
    },
    async close() {
      const conn = client ?? (connecting ? await connecting.catch(() => undefined) : undefined);
      if (!conn) return;
      await new Promise<void>((resolve) => {
        conn.once('close', () => resolve());
        conn.end();
      });
    },
  };
}
