import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import type { CliIO } from '@stackspec/core/cli';
import { afterAll, describe, expect, it } from 'vitest';
import { runExtraSpecsCli } from './cli.js';

const dir = mkdtempSync(join(tmpdir(), 'esv-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function run(args: string[], stdin?: string) {
  let stdout = '';
  let stderr = '';
  const io: CliIO = {
    stdout: { write: (t: string) => (stdout += t) },
    stderr: { write: (t: string) => (stderr += t) },
    env: { NO_COLOR: '1' },
    cwd: dir,
    ...(stdin !== undefined ? { stdin: Readable.from([stdin]) } : {}),
  };
  const code = await runExtraSpecsCli(args, io);
  return { code, stdout, stderr };
}

function file(name: string, text: string): string {
  writeFileSync(join(dir, name), text);
  return name;
}

describe('stackspec-extra-specs validate', () => {
  it('locates problems in YAML flavor files as file:line:col and exits 1', async () => {
    const f = file(
      'flavors.yaml',
      'flavors:\n  - name: a\n    extra_specs:\n      hw:cpu_polcy: dedicated\n      hw:numa_nodes: "0"\n',
    );
    const r = await run(['validate', f]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(
      "flavors.yaml:4:7  error  Flavor 'a': 'hw:cpu_polcy' is not a known extra spec",
    );
    expect(r.stdout).toContain('hint: Did you mean hw:cpu_policy?');
    expect(r.stdout).toMatch(/flavors\.yaml:5:22 {2}error/);
    expect(r.stdout).toContain('2 problems (2 errors, 0 warnings) in 1 file');
  });

  it('reads openstack flavor show and list output, properties as text or mapping', async () => {
    const show = file(
      'show.json',
      JSON.stringify({ name: 'x', properties: "hw:cpu_policy='dedicated', hw:pmu='true'" }),
    );
    const list = file(
      'list.json',
      JSON.stringify([
        { Name: 'y', Properties: { 'hw:cpu_policy': 'shared' } },
        { Name: 'z', Properties: "trait:HW_CPU_X86_AVX2='required'" },
      ]),
    );
    const r = await run(['validate', show, list]);
    expect(r.stdout).toContain('no problems in 2 files');
    expect(r.code).toBe(0);
  });

  it('checks --spec pairs, honours --mode and --release, and prints JSON', async () => {
    const nova = await run([
      'validate',
      '--spec',
      'foo:bar=1',
      '--spec',
      'hw:max_cpu_sockets=2',
      '--mode',
      'nova',
      '--release',
      'zed',
    ]);
    expect(nova.code).toBe(0);
    const strict = await run(['validate', '--spec', 'foo:bar=1', '--format', 'json']);
    expect(strict.code).toBe(1);
    const report = JSON.parse(strict.stdout) as {
      ok: boolean;
      diagnostics: { code: string; file: string }[];
    };
    expect(report.ok).toBe(false);
    expect(report.diagnostics[0]).toMatchObject({ code: 'extra-specs/unknown-key', file: '--spec' });
    const permissive = await run(['validate', '--spec', 'foo:bar=1', '--mode', 'permissive']);
    expect(permissive.code).toBe(0);
    expect(permissive.stdout).toContain('warning');
  });

  it('reads standard input', async () => {
    const r = await run(['validate', '-'], '{"name": "s", "extra_specs": {"hw:cpu_policy": "mixed"}}');
    expect(r.code).toBe(0);
  });

  it('reports unreadable and malformed files without crashing', async () => {
    const bad = file('bad.yaml', 'flavors: [\n');
    const r = await run(['validate', 'missing.yaml', bad]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('missing.yaml');
    expect(r.stdout).toContain('(extra-specs/unreadable-file)');
    expect(r.stdout).toMatch(/bad\.yaml:\d+:\d+ {2}error/);
  });

  it('refuses a FIFO, a device and a file or input over the size limit, saying why, without reading them', async () => {
    expect(spawnSync('mkfifo', [join(dir, 'pipe.yaml')]).status).toBe(0);
    writeFileSync(join(dir, 'huge.yaml'), '');
    // Sparse: no disk used, but read whole it would take a gigabyte of memory.
    truncateSync(join(dir, 'huge.yaml'), 2 ** 30);
    const r = await run(['validate', 'pipe.yaml', '/dev/zero', 'huge.yaml']);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(
      'pipe.yaml  error  The file cannot be read: it is a named pipe (FIFO), not a regular file.  (extra-specs/unreadable-file)',
    );
    expect(r.stdout).toContain(
      '/dev/zero  error  The file cannot be read: it is a device, not a regular file.  (extra-specs/unreadable-file)',
    );
    expect(r.stdout).toContain(
      `huge.yaml  error  The file holds ${2 ** 30} bytes, more than the limit of 10485760 bytes; it is not read.`,
    );
    const flood = await run(['validate', '-'], 'x'.repeat(10 * 1024 * 1024 + 1));
    expect(flood.code).toBe(1);
    expect(flood.stdout).toContain(
      '<stdin>  error  The input holds more than the limit of 10485760 bytes; it is not read.  (extra-specs/unreadable-file)',
    );
  });

  it('fails a file whose flavors key is not a list, pointing at it', async () => {
    const r = await run(['validate', file('three.yaml', 'flavors: 3\n')]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(
      /^three\.yaml:1:\d+ {2}error {2}'flavors' must be a list of flavors, but it is a number\. {2}\(extra-specs\/bad-flavor-file\)$/m,
    );
  });

  it('refuses bad usage with exit code 2', async () => {
    expect((await run(['validate'])).code).toBe(2);
    expect((await run(['validate', '--spec', 'novalue'])).code).toBe(2);
    expect((await run(['validate', '--mode', 'bogus', '--spec', 'a=b'])).code).toBe(2);
    const release = await run(['list', '--release', 'train']);
    expect(release.code).toBe(2);
    expect(release.stderr).toContain("'train' is not a Nova release");
  });

  it('loads plugins given with --plugin and reports redefinitions', async () => {
    file(
      'plugin.mjs',
      "export const extraSpecs = [{ name: 'acme:slices', description: 'Slices.', value: { type: 'int', min: 1 } }, { name: 'hw:cpu_policy', description: 'Clash.', value: { type: 'str' } }];",
    );
    const r = await run(['validate', '--plugin', './plugin.mjs', '--spec', 'acme:slices=0']);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain("'acme:slices' is out of range");
    expect(r.stderr).toContain('extra-specs/registry/shadowed');
    expect(r.stderr).toMatch(/^\.\/plugin\.mjs {2}warning {2}'hw:cpu_policy' from plugin '\.\/plugin\.mjs'/m);
  });

  it('names a --plugin file by its path from the working directory in docs and describe', async () => {
    file(
      'named.mjs',
      "export const extraSpecs = [{ name: 'acme:named', description: 'Named.', value: { type: 'bool' } }];",
    );
    const d = await run(['describe', 'acme:named', '--plugin', './named.mjs', '-f', 'json']);
    expect(JSON.parse(d.stdout).Status).toBe('out-of-tree (./named.mjs)');
    const docs = await run(['docs', '--plugin', join(dir, 'named.mjs'), '--format', 'md']);
    expect(docs.stdout).toContain('out-of-tree (`./named.mjs`)');
    expect(docs.stdout).not.toContain(dir);
  });

  it('points plugin warnings at the plugin and keeps load failures to one line', async () => {
    file(
      'broken.mjs',
      "export const extraSpecs = [{ name: 'acme:b', description: '', value: { type: 'int', min: 2, max: 1 } }];",
    );
    const r = await run(['list', '--plugin', './broken.mjs', '--plugin', 'no-such-plugin-package']);
    expect(r.stderr).not.toContain('<input>');
    expect(r.stderr).not.toContain('Require stack');
    expect(
      r.stderr.match(/^\.\/broken\.mjs {2}warning {2}Plugin '\.\/broken\.mjs', entry 0: /gm),
    ).toHaveLength(2);
    expect(r.stderr).toMatch(
      /^no-such-plugin-package {2}warning {2}The plugin 'no-such-plugin-package' \(extraSpecValidators\) could not be loaded: it could not be resolved from \S+ \(Cannot find module 'no-such-plugin-package'\) {2}\(extra-specs\/plugin\/load-failed\)$/m,
    );
  });
});

describe('stackspec-extra-specs list and describe', () => {
  it('lists a namespace in any output format', async () => {
    const r = await run(['list', '--namespace', 'os', '--release', 'zed', '-f', 'json']);
    expect(r.code).toBe(0);
    const rows = JSON.parse(r.stdout) as { Name: string }[];
    expect(rows.map((x) => x.Name)).toEqual(['os:secure_boot', 'os:resolution', 'os:monitors', 'os:vram']);
    expect((await run(['list', '--namespace', 'nope'])).code).toBe(2);
  });

  it('describes a key, a template or a concrete patterned key', async () => {
    const r = await run(['describe', 'hw:numa_cpus.3', '-f', 'json']);
    expect(JSON.parse(r.stdout)).toMatchObject({ Name: 'hw:numa_cpus.{num}', Type: 'string' });
    const dep = await run(['describe', 'hide_hypervisor_id', '-f', 'json']);
    expect(JSON.parse(dep.stdout).Deprecated).toContain('since victoria');
    const policy = JSON.parse((await run(['describe', 'hw:cpu_policy', '-f', 'json'])).stdout);
    expect(policy).toMatchObject({
      Values: 'dedicated, shared, mixed',
      Changed: 'until ussuri: Victoria added mixed.',
    });
    expect(JSON.stringify(policy)).not.toContain('``');
    expect(policy.Description).toContain('mixed pins only the vCPUs listed in hw:cpu_dedicated_mask');
    const miss = await run(['describe', 'hw:cpu_polcy']);
    expect(miss.code).toBe(1);
    expect(miss.stderr).toContain('Did you mean hw:cpu_policy?');
  });
});

describe('stackspec-extra-specs docs, metadef and json-schema', () => {
  it('renders documentation to standard output or a file', async () => {
    const rst = await run(['docs', '--release', 'zed']);
    expect(rst.stdout).toContain('.. _extra-spec-hw-cpu-policy:');
    const md = await run(['docs', '--format', 'md', '--out', 'specs.md', '--title', 'Specs']);
    expect(md.stderr).toContain('wrote specs.md');
    expect(readFileSync(join(dir, 'specs.md'), 'utf8')).toContain('# Specs');
  });

  it('writes metadef files and a JSON Schema', async () => {
    const m = await run(['metadef', '--out', 'metadefs', '--release', 'zed']);
    expect(m.code).toBe(0);
    const files = readdirSync(join(dir, 'metadefs'));
    expect(files).toContain('extra-specs-hw.json');
    const hw = JSON.parse(readFileSync(join(dir, 'metadefs', 'extra-specs-hw.json'), 'utf8'));
    expect(hw.resource_type_associations).toEqual([{ name: 'OS::Nova::Flavor', prefix: 'hw:' }]);
    expect((await run(['metadef'])).code).toBe(2);
    const s = await run(['json-schema', '--open']);
    expect(JSON.parse(s.stdout).additionalProperties).toBe(true);
  });
});
