import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { isRoot, serviceAvailable } from '../../../test-support/require.js';
import { createLocalRemote } from '../src/adapters/local.js';
import { loadImageSpec } from '../src/load.js';
import { validateImage } from '../src/validate.js';
import { remoteContract } from './remote-contract.js';
import { remoteAsUser } from './support/as-user.js';
import { describeWithTestUsers } from './support/users.js';

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
        '          - package: [sed, grep]',
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
        '      - package: findutils',
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

  it('runs Sahara-mode scripts with bash, as Sahara did, though their first line is not #!', async () => {
    const spec = loadImageSpec(
      [
        'validators:',
        '  - script:',
        '      bashism:',
        '        inline: |',
        '          [[ "$distro" == "$SIV_DISTRO" ]] || exit 7',
        '          pair=(first second)',
        // biome-ignore lint/suspicious/noTemplateCurlyInString: a bash array index, for the script
        '          printf %s "${pair[1]}"',
        '        output: picked',
        '',
      ].join('\n'),
    );
    for (const mode of ['sahara', 'batched'] as const) {
      const report = await validateImage(spec, createLocalRemote(), { reconcile: false, mode });
      expect(report.ok, `${mode}: ${report.failure?.message}`).toBe(true);
      expect(report.variables.picked).toBe('second');
    }
  });

  it('reports a command that cannot be started as a remote error', async () => {
    const remote = createLocalRemote({ shell: '/nonexistent/sh' });
    await expect(remote.exec('true')).rejects.toMatchObject({ code: 'image/remote/spawn-failed' });
    const r = await validateImage(loadImageSpec('validators: []\n'), remote);
    expect(r.failure?.code).toBe('image/remote/spawn-failed');
  });

  it('stops a command that runs too long', async () => {
    const remote = createLocalRemote({ timeoutMs: 200 });
    await expect(remote.exec('sleep 5')).rejects.toMatchObject({ code: 'image/remote/timeout' });
  });

  it('wraps file system errors', async () => {
    await expect(createLocalRemote().writeFile('/nonexistent/dir/file', 'x')).rejects.toMatchObject({
      code: 'image/remote/write-failed',
    });
  });

  // A process that is not root reaches root through `sudo -n`; only another user can take that path.
  describeWithTestUsers('run by a user that is not root', (users) => {
    it('runs root commands and writes through passwordless sudo, passing hostile env literally', () => {
      const sudoer = users.sudoer();
      const { seen, marker } = remoteAsUser(sudoer, { kind: 'local' });
      expect(seen).toEqual({
        user: String(sudoer.uid),
        root: '0',
        envLiteral: true,
        written: '0 600',
        validation: '0\n',
      });
      expect(existsSync(marker)).toBe(false);
    }, 120_000);

    it('fails root commands as image/remote/sudo-failed when sudo wants a password', () => {
      const plain = users.plain();
      const { seen } = remoteAsUser(plain, { kind: 'local' });
      expect(seen.user).toBe(String(plain.uid));
      expect(seen.error).toMatchObject({
        code: 'image/remote/sudo-failed',
        message: expect.stringContaining(`passwordless sudo for the user ${plain.name}`),
      });
    }, 120_000);
  });
});
