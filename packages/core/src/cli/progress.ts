/** A one-line progress indicator for long runs. */
export interface Progress {
  /** Replaces the progress line. */
  update(text: string): void;
  /** Clears the line. */
  done(): void;
}

/** Options for {@link createProgress}. */
export interface ProgressOptions {
  /** Show nothing unless this is true (default: only on a TTY without `CI`). */
  enabled?: boolean;
  /** Minimum milliseconds between redraws (default 100). */
  intervalMs?: number;
  /** Clock, injectable for tests. */
  now?: () => number;
}

/**
 * Progress on a terminal: redraws one line in place, at most every
 * `intervalMs`, and does nothing when output is not a terminal, so logs and
 * pipes stay clean.
 */
export function createProgress(
  stream: { write(text: string): unknown; isTTY?: boolean },
  options: ProgressOptions = {},
): Progress {
  const enabled = options.enabled ?? (stream.isTTY === true && !process.env.CI);
  const interval = options.intervalMs ?? 100;
  const now = options.now ?? Date.now;
  let last = Number.NEGATIVE_INFINITY;
  let shown = false;
  return {
    update(text) {
      if (!enabled) return;
      const t = now();
      if (t - last < interval) return;
      last = t;
      shown = true;
      stream.write(`\r\u001b[K${text}`);
    },
    done() {
      if (enabled && shown) stream.write('\r\u001b[K');
      shown = false;
    },
  };
}
