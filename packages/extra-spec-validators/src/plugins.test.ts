import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { defineExtraSpec } from './define.js';
import { loadExtraSpecPlugins, PLUGIN_KIND } from './plugins.js';
import { createExtraSpecRegistry, type ExtraSpecPlugin } from './registry.js';
import { validateExtraSpecs } from './validate.js';

const dir = mkdtempSync(join(tmpdir(), 'esv-plugins-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function write(path: string, text: string): string {
  const full = join(dir, path);
  mkdirSync(join(full, '..'), { recursive: true });
  writeFileSync(full, text);
  return full;
}

// A project depending on one plugin package, declared the npm way.
write('project/package.json', JSON.stringify({ name: 'site', dependencies: { 'acme-filters': '1.0.0' } }));
write(
  'project/node_modules/acme-filters/package.json',
  JSON.stringify({ name: 'acme-filters', type: 'module', stackspec: { [PLUGIN_KIND]: './validators.js' } }),
);
write(
  'project/node_modules/acme-filters/validators.js',
  `export function register() {
    return [
      { name: 'acme:gpu_slices', description: 'GPU slices the ACME filter reserves.', value: { type: 'int', min: 1, max: 8 } },
      { name: 'acme:zone.{num}', description: 'Zone preference.', parameters: [{ name: 'num', type: 'int' }], value: { type: 'str', enum: ['near', 'far'] } },
      { name: 'hw:cpu_policy', description: 'Tries to redefine a built-in.', value: { type: 'str' } },
      { name: 'acme:broken', description: 'Bad.', value: { type: 'int', min: 5, max: 1 } },
    ];
  }`,
);
const explicit = write(
  'extra.mjs',
  "export const extraSpecs = [{ name: 'site:rack', description: 'Rack label.', value: { type: 'str', pattern: '[a-z]+\\\\d+' } }];",
);
const empty = write('empty.mjs', 'export const nothing = 1;');
const throwing = write('throwing.mjs', "export function register() { throw new Error('boom'); }");
const missing = join(dir, 'missing.mjs');
const builtinClash = [
  defineExtraSpec({ name: 'hw:cpu_policy', description: 'Clash.', value: { type: 'str' } }),
];

describe('loadExtraSpecPlugins', () => {
  it('finds plugins among dependencies and in explicit modules', async () => {
    const { plugins, diagnostics } = await loadExtraSpecPlugins({
      root: join(dir, 'project'),
      modules: [explicit],
    });
    expect(plugins.map((p) => p.name)).toEqual(['acme-filters', '../extra.mjs']);
    expect(plugins[0]?.specs.map((s) => s.name)).toEqual([
      'acme:gpu_slices',
      'acme:zone.{num}',
      'hw:cpu_policy',
    ]);
    expect(diagnostics).toHaveLength(1);
    expect(diagnostics[0]).toMatchObject({
      code: 'extra-specs/bad-definition',
      severity: 'warning',
      path: '/3/value/min',
    });
    expect(diagnostics[0]?.message).toContain("Plugin 'acme-filters', entry 3");
    expect(diagnostics[0]?.file).toBe('./node_modules/acme-filters/validators.js');
  });

  it('shows paths relative to the working directory', async () => {
    const { plugins, diagnostics } = await loadExtraSpecPlugins({
      cwd: dir,
      modules: ['./extra.mjs', join(dir, 'empty.mjs')],
    });
    expect(plugins.map((p) => [p.name, p.file])).toEqual([['./extra.mjs', './extra.mjs']]);
    expect(diagnostics).toMatchObject([{ code: 'extra-specs/bad-plugin', file: './empty.mjs' }]);
    expect(diagnostics[0]?.message).toBe("The plugin './empty.mjs' exports no extra specs.");
    const registry = createExtraSpecRegistry({
      plugins: [
        { ...(plugins[0] as ExtraSpecPlugin), specs: [...(plugins[0]?.specs ?? []), ...builtinClash] },
      ],
    });
    expect(registry.conflicts).toMatchObject([
      { code: 'extra-specs/registry/shadowed', file: './extra.mjs' },
    ]);
  });

  it('reports every problem of a definition that fails while the plugin loads', async () => {
    const { plugins, diagnostics } = await loadExtraSpecPlugins({
      cwd: dir,
      modules: ['./extra.mjs'],
      importModule: async () => {
        // What a plugin calling defineExtraSpec at its top level throws.
        defineExtraSpec({ name: 'acme:x', description: '', value: { type: 'int', min: 2, max: 1 } });
        return {};
      },
    });
    expect(plugins).toEqual([]);
    expect(diagnostics).toHaveLength(2);
    for (const d of diagnostics) {
      expect(d).toMatchObject({
        code: 'extra-specs/bad-definition',
        severity: 'warning',
        file: './extra.mjs',
      });
      expect(d.message).toMatch(
        /^The plugin '\.\/extra\.mjs' could not be loaded: its definition of 'acme:x' is not valid: /,
      );
    }
    expect(diagnostics.map((d) => d.path)).toEqual(['/description', '/value/min']);
  });

  it('keeps only the first line of why a module could not be resolved', async () => {
    const { diagnostics } = await loadExtraSpecPlugins({ cwd: dir, modules: ['no-such-plugin-package'] });
    expect(diagnostics).toHaveLength(1);
    expect(diagnostics[0]).toMatchObject({
      code: 'extra-specs/plugin/load-failed',
      file: 'no-such-plugin-package',
    });
    expect(diagnostics[0]?.message).not.toContain('\n');
    expect(diagnostics[0]?.message).toMatch(/\(Cannot find module 'no-such-plugin-package'\)$/);
  });

  it('ranks plugins below built-ins, reports redefinitions, and validates plugin keys', async () => {
    const { plugins } = await loadExtraSpecPlugins({ root: join(dir, 'project'), modules: [explicit] });
    const registry = createExtraSpecRegistry({ release: 'zed', plugins });
    expect(registry.size).toBe(490 + 3);
    expect(registry.conflicts).toHaveLength(1);
    expect(registry.conflicts[0]?.message).toContain("plugin 'acme-filters'");
    expect(registry.get('hw:cpu_policy')?.origin).toBe('builtin');
    const r = validateExtraSpecs(
      { 'acme:gpu_slices': '9', 'acme:zone.2': 'near', 'site:rack': 'r12', 'hw:cpu_policy': 'x' },
      { registry },
    );
    expect(r.diagnostics.map((d) => d.path)).toEqual(['/acme:gpu_slices', '/hw:cpu_policy']);
    expect(registry.lookup('acme:zone.2')).toMatchObject({ params: { num: '2' }, template: false });
  });

  it('reports plugins that fail to load, export nothing or throw, and carries on', async () => {
    const { plugins, diagnostics } = await loadExtraSpecPlugins({ modules: [missing, empty, throwing] });
    expect(plugins).toEqual([]);
    expect(diagnostics.map((d) => d.code)).toEqual([
      'extra-specs/plugin/load-failed',
      'extra-specs/bad-plugin',
      'extra-specs/bad-plugin',
    ]);
    expect(diagnostics.every((d) => d.severity === 'warning')).toBe(true);
  });

  it('loads nothing when given nothing', async () => {
    expect(await loadExtraSpecPlugins()).toEqual({ plugins: [], diagnostics: [] });
  });
});

describe('plugins given in code', () => {
  it('accepts bare definitions and refuses anything else', () => {
    expect(() => createExtraSpecRegistry({ plugins: [42 as never] })).toThrow(/neither a definition/);
  });
});
