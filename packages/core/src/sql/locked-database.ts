// An embedded database in a directory of its own (PGlite), which has no
// locking between processes: two processes on one directory corrupt it. So
// the directory is locked (core's lockDirectory) before the database opens,
// and released only once it has closed.
import { HttpError } from '../errors.js';
import { lockDirectory } from '../node/dir-lock.js';

/** Something that can be closed, such as a PGlite instance. */
export interface ClosableDatabase {
  close(): Promise<void>;
}

/** A database with the lock on its directory. */
export interface LockedDatabase<D extends ClosableDatabase> {
  readonly db: D;
  /** Closes the database, then releases the directory's lock (also when closing fails). */
  close(): Promise<void>;
}

/** Options for {@link openLockedDatabase}. */
export interface OpenLockedDatabaseOptions<D extends ClosableDatabase> {
  /** The database's directory; omitted: a database in memory, which needs no lock. */
  dataDir?: string;
  /** Opens the database, in `dataDir` when given (`(dir) => PGlite.create(dir ? { dataDir: dir } : {})`). */
  open: (dataDir: string | undefined) => Promise<D>;
  /** Told, in a sentence, when a lock left by a process that was killed is taken over. */
  log?: (line: string) => void;
}

/**
 * Locks `dataDir` to this process, then opens the database in it. While
 * another live process holds the directory it throws core's
 * `ConflictError` `store/locked` naming that process, before `open` runs; a
 * lock left by a process that was killed is taken over (and `log` is told).
 * When `open` fails the lock is released and its error thrown.
 *
 * @example
 * const { db, close } = await openLockedDatabase({
 *   dataDir: './db',
 *   open: (dir) => PGlite.create(dir ? { dataDir: dir } : {}),
 * });
 */
export async function openLockedDatabase<D extends ClosableDatabase>(
  options: OpenLockedDatabaseOptions<D>,
): Promise<LockedDatabase<D>> {
  if (!options.dataDir) {
    const db = await options.open(undefined);
    return { db, close: () => db.close() };
  }
  const lock = lockDirectory(options.dataDir, { onTakeover: (message) => options.log?.(message) });
  let db: D;
  try {
    db = await options.open(options.dataDir);
  } catch (e) {
    lock.release();
    throw e;
  }
  return {
    db,
    async close() {
      try {
        await db.close();
      } finally {
        lock.release();
      }
    },
  };
}

/** A database opened on first use, from {@link createLazyDatabase}. */
export interface LazyDatabase<D> {
  /** The database, opening it on the first call; rejects once closed. */
  get(): Promise<D>;
  /** Closes what was opened (waiting for an open under way); later calls do nothing. */
  close(): Promise<void>;
}

/**
 * Opens a database when it is first needed, once: calls that come while it
 * opens wait for the same opening, and a failed opening is tried again by
 * the next call (the process holding a lock may have stopped meanwhile).
 * After `close`, `get` rejects with an `HttpError` 503 (`store/closed`) rather
 * than opening again (which would take a directory's lock that nothing
 * would release). With `given`, that database is used as it is and never
 * closed.
 */
export function createLazyDatabase<D>(
  open: () => Promise<{ db: D; close(): Promise<void> }>,
  given?: D,
): LazyDatabase<D> {
  let opened: { db: D; close(): Promise<void> } | undefined =
    given === undefined ? undefined : { db: given, close: async () => {} };
  let opening: Promise<{ db: D; close(): Promise<void> }> | undefined;
  let closed = false;
  return {
    async get() {
      if (opened) return opened.db;
      if (closed) {
        // A request that arrives while the server shuts down: unavailable, not a bug.
        throw new HttpError(503, 'The store is closed.', { code: 'store/closed' });
      }
      opening ??= open().then(
        (d) => {
          opened = d;
          return d;
        },
        (e: unknown) => {
          opening = undefined;
          throw e;
        },
      );
      return (await opening).db;
    },
    async close() {
      if (closed) return;
      closed = true;
      const pending = opened ?? (await opening?.catch(() => undefined));
      await pending?.close();
    },
  };
}
