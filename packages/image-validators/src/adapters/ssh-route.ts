// The route to a host as the ssh config describes it: the jump hosts in order,
// then the target, each with the name, user, port, keys and known_hosts files
// that apply to it. Reads the config files (bounded) and leaves connecting to
// the SSH adapter.

import { readdirSync } from 'node:fs';
import { homedir, hostname, userInfo } from 'node:os';
import { join } from 'node:path';
import { createDiagnostic, type Diagnostic, SpecError, ValidationError } from '@stackspec/core';
import { readTextFile } from '@stackspec/core/node';
import { hostKeyName } from '../known-hosts.js';
import { matchWildcard } from '../ssh-certificate.js';
import {
  expandSshPath,
  parseProxyJump,
  type ResolvedSshHost,
  resolveSshConfig,
  type SshConfigContext,
  type SshJumpHop,
  type SshTokenValues,
} from '../ssh-config.js';
import type { SshRemoteOptions } from './ssh.js';

// Config files are a few kilobytes; read with core's bounded reader, a FIFO or a device in their
// place cannot hang the connection and a huge file cannot fill memory.
const MAX_CONFIG_BYTES = 1024 * 1024;
// Jumps through jumps (a hop's own ProxyJump) end here, loops included.
const MAX_HOPS = 8;
// Paths one Include glob may name.
const MAX_GLOB_PATHS = 256;

/** How a hop's host key is judged. */
export type TrustPlan =
  | { kind: 'insecure' }
  | { kind: 'pinned'; blobs: Buffer[]; fingerprints: string[] }
  | {
      kind: 'known-hosts';
      userFiles: string[];
      globalFiles: string[];
      strict: 'yes' | 'accept-new' | 'no';
      hash: boolean;
      /** Names to look the host up by: `[host]:port` or `host` (HostKeyAlias when set). */
      names: string[];
      /** The name a host certificate must list among its principals. */
      principal: string;
    };

/** One connection of the route: a jump host, or the target (last). */
export interface HopPlan {
  /** How messages name it. */
  label: string;
  host: string;
  port: number;
  username: string;
  jump: boolean;
  privateKey?: string | Buffer;
  privateKeyPath?: string;
  passphrase?: string;
  agent?: string | false;
  password?: string;
  identityFiles: string[];
  identitiesOnly: boolean;
  home: string;
  trust: TrustPlan;
  readyTimeout: number;
}

/** The paths an Include glob names, sorted, as glob(3) lists them (no dot files unless asked). */
function globPaths(pattern: string): string[] {
  const parts = pattern.split('/');
  let found = [parts[0] === '' ? '/' : (parts[0] as string)];
  for (const part of parts.slice(1)) {
    if (!part) continue;
    const next: string[] = [];
    for (const dir of found) {
      if (!/[*?]/.test(part)) {
        next.push(join(dir, part));
        continue;
      }
      let names: string[] = [];
      try {
        names = readdirSync(dir).sort();
      } catch {
        // A folder that cannot be listed names nothing, as for glob(3).
      }
      for (const name of names) {
        if (name.startsWith('.') && !part.startsWith('.')) continue;
        if (matchWildcard(part, name, false)) next.push(join(dir, name));
        if (next.length >= MAX_GLOB_PATHS) break;
      }
    }
    found = next;
  }
  return found;
}

function loadConfigFile(path: string): ReturnType<SshConfigContext['load']> {
  const read = readTextFile(path, { maxBytes: MAX_CONFIG_BYTES });
  if (read.ok) return { text: read.text };
  if (read.missing) return { missing: true };
  return { error: read.reason ?? read.diagnostic.message };
}

function localUserName(env: Readonly<Record<string, string | undefined>>): string {
  try {
    return userInfo().username;
  } catch {
    // No passwd entry for this uid (some containers): fall back to what the shell says.
    return env.USER ?? env.LOGNAME ?? 'root';
  }
}

/**
 * Works out the route to the target from the options and the ssh_config:
 * the jump hosts in order, then the target, each with its own name, user,
 * port, keys and known_hosts. Throws `SpecError` (`image/ssh-config/invalid`)
 * when the config has lines that cannot be used, and `ValidationError`
 * (`image/remote/invalid-option`) for a `proxyJump` option that cannot be read.
 */
export function planRoute(options: SshRemoteOptions, warn: (d: Diagnostic) => void): HopPlan[] {
  const env = options.env ?? process.env;
  const home = options.home ?? homedir();
  const localUser = localUserName(env);
  const localHost = hostname();
  const files: SshConfigContext['files'] =
    options.configFile === false
      ? []
      : options.configFile !== undefined
        ? [{ path: options.configFile.replace(/^~(?=\/|$)/, home), kind: 'user' }]
        : [
            { path: join(home, '.ssh', 'config'), kind: 'user' },
            ...(options.systemConfigFile === false
              ? []
              : [{ path: options.systemConfigFile ?? '/etc/ssh/ssh_config', kind: 'system' as const }]),
          ];
  const cache = new Map<string, ReturnType<SshConfigContext['load']>>();
  const load = (path: string) => {
    let hit = cache.get(path);
    if (!hit) {
      hit = loadConfigFile(path);
      cache.set(path, hit);
    }
    return hit;
  };
  const problems: Diagnostic[] = [];
  const seen = new Set<string>();
  const resolve = (host: string, preset: { user?: string; port?: number }): ResolvedSshHost => {
    const r = resolveSshConfig({ host, preset, files, home, localUser, load, glob: globPaths });
    for (const d of r.diagnostics) {
      const key = `${d.file}:${d.line}:${d.message}`;
      if (seen.has(key)) continue;
      seen.add(key);
      if (d.severity === 'error') problems.push(d);
      else warn(d);
    }
    return r;
  };
  const fail = () => {
    if (!problems.length) return;
    throw new SpecError(undefined, { code: 'image/ssh-config/invalid', diagnostics: problems });
  };

  const plan = (r: ResolvedSshHost, jump: boolean, hopText?: string): HopPlan => {
    const username = r.user ?? localUser;
    const port = r.port ?? 22;
    const values: SshTokenValues = {
      home,
      localUser,
      hostName: r.hostName,
      host: r.host,
      user: username,
      port,
      localHost,
      ...(process.getuid ? { uid: process.getuid() } : {}),
      ...(r.hostKeyAlias ? { hostKeyAlias: r.hostKeyAlias } : {}),
      ...(hopText ? { jump: hopText } : {}),
    };
    const expand = (text: string, where: { file: string; line: number }, keyword: string) => {
      const out = expandSshPath(text, values, env);
      if (typeof out === 'string') return out;
      problems.push(
        createDiagnostic({
          code: 'image/ssh-config/bad-value',
          message: `${keyword} ${text} cannot be used: ${out.error}.`,
          file: where.file,
          line: where.line,
        }),
      );
      return text;
    };
    const fileList = (v: ResolvedSshHost['userKnownHostsFiles'], keyword: string, fallback: string[]) =>
      !v
        ? fallback
        : v.value.length === 1 && v.value[0] === 'none'
          ? []
          : v.value.map((p) => expand(p, v, keyword));
    const target = !jump;
    const identityFiles = r.identityFiles.map((f) => expand(f.value, f, 'IdentityFile'));
    const given = target && (options.privateKey !== undefined || options.privateKeyPath !== undefined);
    let agent: string | false | undefined = options.agent;
    if (agent === undefined && !given && !r.identitiesOnly) {
      const configured = r.identityAgent;
      if (!configured) agent = env.SSH_AUTH_SOCK || undefined;
      else if (configured.value.toLowerCase() === 'none') agent = false;
      else if (configured.value === 'SSH_AUTH_SOCK') agent = env.SSH_AUTH_SOCK || undefined;
      else if (configured.value.startsWith('$')) agent = env[configured.value.slice(1)] || undefined;
      else agent = expand(configured.value, configured, 'IdentityAgent');
    }
    const name = hostKeyName(r.hostName, port);
    const lookup = r.hostKeyAlias ? hostKeyName(r.hostKeyAlias, port) : name;
    let trust: TrustPlan;
    if (options.insecureSkipHostKeyCheck) trust = { kind: 'insecure' };
    else if (target && options.hostKeys?.length) {
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
      trust = { kind: 'pinned', blobs, fingerprints };
    } else {
      const strict = options.strictHostKeyChecking ?? r.strictHostKeyChecking ?? 'yes';
      trust = {
        kind: 'known-hosts',
        userFiles: options.knownHostsFile
          ? [options.knownHostsFile.replace(/^~(?=\/)/, home)]
          : fileList(r.userKnownHostsFiles, 'UserKnownHostsFile', [
              join(home, '.ssh', 'known_hosts'),
              join(home, '.ssh', 'known_hosts2'),
            ]),
        globalFiles: options.globalKnownHostsFiles
          ? [...options.globalKnownHostsFiles]
          : fileList(r.globalKnownHostsFiles, 'GlobalKnownHostsFile', [
              '/etc/ssh/ssh_known_hosts',
              '/etc/ssh/ssh_known_hosts2',
            ]),
        strict: strict === 'ask' ? 'yes' : strict,
        hash: r.hashKnownHosts ?? false,
        names: [lookup],
        principal: r.hostKeyAlias ?? r.hostName,
      };
    }
    const shown = r.host === r.hostName ? name : `${r.host} (${name})`;
    return {
      label: jump ? `the jump host ${shown}` : shown,
      host: r.hostName,
      port,
      username,
      jump,
      ...(target && options.privateKey !== undefined ? { privateKey: options.privateKey } : {}),
      ...(target && options.privateKeyPath !== undefined ? { privateKeyPath: options.privateKeyPath } : {}),
      ...(options.passphrase !== undefined ? { passphrase: options.passphrase } : {}),
      ...(agent !== undefined ? { agent } : {}),
      ...(target && options.password !== undefined ? { password: options.password } : {}),
      identityFiles,
      identitiesOnly: r.identitiesOnly ?? false,
      home,
      trust,
      readyTimeout: options.readyTimeoutMs ?? (r.connectTimeout ? r.connectTimeout * 1000 : 20_000),
    };
  };

  // `ProxyJump a,b`: b is reached through a, ignoring b's own ProxyJump (as `ssh -J a b` does),
  // while a is reached as its config says, its own ProxyJump included.
  const routeTo = (hops: readonly SshJumpHop[], path: readonly string[]): HopPlan[] => {
    const last = hops.at(-1) as SshJumpHop;
    if (path.length >= MAX_HOPS || path.includes(last.host)) {
      const message = `The jump hosts to ${options.host} loop or go more than ${MAX_HOPS} deep: ${[...path, last.host].join(' → ')}.`;
      throw new ValidationError(message, {
        code: 'image/remote/invalid-option',
        diagnostics: [
          createDiagnostic({
            code: 'image/remote/invalid-option',
            message,
            hint: 'Check the ProxyJump lines of these hosts in the ssh config.',
          }),
        ],
      });
    }
    const r = resolve(last.host, {
      ...(last.user !== undefined ? { user: last.user } : {}),
      ...(last.port !== undefined ? { port: last.port } : {}),
    });
    fail();
    let before: HopPlan[] = [];
    if (hops.length > 1) before = routeTo(hops.slice(0, -1), [...path, last.host]);
    else if (r.proxyCommand) unsupportedProxyCommand(r.proxyCommand);
    else if (Array.isArray(r.proxyJump?.value)) before = routeTo(r.proxyJump.value, [...path, last.host]);
    return [...before, plan(r, true)];
  };

  const target = resolve(options.host, {
    ...(options.username !== undefined ? { user: options.username } : {}),
    ...(options.port !== undefined ? { port: options.port } : {}),
  });
  fail();
  let jumps: readonly SshJumpHop[] | 'none' | undefined = target.proxyJump?.value;
  let jumpText =
    target.proxyJump && Array.isArray(target.proxyJump.value) ? target.proxyJump.value : undefined;
  if (options.proxyJump !== undefined) {
    const parsed = parseProxyJump(options.proxyJump);
    if (!Array.isArray(parsed) && parsed !== 'none') {
      throw new ValidationError(`The jump hosts cannot be used: ${parsed.error}.`, {
        code: 'image/remote/invalid-option',
      });
    }
    jumps = parsed;
    jumpText = Array.isArray(parsed) ? parsed : undefined;
  } else if (target.proxyCommand) unsupportedProxyCommand(target.proxyCommand);
  const route = Array.isArray(jumps) ? routeTo(jumps, [options.host]) : [];
  const last = plan(
    target,
    false,
    jumpText?.map((h) => `${h.user ? `${h.user}@` : ''}${h.host}${h.port ? `:${h.port}` : ''}`).join(','),
  );
  fail();
  return [...route, last];
}

function unsupportedProxyCommand(v: { value: string; file: string; line: number }): never {
  throw new SpecError(undefined, {
    code: 'image/ssh-config/invalid',
    diagnostics: [
      createDiagnostic({
        code: 'image/ssh-config/unsupported',
        message: `ProxyCommand is not supported by this client, so the host cannot be reached as configured (${v.value.slice(0, 120)}).`,
        file: v.file,
        line: v.line,
        hint: 'Use ProxyJump [user@]bastion[:port] for a jump host, or run the command with ssh.',
      }),
    ],
  });
}
