import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from 'node:fs';
import { createDiagnostic, type Diagnostic } from '@stackspec/core';
import { MAX_SCAN_CHARS, tooLargeDiagnostic, unreadableDiagnostic } from './scan.js';

/** Outcome of {@link readTextFile}: the text, or why it was not read (`missing` when nothing is there). */
export type ReadTextResult =
  | { ok: true; text: string }
  | { ok: false; diagnostic: Diagnostic; missing?: boolean };

/**
 * Reads a UTF-8 file from disk with a size bound, for a tree of files a
 * user points at. The file is opened without blocking and checked before
 * anything is read: a FIFO, socket or device (whose read could wait
 * forever) is reported as `heat/find/unreadable`, and a file over
 * `maxBytes` (default {@link MAX_SCAN_CHARS}) as `heat/find/too-large`
 * without reading it. A file that grows past the bound while it is read is
 * reported the same way. Never throws.
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
    const stat = fstatSync(fd);
    if (!stat.isFile()) {
      return {
        ok: false,
        diagnostic: createDiagnostic({
          code: 'heat/find/unreadable',
          severity: 'warning',
          message: `The file cannot be read: it is ${kindOf(stat)}, not a regular file.`,
          file: shown,
        }),
      };
    }
    if (stat.size > maxBytes)
      return { ok: false, diagnostic: tooLargeDiagnostic(shown, stat.size, maxBytes, 'bytes') };
    // One byte more than the size, to notice a file that grew since fstat.
    let buffer = Buffer.allocUnsafe(stat.size + 1);
    let length = 0;
    for (;;) {
      if (length === buffer.length) {
        if (length > maxBytes)
          return { ok: false, diagnostic: tooLargeDiagnostic(shown, length, maxBytes, 'bytes') };
        const bigger = Buffer.allocUnsafe(Math.min(buffer.length * 2, maxBytes + 1));
        buffer.copy(bigger, 0, 0, length);
        buffer = bigger;
      }
      const n = readSync(fd, buffer, length, buffer.length - length, null);
      if (n === 0) break;
      length += n;
    }
    return { ok: true, text: buffer.toString('utf8', 0, length) };
  } catch (e) {
    return { ok: false, diagnostic: unreadableDiagnostic(shown, e) };
  } finally {
    closeSync(fd);
  }
}

function kindOf(stat: Stats): string {
  if (stat.isDirectory()) return 'a directory';
  if (stat.isFIFO()) return 'a named pipe (FIFO)';
  if (stat.isSocket()) return 'a socket';
  if (stat.isCharacterDevice() || stat.isBlockDevice()) return 'a device';
  return 'something else';
}
