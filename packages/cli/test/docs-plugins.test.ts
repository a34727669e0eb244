// Replays docs/plugins.md from the scratch folder of docs/README.md (see replay.ts for how a page is read).
//
// Part A runs its custom validator in a Debian tree that `debootstrap` builds and `chroot` enters, which
// only root can do; that block carries `<!-- root only: REASON -->` above its replay directives. As root
// (CI) the page is replayed as it is; otherwise a copy of it in which the marker becomes a `replay-skip`
// directive, so the skip is reported with the reason the page gives.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll } from 'vitest';
import { REPO } from './process.js';
import { replayPage } from './replay.js';

const PAGE = 'docs/plugins.md';

/** The page with its root-only blocks skipped: a path from the repository root, as replayPage takes. */
function withoutRootBlocks(page: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'stackspec-docs-plugins-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const markdown = readFileSync(join(REPO, page), 'utf8').replace(
    /^<!-- root only: (.*) -->$/gm,
    '<!-- replay-skip: needs root ($1) -->',
  );
  const copy = join(dir, 'plugins.md');
  writeFileSync(copy, markdown);
  return relative(REPO, copy);
}

replayPage(process.getuid?.() === 0 ? PAGE : withoutRootBlocks(PAGE));
