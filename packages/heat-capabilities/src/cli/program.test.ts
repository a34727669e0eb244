import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type CliIO, runCli, stripAnsi } from '@stackspec/core/cli';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { safeParseEnvironment } from '../environment.js';
import { runHeatCli } from './program.js';

let dir: string;

function write(path: string, text: string) {
  const full = join(dir, path);
  mkdirSync(join(full, '..'), { recursive: true });
  writeFileSync(full, text);
}

async function run(...argv: string[]) {
  let stdout = '';
  let stderr = '';
  const io: CliIO = {
    stdout: { write: (s: string) => (stdout += s) },
    stderr: { write: (s: string) => (stderr += s) },
    env: { NO_COLOR: '1' },
    cwd: dir,
  };
  const code = await runCli(() => runHeatCli(argv, io), io);
  return { code, stdout: stripAnsi(stdout), stderr: stripAnsi(stderr) };
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'heat-cli-'));
  write(
    'puppet/controller.yaml',
    'heat_template_version: 2015-10-15\ncapabilities:\n  deployment: puppet\n  resource_type: OS::TripleO::Controller\nresources: {}\n',
  );
  write(
    'docker/controller.yaml',
    'heat_template_version: 2015-10-15\ncapabilities:\n  deployment: docker\n  resource_type: OS::TripleO::Controller\n',
  );
  write('plain.yaml', 'heat_template_version: 2015-10-15\n');
  write(
    'envs/choose.yaml',
    'requires:\n  deployment: puppet\nresource_registry:\n  OS::TripleO::Controller: [../puppet/controller.yaml, ../docker/controller.yaml]\n  OS::Plain: ../plain.yaml\n',
  );
  write('envs/none.yaml', 'requires:\n  deployment: chef\n');
  write('envs/bad.yaml', 'nope: 1\n');
  write('broken.yaml', 'heat_template_version: 2099-01-01\nresources: {a: {}}\n');
  write('roles.yaml', '- name: Controller\n');
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('stackspec-heat capabilities-find', () => {
  it('lists matching templates, one path per line with -f value -c path', async () => {
    const r = await run(
      'capabilities-find',
      '-r',
      '--capability',
      'resource_type=OS::TripleO::Controller',
      '-f',
      'value',
      '-c',
      'path',
      '.',
    );
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('docker/controller.yaml\npuppet/controller.yaml\n');
  });

  it('prints a table by default and JSON on request', async () => {
    const table = await run('capabilities-find', '-r', '--capability', 'deployment=puppet', '.');
    expect(table.stdout).toContain(
      '| puppet/controller.yaml | 2015-10-15 | deployment=puppet resource_type=OS::TripleO::Controller |',
    );
    const json = await run('capabilities-find', '-r', '--capability', 'deployment=docker', '-f', 'json', '.');
    expect(JSON.parse(json.stdout)).toEqual([
      {
        path: 'docker/controller.yaml',
        version: '2015-10-15',
        capabilities: 'deployment=docker resource_type=OS::TripleO::Controller',
      },
    ]);
  });

  it('reports a directory given without -r and goes on', async () => {
    const r = await run('capabilities-find', '-f', 'value', '-c', 'path', 'puppet', 'plain.yaml');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('plain.yaml\n');
    expect(r.stderr).toContain('puppet  warning  This is a directory; it is skipped without -r.');
  });

  it('splits a filter on the first = and rejects one without =', async () => {
    const r = await run('capabilities-find', '-r', '--capability', 'deployment=pup=pet', '-f', 'json', '.');
    expect(JSON.parse(r.stdout)).toEqual([]);
    const bad = await run('capabilities-find', '--capability', 'deployment', '.');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("The capability filter 'deployment' must look like key=value.");
  });

  it('rejects an unknown output format as a usage error', async () => {
    expect((await run('capabilities-find', '-f', 'xml', '.')).code).toBe(2);
  });
});

describe('stackspec-heat template-capabilities', () => {
  it('summarises labels, and resource types with --types, as the spec shows', async () => {
    const labels = await run(
      'template-capabilities',
      '-f',
      'puppet/controller.yaml',
      '-f',
      'docker/controller.yaml',
      '--format',
      'json',
    );
    expect(JSON.parse(labels.stdout)).toEqual({ deployment: ['puppet', 'docker'] });
    const types = await run(
      'template-capabilities',
      '-f',
      'puppet/controller.yaml',
      '-f',
      'docker/controller.yaml',
      '--types',
      '--format',
      'json',
    );
    expect(JSON.parse(types.stdout)).toEqual({
      'OS::TripleO::Controller': ['puppet/controller.yaml', 'docker/controller.yaml'],
    });
  });

  it('prints a table by default', async () => {
    const r = await run('template-capabilities', '-r', '.');
    expect(r.stdout).toContain('| deployment | docker, puppet |');
  });

  it('asks for a file when none is given', async () => {
    const r = await run('template-capabilities');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('Give at least one template with -f FILE.');
  });
});

describe('stackspec-heat resolve', () => {
  it('writes a plain environment to standard output', async () => {
    const r = await run('resolve', '-e', 'envs/choose.yaml');
    expect(r.code).toBe(0);
    const env = parse(r.stdout);
    expect(env).toEqual({
      resource_registry: { 'OS::TripleO::Controller': 'puppet/controller.yaml', 'OS::Plain': 'plain.yaml' },
    });
    expect(safeParseEnvironment(r.stdout, { allowExtensions: false }).ok).toBe(true);
  });

  it('writes the environment to -o FILE with paths relative to it and lists the choices', async () => {
    const r = await run('resolve', '-e', 'envs/choose.yaml', '-o', 'out/resolved.yaml', '-f', 'value');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('OS::TripleO::Controller puppet/controller.yaml\n');
    expect(parse(readFileSync(join(dir, 'out/resolved.yaml'), 'utf8')).resource_registry).toEqual({
      'OS::TripleO::Controller': '../puppet/controller.yaml',
      'OS::Plain': '../plain.yaml',
    });
  });

  it('fails with a located error naming every candidate when nothing matches', async () => {
    const r = await run('resolve', '-e', 'envs/choose.yaml', '-e', 'envs/none.yaml');
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      'envs/choose.yaml:4:3  error  No candidate for OS::TripleO::Controller satisfies requires (deployment: chef)',
    );
    expect(r.stderr).toContain('puppet/controller.yaml offers deployment: puppet (requires chef)');
  });

  it('reports an invalid environment file and a missing one', async () => {
    const bad = await run('resolve', '-e', 'envs/bad.yaml');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('envs/bad.yaml:1:1  error  environment has wrong section "nope"');
    const missing = await run('resolve', '-e', 'envs/missing.yaml');
    expect(missing.code).toBe(2);
  });
});

describe('stackspec-heat strip', () => {
  it('writes copies without capabilities under the output directory', async () => {
    const r = await run('strip', 'puppet/controller.yaml', 'plain.yaml', '-o', 'stripped', '-f', 'json');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual([
      {
        template: 'puppet/controller.yaml',
        output: 'stripped/puppet/controller.yaml',
        removed: true,
        method: 'text',
      },
      { template: 'plain.yaml', output: 'stripped/plain.yaml', removed: false, method: 'unchanged' },
    ]);
    expect(readFileSync(join(dir, 'stripped/puppet/controller.yaml'), 'utf8')).toBe(
      'heat_template_version: 2015-10-15\nresources: {}\n',
    );
  });

  it('reports a template that is not valid and writes nothing for it', async () => {
    const r = await run('strip', 'broken.yaml', '-o', 'stripped2');
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('broken.yaml:1:24  error  The template version is invalid');
    expect(existsSync(join(dir, 'stripped2/broken.yaml'))).toBe(false);
  });

  it('requires -o', async () => {
    expect((await run('strip', 'plain.yaml')).code).toBe(2);
  });
});

describe('stackspec-heat validate', () => {
  it('passes valid templates and environments', async () => {
    const r = await run('validate', 'puppet/controller.yaml', 'envs/choose.yaml');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('no problems in 2 files');
  });

  it('applies real Heat rules with --heat', async () => {
    const r = await run('validate', '--heat', 'puppet/controller.yaml', 'envs/choose.yaml');
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(
      'puppet/controller.yaml:2:1  error  The template section is invalid: capabilities',
    );
    expect(r.stdout).toContain('envs/choose.yaml:1:1  error  environment has wrong section "requires"');
  });

  it('reports every problem of a broken template and a file that is neither', async () => {
    const r = await run('validate', 'broken.yaml', 'roles.yaml', '-f', 'json');
    expect(r.code).toBe(1);
    const out = JSON.parse(r.stdout);
    expect(out.files).toEqual([
      { file: 'broken.yaml', kind: 'template', ok: false },
      { file: 'roles.yaml', kind: 'other', ok: false },
    ]);
    expect(out.diagnostics.map((d: { code: string }) => d.code)).toEqual([
      'heat/template/unknown-version',
      'heat/validate/not-heat',
    ]);
  });

  it('validates a whole directory with -r', async () => {
    const r = await run('validate', '-r', 'envs');
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('in 3 files');
  });
});

describe('stackspec-heat', () => {
  it('prints help and the version', async () => {
    const help = await run('--help');
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('capabilities-find');
    expect((await run('--version')).stdout).toBe('0.1.0\n');
  });

  it('rejects an unknown command', async () => {
    expect((await run('frobnicate')).code).toBe(2);
  });
});
