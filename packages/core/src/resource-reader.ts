import { createDiagnostic, type Diagnostic } from './diagnostic.js';

/** Options of one {@link ResourceReader.read}. */
export interface ResourceReadOptions {
  /** Largest file read, in bytes (default 10 MiB, as for documents). */
  maxBytes?: number;
  /**
   * Pass over an empty file as if it were missing, so that a later root may
   * answer (Sahara's rule for image spec scripts). Default `false`.
   */
  skipEmpty?: boolean;
}

/**
 * Outcome of {@link ResourceReader.read}: the text and where it was found,
 * or one diagnostic saying why it was not read. The failure has the shape
 * of core's `ReadTextFileResult` failure (`missing` when nothing is there,
 * `size` when the file is over the bound) plus `outside` when the path
 * leaves the reader's roots; `reason` is the why as the end of a sentence
 * (`it is a named pipe (FIFO), not a regular file`), for callers that
 * report the reference in their own words.
 */
export type ResourceReadResult =
  | { ok: true; text: string; file: string }
  | {
      ok: false;
      diagnostic: Diagnostic;
      reason: string;
      missing?: boolean;
      outside?: boolean;
      size?: number;
    };

/**
 * Reads the files a checked file refers to (scripts of an image spec,
 * templates of a Heat environment), so that checkers and loaders touch no
 * file system themselves: a CLI passes a reader over the disk, a browser or
 * a test one over a map of texts.
 *
 * Relative paths (`/`-separated) are looked up under each root in order and
 * the first readable file answers. Whether absolute paths and `..` may be
 * used is the reader's choice (see `confine` on the adapters); a path a
 * reader refuses is a failure with `outside: true` and the code
 * `fs/outside-roots`. `read` never throws: a missing file is `fs/not-found`
 * (`missing: true`), one over the bound `fs/too-large` (with `size`),
 * anything else that cannot be read (a directory, a FIFO, a device, no
 * permission) `fs/unreadable`. When several roots fail, the first failure
 * other than a missing file is returned.
 */
export interface ResourceReader {
  /** Where relative paths are looked up, in order, as the reader names them (for messages). */
  readonly roots: readonly string[];
  /** Reads one file; never throws. */
  read(path: string, options?: ResourceReadOptions): ResourceReadResult;
}

/** The default bound of {@link ResourceReadOptions.maxBytes}. */
export const DEFAULT_RESOURCE_MAX_BYTES = 10 * 1024 * 1024;

/** Options of {@link createMemoryResourceReader}. */
export interface MemoryResourceReaderOptions {
  /** Folders (keys of the map are below them) relative paths are looked up in, in order. Default `['']`, the map's top. */
  roots?: readonly string[];
  /** Refuse absolute paths and paths that climb out of the roots with `..` (default `true`). */
  confine?: boolean;
}

/**
 * `path` normalised the POSIX way without the file system: `\` becomes `/`,
 * `.` segments and repeated slashes go, `..` removes the segment before it
 * (and stays at the start of a relative path). `''` for the top.
 */
export function normalizeResourcePath(path: string): string {
  const absolute = path.startsWith('/') || path.startsWith('\\');
  const out: string[] = [];
  for (const segment of path.replace(/\\/g, '/').split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') {
      if (out.length && out[out.length - 1] !== '..') out.pop();
      else if (!absolute) out.push('..');
      continue;
    }
    out.push(segment);
  }
  return `${absolute ? '/' : ''}${out.join('/')}`;
}

/** Whether a normalised relative path climbs above its starting folder. Internal to core. */
export function climbsOut(normalized: string): boolean {
  return normalized === '..' || normalized.startsWith('../');
}

/** The failure for a path a reader refuses because it leaves the roots. Internal to core. */
export function outsideRootsFailure(path: string): Extract<ResourceReadResult, { ok: false }> {
  return {
    ok: false,
    outside: true,
    reason: 'it leaves the resource roots',
    diagnostic: createDiagnostic({
      code: 'fs/outside-roots',
      message: `The path '${path}' leaves the resource roots; only files inside them are read.`,
      file: path,
      hint: 'Use a relative path without ".." that stays below a root.',
    }),
  };
}

/** The failure for a file that is not there. Internal to core. */
export function missingFailure(file: string): Extract<ResourceReadResult, { ok: false }> {
  return {
    ok: false,
    missing: true,
    reason: 'it does not exist',
    diagnostic: createDiagnostic({ code: 'fs/not-found', message: 'The file does not exist.', file }),
  };
}

/** The failure for a file over the bound. Internal to core. */
export function tooLargeFailure(
  file: string,
  size: number,
  max: number,
): Extract<ResourceReadResult, { ok: false }> {
  return {
    ok: false,
    size,
    reason: `it holds ${size} bytes, more than the limit of ${max} bytes`,
    diagnostic: createDiagnostic({
      code: 'fs/too-large',
      message: `The file holds ${size} bytes, more than the limit of ${max} bytes; it is not read.`,
      file,
      hint: 'Split the file, or raise maxBytes if it is meant to be this large.',
    }),
  };
}

const ENCODER = new TextEncoder();

/**
 * A {@link ResourceReader} over a map of texts keyed by `/`-separated path
 * (`{ 'common/setup.sh': '#!/bin/sh\n…' }`), for tests, editors and
 * browsers. Keys are normalised as {@link normalizeResourcePath} does; a
 * relative path is looked up under each root in order. Sizes are counted in
 * UTF-8 bytes. Touches no file system.
 *
 * @example
 * const reader = createMemoryResourceReader({ 'scripts/setup.sh': 'true\n' }, { roots: ['scripts'] });
 * reader.read('setup.sh'); // { ok: true, text: 'true\n', file: 'scripts/setup.sh' }
 */
export function createMemoryResourceReader(
  files: Readonly<Record<string, string>>,
  options: MemoryResourceReaderOptions = {},
): ResourceReader {
  const map = new Map<string, string>();
  for (const [key, text] of Object.entries(files)) map.set(normalizeResourcePath(key), text);
  const roots = [...(options.roots ?? [''])];
  const confine = options.confine !== false;
  return {
    roots,
    read(path, readOptions = {}) {
      const max = readOptions.maxBytes ?? DEFAULT_RESOURCE_MAX_BYTES;
      if (typeof path !== 'string' || path.includes('\u0000')) return outsideRootsFailure(String(path));
      const normalized = normalizeResourcePath(path);
      if (confine && (normalized.startsWith('/') || climbsOut(normalized))) return outsideRootsFailure(path);
      const candidates = normalized.startsWith('/')
        ? [normalized]
        : roots.map((root) => normalizeResourcePath(root ? `${root}/${normalized}` : normalized));
      for (const file of candidates) {
        const text = map.get(file);
        if (text === undefined) continue;
        if (readOptions.skipEmpty && !text) continue;
        // The bound in bytes, as on a disk: count only when the length alone does not settle it.
        const size = text.length * 3 <= max ? text.length : ENCODER.encode(text).length;
        if (size > max) return tooLargeFailure(file, size, max);
        return { ok: true, text, file };
      }
      return missingFailure(normalized);
    },
  };
}
