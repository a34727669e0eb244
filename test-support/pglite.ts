// PGlite in tests: one database per test file (it takes seconds to start,
// so the file's tests share it, each in a schema of its own), and data
// directories in fresh temporary folders that are removed whatever happens.
// The caller passes how to open PGlite, so this folder needs no dependency
// of its own.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';

/**
 * Opens one database before the tests of the calling file and closes it
 * after them; answers a function that gives it to the tests (and throws
 * when called before `beforeAll` ran).
 *
 * @example
 * const db = databaseForFile(() => PGlite.create());
 * it('…', async () => { await db().query('SELECT 1'); });
 */
export function databaseForFile<D extends { close(): Promise<unknown> }>(open: () => Promise<D>): () => D {
  let db: D | undefined;
  beforeAll(async () => {
    db = await open();
  });
  afterAll(async () => {
    await db?.close();
  });
  return () => {
    if (!db) throw new Error('the database of this file is opened in beforeAll; use it inside a test');
    return db;
  };
}

/** Runs `fn` with a new folder under the system's temporary folder, named `<prefix>…`, and removes it after. */
export async function withTempDir<T>(prefix: string, fn: (dir: string) => Promise<T>): Promise<T> {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  try {
    return await fn(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
