import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isErrorKind, isStackspecError } from '@stackspec/core';
import { describe, expect, it } from 'vitest';
import { createSudoCheck, DISTRO_PROBE, probeDistro, RemoteError, replaceFileScript } from './remote.js';

describe('RemoteError', () => {
  it('is one of our errors: kind http, status 502, a remote/ code and the cause it wraps', () => {
    const cause = new Error('ECONNRESET');
    const e = new RemoteError('The connection broke.', { code: 'image/remote/connection-lost', cause });
    expect(isStackspecError(e) && isErrorKind(e, 'http')).toBe(true);
    expect(e).toMatchObject({
      name: 'RemoteError',
      status: 502,
      code: 'image/remote/connection-lost',
      cause,
    });
    expect(e.diagnostics).toEqual([
      expect.objectContaining({ code: 'image/remote/connection-lost', message: 'The connection broke.' }),
    ]);
    expect(new RemoteError('x').code).toBe('image/remote/failed');
  });
});

describe('createSudoCheck', () => {
  const ok = { exitCode: 0, stdout: '', stderr: '' };

  it('probes once and remembers success', async () => {
    let probes = 0;
    const ready = createSudoCheck(async () => {
      probes += 1;
      return ok;
    }, 'ops');
    await Promise.all([ready(), ready()]);
    await ready();
    expect(probes).toBe(1);
  });

  it("fails as image/remote/sudo-failed with sudo's own words when it wants a password, every time", async () => {
    const ready = createSudoCheck(
      async () => ({ exitCode: 1, stdout: '', stderr: 'sudo: a password is required\n' }),
      'ops@host',
    );
    for (let i = 0; i < 2; i += 1) {
      await expect(ready()).rejects.toMatchObject({
        code: 'image/remote/sudo-failed',
        message: expect.stringMatching(/passwordless sudo for ops@host.*\(sudo: a password is required\)/),
      });
    }
  });

  it('fails as image/remote/sudo-failed when sudo is missing', async () => {
    const missing = createSudoCheck(async () => {
      throw new RemoteError('Could not start sudo: ENOENT', { code: 'image/remote/spawn-failed' });
    }, 'me');
    await expect(missing()).rejects.toMatchObject({ code: 'image/remote/sudo-failed' });
    const notFound = createSudoCheck(
      async () => ({ exitCode: 127, stdout: '', stderr: 'sh: 1: sudo: not found\n' }),
      'me',
    );
    await expect(notFound()).rejects.toMatchObject({ code: 'image/remote/sudo-failed' });
  });

  it('passes other errors through and probes again next time', async () => {
    let probes = 0;
    const ready = createSudoCheck(async () => {
      probes += 1;
      if (probes === 1) throw new RemoteError('lost', { code: 'image/remote/connection-lost' });
      return ok;
    }, 'ops');
    await expect(ready()).rejects.toMatchObject({ code: 'image/remote/connection-lost' });
    await ready();
    expect(probes).toBe(2);
  });
});

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
      code: 'image/remote/unknown-distro',
    });
    await expect(probeDistro(async () => ({ exitCode: 1, stdout: 'x', stderr: '' }))).rejects.toMatchObject({
      code: 'image/remote/unknown-distro',
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
