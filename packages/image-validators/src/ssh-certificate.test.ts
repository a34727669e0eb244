import { spawnSync } from 'node:child_process';
import { generateKeyPairSync, type KeyObject, randomBytes, sign } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { serviceAvailable } from '../../../test-support/require.js';
import {
  hostCertificateProblem,
  isCertificateBlob,
  matchWildcard,
  parseSshCertificate,
  type SshCertificate,
  verifyCertificateSignature,
} from './ssh-certificate.js';
import { sshString, sshUint32 } from './ssh-wire.js';

const uint64 = (v: bigint) => {
  const b = Buffer.alloc(8);
  b.writeBigUInt64BE(v);
  return b;
};
const ed25519Blob = (key: KeyObject) =>
  Buffer.concat([
    sshString('ssh-ed25519'),
    sshString(Buffer.from(String(key.export({ format: 'jwk' }).x), 'base64url')),
  ]);

interface CertFields {
  certType?: number;
  principals?: string[];
  validAfter?: bigint;
  validBefore?: bigint;
  critical?: string[];
}

/** An Ed25519 host certificate for a fresh key, signed by `ca` as ssh-keygen -s would sign it. */
function makeCertificate(ca: { publicKey: KeyObject; privateKey: KeyObject }, fields: CertFields = {}) {
  const host = generateKeyPairSync('ed25519');
  const body = Buffer.concat([
    sshString('ssh-ed25519-cert-v01@openssh.com'),
    sshString(randomBytes(32)),
    sshString(Buffer.from(String(host.publicKey.export({ format: 'jwk' }).x), 'base64url')),
    uint64(7n),
    sshUint32(fields.certType ?? 2),
    sshString('test-host'),
    sshString(Buffer.concat((fields.principals ?? ['target.lab', '*.lab.example']).map((p) => sshString(p)))),
    uint64(fields.validAfter ?? 0n),
    uint64(fields.validBefore ?? 2n ** 64n - 1n),
    sshString(
      Buffer.concat((fields.critical ?? []).map((n) => Buffer.concat([sshString(n), sshString('')]))),
    ),
    sshString(''),
    sshString(''),
    sshString(ed25519Blob(ca.publicKey)),
  ]);
  const signature = sign(null, body, ca.privateKey);
  return {
    blob: Buffer.concat([body, sshString(Buffer.concat([sshString('ssh-ed25519'), sshString(signature)]))]),
    hostKey: ed25519Blob(host.publicKey),
  };
}

const parsed = (blob: Uint8Array): SshCertificate => {
  const c = parseSshCertificate(blob);
  if ('error' in c) throw new Error(c.error);
  return c;
};

describe('parseSshCertificate and hostCertificateProblem', () => {
  const ca = generateKeyPairSync('ed25519');
  const now = 1_800_000_000n;

  it('reads a host certificate and the plain key it certifies, and accepts it for a listed principal', () => {
    const { blob, hostKey } = makeCertificate(ca);
    expect(isCertificateBlob(blob)).toBe(true);
    expect(isCertificateBlob(hostKey)).toBe(false);
    const cert = parsed(blob);
    expect(cert).toMatchObject({
      type: 'ssh-ed25519-cert-v01@openssh.com',
      keyType: 'ssh-ed25519',
      serial: 7n,
      certType: 2,
      keyId: 'test-host',
      principals: ['target.lab', '*.lab.example'],
      signatureType: 'ssh-ed25519',
    });
    expect(cert.publicKey.equals(hostKey)).toBe(true);
    expect(cert.caKey.equals(ed25519Blob(ca.publicKey))).toBe(true);
    expect(verifyCertificateSignature(cert)).toBe(true);
    expect(hostCertificateProblem(cert, 'target.lab', now)).toBeUndefined();
    // Principals of host certificates are patterns.
    expect(hostCertificateProblem(cert, 'build.lab.example', now)).toBeUndefined();
  });

  it('says why a certificate is not good for a host', () => {
    const check = (fields: CertFields, host = 'target.lab') =>
      hostCertificateProblem(parsed(makeCertificate(ca, fields).blob), host, now);
    expect(check({}, 'other.lab')).toBe('other.lab is not among its principals (target.lab, *.lab.example)');
    expect(check({}, 'a.lab.example.evil')).toContain('is not among its principals');
    expect(check({ certType: 1 })).toBe('it is not a host certificate');
    expect(check({ validAfter: now + 60n })).toBe('it is not valid yet');
    expect(check({ validBefore: now })).toBe('it has expired');
    expect(check({ principals: [] })).toBe('it lists no principals');
    expect(check({ critical: ['force-command'] })).toBe('it has critical options (force-command)');
  });

  it('refuses a signature that is not the CA’s', () => {
    const { blob } = makeCertificate(ca);
    const cert = parsed(blob);
    const tampered = Buffer.from(cert.signed);
    tampered[tampered.length - 60] = (tampered[tampered.length - 60] as number) ^ 1;
    expect(verifyCertificateSignature({ ...cert, signed: tampered })).toBe('its signature is not the CA’s');
    expect(hostCertificateProblem({ ...cert, signed: tampered }, 'target.lab', now)).toBe(
      'its signature is not the CA’s',
    );
    expect(verifyCertificateSignature({ ...cert, signatureType: 'ssh-rsa' })).toBe(
      'its signature algorithm ssh-rsa is not accepted',
    );
    expect(verifyCertificateSignature({ ...cert, signatureType: 'rsa-sha2-256' })).toBe(
      'its signature (rsa-sha2-256) does not fit its CA key (ssh-ed25519)',
    );
  });

  it('says why a blob is not a certificate it reads', () => {
    const { blob, hostKey } = makeCertificate(ca);
    expect(parseSshCertificate(hostKey)).toEqual({
      error: '"ssh-ed25519" is not a certificate type this client reads',
    });
    expect(parseSshCertificate(Buffer.concat([blob, Buffer.from([0])]))).toEqual({
      error: 'the certificate has data after its signature',
    });
    for (let cut = 0; cut < blob.length; cut += 7) {
      const r = parseSshCertificate(blob.subarray(0, cut));
      expect('error' in r, String(cut)).toBe(true);
    }
  });

  it('reads any bytes to a certificate or a reason, never an exception', () => {
    const { blob } = makeCertificate(ca);
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 600 }), (bytes) => {
        parseSshCertificate(bytes);
      }),
    );
    // Valid certificates with a few bytes changed reach every branch of the reader.
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.nat(blob.length - 1), fc.integer({ min: 0, max: 255 })), { maxLength: 4 }),
        (edits) => {
          const copy = Buffer.from(blob);
          for (const [at, value] of edits) copy[at] = value;
          const r = parseSshCertificate(copy);
          if (!('error' in r)) hostCertificateProblem(r, 'target.lab', now);
        },
      ),
    );
  });

  it('matches wildcard patterns without backtracking blow-ups', () => {
    expect(matchWildcard('*.lab', 'a.b.lab')).toBe(true);
    expect(matchWildcard('a?c', 'abc')).toBe(true);
    expect(matchWildcard('a?c', 'ac')).toBe(false);
    expect(matchWildcard('A*', 'abc')).toBe(true);
    expect(matchWildcard('A*', 'abc', false)).toBe(false);
    expect(matchWildcard(`${'*a'.repeat(30)}b`, 'a'.repeat(200))).toBe(false);
  });
});

describe.runIf(
  serviceAvailable(
    'ssh-keygen',
    spawnSync('ssh-keygen', ['-?']).error
      ? { ok: false, reason: 'ssh-keygen is not installed' }
      : { ok: true },
  ),
)('certificates made by ssh-keygen -s', () => {
  const dir = mkdtempSync(join(tmpdir(), 'siv-cert-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const keygen = (name: string, ...type: string[]) => {
    const path = join(dir, name);
    const r = spawnSync('ssh-keygen', ['-q', '-N', '', '-f', path, ...type]);
    expect(r.status, String(r.stderr)).toBe(0);
    return path;
  };
  const blobOf = (file: string) =>
    Buffer.from(readFileSync(file, 'utf8').split(/\s+/)[1] as string, 'base64');

  it.each([
    ['ed25519', ['-t', 'ed25519']],
    ['ECDSA P-384', ['-t', 'ecdsa', '-b', '384']],
    ['RSA (rsa-sha2-512)', ['-t', 'rsa', '-b', '2048']],
  ])('verifies a host certificate signed by an %s CA', (_name, type) => {
    const ca = keygen(`ca-${type.join('')}`, ...type);
    const host = keygen(`host-${type.join('')}`, '-t', 'ecdsa');
    const r = spawnSync('ssh-keygen', [
      '-q',
      '-s',
      ca,
      '-I',
      'h',
      '-h',
      '-n',
      'target.lab,10.0.0.*',
      '-V',
      '-5m:+1h',
      `${host}.pub`,
    ]);
    expect(r.status, String(r.stderr)).toBe(0);
    const cert = parsed(blobOf(`${host}-cert.pub`));
    expect(cert.keyType).toBe('ecdsa-sha2-nistp256');
    expect(cert.publicKey.equals(blobOf(`${host}.pub`))).toBe(true);
    expect(cert.caKey.equals(blobOf(`${ca}.pub`))).toBe(true);
    const now = BigInt(Math.floor(Date.now() / 1000));
    expect(hostCertificateProblem(cert, '10.0.0.7', now)).toBeUndefined();
    expect(hostCertificateProblem(cert, 'other.lab', now)).toContain('is not among its principals');
  });

  it('refuses a certificate signed with ssh-rsa (SHA-1), as OpenSSH does by default', () => {
    const ca = keygen('ca-sha1', '-t', 'rsa', '-b', '2048');
    const host = keygen('host-sha1', '-t', 'ed25519');
    const r = spawnSync('ssh-keygen', [
      '-q',
      '-s',
      ca,
      '-t',
      'ssh-rsa',
      '-I',
      'h',
      '-h',
      '-n',
      'x',
      `${host}.pub`,
    ]);
    expect(r.status, String(r.stderr)).toBe(0);
    expect(verifyCertificateSignature(parsed(blobOf(`${host}-cert.pub`)))).toBe(
      'its signature algorithm ssh-rsa is not accepted',
    );
  });
});
