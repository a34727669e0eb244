import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import {
  type ExecOptions,
  type ExecResult,
  probeDistro,
  type Remote,
  RemoteError,
  replaceFileScript,
  type WriteFileOptions,
} from '../remote.js';
import { withEnv } from '../shell.js';
import { createLocalSudoCheck, isRoot, runProcess } from './process.js';

/** Options of {@link createChrootRemote}. */
export interface ChrootRemoteOptions {
  /** The root directory of the system to validate (a debootstrap tree, a mounted image). */
  root: string;
  /** Per-command time limit in milliseconds; default none. */
  timeoutMs?: number;
  /** Environment inside the chroot; default a clean root environment (PATH, HOME=/root, LC_ALL=C). */
  env?: NodeJS.ProcessEnv;
}

const CLEAN_ENV: NodeJS.ProcessEnv = {
  PATH: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
  HOME: '/root',
  LC_ALL: 'C',
};

/**
 * A system in a directory, entered with `chroot` (the calling process must be
 * root, or have passwordless sudo). Everything runs as root inside; files are
 * written from inside the chroot too, so symlinks in the tree cannot redirect
 * a write onto the host.
 *
 * Errors (`RemoteError`): `image/remote/no-such-root` when `root` is not a
 * directory, `image/remote/chroot-failed` when `chroot` cannot enter it or run its
 * `/bin/sh`, `image/remote/sudo-failed` when not root and `sudo -n true` fails,
 * and `image/remote/spawn-failed`, `image/remote/timeout`, `image/remote/write-failed`.
 *
 * @example
 * const remote = createChrootRemote({ root: '/var/cache/stackspec/bookworm' });
 */
export function createChrootRemote(options: ChrootRemoteOptions): Remote {
  const root = resolve(options.root);
  const env = options.env ?? CLEAN_ENV;
  const timeout = options.timeoutMs ? { timeoutMs: options.timeoutMs } : {};
  const argv = (script: string, ...args: string[]) => [
    ...(isRoot() ? [] : ['sudo', '-n', '--']),
    'chroot',
    root,
    '/bin/sh',
    '-c',
    script,
    'sh',
    ...args,
  ];
  const sudoReady = createLocalSudoCheck({ env, ...timeout }, 'this process');
  // Checked on every call: the tree may be mounted or removed while the remote lives.
  const enter = async (script: string, args: string[], input: string | Uint8Array | undefined) => {
    // A user that is not root may be unable to look into a tree that sudo can enter: only a
    // missing path or a non-directory is known to be wrong here.
    const info = await stat(root).catch((e: NodeJS.ErrnoException) =>
      e.code === 'ENOENT' || e.code === 'ENOTDIR' ? undefined : 'unknown',
    );
    if (info !== 'unknown' && !info?.isDirectory()) {
      throw new RemoteError(`The chroot ${root} is not a directory, so it cannot be entered.`, {
        code: 'image/remote/no-such-root',
      });
    }
    if (!isRoot()) await sudoReady();
    const r = await runProcess(argv(script, ...args), {
      env,
      ...(input !== undefined ? { input } : {}),
      ...timeout,
    });
    // chroot exits 125-127 with "chroot: …" when it cannot enter the tree or start its /bin/sh.
    // Only a command that runs chroot itself inside the tree, and fails the same way, looks alike.
    if (r.exitCode >= 125 && r.exitCode <= 127 && r.stderr.startsWith('chroot: ')) {
      throw new RemoteError(`Could not enter the chroot ${root}: ${r.stderr.trim()}`, {
        code: 'image/remote/chroot-failed',
      });
    }
    return r;
  };
  const exec = async (command: string, opts: ExecOptions = {}): Promise<ExecResult> =>
    enter(withEnv(command, opts.env), [], opts.input);
  return {
    exec,
    async writeFile(path: string, content: string | Uint8Array, opts: WriteFileOptions = {}) {
      const r = await enter(replaceFileScript(opts.mode), [path], content);
      if (r.exitCode !== 0) {
        throw new RemoteError(`Could not write ${path} inside ${root}: ${r.stderr.trim()}`, {
          code: 'image/remote/write-failed',
        });
      }
    },
    distro: () => probeDistro((c) => exec(c)),
    async close() {},
  };
}
