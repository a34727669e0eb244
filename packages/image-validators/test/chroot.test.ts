import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isRoot, serviceAvailable } from '../../../test-support/require.js';
import { createChrootRemote } from '../src/adapters/chroot.js';
import { loadImageSpec } from '../src/load.js';
import { validateImage } from '../src/validate.js';
import { remoteContract } from './remote-contract.js';
import { remoteAsUser } from './support/as-user.js';
import { chrootAvailable, ensureChroot, privateCopy } from './support/chroot.js';
import { describeWithTestUsers } from './support/users.js';

describe.runIf(
  serviceAvailable('chroot as root', isRoot() ? { ok: true } : { ok: false, reason: 'chroot needs root' }),
)('chroot remote that cannot enter its tree', () => {
  it('rejects a root that is not a directory as image/remote/no-such-root', async () => {
    const remote = createChrootRemote({ root: '/nonexistent/siv-root' });
    await expect(remote.exec('true')).rejects.toMatchObject({ code: 'image/remote/no-such-root' });
    await expect(remote.writeFile('/tmp/x', 'x')).rejects.toMatchObject({
      code: 'image/remote/no-such-root',
    });
    await expect(remote.distro()).rejects.toMatchObject({ code: 'image/remote/no-such-root' });
    const report = await validateImage(loadImageSpec('validators: []\n'), remote);
    expect(report.failure?.code).toBe('image/remote/no-such-root');
    await expect(createChrootRemote({ root: '/etc/os-release' }).exec('true')).rejects.toMatchObject({
      code: 'image/remote/no-such-root',
    });
  });

  it('rejects a tree without /bin/sh as image/remote/chroot-failed', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'siv-empty-root-'));
    const remote = createChrootRemote({ root: empty });
    await expect(remote.exec('true')).rejects.toMatchObject({
      code: 'image/remote/chroot-failed',
      message: expect.stringContaining('/bin/sh'),
    });
  });
});

describe.runIf(serviceAvailable('debootstrap chroot', chrootAvailable()))(
  'chroot remote on a debootstrap tree',
  () => {
    let root = '';
    let copy: { root: string; remove(): void } | undefined;
    // Every test works on a private copy of the cached tree (about 2 s to make).
    const chroot = () => {
      if (!root) {
        const built = ensureChroot();
        console.log(
          built.builtInMs
            ? `built ${built.suite} minbase chroot from ${built.mirror} in ${(built.builtInMs / 1000).toFixed(1)} s (cached at ${built.root})`
            : `reused cached chroot ${built.root}`,
        );
        copy = privateCopy(built.root);
        root = copy.root;
      }
      return root;
    };
    afterAll(() => copy?.remove());

    remoteContract('chroot', async () => ({ remote: createChrootRemote({ root: chroot() }) }), 'shell');

    it('installs a missing package with apt when reconciling, then passes in check mode', async () => {
      const remote = createChrootRemote({ root: chroot() });
      // The cached tree may hold the package, from a run that used it before copies were made.
      await remote.exec('dpkg --purge hello >/dev/null 2>&1; true');
      const spec = loadImageSpec(
        [
          'validators:',
          '  - os_case:',
          '      - debian:',
          '          - script:',
          '              apt_update:',
          '                inline: |',
          '                  if [ "$test_only" = 0 ]; then apt-get update -qq; fi',
          '          - package: hello',
          '  - script: {greet: {inline: hello, output: greeting}}',
          '',
        ].join('\n'),
      );
      const before = await validateImage(spec, remote, { reconcile: false });
      expect(before.ok).toBe(false);
      expect(before.failure).toMatchObject({ type: 'package', code: 'image/command-failed' });
      expect((await remote.exec('dpkg -s hello')).exitCode).not.toBe(0);

      const fixed = await validateImage(spec, remote, { reconcile: true });
      expect(fixed.ok, fixed.failure?.message).toBe(true);
      expect(fixed.results.find((r) => r.type === 'package')?.status).toBe('fixed');
      expect(fixed.variables.greeting).toBe('Hello, world!\n');
      console.log(`chroot reconcile: ${fixed.commandCount} round trips`);

      for (const mode of ['batched', 'sahara'] as const) {
        const after = await validateImage(spec, remote, {
          reconcile: false,
          mode,
          families: { debian: 'debian' },
        });
        expect(after.ok, after.failure?.message).toBe(true);
        expect(after.results.find((r) => r.type === 'package')?.status).toBe('passed');
      }
    }, 600_000);

    describeWithTestUsers('entered by a user that is not root', (users) => {
      it('enters the tree through passwordless sudo, passing hostile env literally', () => {
        const { seen, marker } = remoteAsUser(users.sudoer(), { kind: 'chroot', root: chroot() });
        // Inside the tree every command runs as root: chroot has no user of ours.
        expect(seen).toEqual({
          user: '0',
          root: '0',
          envLiteral: true,
          written: '0 600',
          validation: '0\n',
        });
        expect(existsSync(join(chroot(), marker))).toBe(false);
      }, 120_000);

      it('fails as image/remote/sudo-failed when sudo wants a password', () => {
        const { seen } = remoteAsUser(users.plain(), { kind: 'chroot', root: chroot() });
        expect(seen.error).toMatchObject({ code: 'image/remote/sudo-failed' });
      }, 120_000);
    });
  },
);
