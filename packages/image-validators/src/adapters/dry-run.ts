import { parsePackageCommand, runScriptCommand, splitWords, TAR_COMMAND } from '../commands.js';
import type { ExecOptions, ExecResult, Remote, WriteFileOptions } from '../remote.js';
import { readTarArchive } from '../tar.js';

/** One thing a dry run was asked to do. */
export type RemoteCall =
  | { op: 'exec'; command: string; options: ExecOptions }
  | { op: 'writeFile'; path: string; content: string; options: WriteFileOptions }
  | { op: 'distro' };

/** A script the simulated machine was asked to run. */
export interface SimulatedScript {
  /** The script text after the exported variables. */
  body: string;
  /** Variables the script file exports, in order. */
  env: Record<string, string>;
  /** Where the file was written (Sahara-style runs), if anywhere. */
  path?: string;
}

/**
 * A machine model for dry runs: which packages are installed, which can be
 * installed, and how scripts answer. Package entries are names, or
 * `name-version` for pinned packages (`name=version` is read the same way).
 */
export interface SimulatedMachine {
  installed?: Iterable<string>;
  /** Packages an install can add; `'all'` (default) accepts any name. */
  installable?: Iterable<string> | 'all';
  /** How a script answers; default exit 0 with no output. */
  script?: (script: SimulatedScript) => Partial<ExecResult>;
}

/** Options of {@link createDryRunRemote}. */
export interface DryRunOptions {
  /** What `distro()` answers; default `ubuntu`. */
  distro?: string;
  /** Answers a call first; return `undefined` to fall through to the machine model. */
  respond?: (command: string, options: ExecOptions) => Partial<ExecResult> | undefined;
  /** Simulate package tools and scripts; without it every command succeeds with no output. */
  machine?: SimulatedMachine;
}

/** A remote that runs nothing: it records every call and answers from a script or a machine model. */
export interface DryRunRemote extends Remote {
  /** Every call, in order. */
  readonly calls: RemoteCall[];
  /** Packages the simulated machine has now (after simulated installs). */
  readonly installed: ReadonlySet<string>;
  /** Files written so far, by path. */
  readonly files: ReadonlyMap<string, string>;
}

function text(input: string | Uint8Array | undefined): string {
  if (input === undefined) return '';
  return typeof input === 'string' ? input : new TextDecoder().decode(input);
}

function normalise(word: string): string {
  const eq = word.indexOf('=');
  return eq > 0 ? `${word.slice(0, eq)}-${word.slice(eq + 1)}` : word;
}

/** Splits a generated script file into its `export` lines and the body. */
export function parseScriptFile(content: string): SimulatedScript {
  const lines = content.split('\n');
  let i = 0;
  if (lines[0]?.startsWith('#!') && lines[1]?.startsWith('export ')) i = 1;
  const env: Record<string, string> = {};
  const kept: string[] = [];
  if (i === 1) kept.push(lines[0] as string);
  for (; i < lines.length; i += 1) {
    const line = lines[i] as string;
    const m = /^export ([A-Za-z_][A-Za-z0-9_]*)=(.*)$/.exec(line);
    if (!m) break;
    // Quoted values may span lines; join until the quotes balance.
    let value = m[2] as string;
    while ((value.match(/'/g)?.length ?? 0) % 2 === 1 && i + 1 < lines.length) {
      i += 1;
      value += `\n${lines[i]}`;
    }
    env[m[1] as string] = value === '' ? '' : (splitWords(value)[0] ?? '');
  }
  // Sahara puts one newline between the exports and the body; an empty export list leaves a blank first line.
  const rest = lines.slice(i).join('\n');
  const body = i === 0 && rest.startsWith('\n') ? rest.slice(1) : rest;
  return { body: kept.length ? `${kept[0]}\n${body}` : body, env };
}

/**
 * Creates a dry-run remote. With no machine model every command exits 0 with
 * empty output (package checks then pass); with one, package checks,
 * installs and scripts behave like a machine in that state, so a whole
 * validation, failures included, can be rehearsed without touching anything.
 *
 * @example
 * const remote = createDryRunRemote({ distro: 'centos', machine: { installed: ['wget'] } });
 * const report = await validateImage(spec, remote, { reconcile: false });
 * remote.calls; // what would have run
 */
export function createDryRunRemote(options: DryRunOptions = {}): DryRunRemote {
  const calls: RemoteCall[] = [];
  const files = new Map<string, string>();
  const machine = options.machine;
  const installed = new Set<string>([...(machine?.installed ?? [])].map(normalise));
  const installable =
    machine?.installable === undefined || machine.installable === 'all'
      ? undefined
      : new Set([...machine.installable].map(normalise));
  const scriptCommand = runScriptCommand();
  const done = (r: Partial<ExecResult>): ExecResult => ({
    exitCode: r.exitCode ?? 0,
    stdout: r.stdout ?? '',
    stderr: r.stderr ?? '',
  });
  const runScript = (s: SimulatedScript) => done(machine?.script?.(s) ?? {});

  const simulate = (command: string, opts: ExecOptions): ExecResult => {
    if (!machine) return done({});
    if (command === scriptCommand) return runScript(parseScriptFile(text(opts.input)));
    if (command === TAR_COMMAND && opts.input !== undefined) {
      const archive = typeof opts.input === 'string' ? new TextEncoder().encode(opts.input) : opts.input;
      for (const f of readTarArchive(archive)) files.set(`/${f.path}`, new TextDecoder().decode(f.content));
      return done({});
    }
    const chmod = /^chmod \+x (\S+)$/.exec(command);
    if (chmod) {
      return files.has(chmod[1] as string)
        ? done({})
        : done({ exitCode: 1, stderr: `chmod: cannot access '${chmod[1]}': No such file or directory\n` });
    }
    if (files.has(command))
      return runScript({ ...parseScriptFile(files.get(command) as string), path: command });
    const parsed = parsePackageCommand(command);
    if (!parsed) return done({});
    const words = parsed.packages.map(normalise);
    if (parsed.kind === 'install') {
      const bad = words.filter((w) => installable && !installable.has(w) && !installed.has(w));
      if (bad.length) {
        return done({
          exitCode: 100,
          stderr: bad.map((w) => `E: Unable to locate package ${w}\n`).join(''),
        });
      }
      for (const w of words) installed.add(w);
      return done({ stdout: `Installed: ${words.join(' ')}\n` });
    }
    const missing = words.map((w, i) => [w, i] as const).filter(([w]) => !installed.has(w));
    if (parsed.kind === 'batch-check') {
      return done({ stdout: `${missing.map(([, i]) => `siv-missing:${i}\n`).join('')}siv-done\n` });
    }
    if (!missing.length && words.length) return done({});
    if (parsed.family === 'redhat') {
      return done({
        exitCode: missing.length || 1,
        stdout: missing.map(([w]) => `package ${w} is not installed\n`).join(''),
      });
    }
    return done({
      exitCode: 1,
      stderr: words.length
        ? missing
            .map(([w]) => `dpkg-query: package '${w}' is not installed and no information is available\n`)
            .join('')
        : 'dpkg: error: --status needs at least one package name argument\n',
    });
  };

  return {
    calls,
    installed,
    files,
    async exec(command, opts = {}) {
      calls.push({ op: 'exec', command, options: { ...opts } });
      const scripted = options.respond?.(command, opts);
      if (scripted) return done(scripted);
      return simulate(command, opts);
    },
    async writeFile(path, content, opts = {}) {
      const text = typeof content === 'string' ? content : new TextDecoder().decode(content);
      calls.push({ op: 'writeFile', path, content: text, options: { ...opts } });
      files.set(path, text);
    },
    async distro() {
      calls.push({ op: 'distro' });
      return (options.distro ?? 'ubuntu').toLowerCase();
    },
    async close() {},
  };
}
