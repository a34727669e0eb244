// Where the real TripleO tree lives: `STACKSPEC_THT_CORPUS`, else the shared
// corpus next to the repository. Suites that need it skip with a printed
// reason locally and fail in CI (STACKSPEC_REQUIRE_ORACLES), like the oracles.
import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const CORPUS_ROOT = resolve(
  process.env.STACKSPEC_THT_CORPUS ??
    resolve(dirname(fileURLToPath(import.meta.url)), '../../../../shared/corpus/tripleo-heat-templates'),
);

/** Whether the tree is present; throws in CI when it is not. */
export function corpusAvailable(): boolean {
  if (existsSync(CORPUS_ROOT)) return true;
  const message = `TripleO corpus not found at ${CORPUS_ROOT}; set STACKSPEC_THT_CORPUS`;
  if (process.env.STACKSPEC_REQUIRE_ORACLES) throw new Error(message);
  console.warn(`skipping: ${message}`);
  return false;
}
