// The `stackspec` command run as a user runs it: a separate process, real
// streams, real exit codes. CI builds first and sets STACKSPEC_REQUIRE_BUILT=1,
// so the built bin (and the built packages behind it) is what runs there;
// elsewhere the same entry point runs from source, since a local dist may be
// stale.
import { spawnSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const PKG = join(__dirname, '..');
const BUILT = join(PKG, 'dist/bin/stackspec.js');
const EXAMPLE = join(PKG, '../../examples/cloud');
const useBuilt = process.env.STACKSPEC_REQUIRE_BUILT === '1';
// tsx's loader by absolute URL: the process runs in a temporary folder.
const TSX_LOADER = pathToFileURL(
  join(dirname(createRequire(__filename).resolve('tsx/package.json')), 'dist/loader.mjs'),
).href;

let root: string;
beforeAll(() => {
  if (process.env.STACKSPEC_REQUIRE_BUILT === '1' && !existsSync(BUILT)) {
    throw new Error(`STACKSPEC_REQUIRE_BUILT is set but ${BUILT} is missing; run pnpm build first`);
  }
  root = mkdtempSync(join(tmpdir(), 'stackspec-process-'));
  chmodSync(root, 0o755);
  cpSync(EXAMPLE, join(root, 'cloud'), { recursive: true, filter: (src) => !src.includes('node_modules') });
  mkdirSync(join(root, 'bad'));
  writeFileSync(join(root, 'bad/broken.yaml'), 'name: CUSTOM_X\nsteps: [\n');
  writeFileSync(join(root, 'bad/secret.yaml'), 'name: m1\nextra_specs: {}\n');
  chmodSync(join(root, 'bad/secret.yaml'), 0o000);
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

function stackspec(args: string[], options: { asNobody?: boolean } = {}) {
  const entry = useBuilt
    ? [BUILT]
    : ['--conditions=@stackspec/source', '--import', TSX_LOADER, join(PKG, 'src/bin/stackspec.ts')];
  const r = spawnSync(process.execPath, [...entry, ...args], {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '' },
    timeout: 120_000,
    // Root reads any file; an unprivileged user is needed to meet an unreadable one.
    ...(options.asNobody && process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : {}),
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

describe(`stackspec as a process (${useBuilt ? 'built' : 'from source'})`, () => {
  it('prints its version and help, exit 0', () => {
    expect(stackspec(['--version'])).toMatchObject({ code: 0, out: expect.stringMatching(/^\d+\.\d+\.\d+/) });
    const help = stackspec(['--help']);
    expect(help.code).toBe(0);
    expect(help.out).toContain('check');
    expect(help.out).toContain('schedule');
    expect(help.out).toContain('serve');
  });

  it('check: reports the example typos and exits 1', () => {
    const r = stackspec(['check', 'cloud']);
    expect(r.code).toBe(1);
    expect(r.out).toContain('cloud/flavors/typos.yaml:20:7  error');
    expect(r.out).toMatch(/✖ 5 problems \(5 errors, 0 warnings\)/);
  });

  it('check: a broken file is an error with its position, in every format', () => {
    const text = stackspec(['check', 'bad/broken.yaml']);
    expect(text.code).toBe(1);
    expect(text.out).toMatch(/bad\/broken\.yaml:\d+:\d+ {2}error .*\(yaml\/syntax\)/);
    const sarif = JSON.parse(stackspec(['check', 'bad/broken.yaml', '--format', 'sarif']).out);
    expect(sarif.runs[0].results[0].ruleId).toBe('yaml/syntax');
  });

  it.runIf(process.getuid?.() === 0)('check: an unreadable file is reported, not a crash', () => {
    const r = stackspec(['check', 'bad'], { asNobody: true });
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/bad\/secret\.yaml {2}error {2}The file cannot be read: .*permission denied/i);
    expect(r.err).toBe('');
  });

  it('check: usage errors exit 2 with a message on stderr', () => {
    const r = stackspec(['check', '--format', 'xml', 'cloud']);
    expect(r.code).toBe(2);
    expect(r.err).toContain("argument 'xml' is invalid");
    expect(stackspec(['frobnicate']).code).toBe(2);
  });

  it('schedule: walks the spec flavor to its deploy steps, exit 0', () => {
    const r = stackspec(['schedule', '--flavor', 'FlavorNoVMXStripe', 'cloud']);
    expect(r.code).toBe(0);
    expect(r.out).toContain(
      'matching deploy templates: CUSTOM_BM_CONFIG_BIOS_VMX_OFF, CUSTOM_BM_CONFIG_RAID_DISK_STRIPE',
    );
    expect(r.out).toMatch(/raid\.create_configuration +priority {2}10/);
  });

  it('schedule: an unknown flavor is a usage error with a suggestion', () => {
    const r = stackspec(['schedule', '--flavor', 'FlavorNoVMXStrip', 'cloud']);
    expect(r.code).toBe(2);
    expect(r.err).toContain('Did you mean FlavorNoVMXStripe?');
  });
});
