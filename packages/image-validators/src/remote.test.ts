import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DISTRO_PROBE, probeDistro, replaceFileScript } from './remote.js';

describe('probeDistro', () => {
  it("reads os-release's ID in lower case", async () => {
    const calls: string[] = [];
    const id = await probeDistro(async (c) => {
      calls.push(c);
      return { exitCode: 0, stdout: 'CentOS\n', stderr: '' };
    });
    expect(id).toBe('centos');
    expect(calls).toEqual([DISTRO_PROBE]);
  });

  it('fails with a remote error when nothing answers', async () => {
    await expect(probeDistro(async () => ({ exitCode: 0, stdout: '\n', stderr: '' }))).rejects.toMatchObject({
      code: 'remote/unknown-distro',
    });
    await expect(probeDistro(async () => ({ exitCode: 1, stdout: 'x', stderr: '' }))).rejects.toMatchObject({
      code: 'remote/unknown-distro',
    });
  });

  it('works on this machine through a real shell', async () => {
    const r = spawnSync('/bin/sh', ['-c', DISTRO_PROBE], { encoding: 'utf8' });
    expect(r.stdout.trim()).toMatch(/^[a-z0-9._-]+$/i);
  });
});

describe('replaceFileScript', () => {
  const run = (script: string, path: string, input: string) =>
    spawnSync('/bin/sh', ['-c', script, 'sh', path], { input, encoding: 'utf8' });

  it('replaces a symlink instead of writing through it, with the requested mode', () => {
    const dir = mkdtempSync(join(tmpdir(), 'siv-replace-'));
    writeFileSync(join(dir, 'victim'), 'keep');
    symlinkSync(join(dir, 'victim'), join(dir, 'target'));
    expect(run(replaceFileScript(0o600), join(dir, 'target'), 'new').status).toBe(0);
    expect(readFileSync(join(dir, 'victim'), 'utf8')).toBe('keep');
    expect(readFileSync(join(dir, 'target'), 'utf8')).toBe('new');
    expect(statSync(join(dir, 'target')).mode & 0o777).toBe(0o600);
  });

  it('uses umask permissions by default and fails cleanly when the folder is missing', () => {
    const dir = mkdtempSync(join(tmpdir(), 'siv-replace-'));
    const r = spawnSync('/bin/sh', ['-c', `umask 027; ${replaceFileScript()}`, 'sh', join(dir, 'f')], {
      input: 'x',
    });
    expect(r.status).toBe(0);
    expect(statSync(join(dir, 'f')).mode & 0o777).toBe(0o640);
    expect(run(replaceFileScript(), join(dir, 'no/such/f'), 'x').status).not.toBe(0);
  });
});
