// Workspace commands as separate processes for the reliability suites, with
// what they cost: wall time and the peak resident memory (VmHWM, sampled
// from /proc while they run; undefined where /proc is not). Which entry runs
// (built under STACKSPEC_REQUIRE_BUILT=1, the sources otherwise) is
// test-support's binArgs.
import { type ChildProcess, spawn } from 'node:child_process';
import { binArgs, binEnv } from '../../../../test-support/bin.js';
import { processMemoryMiB } from '../../../../test-support/memory.js';

/** Settings of the caller's shell that would point the commands elsewhere. */
export const CLEAN_ENV = {
  OS_ENDPOINT: undefined,
  OS_AUTH_TYPE: undefined,
  OS_TOKEN: undefined,
  OS_BAREMETAL_API_VERSION: undefined,
  STACKSPEC_DATABASE_URL: undefined,
  STACKSPEC_DATA_DIR: undefined,
} as const;

/** Peak resident memory of a process so far, in bytes (undefined without /proc). */
function peakMemory(pid: number | undefined): number | undefined {
  const mib = pid === undefined ? undefined : processMemoryMiB(pid)?.peak;
  return mib === undefined ? undefined : mib * 1024 * 1024;
}

/** A running command. */
export interface Started {
  child: ChildProcess;
  out(): string;
  err(): string;
  /** Milliseconds since it was started. */
  elapsed(): number;
  /** Highest peak resident memory seen so far, in bytes. */
  peak(): number | undefined;
  /** Resolves with the first match of `pattern` on `stream`; rejects if the process ends first. */
  waitFor(pattern: RegExp, stream?: 'stdout' | 'stderr'): Promise<RegExpMatchArray>;
  /** Exit code (null after a signal) once the process has ended. */
  exited: Promise<number | null>;
}

/** Starts a workspace command in the background. */
export function start(
  command: string,
  args: readonly string[],
  options: { cwd: string; env?: Record<string, string | undefined> },
): Started {
  const began = Date.now();
  const child = spawn(process.execPath, [...binArgs(command), ...args], {
    cwd: options.cwd,
    env: binEnv({ ...CLEAN_ENV, ...options.env }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  let peak: number | undefined;
  const sample = () => {
    const now = peakMemory(child.pid);
    if (now !== undefined) peak = Math.max(peak ?? 0, now);
  };
  const sampler = setInterval(sample, 50);
  const listeners = new Set<() => void>();
  child.stdout?.setEncoding('utf8').on('data', (s: string) => {
    out += s;
    for (const l of listeners) l();
  });
  child.stderr?.setEncoding('utf8').on('data', (s: string) => {
    err += s;
    for (const l of listeners) l();
  });
  child.on('exit', () => clearInterval(sampler));
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  return {
    child,
    out: () => out,
    err: () => err,
    elapsed: () => Date.now() - began,
    peak: () => {
      sample();
      return peak;
    },
    exited,
    waitFor: (pattern, stream = 'stdout') =>
      new Promise((resolve, reject) => {
        const check = () => {
          const m = (stream === 'stdout' ? out : err).match(pattern);
          if (m) {
            listeners.delete(check);
            resolve(m);
          }
        };
        listeners.add(check);
        check();
        void exited.then((code) => {
          listeners.delete(check);
          reject(new Error(`${command} exited (${code}) before printing ${pattern}:\n${out}\n${err}`));
        });
      }),
  };
}

/** How a command that ran to its end did, and what it cost. */
export interface Finished {
  code: number | null;
  out: string;
  err: string;
  /** Wall time, in milliseconds. */
  ms: number;
  /** Peak resident memory seen, in bytes (undefined without /proc). */
  peak: number | undefined;
}

/** Runs a workspace command to its end; a command still running after `timeout` ms is killed and rejects. */
export async function run(
  command: string,
  args: readonly string[],
  options: { cwd: string; env?: Record<string, string | undefined>; timeout?: number },
): Promise<Finished> {
  const p = start(command, args, options);
  const timeout = options.timeout ?? 60_000;
  let timer: NodeJS.Timeout | undefined;
  const hung = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      p.child.kill('SIGKILL');
      reject(
        new Error(`${command} ${args.join(' ')} still ran after ${timeout} ms:\n${p.out()}\n${p.err()}`),
      );
    }, timeout);
  });
  try {
    const code = await Promise.race([p.exited, hung]);
    return { code, out: p.out(), err: p.err(), ms: p.elapsed(), peak: p.peak() };
  } finally {
    clearTimeout(timer);
  }
}
