import { describe, expect, it } from 'vitest';
import { defineExtraSpec } from '../define.js';
import { createExtraSpecRegistry } from '../registry.js';
import { builtinRegistry } from '../validate.js';
import { anchorOf } from './common.js';
import { renderJsonSchema } from './json-schema.js';
import { formatMetadef, renderMetadefs } from './metadef.js';
import { renderMarkdown, renderRst } from './text.js';

const zed = builtinRegistry('zed');
const small = createExtraSpecRegistry({
  builtins: false,
  release: 'zed',
  plugins: [
    {
      name: 'acme-filters',
      specs: [
        defineExtraSpec({
          name: 'acme:slices',
          description: 'Slices the ``acme`` filter reserves.',
          value: { type: 'int', min: 1, max: 8 },
          status: { added: 'yoga' },
          virtDrivers: ['libvirt'],
          imageProperty: 'acme_slices',
          dependencies: [{ key: 'hw:cpu_policy', value: 'dedicated' }],
        }),
        defineExtraSpec({
          name: 'acme:mode',
          description: 'Old switch.',
          value: { type: 'str', enum: ['fast', 'safe'] },
          deprecated: { since: 'zed', reason: 'Use acme:slices.', replacement: 'acme:slices' },
        }),
        defineExtraSpec({
          name: 'acme:slot.{num}',
          description: 'Slot label.',
          parameters: [{ name: 'num', type: 'int', description: 'Slot number.' }],
          value: { type: 'str', pattern: '[a-z]+\\d*' },
        }),
        defineExtraSpec({ name: 'acme:on', description: 'Turns it on.', value: { type: 'bool' } }),
      ],
    },
  ],
});

describe('renderRst', () => {
  it('renders the zed catalog', async () => {
    await expect(renderRst(zed)).toMatchFileSnapshot('__snapshots__/extra-specs.zed.snap.rst');
  });

  it('gives every key a unique target, and summary tables for traits and resources', () => {
    const rst = renderRst(zed);
    const anchors = zed.entries().map((e) => anchorOf(e.name));
    expect(new Set(anchors).size).toBe(anchors.length);
    for (const a of anchors) expect(rst).toContain(`.. _${a}:`);
    expect(rst).toContain('.. list-table::');
    expect(rst).toContain('.. warning::\n\n   Deprecated since victoria');
  });

  it('writes literals in fields as inline literals, not as escaped backticks', () => {
    const rst = renderRst(zed);
    expect(rst).toContain(':Changed: until ussuri: Victoria added ``mixed``.');
    expect(rst).toContain(':Values: ``dedicated``, ``shared``, ``mixed``');
    expect(rst).toContain(':Image property: ``hw_cpu_policy``');
    expect(rst).not.toContain('\\`');
  });

  it('renders plugin entries with their rules, status and deprecation', async () => {
    const rst = renderRst(small, { title: 'ACME extra specs', summary: [] });
    expect(rst).toContain(':Minimum: 1\n:Maximum: 8');
    expect(rst).toContain(':Pattern: ``[a-z]+\\d*``');
    expect(rst).toContain(':Parameter {num}: Slot number. (int, ``\\d+``)');
    expect(rst).toContain(':Status: out-of-tree (``acme-filters``)');
    expect(rst).toContain(':Depends on: ``hw:cpu_policy=dedicated``');
    expect(rst).toContain('Out-of-tree');
    await expect(rst).toMatchFileSnapshot('__snapshots__/plugins.snap.rst');
  });
});

describe('renderMarkdown', () => {
  it('renders the zed catalog with an anchor per key', async () => {
    const md = renderMarkdown(zed);
    expect(md).toContain('<a id="extra-spec-hw-cpu-policy"></a>');
    expect(md).toContain('> **Deprecated** since victoria');
    await expect(md).toMatchFileSnapshot('__snapshots__/extra-specs.zed.snap.md');
  });

  it('writes every literal as a code span', () => {
    const md = renderMarkdown(zed);
    expect(md).toContain('- **Changed:** until ussuri: Victoria added `mixed`.');
    expect(md).toContain('each step written as `:name`. (str, `(:\\w+)*`)');
    expect(md).toContain('| `required`, `forbidden` |');
    expect(md).not.toContain('``');
  });

  it('renders plugin entries', async () => {
    await expect(renderMarkdown(small, { summary: [] })).toMatchFileSnapshot('__snapshots__/plugins.snap.md');
  });
});

describe('renderMetadefs', () => {
  it('shapes namespaces like Glance metadef files', async () => {
    const files = renderMetadefs(zed);
    const hwImage = files.find((f) => f.fileName === 'extra-specs-hw-image.json')?.namespace;
    expect(hwImage?.resource_type_associations).toEqual([
      { name: 'OS::Glance::Image', prefix: 'hw_' },
      { name: 'OS::Cinder::Volume', prefix: 'hw_', properties_target: 'image' },
    ]);
    expect(hwImage?.properties.cpu_policy).toMatchObject({
      type: 'string',
      enum: ['dedicated', 'shared', 'mixed'],
    });
    expect(hwImage?.properties.emulator_threads_policy).toBeUndefined();
    const quota = files.find((f) => f.fileName === 'extra-specs-quota.json')?.namespace;
    expect(quota?.properties.cpu_period).toMatchObject({ type: 'integer', minimum: 0 });
    const os = files.find((f) => f.fileName === 'extra-specs-os.json')?.namespace;
    expect(os?.properties.monitors).toMatchObject({ minimum: 1, maximum: 8 });
    const traits = files.find((f) => f.fileName === 'extra-specs-trait.json')?.namespace;
    expect(Object.keys(traits?.properties ?? {})).toHaveLength(345);
    expect(traits?.resource_type_associations).toEqual([{ name: 'OS::Nova::Flavor', prefix: 'trait:' }]);
    for (const f of files) {
      for (const p of Object.values(f.namespace.properties)) {
        expect(p.title.length).toBeGreaterThan(0);
        expect(['string', 'integer', 'boolean']).toContain(p.type);
      }
    }
    const all = Object.fromEntries(files.map((f) => [f.fileName, f.namespace]));
    await expect(`${JSON.stringify(all, null, 2)}\n`).toMatchFileSnapshot(
      '__snapshots__/metadefs.zed.snap.json',
    );
  });

  it('offers each flavor key once: image namespaces are not associated with flavors', () => {
    for (const release of ['zed', 'hibiscus']) {
      const files = renderMetadefs(builtinRegistry(release));
      const seen = new Map<string, string>();
      for (const f of files) {
        const isImage = f.namespace.namespace.endsWith('::Image');
        const names = f.namespace.resource_type_associations.map((a) => a.name);
        expect(names, f.fileName).toEqual(
          isImage ? ['OS::Glance::Image', 'OS::Cinder::Volume'] : ['OS::Nova::Flavor'],
        );
        for (const a of f.namespace.resource_type_associations) {
          if (a.name !== 'OS::Nova::Flavor') continue;
          for (const key of Object.keys(f.namespace.properties)) {
            const full = `${a.prefix ?? ''}${key}`;
            expect(seen.get(full), `${full} in ${f.fileName}`).toBeUndefined();
            seen.set(full, f.fileName);
          }
        }
      }
      expect(seen.get('hw:cpu_policy')).toBe('extra-specs-hw.json');
      // Images take a value flavors do not (the image rule differs from the extra spec's).
      const os = Object.fromEntries(files.map((f) => [f.namespace.namespace, f.namespace.properties]));
      expect(os['OS::Compute::ExtraSpecs::OS']?.secure_boot?.enum).toEqual(['disabled', 'required']);
      expect(os['OS::Compute::ExtraSpecs::OS::Image']?.secure_boot?.enum).toEqual([
        'required',
        'disabled',
        'optional',
      ]);
    }
  });

  it('formats a namespace as Glance does and honours options', () => {
    const [file] = renderMetadefs(small, { idPrefix: 'ACME', visibility: 'private', protected: false });
    expect(file?.namespace).toMatchObject({
      namespace: 'ACME::Acme',
      visibility: 'private',
      protected: false,
    });
    expect(formatMetadef(file?.namespace as never)).toMatch(/^\{\n {4}"namespace"/);
  });
});

describe('renderJsonSchema', () => {
  it('describes plain and patterned keys and their value rules', async () => {
    const schema = renderJsonSchema(zed, { id: 'https://example.org/extra-specs.json' });
    const props = schema.properties as Record<string, Record<string, unknown>>;
    expect(props['hw:cpu_policy']?.enum).toEqual(['dedicated', 'shared', 'mixed']);
    expect(props['os:monitors']).toMatchObject({
      $ref: '#/$defs/python-int',
      'x-minimum': 1,
      'x-maximum': 8,
    });
    expect(props.hide_hypervisor_id?.deprecated).toBe(true);
    expect(props['hw:pmem']).toMatchObject({ maxLength: 255 });
    const patterns = Object.keys(schema.patternProperties as object);
    expect(patterns.some((p) => p.startsWith('^hw:numa_cpus\\.(?:(?:[0-9\\u0660-\\u0669'))).toBe(true);
    expect(schema.additionalProperties).toBe(false);
    expect(renderJsonSchema(zed, { closed: false }).additionalProperties).toBe(true);
    await expect(`${JSON.stringify(schema, null, 2)}\n`).toMatchFileSnapshot(
      '__snapshots__/schema.zed.snap.json',
    );
  });

  it('writes patterns without Unicode property escapes, code point escapes or named groups', () => {
    const text = JSON.stringify(renderJsonSchema(builtinRegistry()));
    expect(text).not.toMatch(/\\\\[pP]\{|\\\\u\{|\(\?<[A-Za-z]/);
  });

  it('produces patterns that agree with the validator in both ECMAScript modes', () => {
    const schema = renderJsonSchema(small);
    const defs = schema.$defs as Record<string, { pattern: string }>;
    const props = schema.properties as Record<string, { $ref?: string; pattern?: string }>;
    expect(props['acme:slices']?.$ref).toBe('#/$defs/python-int');
    expect(props['acme:on']?.$ref).toBe('#/$defs/python-bool');
    for (const flags of ['', 'u']) {
      const int = new RegExp(defs['python-int']?.pattern as string, flags);
      expect(['1', ' +2 ', '1_0', '\u0663', '\u{1d7d3}', '7\n'].every((v) => int.test(v))).toBe(true);
      expect(['1.0', '', '1__0', '0x1', '\u00b2', '\u001c1'].some((v) => int.test(v))).toBe(false);
      const bool = new RegExp(defs['python-bool']?.pattern as string, flags);
      expect(['True', ' yes ', 'N', '\u001cno\u0085'].every((v) => bool.test(v))).toBe(true);
      expect(['maybe', '\ufeffyes'].some((v) => bool.test(v))).toBe(false);
      const keys = Object.keys(schema.patternProperties as object).map((k) => new RegExp(k, flags));
      expect(keys.some((k) => k.test('acme:slot.3'))).toBe(true);
      expect(keys.some((k) => k.test('acme:slotX3'))).toBe(false);
      const slot = Object.values(schema.patternProperties as object)[0] as { pattern: string };
      const label = new RegExp(slot.pattern, flags);
      expect(['ab', 'ab12', 'x\u0663'].every((v) => label.test(v))).toBe(true);
      expect(['ab\n', 'AB', '1'].some((v) => label.test(v))).toBe(false);
    }
  });

  it('uses the linear-time form of a pattern that backtracks exponentially', () => {
    const props = renderJsonSchema(zed).properties as Record<string, { pattern: string }>;
    const pmem = new RegExp(props['hw:pmem']?.pattern as string);
    expect(pmem.test(`${'a'.repeat(5000)}!`)).toBe(false);
    expect(pmem.test('a,b_1,')).toBe(true);
  });

  it('leaves out what has no portable form, and says so, rather than being stricter', () => {
    const registry = createExtraSpecRegistry({
      builtins: false,
      release: 'zed',
      plugins: [
        defineExtraSpec({
          name: 'acme:word',
          description: 'A word.',
          value: { type: 'str', pattern: '\\bx\\W' },
        }),
        defineExtraSpec({
          name: 'acme:tag.{tag}',
          description: 'A tag.',
          parameters: [{ name: 'tag', pattern: '[\\U0001F600-\\U0001F64F]' }],
          value: { type: 'int', min: 0 },
        }),
      ],
    });
    const schema = renderJsonSchema(registry);
    const word = (schema.properties as Record<string, Record<string, unknown>>)['acme:word'];
    expect(word?.pattern).toBeUndefined();
    expect(word?.['x-python-pattern']).toBe('\\bx\\W');
    expect(word?.description).toContain('has no portable form');
    const [key, tag] =
      Object.entries(schema.patternProperties as Record<string, Record<string, unknown>>)[0] ?? [];
    expect(key).toBe('^acme:tag\\..*$(?!\\n)');
    expect(tag).toMatchObject({ type: 'string', maxLength: 255 });
    expect(tag?.$ref).toBeUndefined();
  });
});

describe('the renderers on bad input', () => {
  it.each([
    ['renderRst', renderRst],
    ['renderMarkdown', renderMarkdown],
    ['renderMetadefs', renderMetadefs],
    ['renderJsonSchema', renderJsonSchema],
  ] as const)('%s refuses anything but a registry with our error', (name, render) => {
    for (const source of [{}, null, [], 'zed', { release: { name: 'zed' } }]) {
      expect(() => (render as (s: unknown) => unknown)(source)).toThrow(
        expect.objectContaining({
          code: 'extra-specs/bad-registry',
          message: expect.stringContaining(`${name} renders a registry`),
        }),
      );
    }
  });

  it('anchorOf refuses a name that is not a string', () => {
    expect(() => anchorOf(undefined as never)).toThrow(
      expect.objectContaining({ code: 'extra-specs/invalid-type' }),
    );
  });
});
