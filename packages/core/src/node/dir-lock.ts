// An exclusive lock on a directory, held by one process at a time: embedded
// databases (PGlite) have no locking of their own, and two processes writing
// one data directory corrupt it. Node has no flock(2), so the lock is a file:
//
// - It is made complete in a private file first and then hard-linked to its
//   name (link(2) fails when the name exists), so whoever reads the lock
//   never sees it half-written. Where the file system has no hard links the
//   file is created with O_EXCL instead (a reader may then briefly find it
//   empty, which counts as busy, not as stale).
// - A lock whose process has ended (the pid is gone, or it now belongs to a
//   process that started at another time: pids are reused) is stale. Taking
//   it over must not race: two takers that both read the same stale lock
//   would otherwise each delete "it" and the slower one would delete the
//   faster one's new lock. So a taker first creates a guard file named after
//   the exact content it judged stale, re-reads the lock under that guard,
//   and removes it only if it is still byte for byte that content; only one
//   taker can hold the guard, and a lock written since is never the same
//   bytes (each carries a random nonce). A guard left by a taker that died
//   in those few instructions is itself stale, and is removed the same way.
import { createHash, randomBytes } from 'node:crypto';
import { linkSync, mkdirSync, readFileSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { hostname as osHostname } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { z } from 'zod';
import { createDiagnostic } from '../diagnostic.js';
import { ConflictError, describeError, SpecError } from '../errors.js';
import { readTextFile } from './read-file.js';

/** The lock file's default name inside the locked directory. */
export const DIR_LOCK_FILE = '.stackspec.lock';

/** What a lock file records about the process holding it. */
export const DirLockHolderSchema = z.object({
  pid: z.number().int().positive().describe('Process id of the holder.'),
  startTime: z
    .string()
    .optional()
    .describe(
      'When the holder started, as `<boot id>:<clock ticks since boot>` from /proc; absent where /proc is not.',
    ),
  hostname: z.string().describe('Machine the holder runs on.'),
  command: z.string().describe('Command line of the holder (passwords in URLs masked).'),
  since: z.string().describe('When the lock was taken (ISO 8601, UTC).'),
  nonce: z.string().describe('Random value that tells two locks of one process apart.'),
});
/** What a lock file records about the process holding it. */
export type DirLockHolder = z.infer<typeof DirLockHolderSchema>;

/** Options for {@link lockDirectory}. */
export interface DirLockOptions {
  /** Name of the lock file inside the directory (default {@link DIR_LOCK_FILE}). */
  fileName?: string;
  /** What the holder does, shown to whoever is refused (default: this process's command line). */
  command?: string;
  /**
   * Told, in a sentence, when a lock left by a process that has ended is
   * removed to take the directory over (default: nowhere). The previous
   * holder may have died while writing, so callers should pass this on.
   */
  onTakeover?: (message: string, previous: DirLockHolder | undefined) => void;
  /** Release the lock when the process exits normally (default `true`). */
  releaseOnExit?: boolean;
}

/** A held lock on a directory. */
export interface DirLock {
  /** The locked directory (absolute). */
  readonly directory: string;
  /** The lock file (absolute). */
  readonly file: string;
  /** What the lock file says about this process. */
  readonly holder: DirLockHolder;
  /** Removes the lock file if it is still this lock's; later calls do nothing. */
  release(): void;
}

// Locks this process holds, released by one exit listener (one per lock
// would trip Node's warning about many listeners).
const heldLocks = new Set<() => void>();
let exitHook = false;

const errnoOf = (e: unknown) => (e as { code?: string } | null)?.code;

// Sleeps synchronously: the lock is taken before anything else runs, and
// the waits are a few milliseconds while another process holds a guard.
const sleeper = new Int32Array(new SharedArrayBuffer(4));
function pause(ms: number): void {
  Atomics.wait(sleeper, 0, 0, ms);
}

let bootId: string | undefined | null = null;
function readBootId(): string | undefined {
  if (bootId === null) {
    try {
      bootId = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
    } catch {
      bootId = undefined;
    }
  }
  return bootId;
}

/**
 * When process `pid` started, as `<boot id>:<ticks since boot>` (field 22 of
 * `/proc/<pid>/stat`), or `undefined` where /proc is not available or the
 * process does not exist. Two processes that had the same pid differ here.
 */
export function processStartTime(pid: number): string | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // The command name (field 2) is in parentheses and may hold spaces or ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = fields[19];
  if (!ticks || !/^\d+$/.test(ticks)) return undefined;
  return `${readBootId() ?? 'boot'}:${ticks}`;
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    // EPERM: it exists but belongs to another user.
    return errnoOf(e) !== 'ESRCH';
  }
}

function defaultCommand(): string {
  const [, script, ...args] = process.argv;
  const name = script ? basename(script).replace(/\.(c|m)?(j|t)s$/, '') : basename(process.execPath);
  const line = [name, ...args].join(' ').replace(/(\/\/[^/:@\s]*:)[^@\s]*@/g, '$1***@');
  return line.length > 300 ? `${line.slice(0, 297)}...` : line;
}

function newHolder(command: string): DirLockHolder {
  const startTime = processStartTime(process.pid);
  return {
    pid: process.pid,
    ...(startTime ? { startTime } : {}),
    hostname: osHostname(),
    command,
    since: new Date().toISOString(),
    nonce: randomBytes(8).toString('hex'),
  };
}

/** Creates `file` holding `text` only if nothing has that name; false when something does. */
function createExclusive(file: string, text: string): boolean {
  const scratch = `${file}.tmp-${process.pid}-${randomBytes(6).toString('hex')}`;
  writeFileSync(scratch, text, { flag: 'wx', mode: 0o644 });
  try {
    linkSync(scratch, file);
    return true;
  } catch (e) {
    const code = errnoOf(e);
    if (code === 'EEXIST') return false;
    if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP' && code !== 'ENOSYS') throw e;
  } finally {
    try {
      unlinkSync(scratch);
    } catch {
      // Already gone: nothing to clean.
    }
  }
  // No hard links on this file system: O_EXCL is atomic too, only not complete at once.
  try {
    writeFileSync(file, text, { flag: 'wx', mode: 0o644 });
    return true;
  } catch (e) {
    if (errnoOf(e) === 'EEXIST') return false;
    throw e;
  }
}

interface Found {
  raw: string;
  holder: DirLockHolder | undefined;
  /** Milliseconds since the file was last written. */
  age: number;
}

// A lock file is a line of JSON; a bound keeps a hostile one (a FIFO, a device, a huge file) harmless.
const MAX_LOCK_FILE_BYTES = 64 * 1024;

function readLockFile(file: string): Found | undefined {
  const read = readTextFile(file, { maxBytes: MAX_LOCK_FILE_BYTES });
  if (!read.ok) {
    if (read.missing) return undefined;
    throw new SpecError(`The lock file ${file} cannot be read: ${read.reason ?? read.diagnostic.message}.`, {
      code: 'fs/unreadable',
      diagnostics: [read.diagnostic],
    });
  }
  const raw = read.text;
  let age = 0;
  try {
    age = Date.now() - statSync(file).mtimeMs;
  } catch (e) {
    if (errnoOf(e) === 'ENOENT') return undefined;
    throw e;
  }
  let holder: DirLockHolder | undefined;
  try {
    const parsed = DirLockHolderSchema.safeParse(JSON.parse(raw));
    if (parsed.success) holder = parsed.data;
  } catch {
    holder = undefined;
  }
  return { raw, holder, age };
}

// A lock file without a readable holder may be one being written with O_EXCL.
const WRITING_GRACE_MS = 2000;

/** Why a lock is stale, or `undefined` when its holder may still run (or it cannot be told). */
function staleReason(found: Found): string | undefined {
  const h = found.holder;
  if (!h) return found.age > WRITING_GRACE_MS ? 'its lock file names no process' : undefined;
  // A process on another machine sharing the directory cannot be checked from here.
  if (h.hostname !== osHostname()) return undefined;
  if (!isRunning(h.pid)) return `process ${h.pid} is no longer running`;
  if (h.startTime) {
    const now = processStartTime(h.pid);
    if (now && now !== h.startTime) return `process ${h.pid} is now another program (it started later)`;
  }
  return undefined;
}

type Removal = 'removed' | 'changed' | 'busy';

/** Removes `file` if it still holds exactly `raw`, never racing another remover (see the file header). */
function removeStale(file: string, raw: string, command: string, depth = 0): Removal {
  const guard = `${file}.takeover-${createHash('sha256').update(raw).digest('hex').slice(0, 16)}`;
  if (createExclusive(guard, `${JSON.stringify(newHolder(command))}\n`)) {
    try {
      const now = readLockFile(file);
      if (now?.raw !== raw) return 'changed';
      unlinkSync(file);
      return 'removed';
    } finally {
      try {
        unlinkSync(guard);
      } catch {
        // Nobody else removes a live guard; nothing to do.
      }
    }
  }
  const other = readLockFile(guard);
  // A guard of a remover that died between creating and removing it: clear it, then retry.
  if (other && depth < 2 && staleReason(other)) removeStale(guard, other.raw, command, depth + 1);
  return 'busy';
}

function describeHolder(h: DirLockHolder): string {
  const self = h.pid === process.pid && h.hostname === osHostname();
  const who = self ? `this process (pid ${h.pid})` : `process ${h.pid}`;
  return `${who} on ${h.hostname} (${h.command}), since ${h.since}`;
}

function lockedError(directory: string, file: string, found: Found): ConflictError {
  const h = found.holder;
  const message = h
    ? `The directory ${directory} is in use by ${describeHolder(h)}; a second process would corrupt it.`
    : `The directory ${directory} is being locked by another process right now; a second process would corrupt it.`;
  const hint =
    h && h.hostname !== osHostname()
      ? `Stop that process first. Its machine cannot be checked from here: if it is gone for good, delete ${file}.`
      : 'Stop that process first, or use what it offers instead; a lock left by a process that has ended is taken over automatically.';
  return new ConflictError(message, {
    code: 'store/locked',
    diagnostics: [createDiagnostic({ code: 'store/locked', message, hint })],
  });
}

function releaseAllOnExit(): void {
  for (const release of [...heldLocks]) release();
}

/**
 * Takes an exclusive lock on a directory for this process, creating the
 * directory when missing. The lock is a file inside it (see
 * {@link DirLockHolderSchema}), created atomically; it lasts until
 * `release()` or, by default, until the process exits normally. A process
 * killed outright leaves the file behind: the next caller finds its holder
 * gone (or its pid reused by a process that started later) and takes the
 * lock over, telling `onTakeover`. Two callers that find the same stale lock
 * never both win. Synchronous; it waits at most about a second, and only
 * while another caller is in the middle of taking a lock over.
 *
 * Throws `ConflictError` (`store/locked`, with a hint) naming the holder's
 * pid, machine, command and start time when another process, or this one,
 * holds the lock; a holder on another machine is never judged stale.
 * Throws `SpecError` (`fs/unwritable`) when the directory or the lock file
 * cannot be made.
 *
 * @example
 * const lock = lockDirectory('./templates-db', { onTakeover: (m) => console.warn(m) });
 * try {
 *   // … open the embedded database in ./templates-db …
 * } finally {
 *   lock.release();
 * }
 */
export function lockDirectory(directory: string, options: DirLockOptions = {}): DirLock {
  const dir = resolve(directory);
  const file = join(dir, options.fileName ?? DIR_LOCK_FILE);
  const command = options.command ?? defaultCommand();
  const holder = newHolder(command);
  const text = `${JSON.stringify(holder)}\n`;
  const unwritable = (e: unknown) =>
    new SpecError(`The directory ${dir} cannot be locked: ${describeError(e)}`, {
      code: 'fs/unwritable',
      cause: e,
    });
  try {
    mkdirSync(dir, { recursive: true });
  } catch (e) {
    throw unwritable(e);
  }
  for (let attempt = 0; attempt < 200; attempt += 1) {
    let found: Found | undefined;
    try {
      if (createExclusive(file, text)) return held(dir, file, holder, text, options);
      found = readLockFile(file);
    } catch (e) {
      throw unwritable(e);
    }
    // Released between our attempt and the read: try again.
    if (!found) continue;
    const reason = staleReason(found);
    if (!reason) {
      // Being written right now (O_EXCL without links): wait for its content.
      if (!found.holder && attempt < 100) {
        pause(10);
        continue;
      }
      throw lockedError(dir, file, found);
    }
    let removal: Removal;
    try {
      removal = removeStale(file, found.raw, command);
    } catch (e) {
      throw unwritable(e);
    }
    if (removal === 'removed') {
      const previous = found.holder;
      const who = previous ? describeHolder(previous) : 'an unknown process';
      const said = `Took over the lock on ${dir} left by ${who}: ${reason}. If it stopped in the middle of a write, that write is lost.`;
      options.onTakeover?.(said, previous);
    } else if (removal === 'busy') {
      pause(5);
    }
  }
  const last = readLockFile(file);
  throw lockedError(dir, file, last ?? { raw: '', holder: undefined, age: 0 });
}

function held(
  dir: string,
  file: string,
  holder: DirLockHolder,
  text: string,
  options: DirLockOptions,
): DirLock {
  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    heldLocks.delete(release);
    try {
      // Never remove a lock that is no longer ours (a takeover after a wrong verdict).
      const read = readTextFile(file, { maxBytes: MAX_LOCK_FILE_BYTES });
      if (read.ok && read.text === text) unlinkSync(file);
    } catch {
      // Already gone.
    }
  };
  if (options.releaseOnExit !== false) {
    heldLocks.add(release);
    if (!exitHook) {
      exitHook = true;
      process.on('exit', releaseAllOnExit);
    }
  }
  return { directory: dir, file, holder, release };
}

/**
 * The holder recorded in a directory's lock file, or `undefined` when the
 * directory is not locked (or the file names no holder). It does not judge
 * whether the holder still runs.
 */
export function readDirLockHolder(directory: string, fileName = DIR_LOCK_FILE): DirLockHolder | undefined {
  return readLockFile(join(resolve(directory), fileName))?.holder;
}
