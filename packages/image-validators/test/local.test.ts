import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { isRoot, serviceAvailable } from '../../../test-support/require.js';
import { createLocalRemote } from '../src/adapters/local.js';
import { loadImageSpec } from '../src/load.js';
import { validateImage } from '../src/validate.js';
import { remoteContract } from './remote-contract.js';

const osRelease = (() => {
  try {
    return readFileSync('/etc/os-release', 'utf8');
  } catch {
    return '';
  }
})();
const debianLike = /^ID(_LIKE)?=.*\b(debian|ubuntu)\b/m.test(osRelease);

describe.runIf(
  serviceAvailable(
    'local Debian machine',
    debianLike && isRoot() ? { ok: true } : { ok: false, reason: 'needs a Debian-like machine and root' },
  ),
)('local remote', () => {
  remoteContract('local', async () => ({ remote: createLocalRemote() }), 'shell');

  it('validates this machine in check mode and changes nothing', async () => {
    const before = spawnSync('dpkg-query', ['-W'], { encoding: 'utf8' }).stdout;
    const spec = loadImageSpec(
      [
        'arguments:',
        '  wanted: {default: dpkg}',
        'validators:',
        '  - os_case:',
        '      - redhat: [{package: rpm}]',
        '      - debian:',
        '          - package: [dpkg, bash, coreutils]',
        '          - package: openssh-server',
        '  - script:',
        '      probe:',
        '        inline: |',
        '          [ "$test_only" = 1 ] && [ "$SIV_RECONCILE" = 0 ] || exit 9',
        '          [ "$distro" = "$SIV_DISTRO" ] || exit 8',
        '          dpkg -s "$wanted" >/dev/null && printf ok',
        '        env_vars: [wanted]',
        '        output: probe',
        '  - any:',
        '      - package: stackspec-no-such-package',
        '      - package: debconf',
        '',
      ].join('\n'),
    );
    for (const mode of ['batched', 'sahara'] as const) {
      const report = await validateImage(spec, createLocalRemote(), {
        reconcile: false,
        mode,
        families: { debian: 'debian' },
      });
      expect(report.ok, report.failure?.message).toBe(true);
      expect(report.distro).toBe('debian');
      expect(report.variables.probe).toBe('ok');
      console.log(
        `local check-mode run (${mode}): ${report.results.length} validator runs, ${report.commandCount} round trips`,
      );
    }
    const missing = await validateImage(
      loadImageSpec('validators:\n  - package: [bash, stackspec-no-such-package]\n'),
      createLocalRemote(),
      {
        reconcile: false,
      },
    );
    expect(missing.failure).toMatchObject({ code: 'image/command-failed', exitCode: 1 });
    expect(missing.failure?.stderr).toContain('stackspec-no-such-package');
    expect(spawnSync('dpkg-query', ['-W'], { encoding: 'utf8' }).stdout).toBe(before);
  });

  it('reports a command that cannot be started as a remote error', async () => {
    const remote = createLocalRemote({ shell: '/nonexistent/sh' });
    await expect(remote.exec('true')).rejects.toMatchObject({ code: 'remote/spawn-failed' });
    const r = await validateImage(loadImageSpec('validators: []\n'), remote);
    expect(r.failure?.code).toBe('remote/spawn-failed');
  });

  it('stops a command that runs too long', async () => {
    const remote = createLocalRemote({ timeoutMs: 200 });
    await expect(remote.exec('sleep 5')).rejects.toMatchObject({ code: 'remote/timeout' });
  });

  it('wraps file system errors', async () => {
    await expect(createLocalRemote().writeFile('/nonexistent/dir/file', 'x')).rejects.toMatchObject({
      code: 'remote/write-failed',
    });
  });
});
