import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { TSX_LOADER } from '../../../../test-support/bin.js';
import { tempDirForFile } from '../../../../test-support/temp-dir.js';
import { isStackspecError } from '../errors.js';
import {
  DIR_LOCK_FILE,
  type DirLock,
  type DirLockHolder,
  lockDirectory,
  processStartTime,
  readDirLockHolder,
} from './dir-lock.js';

const root = tempDirForFile('stackspec-lock-');
let n = 0;
const held: DirLock[] = [];
const children: ChildProcess[] = [];

beforeAll(() => {
  writeFileSync(join(root(), 'child.mjs'), CHILD);
});
afterEach(() => {
  for (const lock of held.splice(0)) lock.release();
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
});

const fresh = () => join(root(), `d${++n}`);
const take = (dir: string, options: Parameters<typeof lockDirectory>[1] = {}) => {
  const lock = lockDirectory(dir, options);
  held.push(lock);
  return lock;
};
const lockError = (fn: () => unknown) => {
  try {
    fn();
  } catch (e) {
    if (isStackspecError(e)) return e;
    throw e;
  }
  throw new Error('expected the lock to be refused');
};

/** A lock file as another process would have left it. */
function plant(dir: string, holder: Partial<DirLockHolder>): void {
  const full: DirLockHolder = {
    pid: 1,
    hostname: hostname(),
    command: 'stackspec-baremetal serve',
    since: '2024-01-02T03:04:05.000Z',
    nonce: 'planted',
    ...holder,
  };
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, DIR_LOCK_FILE), `${JSON.stringify(full)}\n`);
}

/** The pid of a process that has just ended. */
function deadPid(): number {
  const r = spawnSync(process.execPath, ['-e', ''], { timeout: 30_000 });
  expect(r.status).toBe(0);
  return r.pid as number;
}

// A process that takes the lock when told to ("go" on standard input),
// reports the outcome as one JSON line, and holds the lock until its
// standard input ends (then exits normally, releasing it).
const CHILD = `
import { lockDirectory } from ${JSON.stringify(pathToFileURL(join(dirname(fileURLToPath(import.meta.url)), 'dir-lock.ts')).href)};
const dir = process.argv[2];
const reports = [];
let started = false;
process.stdin.setEncoding('utf8');
process.stdin.on('data', () => {
  if (started) return;
  started = true;
  try {
    lockDirectory(dir, { command: 'child ' + process.pid, onTakeover: (m) => reports.push(m) });
    process.stdout.write(JSON.stringify({ pid: process.pid, won: true, reports }) + '\\n');
  } catch (e) {
    process.stdout.write(JSON.stringify({ pid: process.pid, won: false, code: e.code, message: e.message, reports }) + '\\n');
  }
});
process.stdin.on('end', () => process.exit(0));
process.stdout.write('ready\\n');
`;

interface Outcome {
  pid: number;
  won: boolean;
  code?: string;
  message?: string;
  reports: string[];
}

interface Child {
  process: ChildProcess;
  ready: Promise<void>;
  outcome: Promise<Outcome>;
  exited: Promise<number | null>;
}

function startChild(dir: string): Child {
  const child = spawn(process.execPath, ['--import', TSX_LOADER, join(root(), 'child.mjs'), dir], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  children.push(child);
  let out = '';
  const waiting = new Set<() => void>();
  child.stdout?.setEncoding('utf8').on('data', (s: string) => {
    out += s;
    for (const check of waiting) check();
  });
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  const line = (i: number) =>
    new Promise<string>((resolve, reject) => {
      const check = () => {
        const lines = out.split('\n');
        if (lines.length > i + 1) {
          waiting.delete(check);
          resolve(lines[i] as string);
        }
      };
      waiting.add(check);
      check();
      void exited.then(() => reject(new Error(`child exited early: ${out}`)));
    });
  return {
    process: child,
    ready: line(0).then(() => undefined),
    outcome: line(1).then((l) => JSON.parse(l) as Outcome),
    exited,
  };
}

describe('lockDirectory', () => {
  it('creates the directory and a lock file naming this process, and removes it on release', () => {
    const dir = join(fresh(), 'nested');
    const lock = take(dir, { command: 'stackspec serve --data-dir db' });
    const file = join(dir, DIR_LOCK_FILE);
    expect(lock.file).toBe(file);
    const recorded = JSON.parse(readFileSync(file, 'utf8')) as DirLockHolder;
    expect(recorded).toEqual(lock.holder);
    expect(recorded).toMatchObject({
      pid: process.pid,
      hostname: hostname(),
      command: 'stackspec serve --data-dir db',
    });
    expect(Date.parse(recorded.since)).not.toBeNaN();
    if (existsSync('/proc/self/stat')) expect(recorded.startTime).toBe(processStartTime(process.pid));
    // Made complete elsewhere and linked: no scratch file is left behind.
    expect(readdirSync(dir)).toEqual([DIR_LOCK_FILE]);
    expect(readDirLockHolder(dir)).toEqual(lock.holder);
    lock.release();
    expect(existsSync(file)).toBe(false);
    lock.release();
    expect(readDirLockHolder(dir)).toBeUndefined();
  });

  it('masks a password in the default command it records', () => {
    const argv = process.argv;
    process.argv = [argv[0] as string, '/x/bin/stackspec.js', '--database-url', 'postgres://u:secret@h/db'];
    try {
      expect(take(fresh()).holder.command).toBe('stackspec --database-url postgres://u:***@h/db');
    } finally {
      process.argv = argv;
    }
  });

  it('refuses a second lock in the same process, saying it is this one', () => {
    const dir = fresh();
    take(dir);
    const e = lockError(() => take(dir));
    expect(e.code).toBe('store/locked');
    expect(e.kind).toBe('conflict');
    expect(e.message).toContain(`is in use by this process (pid ${process.pid})`);
    expect(e.diagnostics[0]?.hint).toContain('Stop that process first');
  });

  it('refuses another process at once, naming the holder, until the holder releases', async () => {
    const dir = fresh();
    const child = startChild(dir);
    await child.ready;
    child.process.stdin?.write('go\n');
    const outcome = await child.outcome;
    expect(outcome.won).toBe(true);
    const started = Date.now();
    const e = lockError(() => take(dir));
    expect(Date.now() - started).toBeLessThan(1000);
    expect(e.code).toBe('store/locked');
    expect(e.message).toMatch(
      new RegExp(
        `^The directory .* is in use by process ${outcome.pid} on .* \\(child ${outcome.pid}\\), since \\d{4}-`,
      ),
    );
    // The child ends normally: its lock goes with it, and nothing is taken over.
    child.process.stdin?.end();
    expect(await child.exited).toBe(0);
    expect(existsSync(join(dir, DIR_LOCK_FILE))).toBe(false);
    const reports: string[] = [];
    take(dir, { onTakeover: (m) => reports.push(m) });
    expect(reports).toEqual([]);
  }, 60_000);

  it('takes over the lock of a holder killed with SIGKILL, and says so', async () => {
    const dir = fresh();
    const child = startChild(dir);
    await child.ready;
    child.process.stdin?.write('go\n');
    const { pid } = await child.outcome;
    child.process.kill('SIGKILL');
    await child.exited;
    expect(readDirLockHolder(dir)?.pid).toBe(pid);
    const reports: [string, DirLockHolder | undefined][] = [];
    const lock = take(dir, { onTakeover: (m, previous) => reports.push([m, previous]) });
    expect(readDirLockHolder(dir)).toEqual(lock.holder);
    expect(reports).toHaveLength(1);
    expect(reports[0]?.[0]).toContain(
      `Took over the lock on ${dir} left by process ${pid} on ${hostname()} (child ${pid})`,
    );
    expect(reports[0]?.[0]).toContain(`process ${pid} is no longer running`);
    expect(reports[0]?.[1]?.pid).toBe(pid);
  }, 60_000);

  it('takes over a lock whose pid no longer runs', () => {
    const dir = fresh();
    const pid = deadPid();
    plant(dir, { pid });
    const reports: string[] = [];
    take(dir, { onTakeover: (m) => reports.push(m) });
    expect(reports).toEqual([expect.stringContaining(`process ${pid} is no longer running`)]);
    expect(readDirLockHolder(dir)?.pid).toBe(process.pid);
  });

  it.runIf(existsSync('/proc/self/stat'))(
    'takes over a lock whose pid was reused by a process that started later',
    () => {
      const dir = fresh();
      // A live pid (this process's) with another start time: the recorded holder is gone.
      plant(dir, { pid: process.pid, startTime: `${processStartTime(process.pid)?.split(':')[0]}:1` });
      const reports: string[] = [];
      take(dir, { onTakeover: (m) => reports.push(m) });
      expect(reports).toEqual([expect.stringContaining('is now another program (it started later)')]);
    },
  );

  it('never judges a holder on another machine stale, and says how to clear it', () => {
    const dir = fresh();
    plant(dir, { pid: deadPid(), hostname: 'elsewhere.example' });
    const e = lockError(() => take(dir));
    expect(e.message).toContain('on elsewhere.example');
    expect(e.diagnostics[0]?.hint).toContain(`delete ${join(dir, DIR_LOCK_FILE)}`);
  });

  it('waits briefly for a lock file being written, then takes over one that stays unreadable', () => {
    const dir = fresh();
    plant(dir, {});
    writeFileSync(join(dir, DIR_LOCK_FILE), '');
    const started = Date.now();
    const e = lockError(() => take(dir));
    expect(Date.now() - started).toBeLessThan(5000);
    expect(e.message).toContain('is being locked by another process right now');
    const old = new Date(Date.now() - 60_000);
    utimesSync(join(dir, DIR_LOCK_FILE), old, old);
    const reports: string[] = [];
    take(dir, { onTakeover: (m) => reports.push(m) });
    expect(reports).toEqual([expect.stringContaining('its lock file names no process')]);
  });

  it('reports a directory it cannot create as unwritable', () => {
    const file = join(root(), 'a-file');
    writeFileSync(file, '');
    const e = lockError(() => take(join(file, 'db')));
    expect(e.code).toBe('fs/unwritable');
    expect(e.message).toContain(`The directory ${join(file, 'db')} cannot be locked`);
  });

  it('refuses a lock file that is a named pipe at once instead of waiting for a writer', () => {
    const dir = fresh();
    mkdirSync(dir);
    spawnSync('mkfifo', [join(dir, DIR_LOCK_FILE)]);
    const started = performance.now();
    const e = lockError(() => take(dir));
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(e.code).toBe('fs/unwritable');
    expect(e.message).toContain('named pipe');
  });

  it('lets exactly one of several processes racing for one stale lock win', async () => {
    for (let round = 0; round < 2; round += 1) {
      const dir = fresh();
      plant(dir, { pid: deadPid() });
      const racers = Array.from({ length: 4 }, () => startChild(dir));
      await Promise.all(racers.map((r) => r.ready));
      // Released together, so that they all find the same stale lock.
      for (const r of racers) r.process.stdin?.write('go\n');
      const outcomes = await Promise.all(racers.map((r) => r.outcome));
      const winners = outcomes.filter((o) => o.won);
      expect(winners).toHaveLength(1);
      const winner = winners[0] as Outcome;
      expect(readDirLockHolder(dir)?.pid).toBe(winner.pid);
      for (const loser of outcomes.filter((o) => !o.won)) {
        expect(loser.code).toBe('store/locked');
        expect(loser.message).toContain(`in use by process ${winner.pid}`);
      }
      // The stale lock was removed once, by one of them.
      expect(outcomes.flatMap((o) => o.reports)).toHaveLength(1);
      for (const r of racers) r.process.stdin?.end();
      await Promise.all(racers.map((r) => r.exited));
      // No guard or scratch file is left behind.
      expect(readdirSync(dir)).toEqual([]);
    }
  }, 120_000);
});
