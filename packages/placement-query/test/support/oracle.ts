// Starts OpenStack's Placement 8.0 in a Python child (SQLite, noauth2, or a
// database given by URL) on a free loopback port, and gives both it and our
// handler the same `send`.
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { PYTHON } from '../../../../test-support/python.js';
import type { PlacementHandler } from '../../src/http/service.js';
import type { PlacementSend } from '../../src/model/plan.js';

export interface RunningOracle {
  url: string;
  /** The Python process's id (for /proc/<pid>/status). */
  pid: number;
  close(): Promise<void>;
}

/** Options for {@link startOracle}. */
export interface StartOracleOptions {
  /** Milliseconds Placement may take to start listening (default 120000). */
  timeoutMs?: number;
  /**
   * An SQLAlchemy URL (`postgresql+psycopg2://…`) of the database Placement
   * keeps its data in, instead of the launcher's SQLite. The launcher runs
   * unchanged but for that: the connection is swapped in before Placement
   * configures its database layer.
   */
  databaseUrl?: string;
}

// Runs the launcher given as the first argument with the connection of
// PLACEMENT_DATABASE_URL, on a free port.
const WITH_DATABASE_URL = `
import os, runpy, sys
from placement import db_api
configure = db_api.configure
def configure_with_url(conf):
    conf.set_override("connection", os.environ["PLACEMENT_DATABASE_URL"], group="placement_database")
    configure(conf)
db_api.configure = configure_with_url
sys.argv = [sys.argv[1], "0"]
runpy.run_path(sys.argv[0], run_name="__main__")
`;

export async function startOracle(options: StartOracleOptions = {}): Promise<RunningOracle> {
  const { timeoutMs = 120_000, databaseUrl } = options;
  const script = fileURLToPath(new URL('./run-placement.py', import.meta.url));
  const child: ChildProcessWithoutNullStreams =
    databaseUrl === undefined
      ? spawn(PYTHON, [script, '0'], { stdio: 'pipe' })
      : spawn(PYTHON, ['-c', WITH_DATABASE_URL, script], {
          stdio: 'pipe',
          env: { ...process.env, PLACEMENT_DATABASE_URL: databaseUrl },
        });
  let stderr = '';
  child.stderr.on('data', (d) => {
    stderr += String(d);
  });
  const port = await new Promise<number>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(
      () => reject(new Error(`Placement did not start: ${stderr.slice(-2000)}`)),
      timeoutMs,
    );
    child.stdout.on('data', (d) => {
      out += String(d);
      const m = /LISTENING (\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`Placement exited with ${code}: ${stderr.slice(-2000)}`));
    });
  });
  return {
    url: `http://127.0.0.1:${port}`,
    pid: child.pid as number,
    close: () =>
      new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.stdin.end();
        setTimeout(() => child.kill('SIGTERM'), 5000).unref();
        setTimeout(() => child.kill('SIGKILL'), 10_000).unref();
      }),
  };
}

export interface SendResult {
  status: number;
  body: unknown;
}

function parse(text: string): unknown {
  if (!text) return null;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** The request every `send` makes: as admin, at `version`, with `body` as JSON. */
function adminRequest(url: string, method: string, version: string, body: unknown): Request {
  return new Request(url, {
    method,
    headers: {
      'x-auth-token': 'admin',
      'openstack-api-version': `placement ${version}`,
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
}

/** A `send` to a URL at a microversion. */
export function httpSend(base: string, version = '1.39'): PlacementSend {
  return async (method, path, body) => {
    const r = await fetch(adminRequest(`${base}${path}`, method, version, body));
    return { status: r.status, body: parse(await r.text()) };
  };
}

/** A `send` straight into our fetch handler (no socket). */
export function handlerSend(handler: PlacementHandler, version = '1.39'): PlacementSend {
  return async (method, path, body) => {
    const r = await handler(adminRequest(`http://placement.test${path}`, method, version, body));
    return { status: r.status, body: parse(await r.text()) };
  };
}
