// Hostile files met by `stackspec check`, run as a user runs it (a separate
// process, built or from source as test-support's binArgs decides): FIFOs,
// devices, huge sparse files and parser bombs, found in a folder or reached
// through a reference from another file. Each case asserts what the report
// says (the real reason, located) and bounds the run in time and in memory:
// before core's bounded reader was used everywhere, a registry entry naming a
// FIFO hung the command and a 400 MB file took about 1 GB of memory.
//
// Memory is the peak resident set size that GNU time (Debian package `time`)
// reports for the process.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Diagnostic } from '@stackspec/core';
import { beforeAll, describe, expect, it } from 'vitest';
import { binArgs, binEnv } from '../../../test-support/bin.js';
import { makeFifo, makeSparseFile } from '../../../test-support/hostile-files.js';
import { tempDirForFile } from '../../../test-support/temp-dir.js';

const GNU_TIME = '/usr/bin/time';
/** No case may take longer: the slowest healthy one (a cold start from source) takes about 4 s. */
const MAX_MS = 20_000;
/** Peak memory of one run: about 200 MB from source at rest, 1 GB when a 400 MB file was read whole. */
const MAX_RSS_KB = 384 * 1024;

interface CheckRun {
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
  rssKb: number;
}

interface Report {
  files: { file: string; kind?: string; diagnostics: Diagnostic[] }[];
  walkDiagnostics: Diagnostic[];
}

const root = tempDirForFile('stackspec-files-reliability-');
let runs = 0;

/** Runs `stackspec check ARGS` in `cwd` under GNU time; kills its process group if it outlives the bound. */
function check(args: readonly string[], cwd: string): Promise<CheckRun> {
  runs += 1;
  const rssFile = join(root(), `rss-${runs}`);
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(
      GNU_TIME,
      ['-f', '%M', '-o', rssFile, process.execPath, ...binArgs('stackspec'), 'check', ...args],
      { cwd, env: binEnv(), detached: true },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (s: string) => {
      stdout += s;
    });
    child.stderr.setEncoding('utf8').on('data', (s: string) => {
      stderr += s;
    });
    // A hang must fail the case, not the suite: past the bound (and a margin) the whole group goes.
    const killer = setTimeout(() => {
      if (child.pid) process.kill(-child.pid, 'SIGKILL');
    }, MAX_MS + 5_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(killer);
      const ms = performance.now() - started;
      // GNU time writes "Command exited with non-zero status N" first when the status is not 0.
      const lines = existsSync(rssFile) ? readFileSync(rssFile, 'utf8').trim().split('\n') : [];
      const rssKb = Number(lines.at(-1));
      resolve({ code, stdout, stderr, ms, rssKb: Number.isFinite(rssKb) ? rssKb : Number.NaN });
    });
  });
}

/** Asserts the run ended by itself, within the time and memory bounds. */
function expectBounded(run: CheckRun): void {
  const said = `${run.stdout}\n${run.stderr}`;
  expect(run.ms, `took ${Math.round(run.ms)} ms:\n${said}`).toBeLessThan(MAX_MS);
  expect(run.rssKb, `peak memory ${run.rssKb} KB:\n${said}`).toBeLessThan(MAX_RSS_KB);
  expect(run.code, said).not.toBeNull();
}

function report(run: CheckRun): Report {
  return JSON.parse(run.stdout) as Report;
}

/** A folder of its own for one case, under the suite's root. */
function caseDir(name: string, files: Record<string, string> = {}): string {
  const dir = join(root(), name);
  mkdirSync(dir, { recursive: true });
  for (const [file, text] of Object.entries(files)) writeFileSync(join(dir, file), text);
  return dir;
}

const GIB = 1024 ** 3;

beforeAll(() => {
  expect(
    existsSync(GNU_TIME),
    'GNU time is needed to measure memory: install the Debian package "time"',
  ).toBe(true);
});

describe('stackspec check over hostile files: bounded in time and memory, saying why', () => {
  it('skips a FIFO in a folder without waiting for a writer, and says it is a named pipe', async () => {
    const dir = caseDir('fifo-folder', { 'flavor.yaml': 'name: m1\nextra_specs: {}\n' });
    makeFifo(join(dir, 'pipe.yaml'));
    const run = await check(['--format', 'json', '.'], dir);
    expectBounded(run);
    expect(run.code).toBe(1);
    expect(report(run).walkDiagnostics).toEqual([
      expect.objectContaining({
        code: 'fs/unreadable',
        severity: 'error',
        file: 'pipe.yaml',
        message: expect.stringMatching(/^This is a named pipe \(FIFO\), not a regular file/),
      }),
    ]);
  }, 60_000);

  it('refuses a 400 MB file in a folder by its size, without reading it', async () => {
    const dir = caseDir('big-folder', { 'flavor.yaml': 'name: m1\nextra_specs: {}\n' });
    makeSparseFile(join(dir, 'big.yaml'), 400 * 1024 ** 2);
    const run = await check(['--format', 'json', '.'], dir);
    expectBounded(run);
    expect(run.code).toBe(1);
    expect(report(run).files.find((f) => f.file === 'big.yaml')?.diagnostics).toEqual([
      expect.objectContaining({
        code: 'stackspec/check/unreadable',
        severity: 'error',
        file: 'big.yaml',
        message: `The file holds ${400 * 1024 ** 2} bytes, more than the limit of 10485760 bytes; it is not read.`,
      }),
    ]);
  }, 60_000);

  // One environment per case, each entry pointing at something hostile; the diagnostic is at the
  // registry key in the environment, and its message says what the target really is.
  const registryCases: {
    name: string;
    stage: (dir: string) => void;
    code: string;
    message: string;
  }[] = [
    {
      name: 'a FIFO',
      stage: (dir) => makeFifo(join(dir, 'target.yaml')),
      code: 'heat/template-unreadable',
      message:
        "'OS::Hostile::Thing' maps to target.yaml, which cannot be read: it is a named pipe (FIFO), not a regular file.",
    },
    {
      name: 'a symbolic link to /dev/zero',
      stage: (dir) => symlinkSync('/dev/zero', join(dir, 'target.yaml')),
      code: 'heat/template-unreadable',
      message:
        "'OS::Hostile::Thing' maps to target.yaml, which cannot be read: it is a device, not a regular file.",
    },
    {
      name: 'a 2 GB sparse file',
      stage: (dir) => makeSparseFile(join(dir, 'target.yaml'), 2 * GIB),
      code: 'heat/template-too-large',
      message: `'OS::Hostile::Thing' maps to target.yaml, which is not read: it holds ${2 * GIB} bytes, more than the limit of 2097152 bytes.`,
    },
    {
      name: 'a file that does not exist',
      stage: () => {},
      code: 'heat/template-not-found',
      message: "'OS::Hostile::Thing' maps to target.yaml, which does not exist.",
    },
  ];
  for (const c of registryCases) {
    it(`reports a resource_registry entry pointing at ${c.name} at its key, for what it is`, async () => {
      const dir = caseDir(`registry-${c.name.replace(/\W+/g, '-')}`, {
        'env.yaml': 'parameter_defaults: {}\nresource_registry:\n  OS::Hostile::Thing: target.yaml\n',
      });
      c.stage(dir);
      const run = await check(['--format', 'json', 'env.yaml'], dir);
      expectBounded(run);
      // Heat fails only when a resource of the type is created: a warning, as for a missing file.
      expect(run.code).toBe(0);
      expect(report(run).files).toEqual([
        {
          file: 'env.yaml',
          kind: 'heat-environment',
          diagnostics: [
            expect.objectContaining({
              code: c.code,
              severity: 'warning',
              file: 'env.yaml',
              line: 3,
              path: '/resource_registry/OS::Hostile::Thing',
              message: c.message,
            }),
          ],
        },
      ]);
    }, 60_000);
  }

  it('says why each candidate of a registry list cannot be read: a FIFO, /dev/zero, a 2 GB file', async () => {
    const dir = caseDir('registry-candidates', {
      'env.yaml': 'resource_registry:\n  OS::Hostile::Pick: [pipe.yaml, zero.yaml, huge.yaml]\n',
    });
    makeFifo(join(dir, 'pipe.yaml'));
    symlinkSync('/dev/zero', join(dir, 'zero.yaml'));
    makeSparseFile(join(dir, 'huge.yaml'), 2 * GIB);
    const run = await check(['--format', 'json', 'env.yaml'], dir);
    expectBounded(run);
    expect(run.code).toBe(1);
    const found = report(run).files[0]?.diagnostics.filter(
      (d) => d.code === 'heat/resolve/candidate-missing',
    );
    expect(found?.map((d) => [d.line, d.message])).toEqual([
      [
        2,
        expect.stringContaining('pipe.yaml of OS::Hostile::Pick cannot be read: it is a named pipe (FIFO)'),
      ],
      [2, expect.stringContaining('zero.yaml of OS::Hostile::Pick cannot be read: it is a device')],
      [
        2,
        expect.stringContaining(`huge.yaml of OS::Hostile::Pick cannot be read: it holds ${2 * GIB} bytes`),
      ],
    ]);
  }, 60_000);

  it('stops an alias bomb and deep nesting in YAML and JSON with our errors', async () => {
    // Ten levels of ten aliases each: 10^10 nodes if expanded.
    const bomb = ['a0: &a0 [x, x, x, x, x, x, x, x, x, x]'];
    for (let i = 1; i < 10; i += 1)
      bomb.push(
        `a${i}: &a${i} [${Array(10)
          .fill(`*a${i - 1}`)
          .join(', ')}]`,
      );
    bomb.push('name: m1', 'extra_specs: {hw:cpu_policy: *a9}');
    const depth = 100_000;
    const dir = caseDir('bombs', {
      'bomb.yaml': `${bomb.join('\n')}\n`,
      'deep.yaml': `${'['.repeat(depth)}${']'.repeat(depth)}\n`,
      'deep.json': `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}\n`,
      'deep-block.yaml': Array.from({ length: 3000 }, (_, i) => `${' '.repeat(i)}a:`).join('\n'),
    });
    const run = await check(['--format', 'json', '.'], dir);
    expectBounded(run);
    expect(run.code).toBe(1);
    const codes = Object.fromEntries(
      report(run).files.map((f) => [f.file, f.diagnostics.map((d) => d.code)]),
    );
    expect(codes).toEqual({
      'bomb.yaml': ['yaml/alias-limit'],
      'deep.yaml': ['yaml/too-deep'],
      'deep.json': ['yaml/too-deep'],
      'deep-block.yaml': ['yaml/too-deep'],
    });
  }, 60_000);

  it('says an image spec script that is a FIFO or /dev/zero cannot be read, at the script', async () => {
    const spec = 'validators:\n  - package: wget\n  - script: pipe.sh\n  - script: zero\n';
    const dir = caseDir('image', {
      'image.yaml': spec,
      // Scripts are looked up here, then in /dev, where `zero` is the device itself.
      'stackspec.config.yaml': 'imageSpecs:\n  resourceRoots: [".", "/dev"]\n',
    });
    makeFifo(join(dir, 'pipe.sh'));
    const run = await check(['--format', 'json', 'image.yaml'], dir);
    expectBounded(run);
    expect(run.code).toBe(1);
    expect(report(run).files[0]?.diagnostics.map((d) => [d.code, d.line, d.message])).toEqual([
      [
        'image/spec/resource-unreadable',
        3,
        `The resource 'pipe.sh' cannot be read: it is a named pipe (FIFO), not a regular file (${join(dir, 'pipe.sh')}).`,
      ],
      [
        'image/spec/resource-unreadable',
        4,
        "The resource 'zero' cannot be read: it is a device, not a regular file (/dev/zero).",
      ],
    ]);
  }, 60_000);

  it('refuses a stackspec.config.yaml that is a FIFO without waiting for a writer', async () => {
    const dir = caseDir('config-fifo', { 'flavor.yaml': 'name: m1\nextra_specs: {}\n' });
    makeFifo(join(dir, 'stackspec.config.yaml'));
    const run = await check(['.'], dir);
    expectBounded(run);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('The file cannot be read: it is a named pipe (FIFO), not a regular file.');
  }, 60_000);
});
