import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { createDiagnostic, describeError, ValidationError } from '@stackspec/core';
// ssh2 is CommonJS: Node's ESM loader finds `Client` as a named export but not `utils`.
import ssh2, {
  type AnyAuthMethod,
  type AuthenticationType,
  Client,
  type ClientChannel,
  type ConnectConfig,
  type ParsedKey,
} from 'ssh2';
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
  /** Decrypts an encrypted `privateKey`, or encrypted default keys when none is given. */
  passphrase?: string;
  /**
   * An ssh-agent socket. Default `$SSH_AUTH_SOCK` when no private key is
   * given; `false` uses no agent.
   */
  agent?: string | false;
  password?: string;
  /**
   * The home folder whose `.ssh` holds the default keys and known_hosts;
   * default `os.homedir()` (which honours `$HOME`).
   */
  home?: string;
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
  const file = options.knownHostsFile ?? join(options.home ?? homedir(), '.ssh', 'known_hosts');
  let text = '';
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    // A missing file simply knows no hosts; the connection is then refused below.
  }
  const { keys, revoked } = knownHostKeys(text, options.host, port);
  return { blobs: keys, fingerprints: [], revoked, source: file };
}

// The keys OpenSSH tries when no identity is given, in its order (as `ssh -v` lists them), less
// those ssh2 cannot use: security keys (`_sk`), XMSS, and DSA, which OpenSSH no longer offers.
const DEFAULT_IDENTITY_FILES = ['id_rsa', 'id_ecdsa', 'id_ed25519'];

interface AuthPlan {
  /** What to try after `none`, in order, each with the words that name it in a failure. */
  attempts: { auth: AnyAuthMethod; label: string }[];
  /** Keys that were found but cannot be used, said as sentences. */
  skipped: string[];
}

// A key as ssh2 can sign with it, or why not: a missing passphrase, a wrong one, or not a key at all.
function parsePrivateKey(data: Buffer | string, passphrase: string | undefined): ParsedKey | string {
  const parsed = ssh2.utils.parseKey(data, passphrase);
  // A file may hold several keys; like ssh2's own `privateKey`, use the first.
  const key = Array.isArray(parsed) ? (parsed[0] as ParsedKey | Error | undefined) : parsed;
  if (key === undefined) return 'it holds no key';
  if (key instanceof Error) {
    if (/no passphrase given/i.test(key.message)) return 'it is encrypted and no passphrase was given';
    if (/passphrase/i.test(key.message)) return 'the passphrase does not decrypt it';
    return `it is not a private key ssh2 can read (${key.message})`;
  }
  if (!key.isPrivateKey()) return 'it is a public key, not a private one';
  return key;
}

/**
 * What to authenticate with, in OpenSSH's order: the key given (else the
 * agent, then each default key under `~/.ssh` that exists and can be
 * used), then the password. An encrypted default key without a passphrase
 * is skipped and said so; a key given that cannot be used fails at once.
 */
function planAuth(options: SshRemoteOptions, home: string): AuthPlan {
  const username = options.username;
  const attempts: AuthPlan['attempts'] = [];
  const skipped: string[] = [];
  const given = options.privateKey ?? options.privateKeyPath;
  if (given !== undefined) {
    const shown = options.privateKeyPath ?? 'the private key';
    let data: Buffer | string;
    try {
      data = options.privateKey ?? readFileSync(String(options.privateKeyPath).replace(/^~(?=\/)/, home));
    } catch (e) {
      throw new RemoteError(`The private key could not be read: ${describeError(e)}`, {
        code: 'remote/auth-failed',
      });
    }
    const key = parsePrivateKey(data, options.passphrase);
    if (typeof key === 'string') {
      throw new RemoteError(`The private key ${shown} cannot be used: ${key}.`, {
        code: 'remote/auth-failed',
      });
    }
    attempts.push({ auth: { type: 'publickey', username, key }, label: shown });
  }
  const agent = options.agent ?? (given === undefined ? process.env.SSH_AUTH_SOCK : undefined);
  if (agent) attempts.push({ auth: { type: 'agent', username, agent }, label: `the agent at ${agent}` });
  if (given === undefined) {
    for (const name of DEFAULT_IDENTITY_FILES) {
      const path = join(home, '.ssh', name);
      let data: Buffer;
      try {
        data = readFileSync(path);
      } catch (e) {
        // No such key is the usual case, as for ssh; anything else is worth saying.
        if ((e as { code?: string } | null)?.code !== 'ENOENT') {
          skipped.push(`${path} was skipped: ${describeError(e).replace(/\.$/, '')}.`);
        }
        continue;
      }
      const key = parsePrivateKey(data, options.passphrase);
      if (typeof key === 'string') skipped.push(`${path} was skipped: ${key}.`);
      else attempts.push({ auth: { type: 'publickey', username, key }, label: path });
    }
  }
  if (options.password !== undefined) {
    attempts.push({
      auth: { type: 'password', username, password: options.password },
      label: 'the password',
    });
  }
  return { attempts, skipped };
}

// The server names agent logins `publickey`.
const SERVER_METHOD: Partial<Record<AuthenticationType, AuthenticationType>> = { agent: 'publickey' };

/**
 * A machine reached over SSH (the `ssh2` library), authenticating as
 * OpenSSH does: with the key given, else the agent (`$SSH_AUTH_SOCK`) and
 * the default keys `~/.ssh/id_rsa`, `id_ecdsa` and `id_ed25519` that exist
 * and can be used (an encrypted one is skipped unless `passphrase` opens
 * it), then the password; methods the server does not offer are not
 * tried. The server's host key is verified against
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
      let plan: AuthPlan;
      try {
        plan = planAuth(options, options.home ?? homedir());
      } catch (e) {
        connecting = undefined;
        reject(e);
        return;
      }
      const queue = [...plan.attempts];
      const tried: string[] = [];
      const notes = [...plan.skipped];
      let asked = false;
      config.authHandler = (methodsLeft, _partialSuccess, next) => {
        // `none` first, as ssh does: it costs one round trip and tells which methods the server offers.
        if (!asked) {
          asked = true;
          return next({ type: 'none', username: options.username });
        }
        for (;;) {
          const attempt = queue.shift();
          // ssh2 reads `false` as "nothing left to try"; its types do not say so.
          if (!attempt) return next(false as unknown as AuthenticationType);
          const method = SERVER_METHOD[attempt.auth.type] ?? attempt.auth.type;
          if (methodsLeft && !methodsLeft.includes(method)) continue;
          tried.push(attempt.label);
          return next(attempt.auth);
        }
      };
      conn.on('ready', () => {
        client = conn;
        resolve(conn);
      });
      conn.on('error', (e: Error & { level?: string }) => {
        // An agent that cannot be reached is passed over, as ssh does; ssh2 goes on to the next method.
        if (e.level === 'agent') {
          notes.push(`The agent could not be used: ${describeError(e).replace(/\.$/, '')}.`);
          return;
        }
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
          const who = `${options.username}@${options.host}`;
          const message = tried.length
            ? `Authentication as ${who} failed; tried ${tried.join(', ')}.`
            : `Authentication as ${who} failed: there was no key, agent or password to try.`;
          const full = [message, ...notes].join(' ');
          reject(
            new RemoteError(full, {
              code: 'remote/auth-failed',
              cause: e,
              diagnostics: [
                createDiagnostic({
                  code: 'remote/auth-failed',
                  message: full,
                  hint: 'Give a private key the server accepts, add one to ssh-agent (ssh-add) or give a password; on the command line: --identity, --passphrase-env, --password-env.',
                }),
              ],
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
