import type { Diagnostic } from '@stackspec/core';
import { type ReadTextFileResult, readTextFile } from '@stackspec/core/node';
import { MAX_SCAN_CHARS, tooLargeDiagnostic } from './scan.js';

/**
 * Reads a file of a template tree with core's bounded reader (no FIFO,
 * device or directory is read, nothing past `maxBytes` is read) and
 * speaks heat's codes: a missing or unreadable file is the warning
 * `heat/find/unreadable` (`missing` still set when nothing is there), a
 * file over the bound `heat/find/too-large` with Heat's own limit as the
 * hint. Never throws.
 */
export function readHeatFile(path: string, shown: string, maxBytes = MAX_SCAN_CHARS): ReadTextFileResult {
  const read = readTextFile(path, { maxBytes, file: shown });
  if (read.ok) return read;
  const d = read.diagnostic;
  if (d.code === 'fs/too-large') {
    return { ok: false, diagnostic: tooLargeDiagnostic(shown, read.size, maxBytes, 'bytes') };
  }
  const diagnostic: Diagnostic = { ...d, code: 'heat/find/unreadable', severity: 'warning' };
  return { ok: false, diagnostic, ...(read.missing ? { missing: true } : {}) };
}
