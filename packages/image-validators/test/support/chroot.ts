import { spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';

const DONE = '.stackspec-complete';

/** Where built chroots are kept between runs (CI can cache this folder). */
export function chrootCacheDir(): string {
  return process.env.STACKSPEC_CACHE_DIR ?? join(tmpdir(), 'stackspec-cache');
}

/** The Debian mirror apt on this machine uses (deb822 or one-line sources), unless STACKSPEC_DEBIAN_MIRROR says otherwise. */
export function debianMirror(): string {
  if (process.env.STACKSPEC_DEBIAN_MIRROR) return process.env.STACKSPEC_DEBIAN_MIRROR;
  const files = [
    '/etc/apt/sources.list',
    ...safeList('/etc/apt/sources.list.d').map((f) => join('/etc/apt/sources.list.d', f)),
  ];
  for (const f of files) {
    let text = '';
    try {
      text = readFileSync(f, 'utf8');
    } catch {
      continue;
    }
    const deb822 = /^URIs:\s*(\S+)/m.exec(text);
    if (deb822?.[1] && !/security/.test(deb822[1])) return deb822[1];
    const line = /^deb\s+(?:\[[^\]]*\]\s+)?(\S+)\s+\S+/m.exec(text);
    if (line?.[1] && !/security/.test(line[1])) return line[1];
  }
  return 'http://deb.debian.org/debian';
}

function safeList(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

function codename(): string {
  const text = readFileSync('/etc/os-release', 'utf8');
  return /^VERSION_CODENAME=(\S+)/m.exec(text)?.[1] ?? 'bookworm';
}

/** Whether a chroot can be built and entered here. */
export function chrootAvailable(): { ok: true } | { ok: false; reason: string } {
  if (process.getuid?.() !== 0) return { ok: false, reason: 'chroot needs root' };
  if (!existsSync('/usr/sbin/debootstrap')) return { ok: false, reason: 'debootstrap is not installed' };
  if (!existsSync('/etc/os-release')) return { ok: false, reason: 'no /etc/os-release' };
  return { ok: true };
}

/** Sleeps the thread (ensureChroot is synchronous, like the debootstrap it waits for). */
function sleepMs(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Takes `lock` (a file holding the owner's pid), waiting while a live process
 * holds it and taking it over from a dead one. Returns a release function.
 */
function takeLock(lock: string, waitMs: number): () => void {
  const deadline = Date.now() + waitMs;
  for (;;) {
    try {
      writeFileSync(lock, `${process.pid}\n`, { flag: 'wx' });
      return () => {
        // Only our own lock is removed, never one a later builder took over.
        if (readOr(lock) === `${process.pid}\n`) rmSync(lock, { force: true });
      };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
    const owner = Number.parseInt(readOr(lock), 10);
    if (Number.isInteger(owner) && owner > 0 && !alive(owner)) {
      // A builder that died: move its lock aside atomically, so only one waiter takes over.
      try {
        renameSync(lock, `${lock}.stale-${process.pid}`);
        rmSync(`${lock}.stale-${process.pid}`, { force: true });
      } catch {
        // Another waiter moved it first.
      }
      continue;
    }
    if (Date.now() > deadline)
      throw new Error(`${lock} is still held by process ${owner} after ${waitMs} ms`);
    sleepMs(1000);
  }
}

/**
 * Removes a build directory. A debootstrap that was killed leaves /proc and
 * /sys mounted inside its target, so those are unmounted (lazily, deepest
 * first) before anything is deleted.
 */
function removeBuild(dir: string): void {
  const mounts = readOr('/proc/mounts')
    .split('\n')
    .map((l) => l.split(' ')[1]?.replace(/\\040/g, ' ') ?? '')
    .filter((m) => m === dir || m.startsWith(`${dir}/`))
    .sort((a, b) => b.length - a.length);
  for (const m of mounts) spawnSync('umount', ['-l', m]);
  rmSync(dir, { recursive: true, force: true });
}

function readOr(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

/**
 * A `debootstrap --variant=minbase` tree of this machine's Debian release,
 * built once and reused from the cache. Returns the root and how long the
 * build took (0 when it came from the cache).
 *
 * Several processes may ask at once (CI and a developer share /tmp): one
 * builds under a lock file while the others wait, and a finished tree is
 * never removed or replaced, only a leftover without the completion mark.
 */
export function ensureChroot(): { root: string; builtInMs: number; mirror: string; suite: string } {
  const suite = codename();
  const mirror = debianMirror();
  const root = join(chrootCacheDir(), `image-validators-${suite}-minbase`);
  if (existsSync(join(root, DONE))) return { root, builtInMs: 0, mirror, suite };
  mkdirSync(chrootCacheDir(), { recursive: true });
  const release = takeLock(`${root}.lock`, 30 * 60 * 1000);
  try {
    // Someone else may have finished while we waited.
    if (existsSync(join(root, DONE))) return { root, builtInMs: 0, mirror, suite };
    // Builds of processes that died (we hold the lock, so no live process is building).
    const prefix = `${basename(root)}.partial-`;
    for (const name of safeList(chrootCacheDir())) {
      if (name.startsWith(prefix)) removeBuild(join(chrootCacheDir(), name));
    }
    const partial = `${root}.partial-${process.pid}`;
    const started = Date.now();
    const r = spawnSync('debootstrap', ['--variant=minbase', suite, partial, mirror], { encoding: 'utf8' });
    if (r.status !== 0) {
      removeBuild(partial);
      throw new Error(`debootstrap failed (${r.status}): ${(r.stderr || r.stdout).slice(-2000)}`);
    }
    writeFileSync(join(partial, DONE), `${suite} ${mirror}\n`);
    // Under the lock, a tree at `root` can only be an unfinished one from an older layout.
    if (existsSync(root)) removeBuild(root);
    renameSync(partial, root);
    return { root, builtInMs: Date.now() - started, mirror, suite };
  } finally {
    release();
  }
}

/**
 * A private copy of a cached tree for one test run, so that runs in parallel
 * (CI and a developer) never share a dpkg database and the cache stays as
 * debootstrap left it. `remove()` deletes the copy.
 */
export function privateCopy(root: string): { root: string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'siv-chroot-'));
  const copy = join(dir, 'root');
  const r = spawnSync('cp', ['-a', '--reflink=auto', root, copy], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`copying ${root} failed: ${r.stderr}`);
  return { root: copy, remove: () => removeBuild(dir) };
}
