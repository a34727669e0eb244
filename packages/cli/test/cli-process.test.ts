// The `stackspec` command run as a user runs it (see process.ts): exit codes,
// output, a bad file, an unreadable file and folder, every command.
import { chmodSync, cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  binEnv,
  REPO,
  stackspec as runStackspec,
  shell,
  startStackspec,
  TSX_BIN,
  USE_BUILT,
} from './process.js';

const EXAMPLE = join(REPO, 'examples/cloud');
const isRoot = process.getuid?.() === 0;

let root: string;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'stackspec-process-'));
  chmodSync(root, 0o755);
  cpSync(EXAMPLE, join(root, 'cloud'), { recursive: true, filter: (src) => !src.includes('node_modules') });
  mkdirSync(join(root, 'bad'));
  writeFileSync(join(root, 'bad/broken.yaml'), 'name: CUSTOM_X\nsteps: [\n');
  writeFileSync(join(root, 'bad/secret.yaml'), 'name: m1\nextra_specs: {}\n');
  chmodSync(join(root, 'bad/secret.yaml'), 0o000);
  // A folder nobody may list, with a file that would be checked.
  mkdirSync(join(root, 'locked/inner'), { recursive: true });
  writeFileSync(join(root, 'locked/inner/typo.yaml'), 'name: m1\nextra_specs:\n  hw:cpu_polcy: x\n');
  chmodSync(join(root, 'locked/inner'), 0o000);
  // A cloud whose inventory is unreadable, and one whose flavors are.
  for (const name of ['no-inventory', 'no-flavors']) {
    cpSync(EXAMPLE, join(root, name), { recursive: true, filter: (src) => !src.includes('node_modules') });
  }
  chmodSync(join(root, 'no-inventory/inventory.yaml'), 0o000);
  chmodSync(join(root, 'no-flavors/flavors/baremetal.yaml'), 0o000);
  writeFileSync(
    join(root, 'broken-inventory.yaml'),
    'providers:\n  - name: cn1\n    inventories: { VCPU: -1 }\n',
  );
});
afterAll(() => {
  chmodSync(join(root, 'locked/inner'), 0o755);
  rmSync(root, { recursive: true, force: true });
});

// Root reads everything; as root the unreadable cases run as user nobody, otherwise as ourselves.
const stackspec = (args: string[], options: { asNobody?: boolean; env?: Record<string, string> } = {}) =>
  runStackspec(args, { cwd: root, ...options });

describe(`stackspec as a process (${USE_BUILT ? 'built' : 'from source'})`, () => {
  it('prints its version and help, exit 0', () => {
    const version = JSON.parse(readFileSync(join(REPO, 'packages/cli/package.json'), 'utf8')).version;
    expect(stackspec(['--version'])).toMatchObject({ code: 0, out: `${version}\n` });
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
    const json = stackspec(['check', 'bad/broken.yaml', '--format', 'json']);
    expect(json.code).toBe(1);
    expect(JSON.parse(json.out)).toMatchObject({
      files: [{ file: 'bad/broken.yaml', kind: null, diagnostics: [{ code: 'yaml/syntax', line: 3 }] }],
      summary: { files: 1, checked: 1, errors: 1 },
    });
    const sarif = stackspec(['check', 'bad/broken.yaml', '--format', 'sarif']);
    expect(sarif.code).toBe(1);
    expect(JSON.parse(sarif.out).runs[0].results[0].ruleId).toBe('yaml/syntax');
  });

  it('check: an unreadable file is an error with a hint, not a crash', () => {
    const r = stackspec(['check', 'bad'], { asNobody: isRoot });
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/bad\/secret\.yaml {2}error {2}The file cannot be read: .*permission denied/i);
    expect(r.out).toContain('hint: Check the permissions');
    expect(r.err).toBe('');
  });

  it('check: a folder that cannot be listed is an error, not a silent pass', () => {
    const r = stackspec(['check', 'locked'], { asNobody: isRoot });
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/locked\/inner {2}error {2}.*permission denied.*\(fs\/unreadable\)/i);
    expect(r.out).toContain('hint: Check the permissions');
    expect(r.out).not.toContain('no problems');
  });

  it('check: colour follows FORCE_COLOR, and NO_COLOR wins over it', () => {
    const ESC = '\u001b[';
    const forced = binEnv({ NO_COLOR: undefined, FORCE_COLOR: '1' });
    expect(stackspec(['check', 'bad/broken.yaml'], { env: forced }).out).toContain(ESC);
    expect(stackspec(['check', 'bad/broken.yaml'], { env: { ...forced, NO_COLOR: '1' } }).out).not.toContain(
      ESC,
    );
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
    expect(r.err).toBe('');
  });

  it('schedule: an unknown flavor is a usage error with a suggestion', () => {
    const r = stackspec(['schedule', '--flavor', 'FlavorNoVMXStrip', 'cloud']);
    expect(r.code).toBe(2);
    expect(r.err).toContain('Did you mean FlavorNoVMXStripe?');
  });

  it('schedule: a broken inventory is named, with its problem at its line, exit 2', () => {
    const r = stackspec([
      'schedule',
      '--flavor',
      'm1.small',
      '--inventory',
      'broken-inventory.yaml',
      'cloud',
    ]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/broken-inventory\.yaml:3:\d+ {2}error/);
    expect(r.err).toContain('error: The Placement inventory broken-inventory.yaml cannot be used');
    expect(r.out).toBe('');
  });

  it('schedule: an unreadable inventory or flavor file is reported, exit 2', () => {
    const inv = stackspec(['schedule', '--flavor', 'm1.small', 'no-inventory'], { asNobody: isRoot });
    expect(inv.code).toBe(2);
    expect(inv.err).toMatch(
      /no-inventory\/inventory\.yaml {2}error {2}The file cannot be read: .*permission denied/i,
    );
    expect(inv.err).toContain('error: No Placement inventory file was found in no-inventory.');
    expect(inv.err).toContain('hint: Some files could not be read');
    const flavors = stackspec(['schedule', '--flavor', 'FlavorVMXMirror', 'no-flavors'], {
      asNobody: isRoot,
    });
    expect(flavors.code).toBe(2);
    expect(flavors.err).toMatch(/no-flavors\/flavors\/baremetal\.yaml {2}error {2}The file cannot be read/);
    expect(flavors.err).toContain('error: No flavor named FlavorVMXMirror was found in no-flavors.');
  });

  it('serve: answers /healthz and stops cleanly on SIGTERM, exit 0', async () => {
    const server = startStackspec(['serve', '--port', '0', 'cloud'], { cwd: root });
    try {
      const [, url] = await server.waitFor(/stackspec serving on (http:\/\/\S+)\n/);
      await server.waitFor(/health +\S+\/healthz\n/);
      expect(server.out()).toContain(
        'loaded 8 flavor(s), 4 deploy template(s), inventory cloud/inventory.yaml',
      );
      const health = await fetch(`${url}/healthz`);
      expect(health.status).toBe(200);
      expect(await health.json()).toMatchObject({ status: 'ok' });
      server.child.kill('SIGTERM');
      expect(await server.exited).toBe(0);
      expect(server.out()).toContain('stopping…');
    } finally {
      server.child.kill('SIGKILL');
    }
  });

  it('serve: a missing or broken inventory is bad usage that names the file, exit 2', () => {
    const missing = stackspec(['serve', '--port', '0', '--inventory', 'missing.yaml']);
    expect(missing.code).toBe(2);
    expect(missing.err).toContain('missing.yaml  error  No such file or directory.  (fs/not-found)');
    expect(missing.err).toContain('error: The Placement inventory missing.yaml cannot be used');
    expect(missing.err).not.toMatch(/bug|internal error/);
    const broken = stackspec(['serve', '--port', '0', '--inventory', 'broken-inventory.yaml']);
    expect(broken.code).toBe(2);
    expect(broken.err).toMatch(/broken-inventory\.yaml:3:\d+ {2}error/);
  });

  it('serve: a port in use is bad usage with a hint, exit 2', async () => {
    const blocker = createServer();
    await new Promise<void>((done) => blocker.listen(0, '127.0.0.1', done));
    try {
      const port = (blocker.address() as { port: number }).port;
      const r = stackspec(['serve', '--port', String(port)]);
      expect(r.code).toBe(2);
      expect(r.err).toBe(
        `error: Port ${port} on 127.0.0.1 is already in use.\nhint: Pick another --port, or --port 0 for a free one.\n`,
      );
    } finally {
      blocker.close();
    }
  });
});

describe("the repository's scripts, as pnpm runs them", () => {
  // pnpm runs a script in its package's folder with the workspace's tools on PATH.
  const pnpmRun = (name: string, args = '', folder = REPO) => {
    const pkg = JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8'));
    return shell(`${pkg.scripts[name]} ${args}`, { cwd: folder, shimDir: TSX_BIN });
  };

  it('demo: shows the check report and both walk-throughs, exit 0', () => {
    const r = pnpmRun('demo');
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(r.out).toContain('$ stackspec check examples');
    expect(r.out).toContain('examples/cloud/flavors/typos.yaml:20:7  error');
    expect(r.out).toContain('hint: Did you mean hw:cpu_policy?');
    expect(r.out).toContain('$ stackspec schedule --flavor FlavorVMXMirror examples/cloud');
    expect(r.out).toContain(
      'matching deploy templates: CUSTOM_BM_CONFIG_BIOS_VMX_ON, CUSTOM_BM_CONFIG_RAID_DISK_MIRROR',
    );
    expect(r.out).toContain('$ stackspec schedule --flavor FlavorNoVMXStripe examples/cloud');
    expect(r.out).toContain(
      'matching deploy templates: CUSTOM_BM_CONFIG_BIOS_VMX_OFF, CUSTOM_BM_CONFIG_RAID_DISK_STRIPE',
    );
    expect(r.out).toContain('demo finished: check found the planted typos, both flavors were scheduled');
  });

  it('stackspec: runs the command from a checkout without a build', () => {
    const r = pnpmRun('stackspec', 'schedule --flavor w1.windows examples/cloud');
    expect(r.code).toBe(0);
    expect(r.out).toContain('→ kvm-03');
  });

  it("examples/cloud's scripts run in that folder", () => {
    const check = pnpmRun('check', '', EXAMPLE);
    expect(check.code).toBe(1);
    expect(check.out).toContain('✖ 5 problems (5 errors, 0 warnings) in 12 files');
    const windows = pnpmRun('schedule:windows', '', EXAMPLE);
    expect(windows.code).toBe(0);
    expect(windows.out).toContain('→ kvm-03');
  });
});
