// A minimal ustar writer: enough to send several files to a machine in one
// round trip (`tar -x` reads them from standard input).

import { concatBytes } from '@stackspec/core';

const BLOCK = 512;

function octal(value: number, width: number): string {
  return `${value.toString(8).padStart(width - 1, '0')}\u0000`;
}

function splitName(path: string): { name: string; prefix: string } | undefined {
  const bytes = new TextEncoder().encode(path);
  if (bytes.length <= 100) return { name: path, prefix: '' };
  // ustar keeps long paths as prefix (≤155 bytes) + '/' + name (≤100 bytes).
  for (let i = path.indexOf('/'); i > 0; i = path.indexOf('/', i + 1)) {
    const prefix = path.slice(0, i);
    const name = path.slice(i + 1);
    if (new TextEncoder().encode(prefix).length <= 155 && new TextEncoder().encode(name).length <= 100) {
      return { name, prefix };
    }
  }
  return undefined;
}

function header(path: string, size: number, mode: number, mtime: number): Uint8Array {
  const split = splitName(path);
  if (!split) throw new RangeError(`The path '${path}' is too long for a tar header.`);
  const h = new Uint8Array(BLOCK);
  const put = (offset: number, text: string) => h.set(new TextEncoder().encode(text), offset);
  put(0, split.name);
  put(100, octal(mode & 0o7777, 8));
  put(108, octal(0, 8));
  put(116, octal(0, 8));
  put(124, octal(size, 12));
  put(136, octal(mtime, 12));
  put(148, '        ');
  put(156, '0');
  put(257, 'ustar\u0000');
  put(263, '00');
  put(265, 'root');
  put(297, 'root');
  put(345, split.prefix);
  let sum = 0;
  for (const b of h) sum += b;
  put(148, `${sum.toString(8).padStart(6, '0')}\u0000 `);
  return h;
}

/** One file for {@link tarArchive}: a relative path inside the archive and its content. */
export interface TarEntry {
  path: string;
  content: string | Uint8Array;
  /** Permission bits; default 0o644. */
  mode?: number;
}

/**
 * Builds an uncompressed POSIX ustar archive of regular files, owned by root.
 * Throws `RangeError` for a path ustar cannot hold or an absolute/`..` path.
 */
export function tarArchive(entries: readonly TarEntry[], mtime = Math.floor(Date.now() / 1000)): Uint8Array {
  const parts: Uint8Array[] = [];
  for (const e of entries) {
    if (e.path.startsWith('/') || e.path.split('/').includes('..')) {
      throw new RangeError(`The tar path '${e.path}' must be relative and stay inside the archive.`);
    }
    const data = typeof e.content === 'string' ? new TextEncoder().encode(e.content) : e.content;
    parts.push(header(e.path, data.length, e.mode ?? 0o644, mtime));
    parts.push(data);
    const pad = (BLOCK - (data.length % BLOCK)) % BLOCK;
    if (pad) parts.push(new Uint8Array(pad));
  }
  parts.push(new Uint8Array(BLOCK * 2));
  return concatBytes(parts);
}

/** Reads the regular files of a ustar archive (as {@link tarArchive} writes them). */
export function readTarArchive(archive: Uint8Array): { path: string; content: Uint8Array }[] {
  const out: { path: string; content: Uint8Array }[] = [];
  const text = (from: number, length: number) => {
    const slice = archive.subarray(from, from + length);
    const end = slice.indexOf(0);
    return new TextDecoder().decode(end < 0 ? slice : slice.subarray(0, end));
  };
  let offset = 0;
  while (offset + BLOCK <= archive.length) {
    if (archive.subarray(offset, offset + BLOCK).every((b) => b === 0)) break;
    const name = text(offset, 100);
    const prefix = text(offset + 345, 155);
    const size = Number.parseInt(text(offset + 124, 12).trim() || '0', 8);
    const type = text(offset + 156, 1);
    if (!Number.isFinite(size) || size < 0) throw new RangeError('The tar archive has a bad size field.');
    const start = offset + BLOCK;
    if (type === '0' || type === '') {
      out.push({ path: prefix ? `${prefix}/${name}` : name, content: archive.slice(start, start + size) });
    }
    offset = start + Math.ceil(size / BLOCK) * BLOCK;
  }
  return out;
}
