import { describe, expect, it } from 'vitest';
import { serviceAvailable } from '../../../test-support/require.js';
import { createChrootRemote } from '../src/adapters/chroot.js';
import { loadImageSpec } from '../src/load.js';
import { validateImage } from '../src/validate.js';
import { remoteContract } from './remote-contract.js';
import { chrootAvailable, ensureChroot } from './support/chroot.js';

describe.runIf(serviceAvailable('debootstrap chroot', chrootAvailable()))(
  'chroot remote on a debootstrap tree',
  () => {
    let root = '';
    const chroot = () => {
      if (!root) {
        const built = ensureChroot();
        root = built.root;
        console.log(
          built.builtInMs
            ? `built ${built.suite} minbase chroot from ${built.mirror} in ${(built.builtInMs / 1000).toFixed(1)} s (cached at ${root})`
            : `reused cached chroot ${root}`,
        );
      }
      return root;
    };

    remoteContract('chroot', async () => ({ remote: createChrootRemote({ root: chroot() }) }), 'shell');

    it('installs a missing package with apt when reconciling, then passes in check mode', async () => {
      const remote = createChrootRemote({ root: chroot() });
      // The cached tree may hold the package from an earlier run.
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
  },
);
