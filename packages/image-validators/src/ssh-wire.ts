// The SSH wire encoding (RFC 4251 §5): big-endian integers and length-prefixed
// strings. Host keys, certificates and the packets of the certificate probe
// are all built from these; every read is bounds-checked, so hostile bytes end
// in `undefined`, never in an exception or a read past the end.

/** Reads SSH wire values from a buffer; each read returns `undefined` once the data runs out. */
export class SshReader {
  private offset = 0;

  constructor(private readonly data: Uint8Array) {}

  /** Bytes not read yet. */
  get remaining(): number {
    return this.data.length - this.offset;
  }

  /** Where the next read starts. */
  get position(): number {
    return this.offset;
  }

  byte(): number | undefined {
    if (this.remaining < 1) return undefined;
    return this.data[this.offset++];
  }

  uint32(): number | undefined {
    if (this.remaining < 4) return undefined;
    const d = this.data;
    const o = this.offset;
    this.offset += 4;
    return (
      (d[o] as number) * 2 ** 24 +
      ((d[o + 1] as number) << 16) +
      ((d[o + 2] as number) << 8) +
      (d[o + 3] as number)
    );
  }

  uint64(): bigint | undefined {
    const high = this.uint32();
    const low = this.uint32();
    if (high === undefined || low === undefined) return undefined;
    return (BigInt(high) << 32n) | BigInt(low);
  }

  /** A length-prefixed string as bytes. */
  bytes(): Buffer | undefined {
    const length = this.uint32();
    if (length === undefined || length > this.remaining) return undefined;
    const out = Buffer.from(this.data.subarray(this.offset, this.offset + length));
    this.offset += length;
    return out;
  }

  /** A length-prefixed string as text (SSH names are ASCII; other bytes become U+FFFD). */
  text(): string | undefined {
    return this.bytes()?.toString('utf8');
  }

  /** A comma-separated name-list. */
  nameList(): string[] | undefined {
    const t = this.text();
    if (t === undefined) return undefined;
    return t === '' ? [] : t.split(',');
  }
}

/** Encodes a length-prefixed string. */
export function sshString(value: string | Uint8Array): Buffer {
  const body = typeof value === 'string' ? Buffer.from(value, 'utf8') : Buffer.from(value);
  const head = Buffer.alloc(4);
  head.writeUInt32BE(body.length);
  return Buffer.concat([head, body]);
}

/** Encodes a uint32. */
export function sshUint32(value: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(value);
  return b;
}

/** Encodes a non-negative big-endian integer as an mpint (a leading zero keeps the sign bit clear). */
export function sshMpint(magnitude: Uint8Array): Buffer {
  let start = 0;
  while (start < magnitude.length && magnitude[start] === 0) start += 1;
  const trimmed = Buffer.from(magnitude.subarray(start));
  const body =
    trimmed.length && (trimmed[0] as number) & 0x80 ? Buffer.concat([Buffer.from([0]), trimmed]) : trimmed;
  return sshString(body);
}

/** The algorithm name a public key or certificate blob starts with, if it reads as one. */
export function keyBlobType(blob: Uint8Array): string | undefined {
  const name = new SshReader(blob).text();
  // Names are short printable ASCII; anything else is not a key blob.
  return name !== undefined && /^[\x21-\x7e]{1,64}$/.test(name) ? name : undefined;
}
