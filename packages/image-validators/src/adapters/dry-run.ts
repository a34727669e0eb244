import { requireString } from '@stackspec/core';
import { recognizePackageCommand, runScriptCommand, splitWords, TAR_COMMAND } from '../commands.js';
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

/**
 * Reads one shell word as `shellQuote` writes it (bare characters,
 * `'…'` runs that may span lines, backslash escapes) from `text` at `start`.
 * Returns the word and where it ends, or `undefined` when a quote never closes.
 */
function readWord(text: string, start: number): { word: string; end: number } | undefined {
  let word = '';
  let i = start;
  while (i < text.length) {
    const c = text[i] as string;
    if (c === "'") {
      const close = text.indexOf("'", i + 1);
      if (close < 0) return undefined;
      word += text.slice(i + 1, close);
      i = close + 1;
    } else if (c === '\\' && i + 1 < text.length) {
      word += text[i + 1];
      i += 2;
    } else if (c === '\n' || c === ' ' || c === '\t') {
      break;
    } else {
      word += c;
      i += 1;
    }
  }
  return { word, end: i };
}

/**
 * Splits a generated script file into its `export` lines and the body: the
 * inverse of `scriptFile`. Export lines are read while each is a whole
 * `export NAME=word` line; a line that is not (an unclosed quote, text after
 * the value) starts the body. A `#!` line above the exports stays on the body.
 */
export function parseScriptFile(content: string): SimulatedScript {
  requireString(content, 'The content of parseScriptFile', 'image/invalid-argument');
  let shebang = '';
  let pos = 0;
  if (content.startsWith('#!')) {
    const nl = content.indexOf('\n');
    if (nl >= 0 && content.startsWith('export ', nl + 1)) {
      shebang = content.slice(0, nl + 1);
      pos = nl + 1;
    }
  }
  const env: Record<string, string> = {};
  let exported = 0;
  for (;;) {
    const m = /^export ([A-Za-z_][A-Za-z0-9_]*)=/.exec(content.slice(pos, pos + 300));
    if (!m) break;
    const value = readWord(content, pos + m[0].length);
    if (!value || (value.end < content.length && content[value.end] !== '\n')) break;
    env[m[1] as string] = value.word;
    exported += 1;
    pos = Math.min(value.end + 1, content.length);
  }
  // Sahara puts one newline between the exports and the body; an empty export list leaves a blank first line.
  const rest = content.slice(pos);
  const body = exported === 0 && !shebang && rest.startsWith('\n') ? rest.slice(1) : rest;
  return { body: `${shebang}${body}`, env };
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
    const chmod = /^chmod \+x (.+)$/.exec(command);
    if (chmod) {
      const path = splitWords(chmod[1] as string)[0] ?? '';
      return files.has(path)
        ? done({})
        : done({ exitCode: 1, stderr: `chmod: cannot access '${path}': No such file or directory\n` });
    }
    // A written file run by its path, directly or as Sahara-mode `bash -c <path>`.
    const viaBash = /^bash -c (.+)$/.exec(command);
    const path = viaBash ? splitWords(splitWords(viaBash[1] as string)[0] ?? '')[0] : command;
    if (path !== undefined && files.has(path))
      return runScript({ ...parseScriptFile(files.get(path) as string), path });
    const parsed = recognizePackageCommand(command);
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
