import { realpathSync } from 'node:fs';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import {
  climbsOut,
  DEFAULT_RESOURCE_MAX_BYTES,
  missingFailure,
  normalizeResourcePath,
  outsideRootsFailure,
  type ResourceReader,
  type ResourceReadResult,
  tooLargeFailure,
} from '../resource-reader.js';
import { readTextFile } from './read-file.js';

/** Options of {@link createNodeResourceReader}. */
export interface NodeResourceReaderOptions {
  /**
   * Folders relative paths are looked up in, in order (default: the working
   * directory). Relative roots resolve against the working directory.
   */
  roots?: readonly string[];
  /**
   * Refuse paths that leave the roots (default `true`): absolute paths,
   * `..` above a root, and symbolic links whose target lies outside the
   * root. With `false`, relative paths may climb and absolute paths are
   * read as they are, as heatclient reads an environment's templates.
   */
  confine?: boolean;
}

function within(root: string, candidate: string): boolean {
  const rel = relative(root, candidate);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
}

function realpath(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}

/**
 * A {@link ResourceReader} over the disk, built on {@link readTextFile}: no
 * FIFO, device or directory is opened for reading, nothing past the bound
 * is read, and nothing throws. A relative path is looked up under each
 * root in order; the first regular file that can be read answers (an empty
 * one is passed over with `skipEmpty`). When confined, a path that leaves a
 * root, by `..`, by being absolute, or through a symbolic link, is refused
 * (`fs/outside-roots`) before anything is opened, and the file answering is
 * named by its real path. A file over the bound stops the search
 * (`fs/too-large`); one that cannot be read (`fs/unreadable`) lets later
 * roots answer and is reported only when none does.
 *
 * @example
 * const reader = createNodeResourceReader({ roots: ['plugins/cdh/resources'] });
 * const script = reader.read('common/setup.sh', { maxBytes: 16 * 1024 * 1024, skipEmpty: true });
 */
export function createNodeResourceReader(options: NodeResourceReaderOptions = {}): ResourceReader {
  const roots = (options.roots ?? ['.']).map((r) => resolve(r));
  const confine = options.confine !== false;
  // A missing file (or an empty one with skipEmpty) lets the next root answer.
  const PASS = { ok: false as const, pass: true as const };
  const readOne = (path: string, max: number, skipEmpty: boolean): ResourceReadResult | typeof PASS => {
    const read = readTextFile(path, { maxBytes: max });
    if (read.ok) return read.text || !skipEmpty ? { ok: true, text: read.text, file: path } : PASS;
    if (read.diagnostic.code === 'fs/too-large') return tooLargeFailure(path, read.size ?? max + 1, max);
    if (read.missing) return PASS;
    return { ok: false, diagnostic: read.diagnostic, reason: read.reason ?? read.diagnostic.message };
  };
  return {
    roots,
    read(path, readOptions = {}) {
      const max = readOptions.maxBytes ?? DEFAULT_RESOURCE_MAX_BYTES;
      const skipEmpty = readOptions.skipEmpty === true;
      if (typeof path !== 'string' || path.includes('\u0000')) return outsideRootsFailure(String(path));
      const absolute = isAbsolute(path) || path.startsWith('/');
      const rel = normalizeResourcePath(path);
      if (confine && (absolute || climbsOut(rel))) return outsideRootsFailure(path);
      const candidates = absolute ? [resolve(path)] : roots.map((root) => resolve(root, rel));
      let unusable: Extract<ResourceReadResult, { ok: false }> | undefined;
      for (const [i, candidate] of candidates.entries()) {
        let target = candidate;
        if (confine) {
          const root = roots[i] as string;
          if (!within(root, candidate)) return outsideRootsFailure(path);
          const real = realpath(candidate);
          const realRoot = realpath(root);
          // Nothing there (or a root that does not exist): a later root may have it.
          if (real === undefined || realRoot === undefined) continue;
          if (!within(realRoot, real)) return outsideRootsFailure(path);
          target = real;
        }
        const r = readOne(target, max, skipEmpty);
        if (r.ok) return r;
        if ('pass' in r) continue;
        if (r.size !== undefined) return r;
        unusable ??= r;
      }
      return unusable ?? missingFailure(path);
    },
  };
}
