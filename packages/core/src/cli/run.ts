import { Command, CommanderError, Option } from 'commander';
import { describeError, isStackspecError } from '../errors.js';
import { type Colors, createColors } from './color.js';
import { formatDiagnostics } from './diagnostics.js';
import { LIST_FORMATS, OBJECT_FORMATS, type OutputFormat } from './output.js';
import { UsageError } from './usage-error.js';

/** Exit codes shared by every stackspec command. */
export const EXIT = {
  /** Everything passed. */
  ok: 0,
  /** The command ran and found problems (or the operation it asked for failed). */
  findings: 1,
  /** The command line or an input it names could not be used. */
  usage: 2,
  /**
   * The tool itself failed: an unexpected error (a bug) or a checker that
   * crashed. The same code as {@link EXIT.usage}, as ESLint and Biome do:
   * either way the result says nothing about the inputs.
   */
  failure: 2,
} as const;

/**
 * The exit code for a thrown value: usage and specification errors → 2;
 * validation findings, missing or conflicting resources and HTTP failures
 * → 1; anything unexpected → 2 (a failure of the tool itself, and the
 * message says it is a bug), never 1, which would read as "problems found".
 */
export function exitCodeFor(error: unknown): number {
  if (error instanceof CommanderError) return error.exitCode === 0 ? EXIT.ok : EXIT.usage;
  if (!isStackspecError(error)) return EXIT.failure;
  return error.kind === 'usage' || error.kind === 'spec' ? EXIT.usage : EXIT.findings;
}

/**
 * Standard input as a command reads it: anything `for await` can walk
 * chunk by chunk, such as `process.stdin` or `Readable.from(['text'])`.
 * Declared structurally so that the types of a package re-exporting
 * {@link CliIO} compile without `@types/node`.
 */
export type CliInput = AsyncIterable<string | Uint8Array>;

/** Where a command reads and writes; injectable so tests need no process. */
export interface CliIO {
  stdout: { write(text: string): unknown; isTTY?: boolean };
  /** `columns` is the terminal's width, which progress lines are cut to. */
  stderr: { write(text: string): unknown; isTTY?: boolean; columns?: number };
  env: Readonly<Record<string, string | undefined>>;
  cwd: string;
  stdin?: CliInput;
  /** Milliseconds since the epoch, for progress lines (default `Date.now`); tests inject a clock. */
  now?: () => number;
}

let brokenPipeHandled = false;

/**
 * A reader that goes away early (`stackspec … | head`) closes the pipe under
 * us: later writes fail with EPIPE, which Node would report as an unhandled
 * error and a crash. A command line tool ends quietly instead, as it would on
 * SIGPIPE; any other stream error is still raised.
 */
function endQuietlyOnBrokenPipe(stream: NodeJS.WriteStream): void {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
    process.exit(process.exitCode ?? EXIT.ok);
  });
}

/** The real process's streams and environment; a closed standard output ends the process quietly. */
export function processIO(): CliIO {
  if (!brokenPipeHandled) {
    brokenPipeHandled = true;
    endQuietlyOnBrokenPipe(process.stdout);
  }
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
    cwd: process.cwd(),
    stdin: process.stdin,
  };
}

/** Colours for standard error of `io`. */
export function stderrColors(io: CliIO): Colors {
  return createColors({ stream: io.stderr, env: io.env });
}

/** Options for {@link runCli}. */
export interface RunCliOptions {
  /**
   * How failures other than usage and specification errors are printed.
   * `stackspec` (default): `error: <message>` and a `hint:` line. `openstack`:
   * the bare message with `(HTTP <status>)` after it and no hint, as the
   * OpenStack client prints a request the service refused. In both styles an
   * error whose diagnostics point into files prints as a report; in the
   * `openstack` style it exits 2, since the file named on the command line
   * could not be used, while refused requests exit 1.
   */
  errorStyle?: 'stackspec' | 'openstack';
}

const HTTP_SUFFIX = /\(HTTP \d+\)$/;

/**
 * Runs a command body and turns whatever it throws into a message on
 * standard error and an exit code ({@link exitCodeFor}); never throws.
 * Core errors print their diagnostics (see {@link RunCliOptions} for the
 * OpenStack client's style); other errors print one line (and the stack
 * when `STACKSPEC_DEBUG` is set).
 *
 * @example
 * const io = processIO();
 * process.exitCode = await runCli(() => runMyCommand(process.argv.slice(2), io), io);
 */
export async function runCli(main: () => unknown, io: CliIO, options: RunCliOptions = {}): Promise<number> {
  try {
    const code = await main();
    return typeof code === 'number' ? code : EXIT.ok;
  } catch (error) {
    if (error instanceof CommanderError) return exitCodeFor(error);
    const c = stderrColors(io);
    if (isStackspecError(error)) {
      const located = error.diagnostics.some((d) => d.file !== undefined || d.line !== undefined);
      const refused = error.kind !== 'usage' && error.kind !== 'spec';
      if (options.errorStyle === 'openstack' && refused && !located) {
        const text = HTTP_SUFFIX.test(error.message)
          ? error.message
          : `${error.message} (HTTP ${error.status})`;
        io.stderr.write(`${text}\n`);
        return EXIT.findings;
      }
      if (located || error.diagnostics.length > 1) {
        io.stderr.write(`${formatDiagnostics(error.diagnostics, { colors: c })}\n`);
        if (options.errorStyle === 'openstack' && located) return EXIT.usage;
      } else {
        const hint = error.diagnostics[0]?.hint;
        io.stderr.write(`${c.red('error:')} ${error.message}\n${hint ? `${c.dim('hint:')} ${hint}\n` : ''}`);
      }
    } else {
      io.stderr.write(`${c.red('internal error:')} ${describeError(error)}\n`);
      if (io.env.STACKSPEC_DEBUG && error instanceof Error && error.stack)
        io.stderr.write(`${error.stack}\n`);
      else
        io.stderr.write(`${c.dim('This is a bug in stackspec; set STACKSPEC_DEBUG=1 to see the stack.')}\n`);
    }
    return exitCodeFor(error);
  }
}

/** Options for {@link createProgram}. */
export interface CreateProgramOptions {
  /** The version `--version` (and `-V`) prints; read it with `readPackageVersion`. */
  version?: string;
}

/**
 * A commander program wired to `io`: output goes to the given streams,
 * parse errors throw instead of exiting (so {@link runCli} maps them to
 * exit code 2), and `--help`/`--version` exit 0.
 */
export function createProgram(name: string, io: CliIO, options: CreateProgramOptions = {}): Command {
  const program = new Command(name);
  program
    .exitOverride()
    .showHelpAfterError('(add --help for usage)')
    .configureOutput({
      writeOut: (s) => void io.stdout.write(s),
      writeErr: (s) => void io.stderr.write(s),
    });
  if (options.version !== undefined) program.version(options.version, '-V, --version', 'print the version');
  return program;
}

/** Formats of reports from commands that check files: a linter's. */
export const REPORT_FORMATS = ['text', 'json', 'sarif', 'github'] as const;
export type ReportFormat = (typeof REPORT_FORMATS)[number];

/**
 * Adds `-f/--format <format>` with the given choices and default: the one
 * spelling of the output format on every stackspec command (the OpenStack
 * client's formats for lists and objects, a linter's for checks).
 */
export function addFormatOption(
  command: Command,
  choices: readonly string[],
  defaultFormat: string,
  description = 'output format',
): Command {
  return command.addOption(
    new Option('-f, --format <format>', description).choices(choices).default(defaultFormat),
  );
}

/** Parsed values of the options {@link addOutputOptions} adds. */
export interface OutputOptionValues {
  format: OutputFormat;
  column?: string[];
  noindent?: boolean;
}

/**
 * Adds the OpenStack client's output options to a command:
 * `-f/--format`, `-c/--column` (repeatable) and `--noindent`.
 */
export function addOutputOptions(
  command: Command,
  kind: 'list' | 'object',
  defaultFormat: OutputFormat = 'table',
): Command {
  const choices = kind === 'list' ? LIST_FORMATS : OBJECT_FORMATS;
  return command
    .addOption(new Option('-f, --format <format>', 'output format').choices(choices).default(defaultFormat))
    .addOption(
      new Option('-c, --column <name>', 'show only this column (repeatable)').argParser(
        (value: string, previous: string[] | undefined) => [...(previous ?? []), value],
      ),
    )
    .addOption(new Option('--noindent', 'do not indent JSON'));
}

/** Throws a `UsageError`; for command bodies that detect bad combinations themselves. */
export function usage(message: string, hint?: string): never {
  throw new UsageError(
    message,
    hint ? { diagnostics: [{ code: 'cli/usage', severity: 'error', message, path: '', hint }] } : {},
  );
}
