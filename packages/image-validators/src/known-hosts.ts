// known_hosts files as OpenSSH reads them (sshd(8), "SSH_KNOWN_HOSTS FILE
// FORMAT"): which lines there are, which of them speak about a host, and what
// they say about the key a server presents. Pure: text in, entries and
// verdicts out; reading and appending the files is the SSH adapter's job.

import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { createDiagnostic, type Diagnostic } from '@stackspec/core';
import { matchWildcard } from './ssh-certificate.js';
import { keyBlobType } from './ssh-wire.js';

/** One usable line of a known_hosts file. */
export interface KnownHostsEntry {
  file: string;
  /** 1-based. */
  line: number;
  /** `@cert-authority` (the key is a CA trusted for these hosts) or `@revoked` (never accept this key). */
  marker?: 'cert-authority' | 'revoked';
  /** The host field as written: patterns separated by commas, or one hashed name `|1|salt|hash`. */
  hosts: string;
  /** The key's type, such as `ssh-ed25519`. */
  keyType: string;
  /** The public key blob. */
  key: Buffer;
}

/** Outcome of {@link parseKnownHosts}: the usable lines, and a warning for each line that is not. */
export interface ParsedKnownHosts {
  entries: KnownHostsEntry[];
  /** `image/known-hosts/bad-line` warnings, with `file` and `line`; OpenSSH skips such lines too. */
  diagnostics: Diagnostic[];
}

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/**
 * Reads known_hosts text. Comments and blank lines are skipped; a line that
 * cannot be used (an unknown marker, a missing or undecodable key, a key
 * whose blob is of another type than the line says) is skipped with a
 * located warning, as OpenSSH skips it. Linear in the text; never throws.
 *
 * @example
 * const { entries } = parseKnownHosts(text, '/root/.ssh/known_hosts');
 * const verdict = checkHostKey(entries, [hostKeyName('10.0.0.5', 22)], keyBlob);
 */
export function parseKnownHosts(text: string, file = 'known_hosts'): ParsedKnownHosts {
  const entries: KnownHostsEntry[] = [];
  const diagnostics: Diagnostic[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i += 1) {
    const line = (lines[i] as string).trim();
    if (!line || line.startsWith('#')) continue;
    const bad = (why: string) =>
      diagnostics.push(
        createDiagnostic({
          code: 'image/known-hosts/bad-line',
          severity: 'warning',
          message: `This known_hosts line cannot be used: ${why}; it is skipped.`,
          file,
          line: i + 1,
          hint: 'A line reads [@cert-authority|@revoked] host-patterns key-type base64-key [comment].',
        }),
      );
    const parts = line.split(/\s+/);
    let marker: KnownHostsEntry['marker'];
    if (parts[0]?.startsWith('@')) {
      const word = parts.shift() as string;
      if (word === '@cert-authority') marker = 'cert-authority';
      else if (word === '@revoked') marker = 'revoked';
      else {
        bad(`the marker ${JSON.stringify(word.slice(0, 40))} is neither @cert-authority nor @revoked`);
        continue;
      }
    }
    const [hosts, keyType, blob] = parts;
    if (!hosts || !keyType || !blob) {
      bad('it has no key (expected host patterns, a key type and a base64 key)');
      continue;
    }
    if (!BASE64.test(blob)) {
      bad('its key is not base64');
      continue;
    }
    const key = Buffer.from(blob, 'base64');
    const inner = keyBlobType(key);
    if (inner !== keyType) {
      bad(
        inner
          ? `it says ${keyType.slice(0, 60)} but the key is ${inner}`
          : `its key is not an SSH public key`,
      );
      continue;
    }
    entries.push({ file, line: i + 1, ...(marker ? { marker } : {}), hosts, keyType, key });
  }
  return { entries, diagnostics };
}

/** The OpenSSH fingerprint of a public key blob: `SHA256:` and unpadded base64. */
export function sshFingerprint(keyBlob: Uint8Array): string {
  return `SHA256:${createHash('sha256').update(keyBlob).digest('base64').replace(/=+$/, '')}`;
}

/** The name known_hosts lists a host under: `host` on port 22, `[host]:port` on any other. */
export function hostKeyName(host: string, port: number): string {
  return port === 22 ? host : `[${host}]:${port}`;
}

/**
 * Whether a known_hosts host field speaks about any of `names`: a hashed
 * name (`|1|salt|hash`, HMAC-SHA1 of the name), or comma-separated patterns
 * with `*` and `?`, where a matching `!pattern` rules the host out.
 * Names compare case-insensitively, as OpenSSH lowercases host names.
 */
export function hostFieldMatches(field: string, names: readonly string[]): boolean {
  if (field.startsWith('|1|')) {
    const [, , salt, hash] = field.split('|');
    if (!salt || !hash || !BASE64.test(salt) || !BASE64.test(hash)) return false;
    const expected = Buffer.from(hash, 'base64');
    const key = Buffer.from(salt, 'base64');
    return names.some((name) => {
      const got = createHmac('sha1', key).update(name.toLowerCase()).digest();
      return got.length === expected.length && timingSafeEqual(got, expected);
    });
  }
  let matched = false;
  for (const pattern of field.split(',')) {
    const negated = pattern.startsWith('!');
    const p = negated ? pattern.slice(1) : pattern;
    if (names.some((n) => matchWildcard(p, n))) {
      if (negated) return false;
      matched = true;
    }
  }
  return matched;
}

/** What the known_hosts entries say about the key a host presents. */
export type HostKeyVerdict =
  /** A plain line for the host lists this key. */
  | { status: 'trusted'; entry: KnownHostsEntry }
  /** An `@revoked` line for the host lists this key: never accept it. */
  | { status: 'revoked'; entry: KnownHostsEntry }
  /** A line for the host lists another key of the same type: the key changed. */
  | { status: 'changed'; entry: KnownHostsEntry }
  /** No line lists a key of this type for the host; `others` are its keys of other types. */
  | { status: 'unknown'; others: KnownHostsEntry[] };

/** The plain key type of a blob, treating RSA's signature variants as `ssh-rsa`. */
function typeOf(blob: Uint8Array): string {
  return keyBlobType(blob) ?? '';
}

/**
 * Judges a presented host key (a plain public key blob) against entries,
 * in OpenSSH's order: revoked first, then a matching key, then a line with
 * another key of the same type (changed), else unknown. Only entries whose
 * host field matches one of `names` count; `@cert-authority` lines name
 * CA keys, not host keys, and are left out.
 */
export function checkHostKey(
  entries: readonly KnownHostsEntry[],
  names: readonly string[],
  key: Uint8Array,
): HostKeyVerdict {
  const forHost = entries.filter((e) => e.marker !== 'cert-authority' && hostFieldMatches(e.hosts, names));
  const revoked = forHost.find((e) => e.marker === 'revoked' && e.key.equals(key));
  if (revoked) return { status: 'revoked', entry: revoked };
  const plain = forHost.filter((e) => e.marker === undefined);
  const trusted = plain.find((e) => e.key.equals(key));
  if (trusted) return { status: 'trusted', entry: trusted };
  const type = typeOf(key);
  const changed = plain.find((e) => e.keyType === type);
  if (changed) return { status: 'changed', entry: changed };
  return { status: 'unknown', others: plain };
}

/** Whether an `@revoked` line for the host lists this key (a CA key or a certified key). */
export function revokedEntry(
  entries: readonly KnownHostsEntry[],
  names: readonly string[],
  key: Uint8Array,
): KnownHostsEntry | undefined {
  return entries.find((e) => e.marker === 'revoked' && e.key.equals(key) && hostFieldMatches(e.hosts, names));
}

/** The `@cert-authority` lines that speak about the host. */
export function certificateAuthoritiesFor(
  entries: readonly KnownHostsEntry[],
  names: readonly string[],
): KnownHostsEntry[] {
  return entries.filter((e) => e.marker === 'cert-authority' && hostFieldMatches(e.hosts, names));
}

/** The key types plain lines list for the host, in file order, without repeats. */
export function knownKeyTypes(entries: readonly KnownHostsEntry[], names: readonly string[]): string[] {
  const types: string[] = [];
  for (const e of entries) {
    if (e.marker === undefined && !types.includes(e.keyType) && hostFieldMatches(e.hosts, names))
      types.push(e.keyType);
  }
  return types;
}

/**
 * A known_hosts line for `name` and a key blob. With `hash`, the name is
 * written hashed (`|1|salt|hash`, as `HashKnownHosts yes` does) with a
 * random salt unless one is given.
 */
export function formatKnownHostsLine(
  name: string,
  key: Uint8Array,
  options: { hash?: boolean; salt?: Uint8Array } = {},
): string {
  let field = name;
  if (options.hash) {
    const salt = Buffer.from(options.salt ?? randomBytes(20));
    const hash = createHmac('sha1', salt).update(name.toLowerCase()).digest();
    field = `|1|${salt.toString('base64')}|${hash.toString('base64')}`;
  }
  return `${field} ${typeOf(key)} ${Buffer.from(key).toString('base64')}`;
}
