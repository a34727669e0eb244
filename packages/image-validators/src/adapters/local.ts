import { randomBytes } from 'node:crypto';
import { chmod, rename, rm, writeFile } from 'node:fs/promises';
import { userInfo } from 'node:os';
import { dirname, join } from 'node:path';
import { describeError } from '@stackspec/core';
import {
  type ExecOptions,
  probeDistro,
  type Remote,
  RemoteError,
  replaceFileScript,
  type WriteFileOptions,
} from '../remote.js';
import { withEnv } from '../shell.js';
import { createLocalSudoCheck, isRoot, runProcess } from './process.js';

/** Options of {@link createLocalRemote}. */
export interface LocalRemoteOptions {
  /** Shell that runs commands; default `/bin/sh`. */
  shell?: string;
  /** Per-command time limit in milliseconds; default none. */
  timeoutMs?: number;
  /** Answer for `distro()` instead of reading /etc/os-release. */
  distro?: string;
}

function userName(): string {
  try {
    return userInfo().username;
  } catch {
    return `uid ${process.getuid?.() ?? '?'}`;
  }
}

/**
 * The machine this process runs on. Commands run with `sh -c`; `asRoot`
 * goes through `sudo -n` unless the process is already root. Variables in
 * `env` are exported inside the command, so they survive sudo.
 *
 * Errors (`RemoteError`): `image/remote/spawn-failed`, `image/remote/timeout`,
 * `image/remote/write-failed`, `image/remote/unknown-distro`, and `image/remote/sudo-failed`
 * when a root command is asked for and `sudo -n true` fails (checked once).
 *
 * @example
 * const report = await validateImage(spec, createLocalRemote(), { reconcile: false });
 */
export function createLocalRemote(options: LocalRemoteOptions = {}): Remote {
  const shell = options.shell ?? '/bin/sh';
  const timeout = options.timeoutMs ? { timeoutMs: options.timeoutMs } : {};
  const sudoReady = createLocalSudoCheck(timeout, `the user ${userName()} of this process`);
  const exec = async (command: string, opts: ExecOptions = {}) => {
    const full = withEnv(command, opts.env);
    const sudo = opts.asRoot && !isRoot();
    if (sudo) await sudoReady();
    const argv = sudo ? ['sudo', '-n', '--', shell, '-c', full] : [shell, '-c', full];
    return runProcess(argv, { ...(opts.input !== undefined ? { input: opts.input } : {}), ...timeout });
  };
  return {
    exec,
    async writeFile(path: string, content: string | Uint8Array, opts: WriteFileOptions = {}) {
      if (opts.asRoot && !isRoot()) {
        await sudoReady();
        const r = await runProcess(
          ['sudo', '-n', '--', shell, '-c', replaceFileScript(opts.mode), 'sh', path],
          {
            input: content,
            ...timeout,
          },
        );
        if (r.exitCode !== 0) {
          throw new RemoteError(`Could not write ${path} as root: ${r.stderr.trim()}`, {
            code: 'image/remote/write-failed',
          });
        }
        return;
      }
      // Write beside the target, then rename over it: a symlink at the target is replaced, not followed.
      const temp = join(dirname(path), `.siv-write-${randomBytes(8).toString('hex')}`);
      try {
        await writeFile(temp, content, {
          flag: 'wx',
          ...(opts.mode !== undefined ? { mode: opts.mode } : {}),
        });
        if (opts.mode !== undefined) await chmod(temp, opts.mode);
        await rename(temp, path);
      } catch (e) {
        await rm(temp, { force: true });
        throw new RemoteError(`Could not write ${path}: ${describeError(e)}`, {
          code: 'image/remote/write-failed',
          cause: e,
        });
      }
    },
    async distro() {
      if (options.distro) return options.distro.toLowerCase();
      return probeDistro((c) => exec(c));
    },
    async close() {},
  };
}
