import { addExamples, type CliIO, createProgram, type HelpExample } from '@stackspec/core/cli';
import type { Command } from 'commander';
import type { Checkers } from './check.js';
import { defaultCheckers } from './checkers.js';
import { addCheckCommand } from './commands/check.js';
import { addScheduleCommand } from './commands/schedule.js';
import { addServeCommand, type StackspecServer } from './commands/serve.js';
import { VERSION } from './version.js';

/** Test seams for {@link runStackspec}. */
export interface RunOptions {
  checkers?: () => Checkers;
  /** Called once `serve` listens; closing the server ends the command. */
  onServeStarted?: (server: StackspecServer) => void;
}

/** Examples in the help of `schedule` and `serve`, by command name. */
const SUBCOMMAND_EXAMPLES: Record<string, readonly HelpExample[]> = {
  schedule: [
    {
      description: 'Walk a flavor through the cloud described in a folder',
      command: 'stackspec schedule --flavor FlavorVMXMirror examples/cloud',
    },
    {
      description: 'Pick the node and print the whole result as JSON',
      command: 'stackspec schedule --flavor FlavorVMXMirror --node bm-02 examples/cloud -f json',
    },
  ],
  serve: [
    {
      description: 'Serve the APIs over a folder on port 8080',
      command: 'stackspec serve examples/cloud --port 8080',
    },
    {
      description: 'Keep deploy templates in PostgreSQL',
      command: 'stackspec serve examples/cloud --database-url postgres://localhost/stackspec',
    },
  ],
};

/** Examples shown by `stackspec --help`, and by the help of `schedule` and `serve`. */
function addHelpExamples(program: Command): void {
  addExamples(program, [
    { description: 'Check every file under the current folder', command: 'stackspec check' },
    {
      description: 'Walk a flavor to the deploy steps of its node, as JSON',
      command: 'stackspec schedule --flavor FlavorVMXMirror examples/cloud -f json',
    },
    { description: 'Serve every API over a folder', command: 'stackspec serve examples/cloud --port 8080' },
  ]);
  for (const [name, examples] of Object.entries(SUBCOMMAND_EXAMPLES)) {
    const sub = program.commands.find((c) => c.name() === name);
    if (sub) addExamples(sub, examples);
  }
}

/**
 * Runs the `stackspec` command line with `argv` (without the node and
 * script names) and returns the exit code: 0 when everything passed, 1 when
 * problems were found, 2 for usage errors, unusable inputs and failures of
 * the tool itself (a checker that crashed; anything thrown from here is
 * turned into exit code 2 by `runCli`).
 */
export async function runStackspec(
  argv: readonly string[],
  io: CliIO,
  options: RunOptions = {},
): Promise<number> {
  let exitCode = 0;
  const program = createProgram('stackspec', io, { version: VERSION }).description(
    'Check OpenStack artefacts and walk the path from a flavor to the deploy steps of a node.',
  );
  const setExit = (code: number) => {
    exitCode = code;
  };
  addCheckCommand(program, io, options.checkers ?? defaultCheckers, setExit);
  addScheduleCommand(program, io, setExit);
  addServeCommand(program, io, options.onServeStarted);
  addHelpExamples(program);
  await program.parseAsync([...argv], { from: 'user' });
  return exitCode;
}
