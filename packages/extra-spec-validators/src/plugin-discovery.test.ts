import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { discoverPlugins } from './plugin-discovery.js';

let root: string;

function pkg(name: string, manifest: Record<string, unknown>, files: Record<string, string> = {}) {
  const dir = join(root, 'node_modules', name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name, version: '1.0.0', ...manifest }));
  for (const [f, text] of Object.entries(files)) {
    mkdirSync(join(dir, f, '..'), { recursive: true });
    writeFileSync(join(dir, f), text);
  }
}

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'stackspec-plugins-'));
  writeFileSync(
    join(root, 'package.json'),
    JSON.stringify({
      name: 'project',
      dependencies: {
        'acme-validators': '1',
        broken: '1',
        'no-plugin': '1',
        'not-installed': '1',
        'bad-field': '1',
      },
      devDependencies: { '@scope/escape': '1', 'two-modules': '1' },
    }),
  );
  pkg(
    'acme-validators',
    { stackspec: { extraSpecValidators: './dist/validators.mjs' } },
    {
      'dist/validators.mjs': 'export const validators = [{ name: "acme:level" }];',
    },
  );
  pkg(
    'broken',
    { stackspec: { extraSpecValidators: './index.mjs' } },
    { 'index.mjs': 'throw new Error("boom at import");' },
  );
  pkg('no-plugin', {}, { 'index.js': 'module.exports = 1;' });
  pkg('bad-field', { stackspec: { extraSpecValidators: 42 } });
  pkg('@scope/escape', { stackspec: { extraSpecValidators: '../../../evil.mjs' } });
  pkg(
    'two-modules',
    { stackspec: { extraSpecValidators: ['./a.mjs', './b.mjs'], imageValidators: './img.mjs' } },
    {
      'a.mjs': 'export default "a";',
      'b.mjs': 'export default "b";',
      'img.mjs': 'export default "img";',
    },
  );
  writeFileSync(join(root, 'local-plugin.mjs'), 'export const local = true;');
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('discoverPlugins', () => {
  it('loads what dependencies declare for the kind, in name order', async () => {
    const { plugins } = await discoverPlugins({ kind: 'extraSpecValidators', root });
    expect(plugins.map((p) => p.name)).toEqual(['acme-validators', 'two-modules', 'two-modules']);
    expect((plugins[0]?.module as { validators: unknown[] } | undefined)?.validators).toEqual([
      { name: 'acme:level' },
    ]);
    expect(plugins.every((p) => p.origin === 'dependency' && p.url.startsWith('file://'))).toBe(true);
  });

  it('reports plugins that fail, with name and reason, and keeps going', async () => {
    const { failures } = await discoverPlugins({ kind: 'extraSpecValidators', root });
    const byName = Object.fromEntries(failures.map((f) => [f.name, f.reason]));
    expect(byName.broken).toContain('boom at import');
    expect(byName['bad-field']).toContain('must be a path or a list of paths');
    expect(byName['@scope/escape']).toContain('outside the package');
    expect(failures.every((f) => f.diagnostic.code === 'extra-specs/plugin/load-failed')).toBe(true);
    expect(failures.find((f) => f.name === 'broken')?.diagnostic.message).toContain("The plugin 'broken'");
  });

  it('looks only at the requested kind', async () => {
    const { plugins, failures } = await discoverPlugins({ kind: 'imageValidators', root });
    expect(plugins.map((p) => p.module)).toMatchObject([{ default: 'img' }]);
    expect(failures).toEqual([]);
  });

  it('loads explicit module paths and package names', async () => {
    const { plugins, failures } = await discoverPlugins({
      kind: 'extraSpecValidators',
      root,
      modules: ['./local-plugin.mjs', 'acme-validators', './missing.mjs', 'nowhere-pkg'],
    });
    const explicit = plugins.filter((p) => p.origin === 'explicit');
    expect(explicit.map((p) => p.name)).toEqual(['./local-plugin.mjs']);
    // acme-validators was already loaded as a dependency: not twice.
    expect(plugins.filter((p) => p.name === 'acme-validators')).toHaveLength(1);
    expect(failures.map((f) => f.name)).toEqual(expect.arrayContaining(['./missing.mjs', 'nowhere-pkg']));
  });

  it('reports an unreadable project manifest without throwing', async () => {
    const { plugins, failures } = await discoverPlugins({ kind: 'x', root: join(root, 'nope') });
    expect(plugins).toEqual([]);
    expect(failures[0]?.reason).toContain('package.json could not be read');
  });

  it('reports a package.json that is a FIFO or too large without waiting or reading it', async () => {
    const hostile = join(root, 'hostile');
    mkdirSync(join(hostile, 'node_modules/huge'), { recursive: true });
    writeFileSync(join(hostile, 'package.json'), JSON.stringify({ dependencies: { huge: '1' } }));
    // Sparse: it takes no disk, but read whole it would need a gigabyte.
    writeFileSync(join(hostile, 'node_modules/huge/package.json'), '');
    truncateSync(join(hostile, 'node_modules/huge/package.json'), 2 ** 30);
    const huge = await discoverPlugins({ kind: 'x', root: hostile });
    expect(huge.failures.map((f) => [f.name, f.reason])).toEqual([
      [
        'huge',
        `its package.json could not be read (it holds ${2 ** 30} bytes, more than the limit of 1048576 bytes)`,
      ],
    ]);
    const piped = join(root, 'piped');
    mkdirSync(piped);
    expect(spawnSync('mkfifo', [join(piped, 'package.json')]).status).toBe(0);
    const pipe = await discoverPlugins({ kind: 'x', root: piped });
    expect(pipe.failures[0]?.reason).toContain('it is a named pipe (FIFO), not a regular file');
  });

  it('uses an injected module loader', async () => {
    const seen: string[] = [];
    const { plugins } = await discoverPlugins({
      kind: 'extraSpecValidators',
      modules: [join(root, 'local-plugin.mjs')],
      importModule: async (url) => {
        seen.push(url);
        return { fake: true };
      },
    });
    expect(seen).toHaveLength(1);
    expect(plugins[0]?.module).toEqual({ fake: true });
  });
});
