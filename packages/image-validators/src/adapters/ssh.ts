import { connect as connectTcp } from 'node:net';
import { join } from 'node:path';
import type { Duplex } from 'node:stream';
import { createDiagnostic, type Diagnostic, describeError, ValidationError } from '@stackspec/core';
import { readTextFile } from '@stackspec/core/node';
// ssh2 is CommonJS: Node's ESM loader finds `Client` as a named export but not `utils`.
import ssh2, {
  type AnyAuthMethod,
  type AuthenticationType,
  Client,
  type ClientChannel,
  type ConnectConfig,
  type ParsedKey,
} from 'ssh2';
import { hostFieldMatches, hostKeyName, parseKnownHosts } from '../known-hosts.js';
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
import { prepareTrust } from './ssh-host-trust.js';
import { type HopPlan, planRoute } from './ssh-route.js';

export type { HostKeyVerdict, KnownHostsEntry, ParsedKnownHosts } from '../known-hosts.js';
export { checkHostKey, hostKeyName, parseKnownHosts, sshFingerprint } from '../known-hosts.js';
export type { SshCertificate } from '../ssh-certificate.js';
export { hostCertificateProblem, parseSshCertificate } from '../ssh-certificate.js';
export type {
  ParsedSshConfig,
  ResolvedSshHost,
  SshConfigContext,
  SshConfigDirective,
  SshConfigValue,
  SshJumpHop,
  SshMatchCriterion,
} from '../ssh-config.js';
export { parseProxyJump, parseSshConfig, resolveSshConfig } from '../ssh-config.js';

/** Options of {@link createSshRemote}. */
export interface SshRemoteOptions {
  /** A host name, an address, or a `Host` alias of the ssh_config. */
  host: string;
  /** 1 to 65535; default the config's `Port`, else 22. */
  port?: number;
  /** Default the config's `User`, else the local user. */
  username?: string;
  /** A private key (PEM or OpenSSH format). */
  privateKey?: string | Buffer;
  /** A file holding the private key; read when connecting. */
  privateKeyPath?: string;
  /** Decrypts an encrypted `privateKey`, or encrypted default and configured keys when none is given. */
  passphrase?: string;
  /**
   * An ssh-agent socket. Default the config's `IdentityAgent`, else
   * `$SSH_AUTH_SOCK`, when no private key is given; `false` uses no agent.
   */
  agent?: string | false;
  /** For the target only, not for jump hosts. */
  password?: string;
  /**
   * The home folder whose `.ssh` holds the config, the default keys and
   * known_hosts; default `os.homedir()` (which honours `$HOME`).
   */
  home?: string;
  /**
   * Keys the target must present: OpenSSH public key lines
   * (`ssh-ed25519 AAAA…`) or fingerprints (`SHA256:…`). When given, the
   * known_hosts files are not consulted for the target (they still are for
   * jump hosts).
   */
  hostKeys?: readonly string[];
  /**
   * The user known_hosts file, for the target and every jump host: it
   * replaces the config's `UserKnownHostsFile` (default
   * `~/.ssh/known_hosts` and `~/.ssh/known_hosts2`); the global files are
   * still read.
   */
  knownHostsFile?: string;
  /**
   * Global known_hosts files; default the config's `GlobalKnownHostsFile`,
   * else `/etc/ssh/ssh_known_hosts` and `/etc/ssh/ssh_known_hosts2`.
   */
  globalKnownHostsFiles?: readonly string[];
  /**
   * What to do with a host key no known_hosts file lists: `yes` refuses it,
   * `accept-new` accepts it and appends it to the user known_hosts file, `no`
   * does that too and also accepts a changed key (with a warning, and without
   * sending the password). A revoked key is always refused. Default the
   * config's `StrictHostKeyChecking`, else `yes`.
   */
  strictHostKeyChecking?: 'yes' | 'accept-new' | 'no';
  /**
   * Accept any host key. Off by default; only for throwaway machines on a
   * trusted network (anyone in the middle could then read and change the session).
   */
  insecureSkipHostKeyCheck?: boolean;
  /**
   * The ssh_config to read. Default: `~/.ssh/config` (if there is one), then
   * `systemConfigFile`. A path reads that file alone, as `ssh -F` does;
   * `false` reads none.
   */
  configFile?: string | false;
  /** The system-wide config read after the user's; default `/etc/ssh/ssh_config`; `false` reads none. */
  systemConfigFile?: string | false;
  /** Jump hosts, as `ssh -J`: `[user@]host[:port]` hops separated by commas, or `none`; overrides the config. */
  proxyJump?: string;
  /** Environment for `${VAR}` in config paths and `$SSH_AUTH_SOCK`; default `process.env`. */
  env?: Readonly<Record<string, string | undefined>>;
  /** Receives warnings: config lines ignored, a host key added to known_hosts. */
  onWarning?: (diagnostic: Diagnostic) => void;
  /** Per-command limit in milliseconds; default 300000 (Sahara's command timeout). */
  timeoutMs?: number;
  /** Limit for connecting and authenticating each hop, in milliseconds; default the config's `ConnectTimeout`, else 20000. */
  readyTimeoutMs?: number;
  /** Answer for `distro()` instead of reading /etc/os-release. */
  distro?: string;
  /** Output kept per stream and command, in bytes (the rest is dropped); default 64 MiB. */
  maxOutputBytes?: number;
}

/** A remote over SSH; `close()` ends the connection (and those to jump hosts). */
export interface SshRemote extends Remote {
  close(): Promise<void>;
}
/**
 * Keys a known_hosts text lists for a host (and port), with revoked keys
 * apart. Hashed host names, patterns with `*`/`?`/`!` and `[host]:port` are
 * understood; `@cert-authority` lines list CA keys, not host keys, so they
 * are left out (see {@link parseKnownHosts} for every line with its number).
 */
export function knownHostKeys(text: string, host: string, port = 22): { keys: Buffer[]; revoked: Buffer[] } {
  const names = [hostKeyName(host, port)];
  const keys: Buffer[] = [];
  const revoked: Buffer[] = [];
  for (const e of parseKnownHosts(text).entries) {
    if (e.marker === 'cert-authority' || !hostFieldMatches(e.hosts, names)) continue;
    (e.marker === 'revoked' ? revoked : keys).push(e.key);
  }
  return { keys, revoked };
}

// Keys are read with core's bounded reader, so that a FIFO or a device in their place cannot hang
// the connection and a huge file cannot fill memory; a private key is a few kilobytes.
const MAX_KEY_BYTES = 1024 * 1024;

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
 * agent), then each `IdentityFile` of the config (else, without any and
 * unless `IdentitiesOnly`, each default key under `~/.ssh`) that exists and
 * can be used, then the password. A key found that cannot be used is
 * skipped and said so; a key given that cannot be used fails at once.
 */
function planAuth(hop: HopPlan): AuthPlan {
  const username = hop.username;
  const attempts: AuthPlan['attempts'] = [];
  const skipped: string[] = [];
  const given = hop.privateKey ?? hop.privateKeyPath;
  if (given !== undefined) {
    const shown = hop.privateKeyPath ?? 'the private key';
    let data: Buffer | string;
    if (hop.privateKey !== undefined) data = hop.privateKey;
    else {
      const path = String(hop.privateKeyPath).replace(/^~(?=\/)/, hop.home);
      const read = readTextFile(path, { maxBytes: MAX_KEY_BYTES });
      if (!read.ok) {
        throw new RemoteError(
          `The private key ${shown} could not be read: ${read.reason ?? read.diagnostic.message}.`,
          { code: 'image/remote/auth-failed' },
        );
      }
      data = read.text;
    }
    const key = parsePrivateKey(data, hop.passphrase);
    if (typeof key === 'string') {
      throw new RemoteError(`The private key ${shown} cannot be used: ${key}.`, {
        code: 'image/remote/auth-failed',
      });
    }
    attempts.push({ auth: { type: 'publickey', username, key }, label: shown });
  }
  if (hop.agent)
    attempts.push({
      auth: { type: 'agent', username, agent: hop.agent },
      label: `the agent at ${hop.agent}`,
    });
  const files =
    hop.identityFiles.length || given !== undefined || hop.identitiesOnly
      ? hop.identityFiles
      : DEFAULT_IDENTITY_FILES.map((name) => join(hop.home, '.ssh', name));
  const configured = new Set(hop.identityFiles);
  for (const path of files) {
    const read = readTextFile(path, { maxBytes: MAX_KEY_BYTES });
    if (!read.ok) {
      // A default key that is not there is the usual case, as for ssh; anything else is worth saying.
      if (!read.missing || configured.has(path)) {
        skipped.push(`${path} was skipped: ${read.reason ?? read.diagnostic.message}.`);
      }
      continue;
    }
    const key = parsePrivateKey(read.text, hop.passphrase);
    if (typeof key === 'string') skipped.push(`${path} was skipped: ${key}.`);
    else attempts.push({ auth: { type: 'publickey', username, key }, label: path });
  }
  if (hop.password !== undefined) {
    attempts.push({ auth: { type: 'password', username, password: hop.password }, label: 'the password' });
  }
  return { attempts, skipped };
}

// The server names agent logins `publickey`.
const SERVER_METHOD: Partial<Record<AuthenticationType, AuthenticationType>> = { agent: 'publickey' };

const capital = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

/** Opens a channel to host:port through an established SSH connection (what ProxyJump does). */
function forward(
  via: Client,
  host: string,
  port: number,
  timeoutMs: number,
  label: string,
): Promise<ClientChannel> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () =>
        reject(
          new RemoteError(
            `${capital(label)} could not open a connection to ${hostKeyName(host, port)} within ${timeoutMs} ms.`,
            {
              code: 'image/remote/connect-failed',
            },
          ),
        ),
      timeoutMs,
    );
    try {
      via.forwardOut('127.0.0.1', 0, host, port, (err, stream) => {
        clearTimeout(timer);
        if (err) {
          reject(
            new RemoteError(
              `${capital(label)} could not open a connection to ${hostKeyName(host, port)}: ${err.message.replace(/\.$/, '')}.`,
              {
                code: 'image/remote/connect-failed',
                cause: err,
              },
            ),
          );
        } else resolve(stream);
      });
    } catch (e) {
      clearTimeout(timer);
      reject(
        new RemoteError(`${capital(label)} is no longer connected: ${describeError(e)}`, {
          code: 'image/remote/connection-lost',
          cause: e,
        }),
      );
    }
  });
}

function openTcp(host: string, port: number, timeoutMs: number): Promise<Duplex> {
  return new Promise((resolve, reject) => {
    const socket = connectTcp({ host, port });
    const timer = setTimeout(() => {
      socket.destroy();
      reject(
        new RemoteError(`Could not connect to ${hostKeyName(host, port)} within ${timeoutMs} ms.`, {
          code: 'image/remote/connect-failed',
        }),
      );
    }, timeoutMs);
    socket.once('connect', () => {
      clearTimeout(timer);
      resolve(socket);
    });
    socket.once('error', (e) => {
      clearTimeout(timer);
      reject(
        new RemoteError(`Could not connect to ${hostKeyName(host, port)}: ${e.message}`, {
          code: 'image/remote/connect-failed',
          cause: e,
        }),
      );
    });
  });
}

/** Connects and authenticates one hop, over `via` (the previous hop) when there is one. */
async function connectHop(
  hop: HopPlan,
  via: { client: Client; label: string } | undefined,
  warn: (d: Diagnostic) => void,
): Promise<Client> {
  const plan = planAuth(hop);
  const open = () =>
    via
      ? forward(via.client, hop.host, hop.port, hop.readyTimeout, via.label)
      : openTcp(hop.host, hop.port, hop.readyTimeout);
  const trust = await prepareTrust(hop, open, warn);
  const sock = via ? await open() : undefined;
  return new Promise<Client>((resolve, reject) => {
    const conn = new Client();
    let refusal: RemoteError | undefined;
    const config: ConnectConfig = {
      host: hop.host,
      port: hop.port,
      username: hop.username,
      readyTimeout: hop.readyTimeout,
      ...(sock ? { sock } : {}),
      ...(trust.algorithms ? { algorithms: { serverHostKey: trust.algorithms } } : {}),
      hostVerifier: (key: Buffer) => {
        refusal = trust.verify(key);
        return refusal === undefined;
      },
    };
    const queue = [...plan.attempts];
    const tried: string[] = [];
    const notes = [...plan.skipped];
    let asked = false;
    config.authHandler = (methodsLeft, _partialSuccess, next) => {
      // `none` first, as ssh does: it costs one round trip and tells which methods the server offers.
      if (!asked) {
        asked = true;
        return next({ type: 'none', username: hop.username });
      }
      for (;;) {
        const attempt = queue.shift();
        // ssh2 reads `false` as "nothing left to try"; its types do not say so.
        if (!attempt) return next(false as unknown as AuthenticationType);
        const method = SERVER_METHOD[attempt.auth.type] ?? attempt.auth.type;
        if (methodsLeft && !methodsLeft.includes(method)) continue;
        // A changed host key accepted under StrictHostKeyChecking no gets no password, as with ssh.
        if (attempt.auth.type === 'password' && trust.keyChanged()) continue;
        tried.push(attempt.label);
        return next(attempt.auth);
      }
    };
    let settled = false;
    conn.on('handshake', () => trust.afterHandshake());
    conn.on('ready', () => {
      settled = true;
      resolve(conn);
    });
    conn.on('error', (e: Error & { level?: string }) => {
      // An agent that cannot be reached is passed over, as ssh does; ssh2 goes on to the next method.
      if (e.level === 'agent') {
        notes.push(`The agent could not be used: ${describeError(e).replace(/\.$/, '')}.`);
        return;
      }
      if (settled) return;
      settled = true;
      const where = hop.jump ? ` (${hop.label})` : '';
      if (refusal) {
        reject(
          new RemoteError(refusal.message, {
            code: refusal.code,
            cause: e,
            diagnostics: refusal.diagnostics,
          }),
        );
      } else if (e.level === 'client-authentication') {
        const who = `${hop.username}@${hop.host}`;
        const message = tried.length
          ? `Authentication as ${who}${where} failed; tried ${tried.join(', ')}.`
          : `Authentication as ${who}${where} failed: there was no key, agent or password to try.`;
        const full = [message, ...notes].join(' ');
        reject(
          new RemoteError(full, {
            code: 'image/remote/auth-failed',
            cause: e,
            diagnostics: [
              createDiagnostic({
                code: 'image/remote/auth-failed',
                message: full,
                hint: hop.jump
                  ? 'Give the jump host a key it accepts: an IdentityFile under its Host entry in ~/.ssh/config, or a key in ssh-agent (ssh-add).'
                  : 'Give a private key the server accepts, add one to ssh-agent (ssh-add) or give a password; on the command line: --identity, --passphrase-env, --password-env.',
              }),
            ],
          }),
        );
      } else {
        reject(
          new RemoteError(
            `Could not connect to ${hop.jump ? hop.label : hostKeyName(hop.host, hop.port)}: ${e.message}`,
            {
              code: 'image/remote/connect-failed',
              cause: e,
            },
          ),
        );
      }
    });
    conn.on('close', () => {
      if (settled) return;
      settled = true;
      reject(
        new RemoteError(
          `${hop.jump ? hop.label : hostKeyName(hop.host, hop.port)} closed the connection during the handshake.`,
          {
            code: 'image/remote/connect-failed',
          },
        ),
      );
    });
    conn.connect(config);
  });
}

/**
 * A machine reached over SSH (the `ssh2` library), configured as OpenSSH
 * is: `host` may be a `Host` alias of `~/.ssh/config` (or of `configFile`,
 * as `ssh -F`), whose `HostName`, `User`, `Port`, `IdentityFile`,
 * `IdentityAgent`, `ProxyJump` (several hops, each resolved through the
 * config and reached through the one before with ssh2's `forwardOut`),
 * `StrictHostKeyChecking`, `UserKnownHostsFile`, `GlobalKnownHostsFile`,
 * `HashKnownHosts` and `HostKeyAlias` apply; options given here win over
 * the config. Authentication goes as with ssh: the key given, else the
 * agent, then the configured keys (else `~/.ssh/id_rsa`, `id_ecdsa` and
 * `id_ed25519`) that exist and can be used (an encrypted one is skipped
 * unless `passphrase` opens it), then the password; methods the server does
 * not offer are not tried. Each host key is verified against `hostKeys` or
 * the known_hosts files (user and global, hashed names, `[host]:port`,
 * `@revoked`, and `@cert-authority` for OpenSSH host certificates) unless
 * explicitly told not to. Commands run with `sh -c`; `asRoot` for a
 * non-root user goes through `sudo -n` with the whole command quoted, so
 * nothing is expanded before sudo runs it. One connection serves every call
 * until `close()`.
 *
 * Errors (`RemoteError`): `image/remote/host-key-rejected`, `image/remote/auth-failed`,
 * `image/remote/connect-failed`, `image/remote/timeout`, `image/remote/channel-failed`,
 * `image/remote/connection-lost`, and `image/remote/sudo-failed` when a root command is
 * asked for, the user is not root and `sudo -n true` fails (checked once per
 * remote). Thrown at once: a `ValidationError` (`image/remote/invalid-option`)
 * for a `port` outside 1..65535, a `maxOutputBytes` that is not a positive
 * whole number, or jump hosts that cannot be read or loop; a `SpecError`
 * (`image/ssh-config/invalid`) whose diagnostics name the file and line of each
 * config line that cannot be used.
 *
 * @example
 * const remote = createSshRemote({ host: 'build-target' }); // as `ssh build-target` would connect
 * try { await validateImage(spec, remote, { reconcile: false }); } finally { await remote.close(); }
 */
export function createSshRemote(options: SshRemoteOptions): SshRemote {
  const explicitPort = options.port;
  if (
    explicitPort !== undefined &&
    (!Number.isInteger(explicitPort) || explicitPort < 1 || explicitPort > 65535)
  ) {
    throw new ValidationError(
      `The SSH port must be a whole number from 1 to 65535, but it is ${explicitPort}.`,
      {
        code: 'image/remote/invalid-option',
      },
    );
  }
  const maxBytes = options.maxOutputBytes ?? 64 * 1024 * 1024;
  if (!Number.isInteger(maxBytes) || maxBytes < 1) {
    throw new ValidationError(`maxOutputBytes must be a positive whole number, but it is ${maxBytes}.`, {
      code: 'image/remote/invalid-option',
    });
  }
  const warned = new Set<string>();
  const warn = (d: Diagnostic) => {
    const key = `${d.code}:${d.file}:${d.line}:${d.message}`;
    if (warned.has(key)) return;
    warned.add(key);
    options.onWarning?.(d);
  };
  const route = planRoute(options, warn);
  const target = route.at(-1) as HopPlan;
  const timeoutMs = options.timeoutMs ?? 300_000;
  let connecting: Promise<Client> | undefined;
  let chain: Client[] = [];
  const closed = new WeakSet<Client>();

  const connect = (): Promise<Client> => {
    if (connecting) return connecting;
    const opened: Client[] = [];
    const attempt = (async () => {
      try {
        for (let i = 0; i < route.length; i += 1) {
          const previous = opened.at(-1);
          const conn = await connectHop(
            route[i] as HopPlan,
            previous ? { client: previous, label: (route[i - 1] as HopPlan).label } : undefined,
            warn,
          );
          opened.push(conn);
          conn.on('close', () => {
            closed.add(conn);
            // Any hop going away takes the route with it: end the rest, reconnect on the next call.
            if (chain === opened) {
              chain = [];
              connecting = undefined;
            }
            for (const c of opened) if (!closed.has(c)) c.end();
          });
        }
      } catch (e) {
        for (const c of opened.reverse()) c.end();
        connecting = undefined;
        throw e;
      }
      chain = opened;
      return opened.at(-1) as Client;
    })();
    connecting = attempt;
    return attempt;
  };

  const run = async (command: string, input?: string | Uint8Array): Promise<ExecResult> => {
    const conn = await connect();
    return new Promise<ExecResult>((resolve, reject) => {
      const onChannel = (err: Error | undefined, stream: ClientChannel) => {
        if (err) {
          reject(
            new RemoteError(`Could not open a channel: ${err.message}`, {
              code: 'image/remote/channel-failed',
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
            new RemoteError(`The command did not finish within ${timeoutMs} ms.`, {
              code: 'image/remote/timeout',
            }),
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
                code: 'image/remote/connection-lost',
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
            code: 'image/remote/channel-failed',
            cause: e,
          }),
        );
      }
    });
  };

  const sudoReady = createSudoCheck(
    () => run('sudo -n true'),
    `${target.username}@${hostKeyName(target.host, target.port)}`,
  );
  const wrap = async (script: string, asRoot: boolean | undefined, args: readonly string[] = []) => {
    const tail = args.length ? ` sh ${args.map(shellQuote).join(' ')}` : '';
    const inner = `sh -c ${shellQuote(script)}${tail}`;
    if (!asRoot || target.username === 'root') return inner;
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
          code: 'image/remote/write-failed',
        });
      }
    },
    async distro() {
      if (options.distro) return options.distro.toLowerCase();
      return probeDistro((c) => exec(c));
    },
    async close() {
      if (connecting) await connecting.catch(() => undefined);
      const open = chain;
      chain = [];
      connecting = undefined;
      for (const conn of [...open].reverse()) {
        if (closed.has(conn)) continue;
        await new Promise<void>((resolve) => {
          conn.once('close', () => resolve());
          conn.end();
        });
      }
    },
  };
}
