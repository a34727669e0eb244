// Workspace commands as separate processes for the reliability suites, with
// what they cost: wall time and the peak resident memory (VmHWM, sampled
// from /proc while they run; undefined where /proc is not). Which entry runs
// (built under STACKSPEC_REQUIRE_BUILT=1, the sources otherwise) is
// test-support's binArgs.
import { binEnv, type StartedBin, startBin } from '../../../../test-support/bin.js';
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

/** A running command, with what it costs. */
export interface Started extends StartedBin {
  /** Milliseconds since it was started. */
  elapsed(): number;
  /** Highest peak resident memory seen so far, in bytes. */
  peak(): number | undefined;
}

/** Starts a workspace command in the background. */
export function start(
  command: string,
  args: readonly string[],
  options: { cwd: string; env?: Record<string, string | undefined> },
): Started {
  const began = Date.now();
  const started = startBin(command, args, {
    cwd: options.cwd,
    env: binEnv({ ...CLEAN_ENV, ...options.env }),
    stdin: 'ignore',
  });
  const { child } = started;
  let peak: number | undefined;
  const sample = () => {
    const now = peakMemory(child.pid);
    if (now !== undefined) peak = Math.max(peak ?? 0, now);
  };
  const sampler = setInterval(sample, 50);
  child.on('exit', () => clearInterval(sampler));
  return {
    ...started,
    elapsed: () => Date.now() - began,
    peak: () => {
      sample();
      return peak;
    },
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
