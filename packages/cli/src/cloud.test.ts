import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadCloud } from './cloud.js';

let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'stackspec-cloud-'));
  writeFileSync(join(dir, 'flavors.yaml'), 'name: m1\nvcpus: 2\nram: 2048\nextra_specs: {}\n');
  // Sparse: no disk used, but read whole it would take 400 MB of memory.
  writeFileSync(join(dir, 'big.yaml'), '');
  truncateSync(join(dir, 'big.yaml'), 400 * 1024 ** 2);
  expect(spawnSync('mkfifo', [join(dir, 'pipe.yaml')]).status).toBe(0);
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('loadCloud', () => {
  it('refuses a file over the size limit without reading it, and keeps the others', async () => {
    const cloud = await loadCloud(['.'], dir);
    expect(cloud.flavors.map((f) => f.name)).toEqual(['m1']);
    expect(cloud.diagnostics).toEqual([
      // The walk leaves the FIFO out, saying so; the large file is found and refused when read.
      expect.objectContaining({
        code: 'fs/unreadable',
        file: 'pipe.yaml',
        message: expect.stringContaining('named pipe'),
      }),
      expect.objectContaining({
        code: 'stackspec/check/unreadable',
        severity: 'error',
        file: 'big.yaml',
        message: `The file holds ${400 * 1024 ** 2} bytes, more than the limit of 10485760 bytes; it is not read.`,
      }),
    ]);
  });

  it('rejects an inventory named explicitly that is too large or a FIFO, saying why', async () => {
    const big = await loadCloud([], dir, { inventory: 'big.yaml' });
    expect(big.rejected).toEqual([{ file: 'big.yaml', kind: 'placement-inventory' }]);
    expect(big.diagnostics).toEqual([
      expect.objectContaining({
        code: 'stackspec/check/unreadable',
        message: expect.stringContaining('more than the limit'),
      }),
    ]);
    const pipe = await loadCloud([], dir, { inventory: 'pipe.yaml' });
    expect(pipe.rejected).toEqual([{ file: 'pipe.yaml', kind: 'placement-inventory' }]);
    expect(pipe.diagnostics).toEqual([
      expect.objectContaining({ severity: 'error', message: expect.stringContaining('named pipe (FIFO)') }),
    ]);
  });
});
