// Replays docs/guides/image-validators.md (see replay.ts for how a page is read).
//
// The page's SSH and chroot sessions start sshd (which logs root in) and build and enter a Debian tree,
// which only root can do. Each such block carries `<!-- root only: REASON -->` above its replay
// directives. As root (CI) the page is replayed as it is; otherwise a copy of it in which those markers
// become `replay-skip` directives, so the skip is reported with the reason the page gives.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll } from 'vitest';
import { REPO } from './process.js';
import { replayPage } from './replay.js';

const PAGE = 'docs/guides/image-validators.md';

/** The page with its root-only blocks skipped: a path from the repository root, as replayPage takes. */
function withoutRootBlocks(page: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'stackspec-docs-image-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const markdown = readFileSync(join(REPO, page), 'utf8').replace(
    /^<!-- root only: (.*) -->$/gm,
    '<!-- replay-skip: needs root ($1) -->',
  );
  const copy = join(dir, 'image-validators.md');
  writeFileSync(copy, markdown);
  return relative(REPO, copy);
}

replayPage(process.getuid?.() === 0 ? PAGE : withoutRootBlocks(PAGE));
