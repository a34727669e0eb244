import { type CliIO, createProgram } from '@stackspec/core/cli';
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

/**
 * Runs the `stackspec` command line with `argv` (without the node and
 * script names) and returns the exit code: 0 when everything passed, 1 when
 * problems were found, 2 for usage errors and unusable inputs.
 */
export async function runStackspec(
  argv: readonly string[],
  io: CliIO,
  options: RunOptions = {},
): Promise<number> {
  let exitCode = 0;
  const program = createProgram('stackspec', io)
    .description('Check OpenStack artefacts and walk the path from a flavor to the deploy steps of a node.')
    .version(VERSION);
  const setExit = (code: number) => {
    exitCode = code;
  };
  addCheckCommand(program, io, options.checkers ?? defaultCheckers, setExit);
  addScheduleCommand(program, io, setExit);
  addServeCommand(program, io, options.onServeStarted);
  await program.parseAsync([...argv], { from: 'user' });
  return exitCode;
}
