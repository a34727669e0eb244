// The command-line convention every stackspec command follows, as one suite
// each package runs against its own command: `-f json` prints JSON,
// `--version` prints the package's version, exit codes 0 (clean), 1
// (findings), 2 (a usage error, or a failure of the tool itself), and
// `--help` of the program and of every subcommand ends with two or three
// examples. Commands run in-process against memory streams (a fake standard
// output that throws stands for a failure of the tool), and once as a
// process for `--version`, so that the version is read from package.json
// where the bin really runs (the sources, or the build in CI).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CliIO } from '@stackspec/core/cli';
import { describe, expect, it } from 'vitest';
import { runBin, workspaceBins } from './bin.js';
import { type MemoryIO, memoryIO } from './cli.js';

/** What one in-process run printed, and its exit code. */
export interface ConventionRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** A command and the command lines that show each part of the convention. */
export interface CliConventionOptions {
  /** The command's name, as in its package's `bin`. */
  command: string;
  /**
   * Runs a command line in-process and returns the exit code as the bin
   * would (through `runCli`), never throwing.
   */
  run: (argv: readonly string[], io: CliIO) => Promise<number>;
  /** The working directory for every run (read when the tests run, after `beforeAll`). */
  cwd: () => string;
  /** Command lines whose standard output must be JSON with `-f json` in them. */
  json: readonly (readonly string[])[];
  /** A command line that is a usage error (exit 2). */
  usage: readonly string[];
  /** A command line that finds problems (exit 1). */
  findings: readonly string[];
  /** A command line that finds nothing (exit 0). */
  clean: readonly string[];
  /** A command line that writes to standard output; it fails there (exit 2). */
  crash: readonly string[];
}

/** Runs `argv` in-process with memory streams; `stdout` may be replaced (a broken one). */
export async function runInProcess(
  options: Pick<CliConventionOptions, 'run' | 'cwd'>,
  argv: readonly string[],
  streams: { stdout?: CliIO['stdout']; env?: Record<string, string>; stdin?: string } = {},
): Promise<ConventionRun> {
  const memory: MemoryIO = memoryIO({
    cwd: options.cwd(),
    env: streams.env ?? { NO_COLOR: '1' },
    ...(streams.stdin === undefined ? {} : { stdin: streams.stdin }),
  });
  const io: CliIO = streams.stdout ? { ...memory, stdout: streams.stdout } : memory;
  const code = await options.run(argv, io);
  return { code, stdout: memory.out(), stderr: memory.err() };
}

/** The names under "Commands:" in a `--help` text, `help` left out. */
export function subcommandsOf(help: string): string[] {
  const section = /\nCommands:\n([\s\S]*?)(?:\n\n|$)/.exec(help)?.[1] ?? '';
  return section
    .split('\n')
    .map((line) => /^ {2}([a-z][\w-]*)/.exec(line)?.[1])
    .filter((name): name is string => name !== undefined && name !== 'help');
}

/** How many examples a help text ends with (`$ ` lines after "Examples:"). */
export function examplesIn(help: string): number {
  const at = help.lastIndexOf('\nExamples:\n');
  if (at < 0) return 0;
  return help
    .slice(at)
    .split('\n')
    .filter((line) => line.startsWith('  $ ')).length;
}

/** The package.json of the package that ships `command`. */
export function manifestOf(command: string): { name: string; version: string } {
  const bin = workspaceBins().get(command);
  if (!bin) throw new Error(`no workspace package has the command ${command}`);
  return JSON.parse(readFileSync(join(bin.packageDir, 'package.json'), 'utf8'));
}

/** Declares the convention's tests for one command. */
export function describeCliConvention(options: CliConventionOptions): void {
  const run = (argv: readonly string[], streams?: Parameters<typeof runInProcess>[2]) =>
    runInProcess(options, argv, streams);

  describe(`${options.command} follows the command-line convention`, () => {
    it.each(options.json.map((argv) => [argv.join(' '), argv] as const))(
      'prints JSON for -f json: %s',
      async (_, argv) => {
        expect(argv).toContain('json');
        const r = await run(argv);
        expect(r.code, r.stderr).toBe(0);
        expect(() => JSON.parse(r.stdout), r.stdout).not.toThrow();
      },
    );

    it("prints its package's version with --version and -V", async () => {
      const { version } = manifestOf(options.command);
      expect(version).toMatch(/^\d+\.\d+\.\d+/);
      for (const flag of ['--version', '-V']) {
        const r = await run([flag]);
        expect([r.code, r.stdout]).toEqual([0, `${version}\n`]);
      }
    });

    it("prints its package's version as a process too, read where the bin runs", async () => {
      const r = await runBin(options.command, ['--version']);
      expect([r.code, r.stdout, r.stderr]).toEqual([0, `${manifestOf(options.command).version}\n`, '']);
    });

    it('exits 2 for a usage error', async () => {
      const r = await run(options.usage);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).not.toBe('');
    });

    it('exits 1 when it finds problems and 0 when it finds none', async () => {
      const found = await run(options.findings);
      expect(found.code, found.stdout + found.stderr).toBe(1);
      const clean = await run(options.clean);
      expect(clean.code, clean.stdout + clean.stderr).toBe(0);
    });

    it('exits 2, not 1, when the tool itself fails', async () => {
      const broken = {
        write: () => {
          throw new TypeError('standard output is broken');
        },
      };
      const r = await run(options.crash, { stdout: broken });
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('internal error: standard output is broken');
    });

    it('ends the --help of the program and of every subcommand with two or three examples', async () => {
      const seen: string[] = [];
      const visit = async (path: readonly string[]) => {
        const r = await run([...path, '--help']);
        expect(r.code, path.join(' ')).toBe(0);
        const commands = subcommandsOf(r.stdout);
        // A group of commands (`deploy`, `deploy template`) needs none of its own.
        if (!path.length || !commands.length) {
          const n = examplesIn(r.stdout);
          expect(n >= 2 && n <= 3, `${[options.command, ...path].join(' ')} --help has ${n} examples`).toBe(
            true,
          );
          seen.push(path.join(' '));
        }
        for (const name of commands) await visit([...path, name]);
      };
      await visit([]);
      expect(seen.length).toBeGreaterThan(1);
    });
  });
}
