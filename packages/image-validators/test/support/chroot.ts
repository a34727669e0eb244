import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

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

/**
 * A `debootstrap --variant=minbase` tree of this machine's Debian release,
 * built once and reused from the cache. Returns the root and how long the
 * build took (0 when it came from the cache).
 */
export function ensureChroot(): { root: string; builtInMs: number; mirror: string; suite: string } {
  const suite = codename();
  const mirror = debianMirror();
  const root = join(chrootCacheDir(), `image-validators-${suite}-minbase`);
  if (existsSync(join(root, DONE))) return { root, builtInMs: 0, mirror, suite };
  mkdirSync(chrootCacheDir(), { recursive: true });
  const partial = `${root}.partial-${process.pid}`;
  rmSync(partial, { recursive: true, force: true });
  const started = Date.now();
  const r = spawnSync('debootstrap', ['--variant=minbase', suite, partial, mirror], { encoding: 'utf8' });
  if (r.status !== 0) {
    throw new Error(`debootstrap failed (${r.status}): ${(r.stderr || r.stdout).slice(-2000)}`);
  }
  writeFileSync(join(partial, DONE), `${suite} ${mirror}\n`);
  rmSync(root, { recursive: true, force: true });
  renameSync(partial, root);
  return { root, builtInMs: Date.now() - started, mirror, suite };
}
