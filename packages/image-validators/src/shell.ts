import { ValidationError } from '@stackspec/core';

// Words made only of these characters mean the same quoted or not, so they stay
// bare: commands then read exactly like Sahara's (`dpkg -s nfs-utils`).
const SAFE_WORD = /^[A-Za-z0-9_@%+=:,./-]+$/;
const SHELL_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Quotes one word for a POSIX shell so that it reaches the command literally:
 * `$(…)`, backticks, `;`, globs and newlines lose their meaning. Safe words stay
 * bare; everything else is single-quoted.
 *
 * Throws `ValidationError` (`image/shell/nul-byte`) for text with a NUL byte, which no
 * shell argument can carry.
 *
 * @example
 * shellQuote("it's $(bad)"); // 'it'\''s $(bad)'
 */
export function shellQuote(value: string): string {
  if (value.includes('\u0000')) {
    throw new ValidationError('A value for the shell contains a NUL byte, which cannot be passed safely.', {
      code: 'image/shell/nul-byte',
    });
  }
  if (SAFE_WORD.test(value)) return value;
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

/** True for names a shell can export: a letter or `_`, then letters, digits or `_`. */
export function isShellName(name: string): boolean {
  return SHELL_NAME.test(name);
}

/**
 * One `export NAME=value` line with the value quoted. Throws `ValidationError`:
 * `image/shell/bad-name` for a name a shell cannot export, `image/shell/nul-byte` for a
 * value holding a NUL byte (the message names the variable).
 */
export function exportLine(name: string, value: string): string {
  if (!isShellName(name)) {
    throw new ValidationError(`'${name}' cannot be used as an environment variable name.`, {
      code: 'image/shell/bad-name',
    });
  }
  if (value.includes('\u0000')) {
    throw new ValidationError(`The value of ${name} contains a NUL byte, which no shell variable can hold.`, {
      code: 'image/shell/nul-byte',
    });
  }
  return `export ${name}=${shellQuote(value)}`;
}

/**
 * Prefixes a command with `export` statements for `env`, so the variables
 * survive `sudo` (which resets the environment) and reach every remote kind.
 */
export function withEnv(command: string, env: Readonly<Record<string, string>> | undefined): string {
  const entries = Object.entries(env ?? {});
  if (!entries.length) return command;
  return `${entries.map(([k, v]) => exportLine(k, v)).join('; ')}; ${command}`;
}
