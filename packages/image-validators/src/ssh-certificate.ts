// OpenSSH certificates (the format of OpenSSH's PROTOCOL.certkeys): reading
// one, checking the CA's signature over it, and the rules a host certificate
// must meet before a client trusts it. Pure: bytes and a clock reading in,
// a verdict out; the signature check uses node:crypto, which does no I/O.

import { createPublicKey, type KeyObject, verify } from 'node:crypto';
import { keyBlobType, SshReader, sshString } from './ssh-wire.js';

/** What an OpenSSH certificate says, with the bytes its signature covers. */
export interface SshCertificate {
  /** The certificate's own type, such as `ssh-ed25519-cert-v01@openssh.com`. */
  type: string;
  /** The certified key's type, such as `ssh-ed25519`. */
  keyType: string;
  /** The certified key as a plain public key blob (what a server presents without its certificate). */
  publicKey: Buffer;
  serial: bigint;
  /** 1 for a user certificate, 2 for a host certificate. */
  certType: number;
  keyId: string;
  /** Names the certificate is valid for; for a host certificate, host name patterns. */
  principals: string[];
  /** Seconds since the epoch. */
  validAfter: bigint;
  /** Seconds since the epoch; 2^64-1 means forever. */
  validBefore: bigint;
  /** Names of the critical options (a host certificate must have none). */
  criticalOptions: string[];
  /** The CA's public key blob. */
  caKey: Buffer;
  /** The algorithm of the CA's signature, such as `ssh-ed25519` or `rsa-sha2-512`. */
  signatureType: string;
  /** The signature proper, without its algorithm name. */
  signature: Buffer;
  /** The bytes the signature covers: the whole certificate up to the signature. */
  signed: Buffer;
}

/** Certificate types this module reads, with the plain key type each certifies. */
const CERT_KEY_TYPES: Record<string, string> = {
  'ssh-ed25519-cert-v01@openssh.com': 'ssh-ed25519',
  'ecdsa-sha2-nistp256-cert-v01@openssh.com': 'ecdsa-sha2-nistp256',
  'ecdsa-sha2-nistp384-cert-v01@openssh.com': 'ecdsa-sha2-nistp384',
  'ecdsa-sha2-nistp521-cert-v01@openssh.com': 'ecdsa-sha2-nistp521',
  'ssh-rsa-cert-v01@openssh.com': 'ssh-rsa',
};

/** Host key algorithms that present a certificate, in OpenSSH's order of preference. */
export const HOST_CERTIFICATE_ALGORITHMS: readonly string[] = [
  'ssh-ed25519-cert-v01@openssh.com',
  'ecdsa-sha2-nistp256-cert-v01@openssh.com',
  'ecdsa-sha2-nistp384-cert-v01@openssh.com',
  'ecdsa-sha2-nistp521-cert-v01@openssh.com',
  'rsa-sha2-512-cert-v01@openssh.com',
  'rsa-sha2-256-cert-v01@openssh.com',
];

/** Whether a key blob is a certificate (by its type name). */
export function isCertificateBlob(blob: Uint8Array): boolean {
  return keyBlobType(blob)?.endsWith('-cert-v01@openssh.com') ?? false;
}

// The key fields that follow the nonce, as string-encoded values, per certified key type.
function readKeyFields(r: SshReader, keyType: string): Buffer[] | undefined {
  const count = keyType === 'ssh-ed25519' ? 1 : 2;
  const fields: Buffer[] = [];
  for (let i = 0; i < count; i += 1) {
    const f = r.bytes();
    if (!f) return undefined;
    fields.push(f);
  }
  return fields;
}

/**
 * Reads an OpenSSH certificate blob (the bytes after base64 decoding, as a
 * server sends them in the key exchange). Returns the reason as a phrase
 * when the blob is not a certificate this module reads (a DSA or security
 * key certificate, truncated or trailing data); never throws.
 */
export function parseSshCertificate(blob: Uint8Array): SshCertificate | { error: string } {
  const r = new SshReader(blob);
  const type = r.text();
  if (type === undefined) return { error: 'it is not an SSH key blob' };
  const keyType = CERT_KEY_TYPES[type];
  if (!keyType)
    return { error: `${JSON.stringify(type.slice(0, 80))} is not a certificate type this client reads` };
  const nonce = r.bytes();
  const fields = nonce ? readKeyFields(r, keyType) : undefined;
  const serial = r.uint64();
  const certType = r.uint32();
  const keyId = r.text();
  const principalBytes = r.bytes();
  const validAfter = r.uint64();
  const validBefore = r.uint64();
  const critical = r.bytes();
  const extensions = r.bytes();
  const reserved = r.bytes();
  const caKey = r.bytes();
  const signedEnd = r.position;
  const signatureBlob = r.bytes();
  if (
    !fields ||
    serial === undefined ||
    certType === undefined ||
    keyId === undefined ||
    !principalBytes ||
    validAfter === undefined ||
    validBefore === undefined ||
    !critical ||
    !extensions ||
    !reserved ||
    !caKey ||
    !signatureBlob
  ) {
    return { error: 'the certificate is truncated' };
  }
  if (r.remaining !== 0) return { error: 'the certificate has data after its signature' };
  const principals = readStrings(principalBytes);
  const criticalOptions = readOptionNames(critical);
  const sig = new SshReader(signatureBlob);
  const signatureType = sig.text();
  const signature = sig.bytes();
  if (!principals || !criticalOptions || signatureType === undefined || !signature) {
    return { error: 'the certificate is malformed' };
  }
  if (fields.length === 2 && keyType.startsWith('ecdsa-') && fields[0]?.toString() !== keyType.slice(11)) {
    return { error: 'the curve of the certified key does not match its type' };
  }
  return {
    type,
    keyType,
    publicKey: Buffer.concat([sshString(keyType), ...fields.map(sshString)]),
    serial,
    certType,
    keyId,
    principals,
    validAfter,
    validBefore,
    criticalOptions,
    caKey,
    signatureType,
    signature,
    signed: Buffer.from(blob.subarray(0, signedEnd)),
  };
}

function readStrings(data: Buffer): string[] | undefined {
  const r = new SshReader(data);
  const out: string[] = [];
  while (r.remaining > 0) {
    const s = r.text();
    if (s === undefined) return undefined;
    out.push(s);
  }
  return out;
}

// Options are pairs of (name, data); only the names matter here.
function readOptionNames(data: Buffer): string[] | undefined {
  const r = new SshReader(data);
  const out: string[] = [];
  while (r.remaining > 0) {
    const name = r.text();
    if (name === undefined || r.bytes() === undefined) return undefined;
    out.push(name);
  }
  return out;
}

const CURVES: Record<string, { crv: string; size: number; hash: string }> = {
  nistp256: { crv: 'P-256', size: 32, hash: 'sha256' },
  nistp384: { crv: 'P-384', size: 48, hash: 'sha384' },
  nistp521: { crv: 'P-521', size: 66, hash: 'sha512' },
};

const b64url = (b: Uint8Array) => Buffer.from(b).toString('base64url');
const unsigned = (b: Buffer) => {
  let i = 0;
  while (i < b.length - 1 && b[i] === 0) i += 1;
  return b.subarray(i);
};

/** A node:crypto public key for an SSH public key blob (Ed25519, ECDSA or RSA), or the reason it is not one. */
export function publicKeyFromBlob(
  blob: Uint8Array,
): { key: KeyObject; type: string; curve?: string } | { error: string } {
  const r = new SshReader(blob);
  const type = r.text();
  try {
    if (type === 'ssh-ed25519') {
      const pk = r.bytes();
      if (pk?.length !== 32 || r.remaining) return { error: 'the Ed25519 key is malformed' };
      return {
        type,
        key: createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: b64url(pk) }, format: 'jwk' }),
      };
    }
    if (type?.startsWith('ecdsa-sha2-')) {
      const curveName = r.text();
      const point = r.bytes();
      const curve = curveName ? CURVES[curveName] : undefined;
      if (!curve || !point || r.remaining || type !== `ecdsa-sha2-${curveName}`) {
        return { error: 'the ECDSA key is malformed' };
      }
      if (point[0] !== 4 || point.length !== 1 + 2 * curve.size)
        return { error: 'the ECDSA point is not uncompressed' };
      const x = point.subarray(1, 1 + curve.size);
      const y = point.subarray(1 + curve.size);
      return {
        type,
        curve: curveName as string,
        key: createPublicKey({
          key: { kty: 'EC', crv: curve.crv, x: b64url(x), y: b64url(y) },
          format: 'jwk',
        }),
      };
    }
    if (type === 'ssh-rsa') {
      const e = r.bytes();
      const n = r.bytes();
      if (!e || !n || r.remaining) return { error: 'the RSA key is malformed' };
      return {
        type,
        key: createPublicKey({
          key: { kty: 'RSA', e: b64url(unsigned(e)), n: b64url(unsigned(n)) },
          format: 'jwk',
        }),
      };
    }
  } catch (e) {
    return { error: `the key cannot be used (${e instanceof Error ? e.message : String(e)})` };
  }
  return { error: `${JSON.stringify(String(type).slice(0, 80))} is not a key type this client verifies` };
}

// CA signature algorithms accepted, as OpenSSH's default CASignatureAlgorithms: not `ssh-rsa`
// (RSA with SHA-1), whose collisions are practical.
const CA_SIGNATURE_HASHES: Record<string, { keyType: string; hash: string | null }> = {
  'ssh-ed25519': { keyType: 'ssh-ed25519', hash: null },
  'ecdsa-sha2-nistp256': { keyType: 'ecdsa-sha2-nistp256', hash: 'sha256' },
  'ecdsa-sha2-nistp384': { keyType: 'ecdsa-sha2-nistp384', hash: 'sha384' },
  'ecdsa-sha2-nistp521': { keyType: 'ecdsa-sha2-nistp521', hash: 'sha512' },
  'rsa-sha2-512': { keyType: 'ssh-rsa', hash: 'sha512' },
  'rsa-sha2-256': { keyType: 'ssh-rsa', hash: 'sha256' },
};

/**
 * Whether the certificate's signature is the CA's (`caKey` in the
 * certificate) over its contents; the reason as a phrase when not. A
 * signature made with `ssh-rsa` (SHA-1) is refused, as OpenSSH does by
 * default.
 */
export function verifyCertificateSignature(cert: SshCertificate): true | string {
  const algorithm = CA_SIGNATURE_HASHES[cert.signatureType];
  if (!algorithm) return `its signature algorithm ${cert.signatureType} is not accepted`;
  const ca = publicKeyFromBlob(cert.caKey);
  if ('error' in ca) return `its CA key cannot be used: ${ca.error}`;
  if (ca.type !== algorithm.keyType)
    return `its signature (${cert.signatureType}) does not fit its CA key (${ca.type})`;
  let signature: Buffer = cert.signature;
  if (ca.curve) {
    // ECDSA signatures are two mpints; node wants them as fixed-size r ‖ s.
    const size = CURVES[ca.curve]?.size ?? 0;
    const r = new SshReader(cert.signature);
    const parts = [r.bytes(), r.bytes()];
    if (parts.some((p) => !p || unsigned(p).length > size) || r.remaining)
      return 'its signature is malformed';
    signature = Buffer.concat(
      parts.map((p) => {
        const v = unsigned(p as Buffer);
        return Buffer.concat([Buffer.alloc(size - v.length), v]);
      }),
    );
  }
  try {
    const ok = verify(algorithm.hash, cert.signed, { key: ca.key, dsaEncoding: 'ieee-p1363' }, signature);
    return ok ? true : 'its signature is not the CA’s';
  } catch {
    return 'its signature is malformed';
  }
}

/**
 * Whether `text` matches a wildcard pattern (`*` any run, `?` one
 * character), case-insensitively unless told otherwise, as OpenSSH matches
 * host names. Worst case O(pattern × text), never exponential.
 */
export function matchWildcard(pattern: string, text: string, ignoreCase = true): boolean {
  // Iterative, with one backtrack point: a `*` only ever resumes from the latest one.
  const p = ignoreCase ? pattern.toLowerCase() : pattern;
  const t = ignoreCase ? text.toLowerCase() : text;
  let pi = 0;
  let ti = 0;
  let star = -1;
  let mark = 0;
  while (ti < t.length) {
    if (pi < p.length && (p[pi] === '?' || p[pi] === t[ti])) {
      pi += 1;
      ti += 1;
    } else if (pi < p.length && p[pi] === '*') {
      star = pi;
      mark = ti;
      pi += 1;
    } else if (star >= 0) {
      pi = star + 1;
      mark += 1;
      ti = mark;
    } else return false;
  }
  while (pi < p.length && p[pi] === '*') pi += 1;
  return pi === p.length;
}

/**
 * Why a host certificate may not be trusted for `host` at `now` (seconds),
 * or `undefined` when it may, by OpenSSH's rules: a host certificate, valid
 * now, listing principals of which one (a wildcard pattern) matches the
 * host name, with no critical options, signed by its CA. Which CA is
 * trusted for which host is the known_hosts file's business, not this one's.
 */
export function hostCertificateProblem(cert: SshCertificate, host: string, now: bigint): string | undefined {
  if (cert.certType !== 2) return 'it is not a host certificate';
  if (now < cert.validAfter) return 'it is not valid yet';
  if (now >= cert.validBefore) return 'it has expired';
  if (cert.principals.length === 0) return 'it lists no principals';
  if (!cert.principals.some((p) => matchWildcard(p, host))) {
    const shown = cert.principals.slice(0, 5).join(', ');
    return `${host} is not among its principals (${shown}${cert.principals.length > 5 ? ', …' : ''})`;
  }
  if (cert.criticalOptions.length) return `it has critical options (${cert.criticalOptions.join(', ')})`;
  const signed = verifyCertificateSignature(cert);
  return signed === true ? undefined : signed;
}
