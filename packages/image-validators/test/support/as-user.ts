import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { TestUser } from './users.js';

const here = dirname(fileURLToPath(import.meta.url));
// tsx's loader by absolute URL, so the child needs no package resolution of its own.
const TSX_LOADER = pathToFileURL(
  join(dirname(createRequire(import.meta.url).resolve('tsx/package.json')), 'dist/loader.mjs'),
).href;

/** What `remote-as-user.ts` saw, run as `user` against a local or chroot remote. */
export function remoteAsUser(
  user: TestUser,
  target: { kind: 'local' } | { kind: 'chroot'; root: string },
): { seen: Record<string, unknown>; marker: string } {
  const marker = `/tmp/siv-pwned-${randomBytes(6).toString('hex')}`;
  const r = spawnSync(
    process.execPath,
    [
      '--conditions=@stackspec/source',
      '--import',
      TSX_LOADER,
      join(here, 'remote-as-user.ts'),
      JSON.stringify({ ...target, marker }),
    ],
    {
      cwd: '/tmp',
      encoding: 'utf8',
      uid: user.uid,
      gid: user.gid,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: '/tmp' },
      timeout: 120_000,
    },
  );
  if (r.status !== 0) throw new Error(`remote-as-user failed (${r.status}): ${r.stderr}`);
  return { seen: JSON.parse(r.stdout) as Record<string, unknown>, marker };
}
