import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findTemplates, isJinjaFile, summarizeCapabilities } from './find.js';

let dir: string;

function write(path: string, text: string) {
  const full = join(dir, path);
  mkdirSync(join(full, '..'), { recursive: true });
  writeFileSync(full, text);
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'heat-find-'));
  write(
    'tree/puppet/controller.yaml',
    'heat_template_version: 2015-10-15\ncapabilities:\n  deployment: puppet\n  resource_type: OS::TripleO::Controller\n',
  );
  write(
    'tree/docker/controller.yaml',
    'heat_template_version: 2015-10-15\ncapabilities:\n  deployment: docker\n  resource_type: [OS::TripleO::Controller, OS::TripleO::Compute]\n',
  );
  write(
    'tree/docker/compute.template',
    'heat_template_version: 2015-10-15\ncapabilities: {deployment: docker, ha: yes}\n',
  );
  write('tree/plain.json', '{"heat_template_version": "2015-10-15"}');
  write('tree/env.yaml', 'resource_registry: {OS::A: plain.json}\n');
  write('tree/roles.yaml', '- name: Controller\n');
  write('tree/overcloud.j2.yaml', '{% for r in roles %}\n');
  write('tree/ci/skip.yaml', 'heat_template_version: wallaby\ncapabilities: {deployment: puppet}\n');
  write('tree/bad.yaml', 'heat_template_version: wallaby\ncapabilities: [puppet]\n');
  write('tree/notes.txt', 'heat_template_version: wallaby\n');
  symlinkSync('..', join(dir, 'tree/docker/loop'));
  symlinkSync('nowhere.yaml', join(dir, 'tree/broken.yaml'));
  mkdirSync(join(dir, 'outside'));
  write('outside/linked.yaml', 'heat_template_version: wallaby\ncapabilities: {deployment: puppet}\n');
  symlinkSync(join(dir, 'outside'), join(dir, 'tree/outside'));
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('findTemplates', () => {
  it('finds templates by resource type recursively, as capabilities-find -r does', async () => {
    const r = await findTemplates(['tree'], {
      cwd: dir,
      recursive: true,
      capabilities: { resource_type: 'OS::TripleO::Controller' },
    });
    expect(r.templates.map((t) => t.file)).toEqual([
      'tree/docker/controller.yaml',
      'tree/puppet/controller.yaml',
    ]);
  });

  it('combines several filters and compares values as canonical text', async () => {
    const r = await findTemplates(['tree'], {
      cwd: dir,
      recursive: true,
      capabilities: { deployment: 'docker', ha: true },
    });
    expect(r.templates.map((t) => t.file)).toEqual(['tree/docker/compute.template']);
  });

  it('classifies every file, skips Jinja sources and follows an outside link once', async () => {
    const r = await findTemplates(['tree'], { cwd: dir, recursive: true });
    expect(Object.fromEntries(r.files.map((f) => [f.file, f.kind]))).toEqual({
      'tree/bad.yaml': 'template',
      'tree/ci/skip.yaml': 'template',
      'tree/docker/compute.template': 'template',
      'tree/docker/controller.yaml': 'template',
      'tree/env.yaml': 'environment',
      'tree/outside/linked.yaml': 'template',
      'tree/plain.json': 'template',
      'tree/puppet/controller.yaml': 'template',
      'tree/roles.yaml': 'other',
    });
    expect(r.skipped).toEqual(['tree/overcloud.j2.yaml']);
  });

  it('reports a symlink loop, a broken link and a bad capabilities section without stopping', async () => {
    const r = await findTemplates(['tree'], { cwd: dir, recursive: true });
    const byCode = r.diagnostics.map((d) => [d.code, d.file]);
    expect(byCode).toContainEqual(['heat/find/symlink-loop', 'tree/docker/loop']);
    expect(byCode).toContainEqual(['heat/find/broken-symlink', 'tree/broken.yaml']);
    expect(byCode).toContainEqual(['heat/capabilities/not-a-mapping', 'tree/bad.yaml']);
    expect(r.templates.length).toBeGreaterThan(3);
  });

  it('reports a link to itself as a loop, and lists a tree once despite a link to its parent', async () => {
    write('loops/tree/a.yaml', 'heat_template_version: wallaby\n');
    symlinkSync('self.yaml', join(dir, 'loops/tree/self.yaml'));
    symlinkSync('..', join(dir, 'loops/tree/up'));
    const r = await findTemplates(['loops/tree'], { cwd: dir, recursive: true });
    expect(r.files.map((f) => f.file)).toEqual(['loops/tree/a.yaml']);
    expect(r.diagnostics.map((d) => [d.code, d.file])).toEqual([
      ['heat/find/symlink-loop', 'loops/tree/self.yaml'],
      ['heat/find/symlink-loop', 'loops/tree/up'],
    ]);
  });

  it('honours ignore patterns', async () => {
    const r = await findTemplates(['tree'], {
      cwd: dir,
      recursive: true,
      ignore: ['ci/**'],
      capabilities: { deployment: 'puppet' },
    });
    expect(r.templates.map((t) => t.file)).toEqual([
      'tree/outside/linked.yaml',
      'tree/puppet/controller.yaml',
    ]);
  });

  it('reports a directory without -r and a missing path, and still reads the files given', async () => {
    const r = await findTemplates(['tree', 'missing.yaml', 'tree/puppet/controller.yaml'], { cwd: dir });
    expect(r.diagnostics.map((d) => [d.code, d.file])).toEqual([
      ['heat/find/directory-not-recursive', 'tree'],
      ['heat/find/not-found', 'missing.yaml'],
    ]);
    expect(r.templates.map((t) => t.file)).toEqual(['tree/puppet/controller.yaml']);
  });

  it('reports an unreadable file and goes on', async () => {
    const r = await findTemplates(['tree/puppet/controller.yaml', 'tree/docker/controller.yaml'], {
      cwd: dir,
      readFile: async (p) => {
        if (p.includes('puppet')) throw Object.assign(new Error('denied'), { code: 'EACCES' });
        return readFile(p, 'utf8');
      },
    });
    expect(r.diagnostics).toEqual([
      expect.objectContaining({
        code: 'heat/find/unreadable',
        file: 'tree/puppet/controller.yaml',
        message: 'The file cannot be read: permission denied.',
      }),
    ]);
    expect(r.templates.map((t) => t.file)).toEqual(['tree/docker/controller.yaml']);
  });

  it('reports a named pipe given by name instead of waiting on it, and a file over the bound unread', async () => {
    execFileSync('mkfifo', [join(dir, 'fifo.yaml')]);
    write('big/huge.yaml', '');
    truncateSync(join(dir, 'big/huge.yaml'), 2 ** 30);
    write('big/small.yaml', 'heat_template_version: wallaby\n');
    try {
      const r = await findTemplates(['fifo.yaml', 'big'], { cwd: dir, recursive: true });
      // Whether the walker or the reader notices the pipe first, it is reported once.
      expect(r.diagnostics).toHaveLength(2);
      expect(r.diagnostics).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ code: 'heat/find/too-large', file: 'big/huge.yaml' }),
          expect.objectContaining({ code: 'heat/find/unreadable', file: 'fifo.yaml' }),
        ]),
      );
      expect(r.templates.map((t) => t.file)).toEqual(['big/small.yaml']);
    } finally {
      rmSync(join(dir, 'fifo.yaml'));
      rmSync(join(dir, 'big'), { recursive: true });
    }
  });

  it('reports progress for every file', async () => {
    const seen: number[] = [];
    const r = await findTemplates(['tree'], { cwd: dir, recursive: true, onProgress: (n) => seen.push(n) });
    expect(seen.length).toBe(r.files.length);
    expect(Math.max(...seen)).toBe(r.files.length);
  });

  it('gives the same files in full mode', async () => {
    const fast = await findTemplates(['tree'], { cwd: dir, recursive: true });
    const full = await findTemplates(['tree'], { cwd: dir, recursive: true, mode: 'full' });
    expect(full.files).toEqual(fast.files);
  });
});

describe('summarizeCapabilities', () => {
  it('builds both summaries of the spec', async () => {
    const r = await findTemplates(['tree/puppet/controller.yaml', 'tree/docker/controller.yaml'], {
      cwd: dir,
    });
    expect(summarizeCapabilities(r.templates)).toEqual({
      labels: { deployment: ['docker', 'puppet'] },
      resourceTypes: {
        'OS::TripleO::Compute': ['tree/docker/controller.yaml'],
        'OS::TripleO::Controller': ['tree/docker/controller.yaml', 'tree/puppet/controller.yaml'],
      },
    });
  });

  it('keeps the order of the files and ignores files without capabilities', () => {
    expect(
      summarizeCapabilities([
        { file: 'puppet/controller.yaml', capabilities: { deployment: ['puppet'] } },
        { file: 'plain.yaml' },
        { file: 'docker/controller.yaml', capabilities: { deployment: ['docker'], z: ['1'] } },
      ]),
    ).toEqual({ labels: { deployment: ['puppet', 'docker'], z: ['1'] }, resourceTypes: {} });
  });
});

describe('isJinjaFile', () => {
  it('recognises Jinja sources', () => {
    expect(isJinjaFile('overcloud.j2.yaml')).toBe(true);
    expect(isJinjaFile('x.j2')).toBe(true);
    expect(isJinjaFile('x.yaml')).toBe(false);
  });
});
