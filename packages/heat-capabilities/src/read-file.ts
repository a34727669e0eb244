import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from 'node:fs';
import { createDiagnostic, type Diagnostic } from '@stackspec/core';
import { MAX_SCAN_CHARS, tooLargeDiagnostic, unreadableDiagnostic } from './scan.js';

/** Outcome of {@link readTextFile}: the text, or why it was not read (`missing` when nothing is there). */
export type ReadTextResult =
  | { ok: true; text: string }
  | { ok: false; diagnostic: Diagnostic; missing?: boolean };

// One buffer serves every read (the reads are synchronous, so calls never
// overlap): most template files fit in it, and no Buffer is allocated per file.
const SMALL = 64 * 1024;
let shared = Buffer.allocUnsafe(SMALL);

/**
 * Reads a UTF-8 file from disk with a size bound, for a tree of files a
 * user points at. The file is opened without blocking and at most
 * `maxBytes + 1` bytes (default {@link MAX_SCAN_CHARS}) are read: a longer
 * file is reported as `heat/find/too-large` without reading the rest, and a
 * FIFO, socket, device or directory (whose read could wait forever, or
 * fails) as `heat/find/unreadable`. Never throws.
 */
export function readTextFile(path: string, shown: string, maxBytes = MAX_SCAN_CHARS): ReadTextResult {
  let fd: number;
  try {
    // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer.
    fd = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  } catch (e) {
    const missing = (e as { code?: string } | null)?.code === 'ENOENT';
    return { ok: false, diagnostic: unreadableDiagnostic(shown, e), ...(missing ? { missing } : {}) };
  }
  try {
    const cap = maxBytes + 1;
    let length = 0;
    for (;;) {
      const room = Math.min(shared.length, cap) - length;
      if (room === 0) {
        if (length >= cap) {
          return { ok: false, diagnostic: tooLargeDiagnostic(shown, fstatSync(fd).size, maxBytes, 'bytes') };
        }
        const bigger = Buffer.allocUnsafe(Math.min(shared.length * 4, cap));
        shared.copy(bigger, 0, 0, length);
        shared = bigger;
        continue;
      }
      const n = readSync(fd, shared, length, room, null);
      if (n === 0) break;
      length += n;
    }
    // A FIFO without a writer reads as empty: only then is it worth asking what the path is.
    const special = length === 0 ? notRegular(fd, shown) : undefined;
    if (special) return { ok: false, diagnostic: special };
    return { ok: true, text: shared.toString('utf8', 0, length) };
  } catch (e) {
    // A directory fails with EISDIR, a FIFO whose writer has written nothing with EAGAIN.
    return { ok: false, diagnostic: notRegular(fd, shown) ?? unreadableDiagnostic(shown, e) };
  } finally {
    closeSync(fd);
    // Do not keep a buffer grown for one large file.
    if (shared.length > 16 * SMALL) shared = Buffer.allocUnsafe(SMALL);
  }
}

/** `heat/find/unreadable` when the open file is not a regular file, else `undefined`. */
function notRegular(fd: number, shown: string): Diagnostic | undefined {
  let stat: Stats;
  try {
    stat = fstatSync(fd);
  } catch {
    return undefined;
  }
  if (stat.isFile()) return undefined;
  return createDiagnostic({
    code: 'heat/find/unreadable',
    severity: 'warning',
    message: `The file cannot be read: it is ${kindOf(stat)}, not a regular file.`,
    file: shown,
  });
}

function kindOf(stat: Stats): string {
  if (stat.isDirectory()) return 'a directory';
  if (stat.isFIFO()) return 'a named pipe (FIFO)';
  if (stat.isSocket()) return 'a socket';
  if (stat.isCharacterDevice() || stat.isBlockDevice()) return 'a device';
  return 'something else';
}
