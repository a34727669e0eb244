// The workspace's commands as processes, for tests that need more than
// test-support's runBin: a synchronous run as another user (to meet an
// unreadable file as root), a server left running, and shell lines that call
// the commands by name. Which entry runs (built under STACKSPEC_REQUIRE_BUILT=1,
// the sources otherwise) is test-support's binArgs.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { binArgs, binEnv, workspaceBins } from '../../../test-support/bin.js';
import { REPO_ROOT } from '../../../test-support/shared.js';

export { binEnv, USE_BUILT } from '../../../test-support/bin.js';
export const REPO = REPO_ROOT;
/** The workspace's tools (tsx…), as pnpm puts them on PATH for scripts. */
export const TSX_BIN = join(REPO, 'node_modules/.bin');

/** Writes an executable for each of the workspace's commands into `dir`, for shell lines that call them by name. */
export function writeShims(dir: string): void {
  for (const bin of workspaceBins().keys()) {
    const quoted = [process.execPath, ...binArgs(bin)].map((a) => `'${a.replace(/'/g, "'\\''")}'`).join(' ');
    writeFileSync(join(dir, bin), `#!/bin/sh\nexec ${quoted} "$@"\n`);
    chmodSync(join(dir, bin), 0o755);
  }
}

export interface RunOptions {
  cwd: string;
  env?: Record<string, string>;
  /** Run as user nobody (only possible as root; root reads every file). */
  asNobody?: boolean;
}

/** Output and exit code of one run. */
export interface RunResult {
  code: number | null;
  out: string;
  err: string;
}

/** Runs `stackspec ARGS` to completion. */
export function stackspec(args: readonly string[], options: RunOptions): RunResult {
  const r = spawnSync(process.execPath, [...binArgs('stackspec'), ...args], {
    cwd: options.cwd,
    encoding: 'utf8',
    env: options.env ?? binEnv(),
    timeout: 120_000,
    ...(options.asNobody && process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : {}),
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

/** A long-running `stackspec` (serve), with its output so far. */
export interface Running {
  child: ChildProcess;
  out(): string;
  err(): string;
  /** Resolves with the first match of `pattern` on standard output (rejects if the process ends first). */
  waitFor(pattern: RegExp): Promise<RegExpMatchArray>;
  /** Resolves with the exit code once the process ends. */
  exited: Promise<number | null>;
}

/** Starts `stackspec ARGS` in the background. */
export function startStackspec(args: readonly string[], options: RunOptions): Running {
  const child = spawn(process.execPath, [...binArgs('stackspec'), ...args], {
    cwd: options.cwd,
    env: options.env ?? binEnv(),
  });
  let out = '';
  let err = '';
  const listeners = new Set<() => void>();
  child.stdout.setEncoding('utf8').on('data', (s: string) => {
    out += s;
    for (const l of listeners) l();
  });
  child.stderr.setEncoding('utf8').on('data', (s: string) => {
    err += s;
  });
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  return {
    child,
    out: () => out,
    err: () => err,
    exited,
    waitFor: (pattern) =>
      new Promise((resolve, reject) => {
        const check = () => {
          const m = out.match(pattern);
          if (m) {
            listeners.delete(check);
            resolve(m);
          }
        };
        listeners.add(check);
        check();
        void exited.then((code) => {
          listeners.delete(check);
          reject(new Error(`stackspec exited (${code}) before printing ${pattern}:\n${out}\n${err}`));
        });
      }),
  };
}

/** Runs a shell command line with `shimDir` and the workspace's tools on PATH. */
export function shell(command: string, options: RunOptions & { shimDir: string }): RunResult {
  const env = options.env ?? binEnv();
  const r = spawnSync('/bin/sh', ['-c', command], {
    cwd: options.cwd,
    encoding: 'utf8',
    env: { ...env, PATH: `${options.shimDir}:${TSX_BIN}:${env.PATH ?? ''}` },
    timeout: 120_000,
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}
