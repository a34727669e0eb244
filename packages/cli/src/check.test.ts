import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ValidationError } from '@stackspec/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Checkers, checkPaths, checkText, readCheckedFile } from './check.js';
import { defaultCheckers } from './checkers.js';
import { createConfigResolver, defaultConfig, loadConfig, type StackspecConfig } from './config.js';

const FLAVOR = 'name: m1\nextra_specs:\n  hw:cpu_polcy: dedicated\n';

function config(patch: (c: StackspecConfig) => void = () => {}): StackspecConfig {
  const c = defaultConfig();
  patch(c);
  return c;
}

describe('checkText', () => {
  it('skips Jinja sources without reading them', async () => {
    const r = await checkText('{{ not yaml', 'roles/x.j2.yaml', {
      config: config(),
      checkers: defaultCheckers(),
    });
    expect(r).toEqual({ file: 'roles/x.j2.yaml', kind: undefined, diagnostics: [], skipped: 'jinja' });
  });

  it('skips a kind the config turns off, but still recognises it', async () => {
    const off = config((c) => {
      c.extraSpecs.enabled = false;
    });
    const r = await checkText(FLAVOR, 'f.yaml', { config: off, checkers: defaultCheckers() });
    expect(r).toMatchObject({ kind: 'flavor', skipped: 'disabled', diagnostics: [] });
    const modeOff = config((c) => {
      c.extraSpecs.mode = 'off';
    });
    expect(
      (await checkText(FLAVOR, 'f.yaml', { config: modeOff, checkers: defaultCheckers() })).skipped,
    ).toBe('disabled');
  });

  it('reports a checker that crashes as stackspec/check/internal on the file, not as a crash', async () => {
    const checkers: Checkers = {
      flavor: () => {
        throw new TypeError('boom');
      },
    };
    const r = await checkText(FLAVOR, 'f.yaml', { config: config(), checkers });
    expect(r.diagnostics).toEqual([
      expect.objectContaining({
        code: 'stackspec/check/internal',
        severity: 'error',
        file: 'f.yaml',
        message: expect.stringContaining('boom'),
        hint: expect.stringContaining('bug in stackspec'),
      }),
    ]);
  });

  it("keeps the diagnostics of a checker that throws our error, with the file's name", async () => {
    const checkers: Checkers = {
      flavor: () => {
        throw new ValidationError('bad', {
          diagnostics: [{ code: 'x/bad', severity: 'error', message: 'Bad.', path: '/name', line: 1 }],
        });
      },
    };
    const r = await checkText(FLAVOR, 'f.yaml', { config: config(), checkers });
    expect(r.diagnostics).toEqual([expect.objectContaining({ code: 'x/bad', file: 'f.yaml', line: 1 })]);
  });

  it('reports a misspelt marker key at its line instead of skipping the file', async () => {
    const r = await checkText('name: m1\nextra_spec:\n  hw:cpu_policy: dedicated\n', 'f.yaml', {
      config: config(),
      checkers: defaultCheckers(),
    });
    expect(r.skipped).toBeUndefined();
    expect(r.kind).toBe('flavor');
    expect(r.diagnostics).toEqual([
      expect.objectContaining({
        code: 'stackspec/check/misspelt-key',
        severity: 'error',
        path: '/extra_spec',
        line: 2,
        column: 1,
        hint: 'Did you mean extra_specs?',
      }),
    ]);
  });

  it("checks an environment with a misspelt section, reporting Heat's wrong section", async () => {
    const r = await checkText('resource_registy:\n  OS::X: x.yaml\n', 'env.yaml', {
      config: config(),
      checkers: defaultCheckers(),
    });
    expect(r.kind).toBe('heat-environment');
    expect(r.diagnostics).toContainEqual(
      expect.objectContaining({
        code: 'heat/environment/wrong-section',
        severity: 'error',
        line: 1,
        message: 'environment has wrong section "resource_registy"',
        hint: expect.stringContaining('resource_registry'),
      }),
    );
  });

  it('reports a driver steps file of the wrong shape at the offending value', async () => {
    const r = await checkText(
      'driver_steps:\n  - interface: deploy\n    step: deploy\n    priority: -1\n',
      'steps.yaml',
      {
        config: config(),
        checkers: defaultCheckers(),
      },
    );
    expect(r.kind).toBe('driver-steps');
    expect(r.diagnostics).toEqual([
      expect.objectContaining({
        severity: 'error',
        path: '/driver_steps/0/priority',
        line: 4,
        file: 'steps.yaml',
      }),
    ]);
  });

  it('leaves unrelated YAML alone', async () => {
    const r = await checkText('jobs:\n  build: {}\n', 'ci.yaml', {
      config: config(),
      checkers: defaultCheckers(),
    });
    expect(r).toMatchObject({ kind: undefined, skipped: 'unrecognised', diagnostics: [] });
  });
});

describe('checkPaths', () => {
  let root: string;
  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'stackspec-check-'));
    mkdirSync(join(root, 'p/ci'), { recursive: true });
    mkdirSync(join(root, 'p/sub/ci'), { recursive: true });
    writeFileSync(join(root, 'p/stackspec.config.yaml'), 'ignore: ["ci/**"]\n');
    for (const f of ['p/ci/typo.yaml', 'p/sub/ci/typo.yaml', 'p/typo.yaml'])
      writeFileSync(join(root, f), FLAVOR);
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  const files = (r: Awaited<ReturnType<typeof checkPaths>>) => r.files.map((f) => f.file).sort();

  it("applies a nested config's ignore patterns, relative to that config, when run from above", async () => {
    const run = await loadConfig(root);
    const r = await checkPaths(['p'], {
      cwd: root,
      config: run.config,
      configFor: createConfigResolver(run),
      checkers: defaultCheckers(),
    });
    // p/ci is ignored; p/sub/ci is not, since the pattern is relative to p/.
    expect(files(r)).toEqual(['p/stackspec.config.yaml', 'p/sub/ci/typo.yaml', 'p/typo.yaml']);
    expect(r.summary.errors).toBe(2);
  });

  it("applies the run config's ignore patterns relative to its own folder", async () => {
    const run = await loadConfig(join(root, 'p'));
    const r = await checkPaths(['.'], {
      cwd: join(root, 'p'),
      config: run.config,
      baseDir: run.baseDir,
      checkers: defaultCheckers(),
    });
    expect(files(r)).not.toContain('ci/typo.yaml');
    expect(files(r)).toContain('sub/ci/typo.yaml');
  });

  it('makes a path that cannot be read an error with a hint', async () => {
    const r = await checkPaths(['p/typo.yaml/inside', 'missing'], {
      cwd: root,
      config: config(),
      checkers: defaultCheckers(),
    });
    expect(r.walkDiagnostics).toEqual([
      expect.objectContaining({
        code: 'fs/unreadable',
        severity: 'error',
        file: 'p/typo.yaml/inside',
        hint: expect.any(String),
      }),
      expect.objectContaining({ code: 'fs/not-found', severity: 'error', file: 'missing' }),
    ]);
    expect(r.summary.errors).toBe(2);
  });

  it('reports progress once per file', async () => {
    const seen: number[] = [];
    await checkPaths(['p'], {
      cwd: root,
      config: config(),
      checkers: defaultCheckers(),
      onProgress: (done, total) => seen.push(done * 100 + total),
    });
    expect(seen.sort((a, b) => a - b)).toEqual([104, 204, 304, 404]);
  });
});

describe('hostile files', () => {
  let dir: string;
  const at = (name: string) => join(dir, name);
  const heatEnv = async (body: string) => {
    writeFileSync(at('env.yaml'), body);
    return checkText(body, 'env.yaml', {
      absolutePath: at('env.yaml'),
      config: config(),
      baseDir: dir,
      checkers: defaultCheckers(),
    });
  };

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'stackspec-hostile-'));
    expect(spawnSync('mkfifo', [at('pipe.yaml')]).status).toBe(0);
    symlinkSync('/dev/zero', at('zero.yaml'));
    // Sparse: no disk used, but read whole they would take gigabytes of memory.
    writeFileSync(at('huge.yaml'), '');
    truncateSync(at('huge.yaml'), 2 * 1024 ** 3);
    writeFileSync(at('big.yaml'), '');
    truncateSync(at('big.yaml'), 400 * 1024 ** 2);
    writeFileSync(at('ok.yaml'), 'heat_template_version: 2018-08-31\nresources: {}\n');
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('reads a checked file with a bound and says why one cannot be read', () => {
    expect(readCheckedFile(at('ok.yaml'), 'ok.yaml')).toMatchObject({ ok: true });
    expect(readCheckedFile(at('pipe.yaml'), 'pipe.yaml')).toMatchObject({
      ok: false,
      diagnostic: {
        code: 'stackspec/check/unreadable',
        severity: 'error',
        file: 'pipe.yaml',
        message: 'The file cannot be read: it is a named pipe (FIFO), not a regular file.',
        hint: expect.stringContaining('ignore:'),
      },
    });
    expect(readCheckedFile(at('zero.yaml'), 'zero.yaml')).toMatchObject({
      ok: false,
      diagnostic: { code: 'stackspec/check/unreadable', message: expect.stringContaining('it is a device') },
    });
    expect(readCheckedFile(at('big.yaml'), 'big.yaml')).toMatchObject({
      ok: false,
      size: 400 * 1024 ** 2,
      diagnostic: {
        code: 'stackspec/check/unreadable',
        file: 'big.yaml',
        message: `The file holds ${400 * 1024 ** 2} bytes, more than the limit of 10485760 bytes; it is not read.`,
        hint: expect.stringContaining('up to 10485760 bytes'),
      },
    });
    expect(readCheckedFile(at('gone.yaml'), 'gone.yaml')).toMatchObject({
      ok: false,
      diagnostic: { code: 'stackspec/check/unreadable', message: 'The file does not exist.' },
    });
  });

  it('reports a 400 MB file in a folder as too large instead of reading it', async () => {
    const r = await checkPaths(['big.yaml'], { cwd: dir, config: config(), checkers: defaultCheckers() });
    expect(r.files).toEqual([
      {
        file: 'big.yaml',
        kind: undefined,
        diagnostics: [
          expect.objectContaining({
            code: 'stackspec/check/unreadable',
            message: expect.stringContaining('more than the limit'),
          }),
        ],
      },
    ]);
  });

  it('says what a registry entry points at when it is a FIFO, a device, too large or missing', async () => {
    const r = await heatEnv(
      [
        'resource_registry:',
        '  OS::X::Pipe: pipe.yaml',
        '  OS::X::Zero: zero.yaml',
        '  OS::X::Huge: huge.yaml',
        '  OS::X::Gone: gone.yaml',
        '  OS::X::Fine: ok.yaml',
        '',
      ].join('\n'),
    );
    expect(r.diagnostics.map((d) => [d.code, d.severity, d.file, d.line, d.path, d.message])).toEqual([
      [
        'heat/template-unreadable',
        'warning',
        'env.yaml',
        2,
        '/resource_registry/OS::X::Pipe',
        "'OS::X::Pipe' maps to pipe.yaml, which cannot be read: it is a named pipe (FIFO), not a regular file.",
      ],
      [
        'heat/template-unreadable',
        'warning',
        'env.yaml',
        3,
        '/resource_registry/OS::X::Zero',
        "'OS::X::Zero' maps to zero.yaml, which cannot be read: it is a device, not a regular file.",
      ],
      [
        'heat/template-too-large',
        'warning',
        'env.yaml',
        4,
        '/resource_registry/OS::X::Huge',
        `'OS::X::Huge' maps to huge.yaml, which is not read: it holds ${2 * 1024 ** 3} bytes, more than the limit of 2097152 bytes.`,
      ],
      [
        'heat/template-not-found',
        'warning',
        'env.yaml',
        5,
        '/resource_registry/OS::X::Gone',
        "'OS::X::Gone' maps to gone.yaml, which does not exist.",
      ],
    ]);
  });

  it('says why a candidate of a list cannot be read', async () => {
    const r = await heatEnv('resource_registry:\n  OS::X::Pick: [pipe.yaml, huge.yaml, ok.yaml]\n');
    const messages = r.diagnostics
      .filter((d) => d.code === 'heat/resolve/candidate-missing')
      .map((d) => d.message);
    expect(messages).toEqual([
      expect.stringContaining(
        'pipe.yaml of OS::X::Pick cannot be read: it is a named pipe (FIFO), not a regular file',
      ),
      expect.stringContaining(`huge.yaml of OS::X::Pick cannot be read: it holds ${2 * 1024 ** 3} bytes`),
    ]);
  });
});
