// Hostile ssh configs, known_hosts files and servers: each ends in a value or
// our error within a bound of time and memory, never a hang. The bounds are
// generous for a loaded CI machine; healthy runs take a small fraction.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect, createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createSshRemote } from '../src/adapters/ssh.js';
import { probeHostCertificate } from '../src/adapters/ssh-certificate-probe.js';
import { checkHostKey, hostFieldMatches, parseKnownHosts } from '../src/known-hosts.js';
import { matchWildcard } from '../src/ssh-certificate.js';
import { MAX_CONFIG_FILES, parseSshConfig, resolveSshConfig } from '../src/ssh-config.js';
import { sshString } from '../src/ssh-wire.js';

const MAX_MS = 5_000;
const MAX_HEAP_GROWTH = 256 * 1024 * 1024;

/** Runs `work`, and checks it took less than MAX_MS and grew the heap by less than MAX_HEAP_GROWTH. */
async function bounded<T>(work: () => T | Promise<T>): Promise<T> {
  const heap = process.memoryUsage().heapUsed;
  const started = performance.now();
  const result = await work();
  expect(performance.now() - started).toBeLessThan(MAX_MS);
  expect(process.memoryUsage().heapUsed - heap).toBeLessThan(MAX_HEAP_GROWTH);
  return result;
}

describe('hostile ssh configs', () => {
  it('parses a megabyte of quotes, patterns and tokens line by line', async () => {
    const lines = [
      `Host ${'*a'.repeat(20_000)}b`,
      `User "${'\\"'.repeat(50_000)}`,
      `IdentityFile ${'%'.repeat(100_001)}`,
      ...Array.from({ length: 20_000 }, (_, i) => `Host h${i} !x* ?${i}\n  Port ${i % 70_000}`),
    ];
    const { directives, diagnostics } = await bounded(() => parseSshConfig(lines.join('\n'), 'cfg'));
    expect(directives.length).toBeGreaterThan(20_000);
    expect(diagnostics.map((d) => d.line).slice(0, 2)).toEqual([2, 3]);
  });

  it('matches hostile Host patterns against long names without backtracking blow-ups', async () => {
    const pattern = `${'*a'.repeat(300)}b`;
    await bounded(() => {
      expect(matchWildcard(pattern, 'a'.repeat(10_000))).toBe(false);
      expect(hostFieldMatches(`${pattern},!${pattern}`, ['a'.repeat(10_000)])).toBe(false);
    });
  });

  it('stops Includes that include themselves or name thousands of files', async () => {
    const home = '/home/ops';
    const many = Array.from({ length: 10_000 }, (_, i) => `${home}/.ssh/d/${i}`);
    const r = await bounded(() =>
      resolveSshConfig({
        host: 'h',
        files: [{ path: `${home}/.ssh/config`, kind: 'user' }],
        home,
        localUser: 'ops',
        load: (path) => ({
          text: path.endsWith('/config') ? 'Include config d/*\nPort 22\n' : 'Include ../config\n',
        }),
        glob: (pattern) => (pattern.endsWith('d/*') ? many : [pattern]),
      }),
    );
    expect(r.port).toBe(22);
    expect(r.diagnostics.some((d) => d.message.includes(`More than ${MAX_CONFIG_FILES} config files`))).toBe(
      true,
    );
  });

  it('reads a config or key that is a FIFO, a device or huge as our error, without waiting', async () => {
    const home = mkdtempSync(join(tmpdir(), 'siv-hostile-'));
    try {
      mkdirSync(join(home, '.ssh'));
      expect(spawnSync('mkfifo', [join(home, '.ssh', 'config')]).status).toBe(0);
      const thrown = await bounded(() => {
        try {
          createSshRemote({ host: 'lab', home, systemConfigFile: false });
        } catch (e) {
          return e;
        }
        return undefined;
      });
      expect(thrown).toMatchObject({
        code: 'image/ssh-config/invalid',
        message: expect.stringContaining('it is a named pipe (FIFO), not a regular file'),
      });
      const big = join(home, 'big');
      writeFileSync(big, 'Include /dev/zero\n');
      const device = await bounded(() => {
        try {
          createSshRemote({ host: 'lab', home, configFile: big });
        } catch (e) {
          return e;
        }
        return undefined;
      });
      expect(device).toMatchObject({
        message: expect.stringContaining('/dev/zero cannot be read: it is a device'),
      });
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});

describe('hostile known_hosts files', () => {
  it('parses and searches a hundred thousand lines, hashed and patterned', async () => {
    const key = Buffer.concat([sshString('ssh-ed25519'), sshString(randomBytes(32))]).toString('base64');
    const text = Array.from({ length: 100_000 }, (_, i) =>
      i % 3 === 0
        ? `|1|${randomBytes(20).toString('base64')}|${randomBytes(20).toString('base64')} ssh-ed25519 ${key}`
        : `h${i},*.x${i} ssh-ed25519 ${key}`,
    ).join('\n');
    await bounded(() => {
      const { entries } = parseKnownHosts(text);
      expect(entries).toHaveLength(100_000);
      expect(checkHostKey(entries, ['nowhere'], Buffer.from(key, 'base64')).status).toBe('unknown');
    });
  });
});

describe('a server that trickles the certificate probe', () => {
  const sockets: Socket[] = [];
  const server = createServer((socket) => {
    sockets.push(socket);
    socket.on('error', () => {});
    // One byte of a version line at a time, never the end of it.
    const timer = setInterval(() => socket.write('S'), 20);
    socket.on('close', () => clearInterval(timer));
  });
  afterAll(async () => {
    for (const s of sockets) s.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('gives up at its time limit', async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    const { port } = server.address() as { port: number };
    const r = await bounded(() => probeHostCertificate(connect(port, '127.0.0.1'), 500));
    expect(r).toEqual({ reason: 'the server did not answer the certificate probe within 500 ms' });
  });
});
