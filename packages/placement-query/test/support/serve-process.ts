// `stackspec-placement` as a separate process, started as a user starts it
// (built under STACKSPEC_REQUIRE_BUILT=1, from source otherwise: test-support's
// binArgs), for the suites that kill servers and start them again.
import { type ChildProcess, spawn } from 'node:child_process';
import { binArgs, binEnv } from '../../../../test-support/bin.js';

/** Settings of the caller's shell that would point the command at another store. */
const CLEAN_ENV = { STACKSPEC_DATABASE_URL: undefined, STACKSPEC_DATA_DIR: undefined } as const;

/** A running `stackspec-placement` process. */
export interface PlacementProcess {
  child: ChildProcess;
  /** What it printed on standard output so far. */
  out(): string;
  /** What it printed on standard error so far. */
  err(): string;
  /** Exit code (null after a signal) once it has ended. */
  exited: Promise<number | null>;
}

/** A server that printed its banner. */
export interface PlacementServer extends PlacementProcess {
  url: string;
  /** Its process id. */
  pid: number;
  /** Ends it with SIGKILL (nothing flushed, no lock released) and waits for it to be gone. */
  kill9(): Promise<void>;
  /** Ends it with SIGTERM and resolves with its exit code. */
  stop(): Promise<number | null>;
}

/** Environment variables for the command, on top of the caller's (undefined: unset). */
export type ExtraEnv = Readonly<Record<string, string | undefined>>;

/** Starts `stackspec-placement <args>` in `cwd`. */
export function startPlacement(args: readonly string[], cwd: string, env: ExtraEnv = {}): PlacementProcess {
  const child = spawn(process.execPath, [...binArgs('stackspec-placement'), ...args], {
    cwd,
    env: binEnv({ ...CLEAN_ENV, ...env }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout?.setEncoding('utf8').on('data', (s: string) => {
    out += s;
  });
  child.stderr?.setEncoding('utf8').on('data', (s: string) => {
    err += s;
  });
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  return { child, out: () => out, err: () => err, exited };
}

/** Starts `stackspec-placement serve --port 0 <args>` and resolves once it listens. */
export async function startServer(
  args: readonly string[],
  cwd: string,
  env: ExtraEnv = {},
): Promise<PlacementServer> {
  const p = startPlacement(['serve', '--port', '0', ...args], cwd, env);
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      p.child.kill('SIGKILL');
      reject(new Error(`serve did not start within 60 s:\n${p.err()}`));
    }, 60_000);
    const check = () => {
      const m = / on (http:\/\/\S+) with /.exec(p.err());
      if (m) {
        clearTimeout(timer);
        resolve(m[1] as string);
      }
    };
    p.child.stderr?.on('data', check);
    void p.exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`serve exited (${code}) before listening:\n${p.err()}`));
    });
  });
  return {
    ...p,
    url,
    pid: p.child.pid as number,
    async kill9() {
      if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
      await p.exited;
    },
    async stop() {
      p.child.kill('SIGTERM');
      return p.exited;
    },
  };
}

/** Runs `stackspec-placement <args>` to its end (killed after `timeout` ms). */
export async function runPlacement(
  args: readonly string[],
  cwd: string,
  env: ExtraEnv = {},
  timeout = 60_000,
): Promise<{ code: number | null; out: string; err: string; ms: number }> {
  const began = Date.now();
  const p = startPlacement(args, cwd, env);
  const timer = setTimeout(() => p.child.kill('SIGKILL'), timeout);
  try {
    const code = await p.exited;
    return { code, out: p.out(), err: p.err(), ms: Date.now() - began };
  } finally {
    clearTimeout(timer);
  }
}
