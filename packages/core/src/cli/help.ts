import type { Command } from 'commander';

/** One example shown by `--help`: what it does, then the command line. */
export interface HelpExample {
  /** A short sentence, such as "Check every file under the current folder". */
  description: string;
  /** The command line, without the `$ ` prompt. */
  command: string;
}

/** The examples as `--help` prints them: a comment line, then the command. */
export function formatExamples(examples: readonly HelpExample[]): string {
  return `Examples:\n${examples.map((e) => `  # ${e.description}\n  $ ${e.command}`).join('\n\n')}`;
}

/**
 * Adds an "Examples:" section at the end of a command's `--help` (commander's
 * `addHelpText('after', …)`). Every stackspec command shows two or three.
 *
 * @example
 * addExamples(program.command('check'), [
 *   { description: 'Check the current folder', command: 'stackspec check' },
 * ]);
 */
export function addExamples<C extends Command>(command: C, examples: readonly HelpExample[]): C {
  command.addHelpText('after', `\n${formatExamples(examples)}`);
  return command;
}
