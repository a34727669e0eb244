import { Option } from 'commander';
import { createColors } from './color.js';

/** Where {@link warnDeprecated} writes: standard error, and the environment for colours. */
export interface DeprecationIO {
  stderr: { write(text: string): unknown; isTTY?: boolean };
  env: Readonly<Record<string, string | undefined>>;
}

/**
 * The note printed when an old spelling is used:
 * `warning: --json is deprecated and will be removed in the next minor version; use -f json instead.`
 */
export function deprecationNote(used: string, replacement: string): string {
  return `${used} is deprecated and will be removed in the next minor version; use ${replacement} instead.`;
}

/**
 * Prints {@link deprecationNote} on standard error. Old flags keep working
 * for one minor version after their replacement ships, and say so each time
 * they are used; standard output is left as the new spelling would leave it.
 */
export function warnDeprecated(io: DeprecationIO, used: string, replacement: string): void {
  const c = createColors({ stream: io.stderr, env: io.env });
  io.stderr.write(`${c.yellow('warning:')} ${deprecationNote(used, replacement)}\n`);
}

/**
 * A hidden option for an old spelling: parsed as before, left out of
 * `--help`. The command's action sees its value, maps it onto the new
 * option and calls {@link warnDeprecated}.
 *
 * @example
 * command.addOption(deprecatedOption('--json', '-f json'));
 */
export function deprecatedOption(flags: string, replacement: string): Option {
  return new Option(flags, `deprecated: use ${replacement}`).hideHelp();
}
