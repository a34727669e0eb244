import { chmod, writeFile } from 'node:fs/promises';
import { describeError } from '@stackspec/core';
import { type ExecOptions, probeDistro, type Remote, RemoteError, type WriteFileOptions } from '../remote.js';
import { withEnv } from '../shell.js';
import { runProcess } from './process.js';

/** Options of {@link createLocalRemote}. */
export interface LocalRemoteOptions {
  /** Shell that runs commands; default `/bin/sh`. */
  shell?: string;
  /** Per-command time limit in milliseconds; default none. */
  timeoutMs?: number;
  /** Answer for `distro()` instead of reading /etc/os-release. */
  distro?: string;
}

function isRoot(): boolean {
  return typeof process.getuid === 'function' && process.getuid() === 0;
}

/**
 * The machine this process runs on. Commands run with `sh -c`; `asRoot`
 * goes through `sudo -n` unless the process is already root. Variables in
 * `env` are exported inside the command, so they survive sudo.
 *
 * @example
 * const report = await validateImage(spec, createLocalRemote(), { reconcile: false });
 */
export function createLocalRemote(options: LocalRemoteOptions = {}): Remote {
  const shell = options.shell ?? '/bin/sh';
  const timeout = options.timeoutMs ? { timeoutMs: options.timeoutMs } : {};
  const exec = (command: string, opts: ExecOptions = {}) => {
    const full = withEnv(command, opts.env);
    const argv = opts.asRoot && !isRoot() ? ['sudo', '-n', '--', shell, '-c', full] : [shell, '-c', full];
    return runProcess(argv, { ...(opts.input !== undefined ? { input: opts.input } : {}), ...timeout });
  };
  return {
    exec,
    async writeFile(path: string, content: string | Uint8Array, opts: WriteFileOptions = {}) {
      if (opts.asRoot && !isRoot()) {
        const mode = opts.mode !== undefined ? ` && chmod ${(opts.mode & 0o7777).toString(8)} "$1"` : '';
        const r = await runProcess(['sudo', '-n', '--', shell, '-c', `cat > "$1"${mode}`, 'sh', path], {
          input: content,
          ...timeout,
        });
        if (r.exitCode !== 0) {
          throw new RemoteError(`Could not write ${path} as root: ${r.stderr.trim()}`, {
            code: 'remote/write-failed',
          });
        }
        return;
      }
      try {
        await writeFile(path, content, opts.mode !== undefined ? { mode: opts.mode } : {});
        if (opts.mode !== undefined) await chmod(path, opts.mode);
      } catch (e) {
        throw new RemoteError(`Could not write ${path}: ${describeError(e)}`, {
          code: 'remote/write-failed',
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
