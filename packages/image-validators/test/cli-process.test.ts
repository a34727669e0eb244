// `stackspec-image` run as a user runs it: a separate process, real streams,
// real exit codes. CI builds first and sets STACKSPEC_REQUIRE_BUILT=1, so the
// built bin is what runs there; elsewhere the same entry point runs from
// source, since a local dist may be stale.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';

const PKG = join(dirname(fileURLToPath(import.meta.url)), '..');
const BUILT = join(PKG, 'dist/bin/stackspec-image.js');
const useBuilt = process.env.STACKSPEC_REQUIRE_BUILT === '1';
const TSX_LOADER = pathToFileURL(
  join(dirname(createRequire(import.meta.url).resolve('tsx/package.json')), 'dist/loader.mjs'),
).href;

let dir: string;
beforeAll(() => {
  if (useBuilt && !existsSync(BUILT)) {
    throw new Error(`STACKSPEC_REQUIRE_BUILT is set but ${BUILT} is missing; run pnpm build first`);
  }
  dir = mkdtempSync(join(tmpdir(), 'siv-process-'));
  writeFileSync(join(dir, 'good.yaml'), 'validators:\n  - package: [wget, curl]\n');
  writeFileSync(join(dir, 'bad.yaml'), 'validators:\n  - packge: wget\n');
});

function image(...args: string[]) {
  const entry = useBuilt
    ? [BUILT]
    : ['--conditions=@stackspec/source', '--import', TSX_LOADER, join(PKG, 'src/bin/stackspec-image.ts')];
  const r = spawnSync(process.execPath, [...entry, ...args], {
    cwd: dir,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '' },
    timeout: 120_000,
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

describe(`stackspec-image as a process (${useBuilt ? 'built' : 'from source'})`, () => {
  it('prints its version, exit 0', () => {
    expect(image('--version')).toMatchObject({ code: 0, out: expect.stringMatching(/^\d+\.\d+\.\d+/) });
  });

  it('exits 0 when the image passes and 1 when validation fails', () => {
    const ok = image('validate', 'good.yaml', '--dry-run', '--assume-installed');
    expect(ok.code, ok.err).toBe(0);
    expect(ok.out).toContain('✔ image is valid');
    const failed = image('validate', 'good.yaml', '--dry-run', '--format', 'json');
    expect(failed.code, failed.err).toBe(1);
    expect(JSON.parse(failed.out)).toMatchObject({ ok: false, failure: { code: 'image/command-failed' } });
  });

  it('exits 2 for a bad spec, from validate and explain alike, and for a bad command line', () => {
    for (const command of ['validate', 'explain']) {
      const r = image(command, 'bad.yaml', ...(command === 'validate' ? ['--dry-run'] : []));
      expect(r.code, `${command}: ${r.err}`).toBe(2);
      expect(r.err).toContain('bad.yaml:2:5');
      expect(r.err).toContain('Did you mean package?');
      expect(r.out).toBe('');
    }
    const usage = image('validate', 'good.yaml', '--host', 'h', '--port', '70000');
    expect(usage.code).toBe(2);
    expect(usage.err).toMatch(/--port must be a whole number from 1 to 65535/);
  });
});
