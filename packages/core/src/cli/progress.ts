import { stripAnsi } from './color.js';
import { truncateToWidth } from './width.js';

/** A one-line progress indicator for long runs. */
export interface Progress {
  /** Replaces the progress line. */
  update(text: string): void;
  /** Clears the line. */
  done(): void;
}

/** The stream a progress line is drawn on: standard error, as a rule. */
export interface ProgressStream {
  write(text: string): unknown;
  isTTY?: boolean;
  /** Width of the terminal (Node sets it on TTY streams); lines are cut to fit. */
  columns?: number;
}

/** Options for {@link createProgress}. */
export interface ProgressOptions {
  /** Show nothing unless this is true (default: only on a TTY, and not under `CI`). */
  enabled?: boolean;
  /** Environment consulted for `CI` when `enabled` is not given (default `process.env`). */
  env?: Readonly<Record<string, string | undefined>>;
  /** Minimum milliseconds between redraws (default 100). */
  intervalMs?: number;
  /**
   * Milliseconds of work before the first line is drawn (default 1000): work
   * that ends sooner shows no progress at all, so quick runs do not flicker.
   */
  delayMs?: number;
  /** Clock, injectable for tests. */
  now?: () => number;
}

/**
 * Progress on a terminal: after `delayMs`, redraws one line in place, at
 * most every `intervalMs`, cut to the terminal's width so that it never
 * wraps (a wrapped line cannot be redrawn in place). Does nothing when the
 * stream is not a terminal or under CI, so logs and pipes stay clean.
 */
export function createProgress(stream: ProgressStream, options: ProgressOptions = {}): Progress {
  const env = options.env ?? process.env;
  const enabled = options.enabled ?? (stream.isTTY === true && !env.CI);
  const interval = options.intervalMs ?? 100;
  const now = options.now ?? Date.now;
  const start = now();
  const delay = options.delayMs ?? 1000;
  let last = Number.NEGATIVE_INFINITY;
  let shown = false;
  return {
    update(text) {
      if (!enabled) return;
      const t = now();
      if (t - start < delay || t - last < interval) return;
      last = t;
      shown = true;
      // One column is kept free: some terminals wrap as soon as the last column is written.
      const columns = stream.columns && stream.columns > 1 ? stream.columns - 1 : undefined;
      const line = truncateToWidth(stripAnsi(text).replace(/[\r\n\t]+/g, ' '), columns);
      stream.write(`\r\u001b[K${line}`);
    },
    done() {
      if (enabled && shown) stream.write('\r\u001b[K');
      shown = false;
    },
  };
}
