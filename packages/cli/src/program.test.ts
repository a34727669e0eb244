import { cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CliIO } from '@stackspec/core/cli';
import { runCli } from '@stackspec/core/cli';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runStackspec } from './program.js';

let root: string;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'stackspec-cli-'));
  cpSync(join(__dirname, 'fixtures'), root, { recursive: true });
  symlinkSync(join(root, 'good'), join(root, 'good/loop'));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

async function run(
  args: string[],
  env: Record<string, string> = { NO_COLOR: '1' },
  streams: { tty?: boolean; cwd?: string; now?: () => number } = {},
) {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIO = {
    stdout: { write: (s: string) => out.push(s), isTTY: streams.tty === true },
    stderr: { write: (s: string) => err.push(s), isTTY: streams.tty === true },
    env,
    cwd: streams.cwd ?? root,
    ...(streams.now ? { now: streams.now } : {}),
  };
  const code = await runCli(() => runStackspec(args, io), io);
  return { code, out: out.join(''), err: err.join('') };
}

describe('stackspec check', () => {
  it('passes a clean tree and says so', async () => {
    const r = await run(['check', 'good']);
    expect(r.code).toBe(0);
    // The fixture tree holds a symbolic link loop: a warning, not a failure.
    expect(r.out).toContain('⚠ 1 problem (0 errors, 1 warning) in 5 files');
    expect(r.out).toContain('1 file(s) not checked');
  });

  it('reports problems as file:line:col with hints, and exits 1', async () => {
    const r = await run(['check', 'bad']);
    expect(r.code).toBe(1);
    expect(r.out).toMatch(
      /bad\/flavor-typo\.yaml:5:3 {2}error {2}.*hw:cpu_polcy.*\(extra-specs\/unknown-key\)/,
    );
    expect(r.out).toContain('hint: Did you mean hw:cpu_policy?');
    expect(r.out).toMatch(/bad\/flavor-typo\.yaml:6:25 {2}error/);
    expect(r.out).toMatch(/bad\/template\.json:4:\d+ {2}error/);
    expect(r.out).toMatch(/bad\/broken\.yaml:\d+:\d+ {2}error .*\(yaml\/syntax\)/);
    expect(r.out).toMatch(/bad\/image\.yaml:3:\d+ {2}error/);
    expect(r.out).toMatch(/bad\/inventory\.yaml:6:\d+ {2}error/);
    expect(r.out).toMatch(/✖ \d+ problems \(\d+ errors?, \d+ warnings?\)/);
  });

  it('lists what each file was recognised as with --verbose', async () => {
    const r = await run(['check', 'good', '--verbose']);
    const kinds = {
      'flavors.yaml': 'flavor',
      'raid.yaml': 'deploy template',
      'template.yaml': 'Heat template',
      'env.yaml': 'Heat environment',
      'notes.yaml': 'not recognised',
      'inventory.yaml': 'Placement inventory',
    };
    for (const [file, kind] of Object.entries(kinds)) expect(r.out).toContain(`good/${file}: ${kind}`);
  });

  it('warns about a symbolic link loop instead of hanging', async () => {
    const r = await run(['check', 'good']);
    expect(r.code).toBe(0);
    const json = await run(['check', 'good', '--format', 'json']);
    expect(JSON.parse(json.out).walkDiagnostics).toContainEqual(
      expect.objectContaining({ code: 'fs/symlink-loop' }),
    );
  });

  it('writes a JSON report', async () => {
    const r = await run(['check', 'bad', '--format', 'json']);
    const report = JSON.parse(r.out);
    expect(report.summary.errors).toBeGreaterThan(3);
    expect(report.files.find((f: { file: string }) => f.file === 'bad/flavor-typo.yaml').kind).toBe('flavor');
  });

  it('writes SARIF for code-scanning services', async () => {
    const r = await run(['check', 'bad', '--format', 'sarif']);
    const sarif = JSON.parse(r.out);
    expect(sarif.version).toBe('2.1.0');
    const result = sarif.runs[0].results.find(
      (x: { ruleId: string }) => x.ruleId === 'extra-specs/unknown-key',
    );
    expect(result.level).toBe('error');
    expect(result.locations[0].physicalLocation).toMatchObject({
      artifactLocation: { uri: 'bad/flavor-typo.yaml' },
      region: { startLine: 5, startColumn: 3 },
    });
    expect(sarif.runs[0].tool.driver.rules.map((x: { id: string }) => x.id)).toContain(
      'extra-specs/unknown-key',
    );
  });

  it('lets --mode permissive turn unknown keys into warnings', async () => {
    writeFileSync(join(root, 'only-unknown.yaml'), 'name: x\nextra_specs:\n  hw:cpu_polcy: dedicated\n');
    const r = await run(['check', 'only-unknown.yaml', '--mode', 'permissive']);
    expect(r.code).toBe(0);
    expect(r.out).toContain('warning');
    const strict = await run(['check', 'only-unknown.yaml', '--max-warnings', '0', '--mode', 'permissive']);
    expect(strict.code).toBe(1);
  });

  it('applies the config nearest to each file', async () => {
    mkdirSync(join(root, 'lenient'), { recursive: true });
    writeFileSync(join(root, 'lenient/stackspec.config.yaml'), 'extraSpecs:\n  mode: permissive\n');
    writeFileSync(join(root, 'lenient/f.yaml'), 'name: x\nextra_specs:\n  hw:cpu_polcy: dedicated\n');
    const r = await run(['check', 'lenient']);
    expect(r.code).toBe(0);
    expect(r.out).toContain('lenient/f.yaml:3:3  warning');
    expect((await run(['check', 'lenient', '--mode', 'strict'])).code).toBe(1);
  });

  it('resolves Heat candidate lists and reports registry paths that point nowhere', async () => {
    mkdirSync(join(root, 'heat'), { recursive: true });
    const tpl = (d: string) =>
      `heat_template_version: wallaby\ncapabilities:\n  deployment: ${d}\nresources: {}\n`;
    writeFileSync(join(root, 'heat/puppet.yaml'), tpl('puppet'));
    writeFileSync(join(root, 'heat/docker.yaml'), tpl('docker'));
    writeFileSync(
      join(root, 'heat/env.yaml'),
      'requires:\n  deployment: ansible\nresource_registry:\n  OS::App: [puppet.yaml, docker.yaml]\n  OS::Gone: gone.yaml\n',
    );
    const r = await run(['check', 'heat']);
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/heat\/env\.yaml:4:3 {2}error {2}No candidate for OS::App satisfies requires/);
    expect(r.out).toMatch(
      /heat\/env\.yaml:5:3 {2}warning {2}'OS::Gone' maps to gone\.yaml, which does not exist\./,
    );
    writeFileSync(
      join(root, 'heat/env.yaml'),
      'requires:\n  deployment: docker\nresource_registry:\n  OS::App: [puppet.yaml, docker.yaml]\n',
    );
    expect((await run(['check', 'heat'])).code).toBe(0);
  });

  it('fails on a path that does not exist, and still checks the others', async () => {
    const r = await run(['check', 'missing-dir', 'good/raid.yaml']);
    expect(r.code).toBe(1);
    expect(r.out).toContain('missing-dir  error  No such file or directory.  (fs/not-found)');
    expect(r.out).toContain('in 1 file');
  });

  it('counts a file that does not parse as checked', async () => {
    expect((await run(['check', 'bad/broken.yaml'])).out).toContain(
      '✖ 1 problem (1 error, 0 warnings) in 1 file',
    );
  });

  it('rejects an unknown release and a bad --max-warnings as usage errors', async () => {
    const r = await run(['check', 'good', '--release', 'zedd']);
    expect(r.code).toBe(2);
    expect(r.err).toContain("'zedd' is not a Nova release");
    expect((await run(['check', 'good', '--max-warnings', 'abc'])).code).toBe(2);
  });

  it('rejects unknown options and bad formats with exit code 2', async () => {
    expect((await run(['check', '--bogus'])).code).toBe(2);
    expect((await run(['check', '--format', 'xml'])).code).toBe(2);
    expect((await run(['check', '--config', 'nope.yaml'])).code).toBe(2);
  });

  it('colours on a terminal or with FORCE_COLOR, never with NO_COLOR or --no-color', async () => {
    const ESC = '\u001b[';
    expect((await run(['check', 'bad'], {}, { tty: true })).out).toContain(ESC);
    expect((await run(['check', 'bad'], { FORCE_COLOR: '1' })).out).toContain(ESC);
    expect((await run(['check', 'bad'], {})).out).not.toContain(ESC);
    expect(
      (await run(['check', 'bad'], { NO_COLOR: '1', FORCE_COLOR: '1' }, { tty: true })).out,
    ).not.toContain(ESC);
    expect(
      (await run(['check', 'bad', '--no-color'], { FORCE_COLOR: '1' }, { tty: true })).out,
    ).not.toContain(ESC);
  });

  it('leaves warnings out with --quiet', async () => {
    writeFileSync(join(root, 'warn-only.yaml'), 'name: x\nextra_specs:\n  hw:cpu_polcy: dedicated\n');
    const loud = await run(['check', 'warn-only.yaml', 'bad/broken.yaml', '--mode', 'permissive']);
    expect(loud.out).toContain('warn-only.yaml:3:3  warning');
    const quiet = await run(['check', 'warn-only.yaml', 'bad/broken.yaml', '--mode', 'permissive', '-q']);
    expect(quiet.code).toBe(1);
    expect(quiet.out).not.toContain('warning  ');
    expect(quiet.out).toContain('bad/broken.yaml');
  });

  it('draws a progress line on a terminal once a run takes a second, and not in CI or for JSON', async () => {
    mkdirSync(join(root, 'many'), { recursive: true });
    for (let i = 0; i < 50; i += 1)
      writeFileSync(join(root, `many/f${i}.yaml`), `name: m${i}\nextra_specs: {}\n`);
    // A clock that moves a second on at each reading: every update is past the delay.
    const slow = () => {
      let t = 0;
      return () => {
        t += 1000;
        return t;
      };
    };
    const tty = { tty: true, now: slow() };
    expect((await run(['check', 'many'], { NO_COLOR: '1' }, tty)).err).toContain('checking ');
    expect((await run(['check', 'many'], { NO_COLOR: '1', CI: 'true' }, tty)).err).toBe('');
    expect((await run(['check', 'many', '--format', 'json'], { NO_COLOR: '1' }, tty)).err).toBe('');
    expect((await run(['check', 'many'], { NO_COLOR: '1' }, { now: slow() })).err).toBe('');
    // A run within a second draws nothing, however many files it checks.
    expect((await run(['check', 'many'], { NO_COLOR: '1' }, { tty: true, now: () => 0 })).err).toBe('');
  });
});

describe('stackspec check: config options', () => {
  const project = (name: string, files: Record<string, string>) => {
    for (const [file, text] of Object.entries(files)) {
      mkdirSync(join(root, name, file, '..'), { recursive: true });
      writeFileSync(join(root, name, file), text);
    }
  };
  const ENV =
    'resource_registry:\n  OS::Gone: gone.yaml\n  OS::Tht: /usr/share/openstack-tripleo-heat-templates/deployment/x.yaml\n';

  it('turns one kind of file off with enabled: false', async () => {
    project('off', {
      'stackspec.config.yaml': 'deployTemplates:\n  enabled: false\n',
      'raid.yaml': 'name: CUSTOM_X\nsteps: [{interface: raid}]\n',
    });
    const r = await run(['check', 'off', '--verbose']);
    expect(r.code).toBe(0);
    expect(r.out).toContain('off/raid.yaml: deploy template, disabled in config');
  });

  it('reads absolute registry paths from the checkout with heat.pathMap, and stops path checks with checkPaths: false', async () => {
    project('tht', {
      'env.yaml': ENV,
      'deployment/x.yaml': 'heat_template_version: wallaby\nresources: {}\n',
    });
    const plain = await run(['check', 'tht/env.yaml']);
    expect(plain.out).toContain("'OS::Tht' maps to");
    expect(plain.out).toContain("'OS::Gone' maps to gone.yaml");
    writeFileSync(
      join(root, 'tht/stackspec.config.yaml'),
      'heat:\n  pathMap:\n    /usr/share/openstack-tripleo-heat-templates/: .\n',
    );
    const mapped = await run(['check', 'tht/env.yaml']);
    expect(mapped.out).not.toContain("'OS::Tht' maps to");
    expect(mapped.out).toContain("'OS::Gone' maps to gone.yaml");
    writeFileSync(join(root, 'tht/stackspec.config.yaml'), 'heat:\n  checkPaths: false\n');
    const unchecked = await run(['check', 'tht/env.yaml']);
    expect(unchecked.out).not.toContain('maps to');
    expect(unchecked.code).toBe(0);
  });

  it('looks image spec scripts up in imageSpecs.resourceRoots', async () => {
    project('img', {
      'specs/image.yaml': 'validators:\n  - script: common/setup.sh\n',
      'scripts/common/setup.sh': '#!/bin/sh\ntrue\n',
    });
    const beside = await run(['check', 'img']);
    expect(beside.code).toBe(1);
    expect(beside.out).toContain('common/setup.sh');
    writeFileSync(join(root, 'img/stackspec.config.yaml'), 'imageSpecs:\n  resourceRoots: [scripts]\n');
    expect((await run(['check', 'img'])).code).toBe(0);
  });

  it("discovers extra spec plugins among the config folder's dependencies unless discover is off", async () => {
    project('disc', {
      'package.json': JSON.stringify({ name: 'disc', dependencies: { 'acme-filters': '1.0.0' } }),
      'node_modules/acme-filters/package.json': JSON.stringify({
        name: 'acme-filters',
        version: '1.0.0',
        type: 'module',
        stackspec: { extraSpecValidators: './validators.js' },
      }),
      'node_modules/acme-filters/validators.js':
        "export const extraSpecs = [{ name: 'acme:slices', description: 'GPU slices.', value: { type: 'int', min: 1 } }];\n",
      'flavors.yaml': 'name: g1\nextra_specs:\n  acme:slices: "2"\n',
      // Discovery reads the package.json beside the config that governs the files.
      'stackspec.config.yaml': 'extraSpecs:\n  mode: strict\n',
    });
    const found = await run(['check', 'disc']);
    expect(found.out).toContain('✔ no problems');
    writeFileSync(join(root, 'disc/stackspec.config.yaml'), 'extraSpecs:\n  discover: false\n');
    const off = await run(['check', 'disc']);
    expect(off.code).toBe(1);
    expect(off.out).toContain("'acme:slices' is not a known extra spec");
  });
});

describe('stackspec schedule', () => {
  it('prints the walk from flavor to deploy steps and exits 0', async () => {
    const r = await run(['schedule', '--flavor', 'bm.mirror', 'cloud']);
    expect(r.code).toBe(0);
    expect(r.out).toContain(
      'GET /allocation_candidates?resources=CUSTOM_BAREMETAL:1&required=CUSTOM_RAID_MIRROR',
    );
    expect(r.out).toContain('4. Node node-a');
    expect(r.out).toMatch(
      /2\. raid\.create_configuration +priority {2}10 {2}\(template CUSTOM_RAID_MIRROR\)/,
    );
  });

  it('writes the whole result as JSON', async () => {
    const r = await run([
      'schedule',
      '--flavor',
      'bm.mirror',
      '--node',
      'node-b',
      '--format',
      'json',
      'cloud',
    ]);
    const result = JSON.parse(r.out);
    expect(result).toMatchObject({ ok: true, stage: 'done', node: { name: 'node-b' } });
  });

  it('exits 1 and says where the walk stopped', async () => {
    const r = await run(['schedule', '--flavor', 'bm.gpu', 'cloud']);
    expect(r.code).toBe(1);
    expect(r.out).toContain('no compute node can host this flavor');
    const typo = await run(['schedule', '--flavor', 'bm.typo', 'cloud']);
    expect(typo.code).toBe(1);
    expect(typo.out).toContain('hint: Did you mean required?');
  });

  it('suggests a flavor name and exits 2 when the flavor is unknown', async () => {
    const r = await run(['schedule', '--flavor', 'bm.mirorr', 'cloud']);
    expect(r.code).toBe(2);
    expect(r.err).toContain('No flavor named bm.mirorr');
    expect(r.err).toContain('Did you mean bm.mirror?');
    expect((await run(['schedule', 'cloud'])).code).toBe(2);
  });
});
