// The workspace's commands as processes, for tests that need more than
// test-support's runBin: a synchronous run as another user (to meet an
// unreadable file as root), a server left running, and shell lines that call
// the commands by name. Which entry runs (built under STACKSPEC_REQUIRE_BUILT=1,
// the sources otherwise) is test-support's binArgs.
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { binArgs, binEnv, type StartedBin, startBin, workspaceBins } from '../../../test-support/bin.js';
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
export type Running = StartedBin;

/** Starts `stackspec ARGS` in the background. */
export function startStackspec(args: readonly string[], options: RunOptions): Running {
  return startBin('stackspec', args, { cwd: options.cwd, env: options.env ?? binEnv() });
}

/** `stackspec serve` over a throwaway folder, for the length of a suite. */
export interface ServedFolder {
  /** The folder, under `os.tmpdir()`. */
  readonly dir: string;
  readonly server: Running;
  /** Where it serves, `http://127.0.0.1:<port>`. */
  readonly url: string;
}

/**
 * Before the suite's tests, writes `files` into a new temporary folder and
 * starts `stackspec serve --port 0 ARGS` there, waiting until it listens;
 * after them, stops it with SIGTERM, waits for its end and deletes the
 * folder. Call at the top of a test file; read the fields inside tests.
 */
export function serveFolderForSuite(
  prefix: string,
  files: Readonly<Record<string, string>>,
  args: readonly string[],
): ServedFolder {
  let dir: string | undefined;
  let server: Running | undefined;
  let url: string | undefined;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), prefix));
    for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
    server = startStackspec(['serve', '--port', '0', ...args], { cwd: dir });
    url = (await server.waitFor(/stackspec serving on (http:\/\/\S+)/))[1] as string;
  }, 120_000);
  afterAll(async () => {
    server?.child.kill('SIGTERM');
    await server?.exited;
    if (dir) rmSync(dir, { recursive: true, force: true });
  });
  const ready = <T>(value: T | undefined): T => {
    if (value === undefined)
      throw new Error('stackspec serve has not started: read the fields inside a test');
    return value;
  };
  return {
    get dir() {
      return ready(dir);
    },
    get server() {
      return ready(server);
    },
    get url() {
      return ready(url);
    },
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
