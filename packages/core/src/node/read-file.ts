import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from 'node:fs';
import { createDiagnostic, type Diagnostic } from '../diagnostic.js';
import { describeError, SpecError } from '../errors.js';

/** Options for {@link readTextFile}. */
export interface ReadTextFileOptions {
  /** Largest file read, in bytes (default 10 MiB, as for documents); `Infinity` lifts the bound. */
  maxBytes?: number;
  /** The name diagnostics carry in `file` (default: `path` as given). */
  file?: string;
}

/**
 * Outcome of {@link readTextFile}: the text, or one located diagnostic saying
 * why it was not read (`missing` is set when nothing exists at the path;
 * `size`, in bytes, when the file is over the bound). `reason` is that why
 * as the end of a sentence (`it is a named pipe (FIFO), not a regular
 * file`, `it holds 2147483648 bytes, more than the limit of 10485760
 * bytes`), for callers that report the file in their own words (a
 * reference from another file); core's readers always set it.
 */
export type ReadTextFileResult =
  | { ok: true; text: string }
  | { ok: false; diagnostic: Diagnostic; missing?: boolean; size?: number; reason?: string };

type Failure = Extract<ReadTextFileResult, { ok: false }>;

// The loader's default size limit (DEFAULT_MAX_BYTES), repeated so that this
// entry does not load the YAML parser.
const DEFAULT_MAX_FILE_BYTES = 10 * 1024 * 1024;

// One buffer serves every call (they are synchronous, so they never overlap):
// most configuration files fit in it, so none allocates a buffer of its own.
const SMALL = 64 * 1024;
let shared = Buffer.allocUnsafe(SMALL);

function problem(code: string, file: string, message: string, hint?: string): Diagnostic {
  return createDiagnostic({ code, message, file, ...(hint ? { hint } : {}) });
}

/**
 * What a file-system entry that is not a regular file is, as a phrase for
 * messages ("a named pipe (FIFO)"); for the walk too, which has Dirents.
 * Internal to core.
 */
export function describeFileKind(
  entry: Pick<Stats, 'isDirectory' | 'isFIFO' | 'isSocket' | 'isCharacterDevice' | 'isBlockDevice'>,
): string {
  if (entry.isDirectory()) return 'a directory';
  if (entry.isFIFO()) return 'a named pipe (FIFO)';
  if (entry.isSocket()) return 'a socket';
  if (entry.isCharacterDevice() || entry.isBlockDevice()) return 'a device';
  return 'not a regular file';
}

function tooLarge(file: string, size: number, max: number): Failure {
  const reason = `it holds ${size} bytes, more than the limit of ${max} bytes`;
  const diagnostic = problem(
    'fs/too-large',
    file,
    `The file holds ${size} bytes, more than the limit of ${max} bytes; it is not read.`,
    'Split the file, or raise maxBytes if it is meant to be this large.',
  );
  return { ok: false, diagnostic, size, reason };
}

function cannotRead(file: string, reason: string, what = 'file'): Failure {
  return {
    ok: false,
    diagnostic: problem('fs/unreadable', file, `The ${what} cannot be read: ${reason}.`),
    reason,
  };
}

function unreadable(file: string, e: unknown): Failure {
  const code = (e as { code?: string } | null)?.code;
  const why =
    code === 'EACCES' || code === 'EPERM'
      ? 'permission denied'
      : code === 'ELOOP'
        ? 'its symbolic links form a loop'
        : code === 'EISDIR'
          ? 'it is a directory'
          : describeError(e).replace(/\.$/, '');
  return cannotRead(file, why);
}

function boundOf(options: { maxBytes?: number }): number {
  const max = options.maxBytes ?? DEFAULT_MAX_FILE_BYTES;
  if (typeof max !== 'number' || !(max >= 0)) {
    throw new SpecError(`maxBytes must be a number of bytes, 0 or more, but it is ${String(max)}.`, {
      code: 'fs/bad-option',
    });
  }
  return max;
}

/**
 * Reads a UTF-8 text file with a size bound, safely for any path a user
 * names. The file is opened without blocking (so a named pipe without a
 * writer cannot hang the call), anything but a regular file (a directory,
 * FIFO, socket or device such as `/dev/zero`) is refused before a byte is
 * read, and at most `maxBytes + 1` bytes are read however large the file is
 * or grows. A byte-order mark is kept; bytes that are not UTF-8 become
 * U+FFFD. Synchronous, and never throws for anything the file system does.
 *
 * Diagnostics (severity `error`, `file` set): `fs/not-found` (with
 * `missing: true`), `fs/unreadable` (permission, loop, not a regular file),
 * `fs/too-large`. Throws `SpecError` (`fs/bad-option`) only for a `maxBytes`
 * that is not a number of bytes.
 *
 * @example
 * const r = readTextFile('flavors.yaml', { maxBytes: 1024 * 1024 });
 * if (!r.ok) return [r.diagnostic];
 * const doc = validateDocument(r.text, { filename: 'flavors.yaml' });
 */
export function readTextFile(path: string, options: ReadTextFileOptions = {}): ReadTextFileResult {
  const max = boundOf(options);
  const file = options.file ?? path;
  let fd: number;
  try {
    // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer.
    fd = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  } catch (e) {
    if ((e as { code?: string } | null)?.code === 'ENOENT') {
      return {
        ok: false,
        missing: true,
        diagnostic: problem('fs/not-found', file, 'The file does not exist.'),
        reason: 'it does not exist',
      };
    }
    return unreadable(file, e);
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) {
      const what = describeFileKind(stat);
      return cannotRead(file, `it is ${what}${what.startsWith('not') ? '' : ', not a regular file'}`);
    }
    if (stat.size > max) return tooLarge(file, stat.size, max);
    // The size may change under us: read until the end, but never past the bound.
    const cap = max + 1;
    let length = 0;
    for (;;) {
      const room = Math.min(shared.length, cap) - length;
      if (room === 0) {
        if (length >= cap) return tooLarge(file, Math.max(stat.size, length), max);
        const bigger = Buffer.allocUnsafe(Math.min(shared.length * 4, cap));
        shared.copy(bigger, 0, 0, length);
        shared = bigger;
        continue;
      }
      const n = readSync(fd, shared, length, room, null);
      if (n === 0) break;
      length += n;
    }
    return { ok: true, text: shared.toString('utf8', 0, length) };
  } catch (e) {
    return unreadable(file, e);
  } finally {
    closeSync(fd);
    // Do not keep a buffer grown for one large file.
    if (shared.length > 16 * SMALL) shared = Buffer.allocUnsafe(SMALL);
  }
}

/** Options for {@link readTextInput}. */
export interface ReadTextInputOptions {
  /** Largest input read, in bytes (default 10 MiB, as for documents); `Infinity` lifts the bound. */
  maxBytes?: number;
  /** The name diagnostics carry in `file` (default `<stdin>`). */
  file?: string;
}

/**
 * Reads a stream of text, such as standard input, with a size bound: the
 * twin of {@link readTextFile} for input that has no size up front. Chunks
 * (strings or bytes) are taken until the end or until more than `maxBytes`
 * bytes have come, and then no further: the stream is released (for Node
 * streams, destroyed), so endless input such as `cat /dev/zero |` ends at
 * the bound instead of filling memory. Bytes that are not UTF-8 become
 * U+FFFD.
 *
 * Diagnostics (severity `error`, `file` set): `fs/too-large` when the input
 * is over the bound (`size` is then the bytes seen, at least `maxBytes + 1`),
 * `fs/unreadable` when the stream fails. Throws `SpecError`
 * (`fs/bad-option`) only for a `maxBytes` that is not a number of bytes.
 *
 * @example
 * const r = await readTextInput(process.stdin, { maxBytes: 1024 * 1024 });
 * if (!r.ok) return [r.diagnostic];
 */
export async function readTextInput(
  input: AsyncIterable<string | Uint8Array>,
  options: ReadTextInputOptions = {},
): Promise<ReadTextFileResult> {
  const max = boundOf(options);
  const file = options.file ?? '<stdin>';
  const chunks: Buffer[] = [];
  let length = 0;
  try {
    // Leaving the loop early returns the iterator, which releases the stream.
    for await (const chunk of input) {
      const bytes =
        typeof chunk === 'string'
          ? Buffer.from(chunk, 'utf8')
          : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
      length += bytes.length;
      if (length > max) {
        const diagnostic = problem(
          'fs/too-large',
          file,
          `The input holds more than the limit of ${max} bytes; it is not read.`,
          'Give a smaller input, or a file.',
        );
        return {
          ok: false,
          diagnostic,
          size: length,
          reason: `it holds more than the limit of ${max} bytes`,
        };
      }
      chunks.push(bytes);
    }
  } catch (e) {
    return cannotRead(file, describeError(e).replace(/\.$/, ''), 'input');
  }
  return { ok: true, text: Buffer.concat(chunks, length).toString('utf8') };
}
