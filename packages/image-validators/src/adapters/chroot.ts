import { resolve } from 'node:path';
import {
  type ExecOptions,
  probeDistro,
  type Remote,
  RemoteError,
  replaceFileScript,
  type WriteFileOptions,
} from '../remote.js';
import { withEnv } from '../shell.js';
import { runProcess } from './process.js';

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

function isRoot(): boolean {
  return typeof process.getuid === 'function' && process.getuid() === 0;
}

/**
 * A system in a directory, entered with `chroot` (the calling process must be
 * root, or have passwordless sudo). Everything runs as root inside; files are
 * written from inside the chroot too, so symlinks in the tree cannot redirect
 * a write onto the host.
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
  const exec = (command: string, opts: ExecOptions = {}) =>
    runProcess(argv(withEnv(command, opts.env)), {
      env,
      ...(opts.input !== undefined ? { input: opts.input } : {}),
      ...timeout,
    });
  return {
    exec,
    async writeFile(path: string, content: string | Uint8Array, opts: WriteFileOptions = {}) {
      const r = await runProcess(argv(replaceFileScript(opts.mode), path), {
        env,
        input: content,
        ...timeout,
      });
      if (r.exitCode !== 0) {
        throw new RemoteError(`Could not write ${path} inside ${root}: ${r.stderr.trim()}`, {
          code: 'remote/write-failed',
        });
      }
    },
    distro: () => probeDistro((c) => exec(c)),
    async close() {},
  };
}
