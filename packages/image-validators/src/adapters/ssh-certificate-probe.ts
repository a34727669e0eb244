// Asks an SSH server for its host certificate. ssh2 (1.17) cannot negotiate
// the certificate host key algorithms (`*-cert-v01@openssh.com`): its
// algorithm lists refuse them, and its key exchange could not check a
// signature made by a certified key. So a client that trusts a CA learns the
// server's certificate here, on a connection of its own: the probe speaks the
// key exchange only up to the server's reply (RFC 4253 §7-8), which carries
// the host key, here the certificate, in the clear, and then hangs up.
//
// Trust still rests on the real session: the certificate is public data, so
// anyone can replay it; the SSH adapter then requires ssh2's session to be
// authenticated by the very key the certificate certifies (ssh2 verifies the
// server's signature with it), which only the holder of that private key can
// produce.

import { createECDH, generateKeyPairSync, getDiffieHellman, randomBytes } from 'node:crypto';
import type { Duplex } from 'node:stream';
import { HOST_CERTIFICATE_ALGORITHMS } from '../ssh-certificate.js';
import { SshReader, sshMpint, sshString, sshUint32 } from '../ssh-wire.js';

const MSG_DISCONNECT = 1;
const MSG_IGNORE = 2;
const MSG_UNIMPLEMENTED = 3;
const MSG_DEBUG = 4;
const MSG_KEXINIT = 20;
const MSG_KEX_INIT = 30;
const MSG_KEX_REPLY = 31;

/** Key exchanges the probe offers: each needs only an ephemeral public value from us. */
export const PROBE_KEX: readonly string[] = [
  'curve25519-sha256',
  'curve25519-sha256@libssh.org',
  'ecdh-sha2-nistp256',
  'ecdh-sha2-nistp384',
  'ecdh-sha2-nistp521',
  'diffie-hellman-group14-sha256',
  'diffie-hellman-group16-sha512',
  'diffie-hellman-group18-sha512',
];

const CIPHERS =
  'chacha20-poly1305@openssh.com,aes128-ctr,aes192-ctr,aes256-ctr,aes128-gcm@openssh.com,aes256-gcm@openssh.com';
const MACS =
  'hmac-sha2-256-etm@openssh.com,hmac-sha2-512-etm@openssh.com,hmac-sha2-256,hmac-sha2-512,hmac-sha1';

// RFC 4253 §6.1 asks for packets of 35000 bytes; OpenSSH allows 256 KiB, and so do we.
const MAX_PACKET = 256 * 1024;
// Lines a server may send before its version (RFC 4253 §4.2), in bytes.
const MAX_BANNER = 64 * 1024;

/** Frames a payload as an unencrypted SSH packet (block size 8, at least 4 bytes of padding). */
export function framePacket(payload: Uint8Array, padding: Uint8Array = randomBytes(16)): Buffer {
  let pad = 8 - ((5 + payload.length) % 8);
  if (pad < 4) pad += 8;
  return Buffer.concat([
    sshUint32(1 + payload.length + pad),
    Buffer.from([pad]),
    payload,
    padding.subarray(0, pad),
  ]);
}

/** The probe's KEXINIT payload: our key exchanges, and only certificate host key algorithms. */
export function probeKexInit(hostKeyAlgorithms: readonly string[] = HOST_CERTIFICATE_ALGORITHMS): Buffer {
  return Buffer.concat([
    Buffer.from([MSG_KEXINIT]),
    randomBytes(16),
    sshString(PROBE_KEX.join(',')),
    sshString(hostKeyAlgorithms.join(',')),
    sshString(CIPHERS),
    sshString(CIPHERS),
    sshString(MACS),
    sshString(MACS),
    sshString('none,zlib@openssh.com'),
    sshString('none,zlib@openssh.com'),
    sshString(''),
    sshString(''),
    Buffer.from([0]),
    sshUint32(0),
  ]);
}

/** The name lists of a KEXINIT payload that matter here, or `undefined` when it is malformed. */
export function parseKexInit(payload: Uint8Array): { kex: string[]; hostKey: string[] } | undefined {
  const r = new SshReader(payload);
  if (r.byte() !== MSG_KEXINIT || r.remaining < 16) return undefined;
  for (let i = 0; i < 16; i += 1) r.byte();
  const kex = r.nameList();
  const hostKey = r.nameList();
  return kex && hostKey ? { kex, hostKey } : undefined;
}

/** Our ephemeral public value for a key exchange, as the KEX init message carries it. */
function kexInitMessage(kex: string): Buffer {
  let value: Buffer;
  if (kex.startsWith('curve25519-')) {
    const jwk = generateKeyPairSync('x25519').publicKey.export({ format: 'jwk' });
    value = sshString(Buffer.from(String(jwk.x), 'base64url'));
  } else if (kex.startsWith('ecdh-sha2-')) {
    const curve = { nistp256: 'prime256v1', nistp384: 'secp384r1', nistp521: 'secp521r1' }[kex.slice(10)];
    const ecdh = createECDH(curve ?? 'prime256v1');
    value = sshString(ecdh.generateKeys());
  } else {
    const group = { 'diffie-hellman-group14-sha256': 'modp14', 'diffie-hellman-group16-sha512': 'modp16' }[
      kex
    ];
    const dh = getDiffieHellman(group ?? 'modp18');
    value = sshMpint(dh.generateKeys());
  }
  return Buffer.concat([Buffer.from([MSG_KEX_INIT]), value]);
}

/** What the probe learnt: the certificate blob, or why there is none. */
export type HostCertificateProbe = { certificate: Buffer } | { certificate?: undefined; reason: string };

/**
 * Reads the host certificate a server presents, over `stream` (a TCP
 * socket, or a channel forwarded through a jump host), and closes the
 * stream. Resolves with the reason when the server offers no certificate
 * algorithm, closes early, sends something malformed or takes longer than
 * `timeoutMs`; never rejects. The certificate is not checked here.
 */
export function probeHostCertificate(stream: Duplex, timeoutMs: number): Promise<HostCertificateProbe> {
  return new Promise((resolve) => {
    let buffer = Buffer.alloc(0);
    let versionSeen = false;
    let done = false;
    const finish = (result: HostCertificateProbe) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      stream.removeAllListeners('data');
      stream.on('error', () => {});
      stream.destroy();
      resolve(result);
    };
    const timer = setTimeout(
      () => finish({ reason: `the server did not answer the certificate probe within ${timeoutMs} ms` }),
      timeoutMs,
    );
    const onPacket = (payload: Buffer) => {
      const type = payload[0];
      if (type === MSG_IGNORE || type === MSG_DEBUG || type === MSG_UNIMPLEMENTED) return;
      if (type === MSG_DISCONNECT) {
        const r = new SshReader(payload.subarray(1));
        r.uint32();
        return finish({
          reason: `the server ended the certificate probe (${(r.text() ?? '').slice(0, 200)})`,
        });
      }
      if (type === MSG_KEXINIT) {
        const theirs = parseKexInit(payload);
        if (!theirs) return finish({ reason: 'the server sent a malformed KEXINIT' });
        const hostKey = HOST_CERTIFICATE_ALGORITHMS.find((a) => theirs.hostKey.includes(a));
        if (!hostKey) return finish({ reason: 'the server presents no host certificate' });
        const kex = PROBE_KEX.find((k) => theirs.kex.includes(k));
        if (!kex) return finish({ reason: 'the server offers no key exchange the certificate probe knows' });
        stream.write(framePacket(kexInitMessage(kex)));
        return;
      }
      if (type === MSG_KEX_REPLY) {
        const certificate = new SshReader(payload.subarray(1)).bytes();
        return finish(
          certificate ? { certificate } : { reason: 'the server sent a malformed key exchange reply' },
        );
      }
      finish({ reason: `the server sent message ${type} during the key exchange` });
    };
    stream.on('data', (chunk: Buffer) => {
      if (done) return;
      buffer = Buffer.concat([buffer, chunk]);
      while (!versionSeen) {
        const eol = buffer.indexOf(10);
        if (eol < 0) {
          if (buffer.length > MAX_BANNER) finish({ reason: 'the server sent no SSH version line' });
          return;
        }
        const line = buffer.subarray(0, eol).toString('latin1').replace(/\r$/, '');
        buffer = buffer.subarray(eol + 1);
        if (line.startsWith('SSH-')) {
          if (!/^SSH-(2\.0|1\.99)-/.test(line))
            return finish({ reason: `the server speaks ${line.slice(0, 40)}` });
          versionSeen = true;
        }
      }
      while (buffer.length >= 5 && !done) {
        const length = buffer.readUInt32BE(0);
        const pad = buffer[4] as number;
        if (length > MAX_PACKET || length < pad + 1)
          return finish({ reason: 'the server sent a malformed packet' });
        if (buffer.length < 4 + length) return;
        const payload = buffer.subarray(5, 4 + length - pad);
        buffer = buffer.subarray(4 + length);
        onPacket(Buffer.from(payload));
      }
    });
    stream.on('error', (e: Error) => finish({ reason: `the certificate probe failed: ${e.message}` }));
    stream.on('close', () =>
      finish({ reason: 'the server closed the connection during the certificate probe' }),
    );
    stream.on('end', () =>
      finish({ reason: 'the server closed the connection during the certificate probe' }),
    );
    stream.write(Buffer.from('SSH-2.0-stackspec_certificate_probe\r\n'));
    stream.write(framePacket(probeKexInit()));
  });
}
