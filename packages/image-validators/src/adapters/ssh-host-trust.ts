// Whether to trust the host key a server presents: pinned keys, or the
// known_hosts files with their hashed names, @revoked and @cert-authority
// lines, and what StrictHostKeyChecking says about keys they do not list.

import { appendFileSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Duplex } from 'node:stream';
import { createDiagnostic, type Diagnostic, describeError } from '@stackspec/core';
import { readTextFile } from '@stackspec/core/node';
import type { ServerHostKeyAlgorithm } from 'ssh2';
import {
  certificateAuthoritiesFor,
  checkHostKey,
  formatKnownHostsLine,
  hostKeyName,
  type KnownHostsEntry,
  knownKeyTypes,
  parseKnownHosts,
  revokedEntry,
  sshFingerprint,
} from '../known-hosts.js';
import { RemoteError } from '../remote.js';
import { hostCertificateProblem, parseSshCertificate } from '../ssh-certificate.js';
import { keyBlobType } from '../ssh-wire.js';
import { probeHostCertificate } from './ssh-certificate-probe.js';
import type { HopPlan, TrustPlan } from './ssh-route.js';

// known_hosts holds a line of a few hundred bytes per host; read with core's bounded reader.
const MAX_KNOWN_HOSTS_BYTES = 64 * 1024 * 1024;

// ssh2's host key algorithms in its default order; the ones for known key types go first.
const HOST_KEY_ALGORITHMS: ServerHostKeyAlgorithm[] = [
  'ssh-ed25519',
  'ecdsa-sha2-nistp256',
  'ecdsa-sha2-nistp384',
  'ecdsa-sha2-nistp521',
  'rsa-sha2-512',
  'rsa-sha2-256',
  'ssh-rsa',
];
const algorithmsFor = (keyType: string): ServerHostKeyAlgorithm[] =>
  keyType === 'ssh-rsa'
    ? ['rsa-sha2-512', 'rsa-sha2-256', 'ssh-rsa']
    : HOST_KEY_ALGORITHMS.filter((a) => a === keyType);

const joinNames = (names: readonly string[], last = 'or') =>
  names.length <= 1 ? (names[0] ?? '') : `${names.slice(0, -1).join(', ')} ${last} ${names.at(-1)}`;

/** The known_hosts entries of a hop, with the files that exist and why others cannot be read. */
function readKnownHosts(trust: Extract<TrustPlan, { kind: 'known-hosts' }>): {
  entries: KnownHostsEntry[];
  shown: string[];
  badLines: Diagnostic[];
} {
  const entries: KnownHostsEntry[] = [];
  const shown: string[] = [];
  const badLines: Diagnostic[] = [];
  for (const file of [...trust.userFiles, ...trust.globalFiles]) {
    const read = readTextFile(file, { maxBytes: MAX_KNOWN_HOSTS_BYTES });
    if (!read.ok) {
      // A missing file simply knows no hosts; one that is there but cannot be read (a FIFO, too
      // large…) knows none either, and a refusal says why.
      if (!read.missing)
        shown.push(`${file}, which cannot be read (${read.reason ?? read.diagnostic.message})`);
      continue;
    }
    shown.push(file);
    const parsed = parseKnownHosts(read.text, file);
    entries.push(...parsed.entries);
    badLines.push(...parsed.diagnostics);
  }
  if (!shown.length)
    shown.push(
      `${trust.userFiles[0] ?? 'no known_hosts file'}${trust.userFiles[0] ? ', which does not exist' : ''}`,
    );
  return { entries, shown, badLines };
}

function hostKeyError(message: string, hint: string, at?: { file: string; line: number }): RemoteError {
  return new RemoteError(message, {
    code: 'image/remote/host-key-rejected',
    diagnostics: [
      createDiagnostic({
        code: 'image/remote/host-key-rejected',
        message,
        hint,
        ...(at ? { file: at.file, line: at.line } : {}),
      }),
    ],
  });
}

/**
 * How a hop's host key will be judged once the server presents it: the
 * verifier for ssh2, the host key algorithms to offer, and what to do after
 * the handshake (append a new key). For a host a `@cert-authority` line
 * speaks about, the certificate is fetched first (see the probe) and, when
 * it is valid, only the key it certifies is accepted.
 */
export async function prepareTrust(
  hop: HopPlan,
  openProbe: () => Promise<Duplex>,
  warn: (d: Diagnostic) => void,
): Promise<{
  verify(key: Buffer): RemoteError | undefined;
  algorithms?: ServerHostKeyAlgorithm[];
  afterHandshake(): void;
  keyChanged(): boolean;
}> {
  const trust = hop.trust;
  const ok = { afterHandshake() {}, keyChanged: () => false };
  if (trust.kind === 'insecure') return { ...ok, verify: () => undefined };
  const name = hostKeyName(hop.host, hop.port);
  if (trust.kind === 'pinned') {
    return {
      ...ok,
      verify: (key) =>
        trust.blobs.some((b) => b.equals(key)) || trust.fingerprints.includes(sshFingerprint(key))
          ? undefined
          : hostKeyError(
              `The host key of ${name} (${sshFingerprint(key)}) is not trusted by the given host keys.`,
              'Give the key the machine really has (its line from /etc/ssh/ssh_host_*_key.pub, or its SHA256 fingerprint).',
            ),
    };
  }
  const { entries, shown, badLines } = readKnownHosts(trust);
  const names = trust.names;
  const lookedUp = names[0] as string;
  let certificateNote = '';
  const authorities = certificateAuthoritiesFor(entries, names);
  if (authorities.length) {
    const probe = await probeHostCertificate(await openProbe(), hop.readyTimeout);
    if (probe.certificate) {
      const cert = parseSshCertificate(probe.certificate);
      const ca = 'error' in cert ? undefined : authorities.find((a) => a.key.equals(cert.caKey));
      const now = BigInt(Math.floor(Date.now() / 1000));
      const problem =
        'error' in cert
          ? cert.error
          : !ca
            ? `it is signed by the CA ${sshFingerprint(cert.caKey)}, which no @cert-authority line trusts for ${lookedUp}`
            : hostCertificateProblem(cert, trust.principal, now);
      const revoked =
        'error' in cert
          ? undefined
          : (revokedEntry(entries, names, cert.caKey) ?? revokedEntry(entries, names, cert.publicKey));
      if (revoked) {
        throw hostKeyError(
          `The host certificate of ${name} is revoked by ${revoked.file}:${revoked.line}.`,
          'A revoked key or CA is never accepted; ask whoever runs the machine for a new certificate.',
          revoked,
        );
      }
      if (!problem && !('error' in cert) && ca) {
        return {
          ...ok,
          algorithms: algorithmsFor(cert.keyType),
          verify: (key) =>
            key.equals(cert.publicKey)
              ? undefined
              : hostKeyError(
                  `The host key of ${name} (${sshFingerprint(key)}) is not the key its certificate certifies (${sshFingerprint(cert.publicKey)}).`,
                  'Someone may be intercepting the connection; do not connect until this is explained.',
                ),
        };
      }
      certificateNote = ` Its host certificate was not accepted: ${problem}.`;
    } else
      certificateNote = ` The @cert-authority line ${authorities[0]?.file}:${authorities[0]?.line} did not apply: ${probe.reason}.`;
  }
  const known = knownKeyTypes(entries, names);
  const algorithms = known.length
    ? [...new Set([...known.flatMap(algorithmsFor), ...HOST_KEY_ALGORITHMS])]
    : undefined;
  let pending: Buffer | undefined;
  let changed = false;
  return {
    ...(algorithms ? { algorithms } : {}),
    keyChanged: () => changed,
    verify(key) {
      const verdict = checkHostKey(entries, names, key);
      const fp = sshFingerprint(key);
      const badNote = badLines.length
        ? ` ${badLines.length} line${badLines.length === 1 ? '' : 's'} of these files could not be used (first ${badLines[0]?.file}:${badLines[0]?.line}).`
        : '';
      if (verdict.status === 'trusted') return undefined;
      if (verdict.status === 'revoked') {
        return hostKeyError(
          `The host key of ${name} (${fp}) is revoked by ${verdict.entry.file}:${verdict.entry.line}.`,
          'A revoked key is never accepted; ask whoever runs the machine which key it should have.',
          verdict.entry,
        );
      }
      if (verdict.status === 'changed') {
        const e = verdict.entry;
        if (trust.strict === 'no') {
          changed = true;
          warn(
            createDiagnostic({
              code: 'image/remote/host-key-changed',
              severity: 'warning',
              message: `The host key of ${name} (${fp}) is not the ${e.keyType} key listed for it in ${e.file}:${e.line}; connecting anyway because StrictHostKeyChecking is no, without sending a password.`,
              file: e.file,
              line: e.line,
            }),
          );
          return undefined;
        }
        return hostKeyError(
          `The host key of ${name} (${fp}) does not match the ${e.keyType} key listed for it in ${e.file}:${e.line}: someone may be intercepting the connection, or the machine was reinstalled. If the change is expected, delete line ${e.line} of ${e.file} and connect again.`,
          `If the change is expected, remove the old key (line ${e.line} of ${e.file}, or ssh-keygen -R '${lookedUp}' -f ${e.file}) and connect again.`,
          e,
        );
      }
      if (trust.strict !== 'yes') {
        pending = key;
        return undefined;
      }
      const others = verdict.others.length
        ? ` ${lineOf(verdict.others)} lists other keys for it (${[...new Set(verdict.others.map((o) => o.keyType))].join(', ')}).`
        : '';
      const userFile = trust.userFiles[0] ?? '~/.ssh/known_hosts';
      return hostKeyError(
        `The host key of ${name} (${fp}) is not trusted by ${joinNames(shown)}.${others}${certificateNote}${badNote} Once its fingerprint is checked, add it to ${userFile}, or let StrictHostKeyChecking accept-new add it.`,
        `Check the fingerprint with whoever runs the machine, then add the key to ${userFile} (ssh-keyscan ${hop.port === 22 ? '' : `-p ${hop.port} `}${hop.host} >> ${userFile}), or set StrictHostKeyChecking accept-new for this host in ~/.ssh/config.`,
      );
    },
    afterHandshake() {
      if (!pending) return;
      const file = trust.userFiles[0];
      const key = pending;
      pending = undefined;
      const what = `${keyBlobType(key) ?? 'unknown'} key ${sshFingerprint(key)} of ${lookedUp}`;
      if (!file) {
        warn(
          createDiagnostic({
            code: 'image/remote/host-key-added',
            severity: 'warning',
            message: `Accepted the new ${what}, but UserKnownHostsFile is none, so it is not remembered.`,
          }),
        );
        return;
      }
      try {
        mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
        appendFileSync(file, `${formatKnownHostsLine(lookedUp, key, { hash: trust.hash })}\n`, {
          mode: 0o600,
        });
        warn(
          createDiagnostic({
            code: 'image/remote/host-key-added',
            severity: 'warning',
            message: `Permanently added the ${what} to ${file}.`,
          }),
        );
      } catch (e) {
        warn(
          createDiagnostic({
            code: 'image/remote/host-key-added',
            severity: 'warning',
            message: `Accepted the new ${what}, but it could not be added to ${file}: ${describeError(e).replace(/\.$/, '')}.`,
            file,
          }),
        );
      }
    },
  };
}

const lineOf = (entries: readonly KnownHostsEntry[]) => {
  const first = entries[0] as KnownHostsEntry;
  return `${first.file}:${first.line}`;
};
