/** Text styling that turns itself off where colour does not belong. */
export interface Colors {
  readonly enabled: boolean;
  red(text: string): string;
  yellow(text: string): string;
  blue(text: string): string;
  green(text: string): string;
  dim(text: string): string;
  bold(text: string): string;
  underline(text: string): string;
}

/** Where {@link createColors} looks to decide. */
export interface ColorOptions {
  /** The stream written to; colour needs a TTY unless forced. */
  stream?: { isTTY?: boolean };
  /** Environment (default `process.env`): `NO_COLOR` (any non-empty value) disables, `FORCE_COLOR` (not `0`) enables. */
  env?: Readonly<Record<string, string | undefined>>;
  /** Explicit choice, e.g. from `--color`/`--no-color`; wins over everything. */
  force?: boolean;
}

/** Whether colour should be used, following https://no-color.org and the FORCE_COLOR convention. */
export function shouldUseColor(options: ColorOptions = {}): boolean {
  if (options.force !== undefined) return options.force;
  const env = options.env ?? process.env;
  if (env.NO_COLOR) return false;
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '') return env.FORCE_COLOR !== '0';
  if (env.TERM === 'dumb') return false;
  return options.stream?.isTTY === true;
}

/** ANSI colours, or identity functions when colour is off. */
export function createColors(options: ColorOptions = {}): Colors {
  const enabled = shouldUseColor(options);
  const wrap = (open: number, close: number) => (text: string) =>
    enabled ? `\u001b[${open}m${text}\u001b[${close}m` : text;
  return {
    enabled,
    red: wrap(31, 39),
    yellow: wrap(33, 39),
    blue: wrap(34, 39),
    green: wrap(32, 39),
    dim: wrap(2, 22),
    bold: wrap(1, 22),
    underline: wrap(4, 24),
  };
}

/** Removes ANSI escape sequences (to measure or compare text). */
export function stripAnsi(text: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: matching the escape character is the point.
  return text.replace(/\u001b\[[0-9;]*m/g, '');
}
