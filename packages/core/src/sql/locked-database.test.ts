import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isStackspecError } from '../errors.js';
import { DIR_LOCK_FILE } from '../node/dir-lock.js';
import { createLazyDatabase, openLockedDatabase } from './locked-database.js';

const root = mkdtempSync(join(tmpdir(), 'stackspec-sql-lock-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let n = 0;
function freshDir(): string {
  n += 1;
  return join(root, `db-${n}`);
}

/** A database that records where it was opened and whether it was closed. */
function fakeDatabase(dir: string | undefined, failClose = false) {
  return {
    dir,
    closed: false,
    async close() {
      this.closed = true;
      if (failClose) throw new Error('close failed');
    },
  };
}

describe('openLockedDatabase', () => {
  it('locks the directory before opening, and releases it after closing', async () => {
    const dir = freshDir();
    const seen: boolean[] = [];
    const locked = await openLockedDatabase({
      dataDir: dir,
      open: async (d) => {
        seen.push(existsSync(join(dir, DIR_LOCK_FILE)));
        return fakeDatabase(d);
      },
    });
    expect(seen).toEqual([true]);
    expect(locked.db.dir).toBe(dir);
    await locked.close();
    expect(locked.db.closed).toBe(true);
    expect(existsSync(join(dir, DIR_LOCK_FILE))).toBe(false);
  });

  it('refuses a directory another opener holds with store/locked, without opening', async () => {
    const dir = freshDir();
    const first = await openLockedDatabase({ dataDir: dir, open: async (d) => fakeDatabase(d) });
    let opened = 0;
    const e = await openLockedDatabase({
      dataDir: dir,
      open: async (d) => {
        opened += 1;
        return fakeDatabase(d);
      },
    }).catch((x: unknown) => x);
    expect(isStackspecError(e) && e.code).toBe('store/locked');
    expect(opened).toBe(0);
    await first.close();
  });

  it('releases the lock when opening fails, and throws that failure', async () => {
    const dir = freshDir();
    await expect(
      openLockedDatabase({
        dataDir: dir,
        open: async () => {
          throw new Error('corrupt');
        },
      }),
    ).rejects.toThrow('corrupt');
    const again = await openLockedDatabase({ dataDir: dir, open: async (d) => fakeDatabase(d) });
    await again.close();
  });

  it('releases the lock when closing fails', async () => {
    const dir = freshDir();
    const locked = await openLockedDatabase({ dataDir: dir, open: async (d) => fakeDatabase(d, true) });
    await expect(locked.close()).rejects.toThrow('close failed');
    expect(existsSync(join(dir, DIR_LOCK_FILE))).toBe(false);
  });

  it('opens a database in memory without a directory or a lock', async () => {
    const locked = await openLockedDatabase({ open: async (d) => fakeDatabase(d) });
    expect(locked.db.dir).toBeUndefined();
    await locked.close();
    expect(locked.db.closed).toBe(true);
  });
});

describe('createLazyDatabase', () => {
  function opener() {
    const calls = { opened: 0, closed: 0, fail: false };
    const open = async () => {
      calls.opened += 1;
      if (calls.fail) throw new Error('locked elsewhere');
      return {
        db: `db${calls.opened}`,
        close: async () => {
          calls.closed += 1;
        },
      };
    };
    return { calls, open };
  }

  it('opens once for concurrent callers, and closes what it opened once', async () => {
    const o = opener();
    const lazy = createLazyDatabase(o.open);
    expect(o.calls.opened).toBe(0);
    expect(await Promise.all([lazy.get(), lazy.get()])).toEqual(['db1', 'db1']);
    expect(o.calls.opened).toBe(1);
    await lazy.close();
    await lazy.close();
    expect(o.calls.closed).toBe(1);
  });

  it('tries again after a failed opening', async () => {
    const o = opener();
    o.calls.fail = true;
    const lazy = createLazyDatabase(o.open);
    await expect(lazy.get()).rejects.toThrow('locked elsewhere');
    o.calls.fail = false;
    expect(await lazy.get()).toBe('db2');
    await lazy.close();
  });

  it('refuses to open again once closed', async () => {
    const o = opener();
    const lazy = createLazyDatabase(o.open);
    await lazy.close();
    await expect(lazy.get()).rejects.toMatchObject({
      status: 503,
      code: 'store/closed',
      message: 'The store is closed.',
    });
    expect(o.calls).toEqual({ opened: 0, closed: 0, fail: false });
  });

  it('waits for an opening under way before closing it', async () => {
    const o = opener();
    const lazy = createLazyDatabase(o.open);
    const getting = lazy.get();
    await lazy.close();
    expect(await getting).toBe('db1');
    expect(o.calls.closed).toBe(1);
  });

  it('closes nothing after a failed opening', async () => {
    const o = opener();
    o.calls.fail = true;
    const lazy = createLazyDatabase(o.open);
    await lazy.get().catch(() => undefined);
    await lazy.close();
    expect(o.calls.closed).toBe(0);
  });

  it('uses a given database as it is, never opening or closing it, even after close', async () => {
    const o = opener();
    const lazy = createLazyDatabase(o.open, 'given');
    expect(await lazy.get()).toBe('given');
    await lazy.close();
    expect(await lazy.get()).toBe('given');
    expect(o.calls).toEqual({ opened: 0, closed: 0, fail: false });
  });
});
