// A command whose reader goes away early (`stackspec-extra-specs docs | head
// -c 10`) must end quietly, not crash with an unhandled EPIPE. The real
// command runs in a shell pipeline; its output (about 100 KB) is larger than
// a pipe holds, so it is still writing when `head` exits.
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { binArgs, binEnv } from '../../../test-support/bin.js';

const quote = (s: string) => `'${s.replace(/'/g, "'\\''")}'`;

describe('a command whose standard output is closed early', () => {
  it('ends quietly with its own exit code instead of crashing on EPIPE', () => {
    const command = [process.execPath, ...binArgs('stackspec-extra-specs'), 'docs', '-f', 'md']
      .map(quote)
      .join(' ');
    const r = spawnSync('/bin/bash', ['-c', `set -o pipefail; ${command} 2>&3 | head -c 10 >/dev/null`], {
      env: binEnv(),
      encoding: 'utf8',
      // fd 3 carries the command's standard error past the pipe.
      stdio: ['ignore', 'pipe', 'pipe', 'pipe'],
      timeout: 60_000,
    });
    const err = String(r.output[3] ?? '');
    expect(err).not.toMatch(/EPIPE|Unhandled|node:events/);
    expect(r.status).toBe(0);
  }, 60_000);
});
