// Runs a workspace package's command as a user runs it: a separate process,
// real streams, real exit codes. CI builds first and sets
// STACKSPEC_REQUIRE_BUILT=1, so the built bin (`dist/bin/<name>.js`, and the
// built packages behind it) is what runs there, and a missing build is an
// error; elsewhere the TypeScript source runs through tsx with the
// `@stackspec/source` condition, since a local dist may be stale.
//
// Commands are found by name in the `bin` field of packages/*/package.json:
// the built file is the path listed there, the source the same path with
// `dist/` → `src/` and `.js` → `.ts` (the rule of the root tsup.config.ts).
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { REPO_ROOT } from './shared.js';

/** True when processes run the built bins (STACKSPEC_REQUIRE_BUILT=1, as CI sets after building). */
export const USE_BUILT = process.env.STACKSPEC_REQUIRE_BUILT === '1';

/**
 * tsx's loader by absolute URL, for `node --import` in a process that runs
 * TypeScript: such processes may run in a temporary folder, where a bare
 * `tsx` would not resolve.
 */
export const TSX_LOADER = pathToFileURL(
  join(dirname(createRequire(import.meta.url).resolve('tsx/package.json')), 'dist/loader.mjs'),
).href;

/** Where a workspace command lives. */
export interface WorkspaceBin {
  /** The package folder, such as `<repo>/packages/cli`. */
  packageDir: string;
  /** `dist/bin/<name>.js` (may not exist until built). */
  built: string;
  /** `src/bin/<name>.ts`. */
  source: string;
}

let bins: Map<string, WorkspaceBin> | undefined;

/** Every command the workspace's packages declare, by name. */
export function workspaceBins(): ReadonlyMap<string, WorkspaceBin> {
  if (bins) return bins;
  bins = new Map();
  const packages = join(REPO_ROOT, 'packages');
  for (const name of readdirSync(packages).sort()) {
    const manifest = join(packages, name, 'package.json');
    if (!existsSync(manifest)) continue;
    const bin = (JSON.parse(readFileSync(manifest, 'utf8')) as { bin?: Record<string, string> | string }).bin;
    if (bin === undefined) continue;
    const entries = typeof bin === 'string' ? [[name, bin] as const] : Object.entries(bin);
    for (const [command, target] of entries) {
      const packageDir = join(packages, name);
      bins.set(command, {
        packageDir,
        built: join(packageDir, target),
        source: join(packageDir, target.replace(/^(\.\/)?dist\//, 'src/').replace(/\.js$/, '.ts')),
      });
    }
  }
  return bins;
}

/**
 * The `node` arguments that start a workspace command: the built file when
 * {@link USE_BUILT}, else its source through tsx. Spawn them with
 * `process.execPath` for a process you manage yourself (a server you stop
 * with a signal). Throws for an unknown command, and when the build is
 * required but missing.
 */
export function binArgs(command: string): string[] {
  const bin = workspaceBins().get(command);
  if (!bin) {
    throw new Error(
      `no workspace package has the command ${command}; known: ${[...workspaceBins().keys()].join(', ')}`,
    );
  }
  if (USE_BUILT) {
    if (!existsSync(bin.built)) {
      throw new Error(`STACKSPEC_REQUIRE_BUILT is set but ${bin.built} is missing; run pnpm build first`);
    }
    return [bin.built];
  }
  return ['--conditions=@stackspec/source', '--import', TSX_LOADER, bin.source];
}

/** Options for {@link runBin}. */
export interface RunBinOptions {
  /** Text (or bytes) on standard input; without it standard input is empty and closed. */
  stdin?: string | Uint8Array;
  /**
   * Variables set over the default environment, which is this process's
   * without FORCE_COLOR and CI and with NO_COLOR=1; `undefined` removes one.
   */
  env?: Readonly<Record<string, string | undefined>>;
  /** Working directory (default `process.cwd()`). */
  cwd?: string;
  /** Milliseconds before the process is killed and the promise rejects (default 120000). */
  timeout?: number;
}

/** How a command ended and what it printed. */
export interface RunBinResult {
  /** Exit code; `null` when a signal ended the process. */
  code: number | null;
  /** The signal that ended it, if any. */
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** The environment {@link runBin} gives a command: see {@link RunBinOptions.env}. */
export function binEnv(extra: Readonly<Record<string, string | undefined>> = {}): Record<string, string> {
  const env: Record<string, string | undefined> = { ...process.env, NO_COLOR: '1', ...extra };
  if (!('FORCE_COLOR' in extra)) delete env.FORCE_COLOR;
  if (!('CI' in extra)) delete env.CI;
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined) out[k] = v;
  return out;
}

/**
 * Runs a workspace command (`stackspec`, `stackspec-placement`, …) to its
 * end, built or from source as {@link binArgs} decides. Asynchronous, so a
 * server in the calling test process can answer the command. Rejects when
 * the process cannot start or runs past `timeout` (it is killed, and the
 * error quotes what it printed); a non-zero exit is a result, not an error.
 *
 * @example
 * const r = await runBin('stackspec-extra-specs', ['validate', '-'], { stdin: 'hw:cpu_policy: x\n' });
 * expect(r.code).toBe(1);
 */
export function runBin(
  command: string,
  args: readonly string[],
  options: RunBinOptions = {},
): Promise<RunBinResult> {
  const timeout = options.timeout ?? 120_000;
  return new Promise((resolve, reject) => {
    let child: ReturnType<typeof spawn>;
    try {
      child = spawn(process.execPath, [...binArgs(command), ...args], {
        cwd: options.cwd ?? process.cwd(),
        env: binEnv(options.env),
        stdio: ['pipe', 'pipe', 'pipe'],
      });
    } catch (e) {
      reject(e);
      return;
    }
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    child.stdout?.on('data', (b: Buffer) => stdout.push(b));
    child.stderr?.on('data', (b: Buffer) => stderr.push(b));
    // A command that exits without reading its input closes the pipe: not a failure.
    child.stdin?.on('error', () => undefined);
    child.stdin?.end(options.stdin ?? '');
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, timeout);
    child.once('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      const out = Buffer.concat(stdout).toString('utf8');
      const err = Buffer.concat(stderr).toString('utf8');
      if (timedOut) {
        reject(
          new Error(
            `${command} ${args.join(' ')} did not finish within ${timeout} ms and was killed\n--- stdout\n${out}\n--- stderr\n${err}`,
          ),
        );
        return;
      }
      resolve({ code, signal, stdout: out, stderr: err });
    });
  });
}

/** Options for {@link startBin}. */
export interface StartBinOptions {
  /** Working directory (default `process.cwd()`). */
  cwd?: string;
  /** The whole environment of the command (default {@link binEnv}`()`). */
  env?: NodeJS.ProcessEnv;
  /** Standard input: a pipe left open (the default), or none. */
  stdin?: 'pipe' | 'ignore';
}

/** A workspace command running in the background, with what it has printed so far. */
export interface StartedBin {
  child: ChildProcess;
  /** Standard output so far. */
  out(): string;
  /** Standard error so far. */
  err(): string;
  /** Resolves with the first match of `pattern` on `stream` (default stdout); rejects if the process ends first. */
  waitFor(pattern: RegExp, stream?: 'stdout' | 'stderr'): Promise<RegExpMatchArray>;
  /** Resolves with the exit code (null after a signal) once the process has ended and its streams closed. */
  exited: Promise<number | null>;
}

/**
 * Starts a workspace command in the background, built or from source as
 * {@link binArgs} decides: for a server the test talks to and then stops
 * with a signal. The caller kills it and awaits `exited`.
 */
export function startBin(
  command: string,
  args: readonly string[],
  options: StartBinOptions = {},
): StartedBin {
  const child = spawn(process.execPath, [...binArgs(command), ...args], {
    cwd: options.cwd ?? process.cwd(),
    env: options.env ?? binEnv(),
    stdio: [options.stdin ?? 'pipe', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  const listeners = new Set<() => void>();
  child.stdout?.setEncoding('utf8').on('data', (s: string) => {
    out += s;
    for (const l of listeners) l();
  });
  child.stderr?.setEncoding('utf8').on('data', (s: string) => {
    err += s;
    for (const l of listeners) l();
  });
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  return {
    child,
    out: () => out,
    err: () => err,
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
