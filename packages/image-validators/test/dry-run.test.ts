import { describe, expect, it } from 'vitest';
import { createDryRunRemote } from '../src/adapters/dry-run.js';
import { remoteContract } from './remote-contract.js';

remoteContract('dry-run', async () => ({ remote: createDryRunRemote({ distro: 'CentOS' }) }), 'recording');

describe('dry-run remote', () => {
  it('records every call with its options', async () => {
    const remote = createDryRunRemote();
    await remote.exec('echo hi', { asRoot: true, env: { A: '1' }, input: 'x' });
    await remote.writeFile('/tmp/f', new Uint8Array([104, 105]), { mode: 0o600 });
    await remote.distro();
    expect(remote.calls).toEqual([
      { op: 'exec', command: 'echo hi', options: { asRoot: true, env: { A: '1' }, input: 'x' } },
      { op: 'writeFile', path: '/tmp/f', content: 'hi', options: { mode: 0o600 } },
      { op: 'distro' },
    ]);
    expect(remote.files.get('/tmp/f')).toBe('hi');
  });

  it('answers from a responder before the machine model', async () => {
    const remote = createDryRunRemote({
      respond: (c) => (c === 'uptime' ? { stdout: 'up 3 days\n' } : undefined),
      machine: { installed: ['a'] },
    });
    expect(await remote.exec('uptime')).toEqual({ exitCode: 0, stdout: 'up 3 days\n', stderr: '' });
    expect((await remote.exec('dpkg -s a')).exitCode).toBe(0);
    expect((await remote.exec('dpkg -s b')).exitCode).toBe(1);
    expect(await remote.exec('unknown command')).toEqual({ exitCode: 0, stdout: '', stderr: '' });
  });

  it('simulates installs, including packages that cannot be installed', async () => {
    const remote = createDryRunRemote({ distro: 'centos', machine: { installable: ['a'] } });
    expect((await remote.exec('yum install -y a')).exitCode).toBe(0);
    expect(remote.installed.has('a')).toBe(true);
    const bad = await remote.exec('yum install -y b');
    expect(bad).toMatchObject({ exitCode: 100, stderr: 'E: Unable to locate package b\n' });
    expect((await remote.exec('rpm -q a b')).stdout).toBe('package b is not installed\n');
    expect((await remote.exec('dpkg -s')).stderr).toMatch(/needs at least one package/);
  });

  it('runs Sahara-style script files it was given', async () => {
    const remote = createDryRunRemote({
      machine: { script: (s) => ({ stdout: `${s.env.who}:${s.body}:${s.path}` }) },
    });
    await remote.writeFile('/tmp/x.sh', "export who='a b'\necho body");
    expect((await remote.exec('chmod +x /tmp/x.sh')).exitCode).toBe(0);
    expect((await remote.exec('chmod +x /tmp/none.sh')).exitCode).toBe(1);
    expect((await remote.exec('/tmp/x.sh')).stdout).toBe('a b:echo body:/tmp/x.sh');
  });
});
