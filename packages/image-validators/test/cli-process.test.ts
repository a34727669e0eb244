// `stackspec-image` run as a user runs it: a separate process, real streams,
// real exit codes (built in CI, from source elsewhere: see test-support/bin.ts).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runBin, USE_BUILT } from '../../../test-support/bin.js';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'siv-process-'));
  writeFileSync(join(dir, 'good.yaml'), 'validators:\n  - package: [wget, curl]\n');
  writeFileSync(join(dir, 'bad.yaml'), 'validators:\n  - packge: wget\n');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function image(...args: string[]) {
  const r = await runBin('stackspec-image', args, { cwd: dir });
  return { code: r.code, out: r.stdout, err: r.stderr };
}

describe(`stackspec-image as a process (${USE_BUILT ? 'built' : 'from source'})`, () => {
  it('prints its version, exit 0', async () => {
    expect(await image('--version')).toMatchObject({ code: 0, out: expect.stringMatching(/^\d+\.\d+\.\d+/) });
  });

  it('exits 0 when the image passes and 1 when validation fails', async () => {
    const ok = await image('validate', 'good.yaml', '--dry-run', '--assume-installed');
    expect(ok.code, ok.err).toBe(0);
    expect(ok.out).toContain('✔ image is valid');
    const failed = await image('validate', 'good.yaml', '--dry-run', '--format', 'json');
    expect(failed.code, failed.err).toBe(1);
    expect(JSON.parse(failed.out)).toMatchObject({ ok: false, failure: { code: 'image/command-failed' } });
  });

  it('exits 2 for a bad spec, from validate and explain alike, and for a bad command line', async () => {
    for (const command of ['validate', 'explain']) {
      const r = await image(command, 'bad.yaml', ...(command === 'validate' ? ['--dry-run'] : []));
      expect(r.code, `${command}: ${r.err}`).toBe(2);
      expect(r.err).toContain('bad.yaml:2:5');
      expect(r.err).toContain('Did you mean package?');
      expect(r.out).toBe('');
    }
    const usage = await image('validate', 'good.yaml', '--host', 'h', '--port', '70000');
    expect(usage.code).toBe(2);
    expect(usage.err).toMatch(/--port must be a whole number from 1 to 65535/);
  });
});
