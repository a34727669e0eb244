// A temporary folder for the tests of one file (or one describe block): made
// under the system's temporary folder before they run, and removed with
// everything in it once they are done, whatever happened.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';

/**
 * Makes a folder named `<prefix>…` under `os.tmpdir()` in a `beforeAll` and
 * removes it in an `afterAll`; answers a function that gives its path (and
 * throws when called before the folder is made). Call it before the hooks
 * that fill the folder: vitest runs `beforeAll` hooks in the order they are
 * registered and `afterAll` hooks in the reverse order, so the folder is
 * there for them and is removed after them.
 *
 * @example
 * const dir = tempDirForFile('heat-cli-');
 * beforeAll(() => writeFileSync(join(dir(), 'plain.yaml'), 'heat_template_version: 2015-10-15\n'));
 */
export function tempDirForFile(prefix: string): () => string {
  let dir: string | undefined;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), prefix));
  });
  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });
  return () => {
    if (!dir)
      throw new Error(`the temporary folder ${prefix}… is made in beforeAll; use it inside a hook or test`);
    return dir;
  };
}
