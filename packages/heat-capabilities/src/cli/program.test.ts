import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type CliIO, runCli, stripAnsi } from '@stackspec/core/cli';
import { beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { memoryIO } from '../../../../test-support/cli.js';
import { makeFifo } from '../../../../test-support/hostile-files.js';
import { tempDirForFile } from '../../../../test-support/temp-dir.js';
import { validateEnvironment } from '../environment.js';
import { runHeatCli } from './program.js';

const dir = tempDirForFile('heat-cli-');

function write(path: string, text: string) {
  const full = join(dir(), path);
  mkdirSync(join(full, '..'), { recursive: true });
  writeFileSync(full, text);
}

/** A clock that moves a second on at each reading: every progress update is past the delay. */
function slowClock(): () => number {
  let t = 0;
  return () => {
    t += 1000;
    return t;
  };
}

async function runWith(tty: boolean, argv: string[], now: () => number = slowClock()) {
  const memory = memoryIO({ cwd: dir() });
  const io: CliIO = { ...memory, stderr: { ...memory.stderr, isTTY: tty }, now };
  const code = await runCli(() => runHeatCli(argv, io), io);
  return { code, stdout: stripAnsi(memory.out()), stderr: tty ? memory.err() : stripAnsi(memory.err()) };
}

const run = (...argv: string[]) => runWith(false, argv);
/** Runs a command line written as one string (arguments without spaces). */
const sh = (line: string) => run(...line.split(' '));

const CLEAR_LINE = '\r\u001b[K';
/** The progress texts drawn on a terminal; throws unless the line is cleared at the end. */
function progressLines(stderr: string): string[] {
  const parts = stderr.split(CLEAR_LINE);
  if (parts[0] !== '' || parts.at(-1) !== '')
    throw new Error(`not a progress line: ${JSON.stringify(stderr)}`);
  return parts.slice(1, -1);
}

beforeAll(() => {
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
  write('tree/roles_data.yaml', '- name: Controller\n');
  write('tree/overcloud.j2.yaml', '{% for role in roles %}\n');
  write('tree/env.yaml', 'parameter_defaults: {A: 1}\n');
  write('tree/bad.yaml', 'heat_template_version: wallaby\nresources: {a: {}}\n');
  makeFifo(join(dir(), 'fifo.yaml'));
});

describe('stackspec-heat capabilities-find', () => {
  it('lists matching templates, one path per line with -f value -c path', async () => {
    const r = await sh(
      'capabilities-find -r --capability resource_type=OS::TripleO::Controller -f value -c path .',
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
    const labels = await sh(
      'template-capabilities -f puppet/controller.yaml -f docker/controller.yaml --format json',
    );
    expect(JSON.parse(labels.stdout)).toEqual({ deployment: ['puppet', 'docker'] });
    const types = await sh(
      'template-capabilities -f puppet/controller.yaml -f docker/controller.yaml --types --format json',
    );
    expect(JSON.parse(types.stdout)).toEqual({
      'OS::TripleO::Controller': ['puppet/controller.yaml', 'docker/controller.yaml'],
    });
  });

  it('prints a table by default', async () => {
    const r = await run('template-capabilities', '-r', '.');
    expect(r.stdout).toContain('| deployment | docker, puppet |');
  });

  it('draws progress on a terminal while it reads a tree', async () => {
    const r = await runWith(true, ['template-capabilities', '-r', 'puppet', 'docker', '--format', 'json']);
    // Updates after the first second show, at most every 100 ms; the line is cleared at the end.
    const lines = progressLines(r.stderr);
    expect(lines[0]).toBe('scanned 1/2 files');
    expect(lines.every((l) => /^scanned [12]\/2 files$/.test(l))).toBe(true);
    expect(JSON.parse(r.stdout)).toEqual({ deployment: ['docker', 'puppet'] });
  });

  it('asks for a file when none is given', async () => {
    const r = await run('template-capabilities');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('Give at least one template: a path, or --file FILE.');
  });

  it('takes templates with --file, and still with -f FILE for now, with a deprecation note', async () => {
    const expected = { deployment: ['puppet', 'docker'] };
    const current = await sh(
      'template-capabilities --file puppet/controller.yaml docker/controller.yaml -f json',
    );
    expect([current.code, JSON.parse(current.stdout), current.stderr]).toEqual([0, expected, '']);
    const old = await sh('template-capabilities -f puppet/controller.yaml -f docker/controller.yaml -f json');
    expect([old.code, JSON.parse(old.stdout)]).toEqual([0, expected]);
    expect(old.stderr).toBe(
      'warning: -f FILE (a template) is deprecated and will be removed in the next minor version; use --file FILE or give the path as an argument instead.\n',
    );
    // A value that is neither a format nor a path is a misspelt format, not a file.
    const typo = await sh('template-capabilities puppet/controller.yaml -f jsno');
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain("'jsno' is not an output format.");
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
    expect(validateEnvironment(r.stdout, { allowExtensions: false }).ok).toBe(true);
  });

  it('writes the environment to -o FILE with paths relative to it and lists the choices', async () => {
    const r = await run('resolve', '-e', 'envs/choose.yaml', '-o', 'out/resolved.yaml', '-f', 'value');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('OS::TripleO::Controller puppet/controller.yaml\n');
    expect(parse(readFileSync(join(dir(), 'out/resolved.yaml'), 'utf8')).resource_registry).toEqual({
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

  it('prints the environment as JSON with -f json, and refuses a list format without -o', async () => {
    const r = await run('resolve', '-e', 'envs/choose.yaml', '-f', 'json');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({
      resource_registry: { 'OS::TripleO::Controller': 'puppet/controller.yaml', 'OS::Plain': 'plain.yaml' },
    });
    expect(parse((await run('resolve', '-e', 'envs/choose.yaml', '-f', 'yaml')).stdout)).toEqual(
      JSON.parse(r.stdout),
    );
    const table = await run('resolve', '-e', 'envs/choose.yaml', '-f', 'table');
    expect(table.code).toBe(2);
    expect(table.stderr).toContain('printed as yaml or json, not table');
  });

  it('refuses an environment that is a named pipe without waiting on it', async () => {
    const r = await run('resolve', '-e', 'fifo.yaml');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('fifo.yaml  warning  The file cannot be read: it is a named pipe (FIFO)');
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
    expect(readFileSync(join(dir(), 'stripped/puppet/controller.yaml'), 'utf8')).toBe(
      'heat_template_version: 2015-10-15\nresources: {}\n',
    );
  });

  it('reports a template that is not valid and writes nothing for it', async () => {
    const r = await run('strip', 'broken.yaml', '-o', 'stripped2');
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('broken.yaml:1:24  error  The template version is invalid');
    expect(existsSync(join(dir(), 'stripped2/broken.yaml'))).toBe(false);
  });

  it('reports a template it cannot read as an error and goes on', async () => {
    const r = await sh('strip fifo.yaml plain.yaml -o stripped3 -f value -c template');
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('plain.yaml\n');
    expect(r.stderr).toContain('fifo.yaml  error  The file cannot be read: it is a named pipe (FIFO)');
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

  it('reports every problem of a broken template and a named file that is neither, one JSON row each', async () => {
    const r = await run('validate', 'broken.yaml', 'roles.yaml', '-f', 'json');
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout)).toEqual([
      {
        file: 'broken.yaml',
        line: 1,
        column: 24,
        severity: 'error',
        code: 'heat/template/unknown-version',
        message: expect.stringContaining('The template version is invalid'),
        hint: expect.any(String),
      },
      {
        file: 'roles.yaml',
        line: 1,
        column: null,
        severity: 'error',
        code: 'heat/validate/not-heat',
        message: expect.stringContaining('neither a template'),
        hint: '',
      },
    ]);
    expect(r.stderr).toBe('✖ 2 problems (2 errors, 0 warnings) in 2 files\n');
  });

  it('prints problems as a table, values or YAML with chosen columns', async () => {
    const value = await run('validate', 'broken.yaml', '-f', 'value', '-c', 'file', '-c', 'code');
    expect(value.stdout).toBe('broken.yaml heat/template/unknown-version\n');
    const table = await run('validate', 'broken.yaml', '-c', 'line', '-c', 'severity', '-f', 'table');
    expect(table.stdout).toBe(
      '+------+----------+\n| line | severity |\n+------+----------+\n| 1    | error    |\n+------+----------+\n',
    );
    const yaml = await run('validate', 'plain.yaml', '-f', 'yaml');
    expect(yaml.code).toBe(0);
    expect(parse(yaml.stdout)).toEqual([]);
    expect(yaml.stderr).toBe('✔ no problems in 1 file\n');
  });

  it('skips files met while walking that are not Heat files, and lists them and Jinja sources', async () => {
    const r = await run('validate', '-r', 'tree');
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('tree/bad.yaml:2:');
    expect(r.stdout).not.toContain('roles_data');
    expect(r.stdout).toContain('in 2 files');
    expect(r.stdout).toContain(
      'skipped 1 file that is neither a template nor an environment and 1 Jinja source; -f json lists them',
    );
    const rows = JSON.parse((await run('validate', '-r', 'tree', '-f', 'json')).stdout) as {
      file: string;
      severity: string;
      code: string;
    }[];
    expect(rows.filter((d) => d.code === 'heat/validate/skipped')).toEqual([
      expect.objectContaining({ file: 'tree/overcloud.j2.yaml', severity: 'info' }),
      expect.objectContaining({ file: 'tree/roles_data.yaml', severity: 'info' }),
    ]);
  });

  it('passes a directory whose Heat files are all valid, whatever else it holds', async () => {
    const r = await run('validate', '-r', 'envs', 'tree/env.yaml');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(
      '✔ no problems in 3 files\nskipped 1 file that is neither a template nor an environment; -f json lists them\n',
    );
  });

  it('fails when nothing is left to validate', async () => {
    const r = await run('validate', 'tree');
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('No template or environment was found to validate.');
  });

  it('reports a named pipe instead of waiting on it', async () => {
    const r = await sh('validate fifo.yaml plain.yaml -f value -c file -c severity -c code');
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('fifo.yaml error heat/find/unreadable\n');
  });

  it('makes a file it cannot read an error when named, a warning when met while walking', async () => {
    symlinkSync('nowhere.yaml', join(dir(), 'tree/dangling.yaml'));
    try {
      const walked = await sh('validate -r tree/env.yaml tree -f value -c severity -c code');
      expect(walked.stdout).toContain('warning heat/find/broken-symlink\n');
      const named = await sh('validate tree/dangling.yaml plain.yaml -f value -c severity');
      expect(named.code).toBe(1);
      expect(named.stdout).toBe('error\n');
    } finally {
      rmSync(join(dir(), 'tree/dangling.yaml'));
    }
  });

  it('draws progress on a terminal while it validates a tree', async () => {
    const r = await runWith(true, ['validate', '-r', 'tree']);
    const lines = progressLines(r.stderr);
    expect(lines[0]).toBe('scanned 1/3 files');
    expect(lines.every((l) => /^(?:scanned|validated) [1-3]\/3 files$/.test(l))).toBe(true);
    expect((await run('validate', '-r', 'tree')).stderr).toBe('');
    // Work that ends within a second draws nothing, even on a terminal.
    expect((await runWith(true, ['validate', '-r', 'tree'], () => 0)).stderr).toBe('');
  });
});

describe('stackspec-heat', () => {
  it('prints help and the version', async () => {
    const help = await run('--help');
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('capabilities-find');
    const manifest = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
    expect((await run('--version')).stdout).toBe(`${manifest.version}\n`);
  });

  it('rejects an unknown command', async () => {
    expect((await run('frobnicate')).code).toBe(2);
  });
});
