// Where the shared folder lives: the specs, the reference facts and the
// real-world corpus that some suites read. CI checks the repository out with
// the folder beside it (`../shared`); a contributor's clone usually has no
// such folder, so suites that need it skip with the reason printed, and fail
// in CI (STACKSPEC_REQUIRE_ORACLES) where a quiet skip would hide a gap.
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { serviceAvailable } from './require.js';

/** The repository root (this file sits in `<root>/test-support`). */
export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** The shared folder: `STACKSPEC_SHARED` when set, else `shared` beside the repository root. */
export const SHARED_DIR = resolve(process.env.STACKSPEC_SHARED ?? join(REPO_ROOT, '..', 'shared'));

/** A path inside the shared folder (`sharedPath('corpus', 'sahara')`). */
export function sharedPath(...segments: string[]): string {
  return join(SHARED_DIR, ...segments);
}

/**
 * Whether `sharedPath(...segments)` exists. Use with `describe.runIf(...)`:
 * true when it does; false, after printing why, when it does not; throws
 * when STACKSPEC_REQUIRE_ORACLES is set.
 */
export function sharedAvailable(what: string, ...segments: string[]): boolean {
  const path = sharedPath(...segments);
  return serviceAvailable(
    what,
    existsSync(path)
      ? { ok: true }
      : {
          ok: false,
          reason: `${path} not found; put the shared folder beside the repository or set STACKSPEC_SHARED`,
        },
  );
}
