// Runs `stackspec` as a user runs it: a separate process, real streams, real
// exit codes. CI builds first and sets STACKSPEC_REQUIRE_BUILT=1, so the built
// bin (and the built packages behind it) is what runs there; elsewhere the
// same entry point runs from source, since a local dist may be stale.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';

const PKG = join(__dirname, '..');
export const REPO = join(PKG, '../..');
const BUILT = join(PKG, 'dist/bin/stackspec.js');
export const USE_BUILT = process.env.STACKSPEC_REQUIRE_BUILT === '1';
// tsx's loader by absolute URL: processes may run in a temporary folder.
const TSX_LOADER = pathToFileURL(
  join(dirname(createRequire(__filename).resolve('tsx/package.json')), 'dist/loader.mjs'),
).href;
export const TSX_BIN = join(REPO, 'node_modules/.bin');

/** The workspace's commands: name → package folder. */
export const BINS: Readonly<Record<string, string>> = {
  stackspec: 'cli',
  'stackspec-extra-specs': 'extra-spec-validators',
  'stackspec-placement': 'placement-query',
  'stackspec-baremetal': 'deploy-templates',
  'stackspec-image': 'image-validators',
  'stackspec-heat': 'heat-capabilities',
};

/** Throws when the built CLI is required but missing (call from `beforeAll`). */
export function requireBuiltWhenAsked(): void {
  if (USE_BUILT && !existsSync(BUILT)) {
    throw new Error(`STACKSPEC_REQUIRE_BUILT is set but ${BUILT} is missing; run pnpm build first`);
  }
}

/** The node arguments that start one of the workspace's commands (built or from source). */
function binEntry(bin: string): string[] {
  const pkg = join(REPO, 'packages', BINS[bin] ?? 'cli');
  return USE_BUILT
    ? [join(pkg, 'dist/bin', `${bin}.js`)]
    : ['--conditions=@stackspec/source', '--import', TSX_LOADER, join(pkg, 'src/bin', `${bin}.ts`)];
}

/** The node arguments that start `stackspec` (built or from source). */
export function stackspecEntry(): string[] {
  return binEntry('stackspec');
}

/** Writes an executable for each of the workspace's commands into `dir`, for shell lines that call them by name. */
export function writeShims(dir: string): void {
  for (const bin of Object.keys(BINS)) {
    const quoted = [process.execPath, ...binEntry(bin)].map((a) => `'${a.replace(/'/g, "'\\''")}'`).join(' ');
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

/** The environment of a plain, colourless run. */
export function plainEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
  delete env.FORCE_COLOR;
  delete env.CI;
  return { ...env, NO_COLOR: '1', ...extra };
}

/** Runs `stackspec ARGS` to completion. */
export function stackspec(args: readonly string[], options: RunOptions): RunResult {
  const r = spawnSync(process.execPath, [...stackspecEntry(), ...args], {
    cwd: options.cwd,
    encoding: 'utf8',
    env: options.env ?? plainEnv(),
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
  const child = spawn(process.execPath, [...stackspecEntry(), ...args], {
    cwd: options.cwd,
    env: options.env ?? plainEnv(),
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

/** Runs a shell command line with `stackspec` and the workspace's tools on PATH. */
export function shell(command: string, options: RunOptions & { shimDir: string }): RunResult {
  const env = options.env ?? plainEnv();
  const r = spawnSync('/bin/sh', ['-c', command], {
    cwd: options.cwd,
    encoding: 'utf8',
    env: { ...env, PATH: `${options.shimDir}:${TSX_BIN}:${env.PATH ?? ''}` },
    timeout: 120_000,
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}
