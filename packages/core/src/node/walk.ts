import { type Dirent, promises as fsp, readdir, type Stats } from 'node:fs';
import { join, posix, relative, resolve, sep } from 'node:path';
import type fg from 'fast-glob';
import { createDiagnostic, type Diagnostic } from '../diagnostic.js';
import { describeError } from '../errors.js';
import { describeFileKind } from './read-file.js';

/** Options for {@link walkFiles}. */
export interface WalkFilesOptions {
  /** Which files count, by name (default: `.yaml`, `.yml` and `.json` files). */
  match?: (name: string) => boolean;
  /** Descend into directories given as paths (default `true`; `false` reports them and skips them). */
  recursive?: boolean;
  /** fast-glob patterns to leave out, relative to each directory searched (`['ci/**', '**\/*.j2.yaml']`). */
  ignore?: readonly string[];
  /** Base for relative paths (default `process.cwd()`). */
  cwd?: string;
  /** Include dot-files and dot-directories (default `false`). */
  dot?: boolean;
}

/** Outcome of {@link walkFiles}. */
export interface WalkFilesResult {
  /** Matching files, each spelled from the path the caller gave, sorted, without duplicates. */
  files: string[];
  /**
   * Problems that did not stop the walk, as warnings: `fs/not-found`,
   * `fs/unreadable`, `fs/broken-symlink`, `fs/symlink-loop`, `fs/not-recursive`.
   */
  diagnostics: Diagnostic[];
}

const DEFAULT_MATCH = (name: string) => /\.(ya?ml|json)$/i.test(name);

function warning(code: string, message: string, file: string, hint?: string): Diagnostic {
  return createDiagnostic({ code, severity: 'warning', message, file, ...(hint ? { hint } : {}) });
}

function errnoOf(e: unknown): string | undefined {
  return (e as { code?: string } | null)?.code;
}

function unreadable(file: string, e: unknown): Diagnostic {
  return warning('fs/unreadable', `This path cannot be read: ${describeError(e)}.`, file);
}

function notRegular(file: string, entry: Parameters<typeof describeFileKind>[0]): Diagnostic {
  return warning(
    'fs/unreadable',
    `This is ${describeFileKind(entry)}, not a regular file; it is skipped, since reading it could block or never end.`,
    file,
  );
}

function symlinkLoop(file: string): Diagnostic {
  return warning(
    'fs/symlink-loop',
    'This symbolic link leads back to itself through other links (a loop); it is skipped.',
    file,
  );
}

type ReaddirCallback = (error: NodeJS.ErrnoException | null, entries: (string | Dirent)[]) => void;

/** The file-system calls of a walk, so tests can make them fail where root cannot be refused. */
export interface WalkFileSystem {
  realpath(path: string): Promise<string>;
  stat(path: string): Promise<Stats>;
  /** Node's callback `readdir`, as fast-glob calls it (with or without options). */
  readdir(path: string, options: unknown, callback?: ReaddirCallback): void;
}

const NODE_FS: WalkFileSystem = {
  realpath: (path) => fsp.realpath(path),
  stat: (path) => fsp.stat(path),
  readdir: readdir as unknown as WalkFileSystem['readdir'],
};

/** One entry under a searched directory: its path relative to it (with `/`), its name and its type. */
interface TreeEntry {
  path: string;
  name: string;
  dirent: Pick<
    Dirent,
    | 'isFile'
    | 'isDirectory'
    | 'isSymbolicLink'
    | 'isFIFO'
    | 'isSocket'
    | 'isCharacterDevice'
    | 'isBlockDevice'
  >;
}

// Errors that mean "this directory cannot be read", reported; any other
// (a directory gone since it was listed) leaves it out silently.
const UNREADABLE = new Set(['EACCES', 'EPERM', 'EIO']);

/**
 * Every entry under `dir`, without following links, as fast-glob's `**\/*`
 * lists them but without its cost: loading it and matching each path
 * against the pattern take several times longer than the walk itself, and
 * with nothing to ignore there is nothing for it to do.
 */
async function listTree(
  fs: WalkFileSystem,
  dir: string,
  dot: boolean,
  reportUnreadable: (path: string, error: unknown) => void,
): Promise<TreeEntry[]> {
  const out: TreeEntry[] = [];
  const visit = (abs: string, rel: string): Promise<void> =>
    new Promise((done) => {
      fs.readdir(abs, { withFileTypes: true }, (error, list) => {
        if (error) {
          if (UNREADABLE.has(errnoOf(error) ?? '')) reportUnreadable(abs, error);
          done();
          return;
        }
        const below: Promise<void>[] = [];
        for (const dirent of list as Dirent[]) {
          if (!dot && dirent.name.startsWith('.')) continue;
          const path = rel ? `${rel}/${dirent.name}` : dirent.name;
          out.push({ path, name: dirent.name, dirent });
          if (dirent.isDirectory()) below.push(visit(join(abs, dirent.name), path));
        }
        Promise.all(below).then(() => done());
      });
    });
  await visit(dir, '');
  return out;
}

/** Every entry under `dir` that no `ignore` pattern matches, found by fast-glob (loaded only for this). */
async function globTree(
  fs: WalkFileSystem,
  dir: string,
  ignore: readonly string[],
  dot: boolean,
  reportUnreadable: (path: string, error: unknown) => void,
): Promise<TreeEntry[]> {
  // fast-glob drops unreadable directories silently (suppressErrors); report them instead.
  const reportingReaddir = (path: string, a: unknown, b?: ReaddirCallback) => {
    const callback = (typeof a === 'function' ? a : b) as ReaddirCallback;
    const done: ReaddirCallback = (error, entries) => {
      if (error && UNREADABLE.has(errnoOf(error) ?? '')) {
        reportUnreadable(path, error);
        callback(null, []);
      } else callback(error, entries);
    };
    if (typeof a === 'function') fs.readdir(path, done);
    else fs.readdir(path, a, done);
  };
  const { default: glob } = (await import('fast-glob')) as { default: typeof fg };
  return glob(['**/*'], {
    cwd: dir,
    onlyFiles: false,
    followSymbolicLinks: false,
    objectMode: true,
    dot,
    suppressErrors: true,
    ignore: [...ignore],
    fs: { readdir: reportingReaddir as never },
  });
}

/**
 * Lists the files under the given files and directories, the way a linter
 * collects its inputs. Symbolic links are followed, but each real directory
 * is walked once, so a link back to an ancestor (a loop) or a second link
 * into a tree already walked is reported and skipped instead of looping or
 * listing files twice. Missing paths, unreadable directories, broken links
 * and paths that are not regular files (FIFOs, sockets, devices, which could
 * block a reader) become warnings and are never listed; the walk itself
 * never throws.
 *
 * @example
 * const { files, diagnostics } = await walkFiles(['examples'], { ignore: ['**\/node_modules/**'] });
 */
export async function walkFiles(
  paths: readonly string[],
  options: WalkFilesOptions = {},
): Promise<WalkFilesResult> {
  return walkFilesWith(NODE_FS, paths, options);
}

/** {@link walkFiles} over the given file-system calls. */
export async function walkFilesWith(
  fs: WalkFileSystem,
  paths: readonly string[],
  options: WalkFilesOptions = {},
): Promise<WalkFilesResult> {
  const cwd = options.cwd ?? process.cwd();
  const match = options.match ?? DEFAULT_MATCH;
  const files = new Set<string>();
  const diagnostics: Diagnostic[] = [];
  const visited = new Set<string>();
  const inside = (path: string, dir: string) =>
    path === dir || path.startsWith(dir.endsWith(sep) ? dir : `${dir}${sep}`);

  const walkDir = async (dir: string, shown: string, explicit = false): Promise<void> => {
    let real: string;
    try {
      real = await fs.realpath(dir);
    } catch (e) {
      diagnostics.push(errnoOf(e) === 'ELOOP' ? symlinkLoop(shown) : unreadable(shown, e));
      return;
    }
    for (const v of visited) {
      // Inside a tree already walked, or a link up to an ancestor of one
      // (which would list that tree again).
      if (inside(real, v) || (!explicit && inside(v, real))) {
        // A path the caller named inside one already walked adds nothing new.
        if (explicit && inside(real, v)) return;
        diagnostics.push(
          warning(
            'fs/symlink-loop',
            'This directory was already searched through another path (a symbolic link loop or a second link to it); it is skipped.',
            shown,
          ),
        );
        return;
      }
    }
    visited.add(real);
    const reportUnreadable = (path: string, error: unknown) =>
      diagnostics.push(unreadable(posix.join(shown, relative(dir, path).split(sep).join('/')) || '.', error));
    let entries: TreeEntry[];
    try {
      entries = options.ignore?.length
        ? await globTree(fs, dir, options.ignore, options.dot === true, reportUnreadable)
        : await listTree(fs, dir, options.dot === true, reportUnreadable);
    } catch (e) {
      diagnostics.push(unreadable(shown, e));
      return;
    }
    entries.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    // Entry paths are clean (names joined by '/'), so after a normalised
    // prefix the result is what posix.join would give, without its cost per entry.
    const base = shown ? posix.normalize(shown) : '.';
    const prefix = base === '.' ? '' : base.endsWith('/') ? base : `${base}/`;
    for (const entry of entries) {
      const path = prefix + entry.path;
      if (entry.dirent.isSymbolicLink()) {
        let stat: Stats;
        try {
          stat = await fs.stat(join(dir, entry.path));
        } catch (e) {
          const code = errnoOf(e);
          diagnostics.push(
            code === 'ELOOP'
              ? symlinkLoop(path)
              : code === 'ENOENT'
                ? warning('fs/broken-symlink', 'This symbolic link points to nothing.', path)
                : unreadable(path, e),
          );
          continue;
        }
        if (stat.isDirectory()) await walkDir(join(dir, entry.path), path);
        else if (stat.isFile()) {
          if (match(entry.name)) files.add(path);
        } else if (match(entry.name)) diagnostics.push(notRegular(path, stat));
      } else if (entry.dirent.isFile()) {
        if (match(entry.name)) files.add(path);
      } else if (!entry.dirent.isDirectory() && match(entry.name)) {
        diagnostics.push(notRegular(path, entry.dirent));
      }
    }
  };

  for (const given of paths) {
    const abs = resolve(cwd, given);
    let stat: Stats;
    try {
      stat = await fs.stat(abs);
    } catch (e) {
      const code = errnoOf(e);
      diagnostics.push(
        code === 'ENOENT'
          ? warning('fs/not-found', 'No such file or directory.', given)
          : code === 'ELOOP'
            ? symlinkLoop(given)
            : unreadable(given, e),
      );
      continue;
    }
    if (stat.isDirectory()) {
      if (options.recursive === false) {
        diagnostics.push(
          warning(
            'fs/not-recursive',
            'This is a directory; it is skipped.',
            given,
            'Search it recursively (-r).',
          ),
        );
        continue;
      }
      // Trailing slashes go, but not the one of the root ('/' stays '/').
      await walkDir(abs, given === '.' ? '' : given.replace(/(.)[\\/]+$/, '$1'), true);
    } else if (stat.isFile()) {
      // A file named explicitly is taken whatever its name.
      files.add(given.startsWith('/') ? given : posix.normalize(given));
    } else {
      diagnostics.push(notRegular(given, stat));
    }
  }
  return { files: [...files].sort(), diagnostics };
}

/** Runs `fn` over `items` with at most `limit` calls in flight; results keep the input order. */
export async function mapWithConcurrency<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const workers = Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, async () => {
    while (next < items.length) {
      const i = next;
      next += 1;
      results[i] = await fn(items[i] as T, i);
    }
  });
  await Promise.all(workers);
  return results;
}

/** `path` relative to `base` with forward slashes, for reports. */
export function displayPath(path: string, base: string): string {
  const rel = relative(base, path);
  return (rel && !rel.startsWith('..') ? rel : path).split(sep).join('/');
}
