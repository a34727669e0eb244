import { spawn } from 'node:child_process';
import { createSudoCheck, type ExecResult, RemoteError } from '../remote.js';

/** Options for {@link runProcess}. */
export interface RunProcessOptions {
  input?: string | Uint8Array;
  env?: NodeJS.ProcessEnv;
  /** Kill the process after this many milliseconds (0 = never). */
  timeoutMs?: number;
  /** Keep at most this many bytes of each stream (default 64 MiB). */
  maxBytes?: number;
}

/** Whether this process runs as root (never where the platform has no user ids). */
export function isRoot(): boolean {
  return typeof process.getuid === 'function' && process.getuid() === 0;
}

/**
 * The once-only check that this process may use `sudo -n` (`sudo -n true`
 * run with `options`), for adapters that run commands here; `who` names the
 * user in its `image/remote/sudo-failed` message.
 */
export function createLocalSudoCheck(options: RunProcessOptions, who: string): () => Promise<void> {
  return createSudoCheck(() => runProcess(['sudo', '-n', 'true'], options), who);
}

/** Runs argv (no shell of ours in between) and collects its output; rejects only when it cannot start or times out. */
export function runProcess(argv: readonly string[], options: RunProcessOptions = {}): Promise<ExecResult> {
  const [file, ...args] = argv;
  if (!file)
    return Promise.reject(new RemoteError('No program to run.', { code: 'image/remote/bad-command' }));
  const max = options.maxBytes ?? 64 * 1024 * 1024;
  return new Promise((resolve, reject) => {
    // With a time limit the command gets its own process group, so a timeout can stop
    // everything it started; without one it stays in ours and dies with us on Ctrl-C.
    const limited = Boolean(options.timeoutMs && options.timeoutMs > 0);
    const child = spawn(file, args, {
      env: options.env ?? process.env,
      stdio: ['pipe', 'pipe', 'pipe'],
      detached: limited,
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let outBytes = 0;
    let errBytes = 0;
    let timedOut = false;
    const timer =
      options.timeoutMs && options.timeoutMs > 0
        ? setTimeout(() => {
            timedOut = true;
            try {
              if (child.pid) process.kill(-child.pid, 'SIGKILL');
            } catch {
              child.kill('SIGKILL');
            }
          }, options.timeoutMs)
        : undefined;
    child.stdout.on('data', (b: Buffer) => {
      if (outBytes < max) out.push(b);
      outBytes += b.length;
    });
    child.stderr.on('data', (b: Buffer) => {
      if (errBytes < max) err.push(b);
      errBytes += b.length;
    });
    child.on('error', (e) => {
      if (timer) clearTimeout(timer);
      reject(
        new RemoteError(`Could not start ${file}: ${e.message}`, {
          code: 'image/remote/spawn-failed',
          cause: e,
        }),
      );
    });
    child.on('close', (code, signal) => {
      if (timer) clearTimeout(timer);
      if (timedOut) {
        reject(
          new RemoteError(`The command did not finish within ${options.timeoutMs} ms and was stopped.`, {
            code: 'image/remote/timeout',
          }),
        );
        return;
      }
      resolve({
        exitCode: code ?? (signal ? 128 + (signalNumber(signal) ?? 0) : 1),
        stdout: Buffer.concat(out).toString('utf8'),
        stderr: Buffer.concat(err).toString('utf8'),
      });
    });
    // A command that does not read stdin closes it early; that is not an error.
    child.stdin.on('error', () => {});
    if (options.input !== undefined) child.stdin.end(options.input);
    else child.stdin.end();
  });
}

function signalNumber(signal: NodeJS.Signals): number | undefined {
  const table: Partial<Record<NodeJS.Signals, number>> = {
    SIGHUP: 1,
    SIGINT: 2,
    SIGKILL: 9,
    SIGTERM: 15,
    SIGPIPE: 13,
  };
  return table[signal];
}
