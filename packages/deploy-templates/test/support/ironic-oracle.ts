// Starts Debian's Ironic API in a Python child process (SQLite, no conductor)
// and talks to it over HTTP, as the oracle for conformance tests.
import { type ChildProcess, spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PYTHON } from '../../../../test-support/python.js';

const SCRIPT = join(dirname(fileURLToPath(import.meta.url)), '..', 'oracle', 'ironic_oracle.py');

export interface IronicOracle {
  url: string;
  /** Empties both tables and applies `[api]max_limit`. */
  reset(options?: { maxLimit?: number }): Promise<void>;
  close(): Promise<void>;
}

/** Starts the oracle; `headers` mode enforces policy with identity taken from request headers. */
export async function startIronicOracle(mode: 'noauth' | 'headers' = 'noauth'): Promise<IronicOracle> {
  const child: ChildProcess = spawn(PYTHON, [SCRIPT, mode], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (d) => {
    stderr += String(d);
  });
  const port = await new Promise<number>((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (d) => {
      out += String(d);
      const m = /READY (\d+)/.exec(out);
      if (m) resolve(Number(m[1]));
    });
    child.once('exit', (code) =>
      reject(new Error(`Ironic oracle exited with ${code}: ${stderr.slice(-2000)}`)),
    );
  });
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    async reset(options = {}) {
      const r = await fetch(`${url}/__oracle__/reset`, {
        method: 'POST',
        body: JSON.stringify({ max_limit: options.maxLimit ?? 1000 }),
      });
      if (r.status !== 204) throw new Error(`oracle reset failed: ${r.status}`);
    },
    close: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
