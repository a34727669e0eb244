// In-memory standard streams for command-line tests: every package runs its
// CLI against a CliIO and reads back what it printed.
import { Readable } from 'node:stream';
import type { CliIO } from '@stackspec/core/cli';

/** A CliIO that keeps what is written, with readers for it. */
export interface MemoryIO extends CliIO {
  /** Everything written to standard output so far. */
  out(): string;
  /** Everything written to standard error so far. */
  err(): string;
}

/** Options for {@link memoryIO}. */
export interface MemoryIOOptions {
  /** Working directory the command sees (default `process.cwd()`). */
  cwd?: string;
  /** Environment the command sees (default `{ NO_COLOR: '1' }`). */
  env?: Readonly<Record<string, string | undefined>>;
  /** Text on standard input; without it the command has no standard input. */
  stdin?: string;
}

/** Streams for one command run; neither stream is a terminal, so no colours are printed. */
export function memoryIO(options: MemoryIOOptions = {}): MemoryIO {
  let out = '';
  let err = '';
  return {
    stdout: {
      write: (text: string) => {
        out += text;
        return true;
      },
    },
    stderr: {
      write: (text: string) => {
        err += text;
        return true;
      },
    },
    env: options.env ?? { NO_COLOR: '1' },
    cwd: options.cwd ?? process.cwd(),
    ...(options.stdin === undefined ? {} : { stdin: Readable.from([options.stdin]) }),
    out: () => out,
    err: () => err,
  };
}
