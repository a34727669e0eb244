import { isStackspecError, validateDocument } from '@stackspec/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  applyInventory,
  hasDuplicateJsonKey,
  InventoryFileSchema,
  parseInventory,
  resolveInventory,
  uuidFromName,
  validateInventory,
} from './inventory-file.js';
import { createProviderStore, INVENTORY_DEFAULTS } from './store.js';

describe('validateInventory', () => {
  it('builds trees, derives stable uuids and records usages as allocations', () => {
    const { store, inventory } = parseInventory(`
providers:
  - name: cn1
    inventories: {VCPU: {total: 8, allocation_ratio: 2.0}, MEMORY_MB: 1024}
    traits: [HW_CPU_X86_AVX, CUSTOM_GOLD]
    usages: {VCPU: 3}
    children:
      - name: pf1
        inventories: {SRIOV_NET_VF: 4}
  - name: other
    parent: cn1
`);
    const cn1 = store.providerByName('cn1');
    expect(cn1?.uuid).toBe(uuidFromName('provider:cn1'));
    expect(store.providerByName('pf1')?.root).toBe(cn1);
    expect(store.providerByName('other')?.parent).toBe(cn1);
    expect(cn1?.usages.get('VCPU')).toBe(3);
    expect(cn1?.inventories.get('VCPU')).toEqual({
      total: 8,
      reserved: 0,
      min_unit: 1,
      max_unit: 2147483647,
      step_size: 1,
      allocation_ratio: 2,
    });
    expect(store.hasTrait('CUSTOM_GOLD')).toBe(true);
    expect(inventory.consumers).toHaveLength(1);
  });

  it('points at the line of an unknown trait and suggests the standard one', () => {
    const r = validateInventory('providers:\n  - name: cn1\n    traits: [HW_CPU_X86_AVXX]\n', {
      filename: 'inv.yaml',
    });
    expect(r.ok).toBe(false);
    const d = r.diagnostics[0];
    expect(d).toMatchObject({
      code: 'placement-query/inventory/unknown-trait',
      file: 'inv.yaml',
      line: 3,
      path: '/providers/0/traits/0',
    });
    expect(d?.hint).toMatch(/HW_CPU_X86_AVX/);
  });

  it('collects every cross-reference problem at once', () => {
    const r = validateInventory(`
aggregates: {gold: 11111111-1111-1111-1111-111111111111}
providers:
  - name: a
    parent: b0
    aggregates: [golde]
    inventories: {VCPUS: 1, DISK_GB: {total: 1, reserved: 2}}
    usages: {MEMORY_MB: 1}
  - name: a
  - name: b
`);
    expect(r.ok).toBe(false);
    const codes = r.diagnostics.map((d) => d.code).sort();
    expect(codes).toEqual([
      'placement-query/inventory/duplicate-provider',
      'placement-query/inventory/no-inventory',
      'placement-query/inventory/reserved-above-total',
      'placement-query/inventory/unknown-aggregate',
      'placement-query/inventory/unknown-parent',
      'placement-query/inventory/unknown-resource-class',
    ]);
    expect(r.diagnostics.find((d) => d.code === 'placement-query/inventory/unknown-aggregate')?.hint).toMatch(
      /gold/,
    );
    expect(r.diagnostics.find((d) => d.code === 'placement-query/inventory/unknown-parent')?.hint).toMatch(
      /\bb\b/,
    );
  });

  it('refuses a parent loop and over-capacity usage', () => {
    const loop = validateInventory('providers:\n  - {name: a, parent: b}\n  - {name: b, parent: a}\n');
    expect(loop.ok).toBe(false);
    expect(loop.diagnostics[0]?.code).toBe('placement-query/inventory/parent-loop');
    const over = validateInventory('providers:\n  - {name: a, inventories: {VCPU: 2}, usages: {VCPU: 3}}\n');
    expect(over.diagnostics[0]).toMatchObject({
      code: 'placement-query/inventory/capacity-exceeded',
      line: 2,
    });
  });

  it('reports schema problems with located diagnostics', () => {
    const r = validateInventory('{"providers": [{"name": "a", "inventory": {}}]}', { filename: 'x.json' });
    expect(r.ok).toBe(false);
    expect(r.diagnostics[0]?.path).toBe('/providers/0/inventory');
  });

  it('never throws on arbitrary text (property)', () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        const r = validateInventory(text);
        if (!r.ok) expect(r.diagnostics.length).toBeGreaterThan(0);
      }),
      { numRuns: 300 },
    );
  });
});

describe('long parent chains', () => {
  it('loads a 5000-deep chain of parents without overflowing the stack', () => {
    // Children listed before their parents, so ordering has to follow the whole chain.
    const entries = ['  - {name: p0}'];
    for (let i = 1; i < 5000; i += 1) entries.push(`  - {name: p${i}, parent: p${i - 1}}`);
    const { store, inventory } = parseInventory(`providers:\n${entries.reverse().join('\n')}\n`);
    expect(inventory.providers[0]?.name).toBe('p0');
    expect(store.providerByName('p4999')?.root.name).toBe('p0');
  });
});

describe('aggregate metadata', () => {
  it('keeps the metadata of aggregates declared with it, and plain aliases too', () => {
    const r = validateInventory(
      [
        'aggregates:',
        '  plain: 0000000b-0000-4000-8000-00000000000b',
        '  reserved:',
        '    uuid: 0000000A-0000-4000-8000-00000000000A',
        '    metadata: {reservation: r-1}',
        'providers:',
        '  - name: cn1',
        '    aggregates: [reserved, plain]',
        '    inventories: {VCPU: 4}',
      ].join('\n'),
    );
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.inventory.aggregates).toEqual([
      { alias: 'plain', uuid: '0000000b-0000-4000-8000-00000000000b', metadata: {} },
      { alias: 'reserved', uuid: '0000000a-0000-4000-8000-00000000000a', metadata: { reservation: 'r-1' } },
    ]);
  });

  it('points at a bad uuid inside an aggregate with metadata', () => {
    const r = validateInventory('aggregates:\n  a:\n    uuid: nope\nproviders: []\n', {
      filename: 'inv.yaml',
    });
    expect(r.ok).toBe(false);
    expect(r.diagnostics[0]).toMatchObject({
      code: 'placement-query/inventory/invalid-uuid',
      path: '/aggregates/a/uuid',
      line: 3,
    });
  });
});

describe('resolveInventory and applyInventory', () => {
  const file = InventoryFileSchema.parse({
    traits: ['CUSTOM_GOLD'],
    providers: [
      {
        name: 'cn',
        traits: ['CUSTOM_GOLD'],
        inventories: { VCPU: 4 },
        children: [{ name: 'numa', inventories: { MEMORY_MB: 1024 } }],
      },
    ],
    consumers: [{ uuid: '11111111-1111-4111-8111-111111111111', allocations: { cn: { VCPU: 1 } } }],
  });

  it('resolves names to uuids and fills a store with the same state', () => {
    const r = resolveInventory(file, createProviderStore());
    if (!r.ok) throw new Error(JSON.stringify(r.diagnostics));
    expect(r.inventory.providers.map((p) => [p.name, p.parentUuid])).toEqual([
      ['cn', null],
      ['numa', uuidFromName('provider:cn')],
    ]);
    const store = createProviderStore();
    applyInventory(store, r.inventory);
    const cn = store.providerByName('cn');
    expect(cn?.traits.has('CUSTOM_GOLD')).toBe(true);
    expect(cn?.usages.get('VCPU')).toBe(1);
    expect(store.providerByName('numa')?.root).toBe(cn);
  });

  it('reports unresolved references without a document, pointing at their path', () => {
    const r = resolveInventory(
      InventoryFileSchema.parse({
        providers: [{ name: 'a', parent: 'nobody', traits: ['HW_CPU_X86_AVXX'] }],
      }),
      createProviderStore(),
    );
    expect(r.ok).toBe(false);
    expect(r.diagnostics.map((d) => d.path).sort()).toEqual(['/providers/0/parent', '/providers/0/traits/0']);
  });

  it('normalises every spelling of a uuid to the same provider, in uuids, parents and allocations', () => {
    const canonical = '0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d';
    const spellings = [
      canonical,
      canonical.toUpperCase(),
      `{${canonical}}`,
      `urn:uuid:${canonical}`,
      canonical.replaceAll('-', ''),
    ];
    for (const written of spellings) {
      const r = resolveInventory(
        InventoryFileSchema.parse({
          providers: [
            { name: 'cn', uuid: written, inventories: { VCPU: 4 } },
            { name: 'child', parent: written },
          ],
          consumers: [
            { uuid: '11111111-1111-4111-8111-111111111111', allocations: { [written]: { VCPU: 2 } } },
          ],
        }),
        createProviderStore(),
      );
      if (!r.ok) throw new Error(`${written}: ${JSON.stringify(r.diagnostics)}`);
      expect(r.inventory.providers.map((p) => [p.uuid, p.parentUuid])).toEqual([
        [canonical, null],
        [uuidFromName('provider:child'), canonical],
      ]);
      expect(r.inventory.consumers[0]?.allocations).toEqual({ [canonical]: { VCPU: 2 } });
    }
  });

  it('fills inventory defaults whatever order the fields are written in', () => {
    const r = resolveInventory(
      InventoryFileSchema.parse({
        providers: [
          {
            name: 'cn',
            inventories: {
              VCPU: { allocation_ratio: 4, total: 8, step_size: 2 },
              MEMORY_MB: 1024,
              DISK_GB: { reserved: 10, total: 100 },
            },
          },
        ],
      }),
      createProviderStore(),
    );
    if (!r.ok) throw new Error(JSON.stringify(r.diagnostics));
    const inv = r.inventory.providers[0]?.inventories;
    expect(inv).toEqual({
      VCPU: { ...INVENTORY_DEFAULTS, total: 8, allocation_ratio: 4, step_size: 2 },
      MEMORY_MB: { ...INVENTORY_DEFAULTS, total: 1024 },
      DISK_GB: { ...INVENTORY_DEFAULTS, total: 100, reserved: 10 },
    });
    const store = createProviderStore();
    applyInventory(store, r.inventory);
    expect(Object.fromEntries(store.providerByName('cn')?.inventories ?? [])).toEqual(inv);
  });

  it('resolves parents to the entry that owns a name when a name is used twice, and reports the second', () => {
    const r = resolveInventory(
      InventoryFileSchema.parse({
        providers: [
          { name: 'a', children: [{ name: 'b', children: [{ name: 'c' }] }] },
          { name: 'b', children: [{ name: 'd' }] },
          { name: 'e', parent: 'c' },
        ],
      }),
      createProviderStore(),
    );
    expect(r.ok).toBe(false);
    expect(r.diagnostics.map((d) => [d.code, d.path])).toEqual([
      ['placement-query/inventory/duplicate-provider', '/providers/1/name'],
    ]);
  });

  it('names every provider of a parent loop once, in the order the loop runs', () => {
    const r = resolveInventory(
      InventoryFileSchema.parse({
        providers: [
          { name: 'root' },
          { name: 'x', parent: 'z' },
          { name: 'y', parent: 'x' },
          { name: 'z', parent: 'y' },
          { name: 'w', parent: 'x' },
        ],
      }),
      createProviderStore(),
    );
    expect(r.ok).toBe(false);
    expect(r.diagnostics.map((d) => [d.code, d.path, d.message])).toEqual([
      [
        'placement-query/inventory/parent-loop',
        '/providers/1/parent',
        'Providers form a loop through their parents: x -> z -> y -> x.',
      ],
    ]);
  });

  it("applying twice is the store's 409, a core error", () => {
    const r = resolveInventory(file, createProviderStore());
    if (!r.ok) throw new Error('fixture');
    const store = createProviderStore();
    applyInventory(store, r.inventory);
    let caught: unknown;
    try {
      applyInventory(store, { ...r.inventory, customTraits: [] });
    } catch (e) {
      caught = e;
    }
    expect(isStackspecError(caught)).toBe(true);
    expect(caught).toMatchObject({ status: 409, code: 'placement.duplicate_name' });
  });
});

describe('inventory size limit', () => {
  it('refuses a file over maxBytes with a located error, and reads it under a raised limit', () => {
    const text = 'providers:\n  - name: a\n  - name: b\n';
    const small = validateInventory(text, { filename: 'cloud.yaml', maxBytes: 10 });
    expect(small.ok).toBe(false);
    expect(small.diagnostics[0]).toMatchObject({ code: 'yaml/too-large', file: 'cloud.yaml' });
    expect(validateInventory(text, { maxBytes: 1024 }).ok).toBe(true);
  });
});

describe('JSON inventories on the fast path', () => {
  const json = (providers: string) => `{\n  "providers": [\n${providers}\n  ]\n}\n`;

  it('loads a clean JSON file to the same store as its YAML twin', () => {
    const a = parseInventory(
      json('    {"name": "cn1", "inventories": {"VCPU": 8}, "traits": ["CUSTOM_X"], "aggregates": []}'),
      { filename: 'cloud.json' },
    );
    const b = parseInventory('providers:\n  - {name: cn1, inventories: {VCPU: 8}, traits: [CUSTOM_X]}\n');
    expect(a.inventory).toEqual(b.inventory);
  });

  it('still refuses a duplicate key, at its line and column, as the located parser does', () => {
    const text = json('    {"name": "cn1",\n     "inventories": {"VCPU": 8, "VCPU": 16}}');
    const r = validateInventory(text, { filename: 'cloud.json' });
    expect(r.ok).toBe(false);
    expect(r.diagnostics).toEqual([
      expect.objectContaining({ code: 'yaml/duplicate-key', file: 'cloud.json', line: 4, column: 33 }),
    ]);
    const located = validateDocument(text, { filename: 'cloud.json' });
    expect(located.ok).toBe(false);
    expect(r.diagnostics).toEqual(located.ok ? [] : located.diagnostics);
  });

  it('places schema and reference problems at their lines without the located parse up front', () => {
    const r = validateInventory(
      json('    {"name": "cn1",\n     "traits": ["CUSTOM_X", "HW_CPU_X86_AVXX"]}'),
      {
        filename: 'cloud.json',
      },
    );
    expect(r.ok).toBe(false);
    expect(r.diagnostics[0]).toMatchObject({
      code: 'placement-query/inventory/unknown-trait',
      line: 4,
      file: 'cloud.json',
    });
  });

  it('points into nested children, by path and line', () => {
    const text = [
      'providers:',
      '  - name: cn1',
      '    children:',
      '      - name: numa0',
      '      - name: numa1',
      '        children:',
      '          - name: pf1',
      '            traits: [CUSTOM_OK, HW_NIC_SRIOVV]',
      '            inventories: {SRIOV_NET_VF: {total: 2, reserved: 3}}',
      '            usages: {VCPU: 1}',
      '  - name: cn1',
      '',
    ].join('\n');
    const r = validateInventory(text, { filename: 'cloud.yaml' });
    expect(r.ok).toBe(false);
    expect(r.diagnostics.map((d) => [d.code, d.path, d.line])).toEqual([
      ['placement-query/inventory/duplicate-provider', '/providers/1/name', 11],
      [
        'placement-query/inventory/reserved-above-total',
        '/providers/0/children/1/children/0/inventories/SRIOV_NET_VF/reserved',
        9,
      ],
      ['placement-query/inventory/unknown-trait', '/providers/0/children/1/children/0/traits/1', 8],
      ['placement-query/inventory/no-inventory', '/providers/0/children/1/children/0/usages/VCPU', 10],
    ]);
  });

  it('keeps syntax, depth and size errors as they were', () => {
    const broken = validateInventory('{"providers": [}', { filename: 'cloud.json' });
    expect(broken.diagnostics[0]).toMatchObject({ code: 'json/syntax', line: 1 });
    const big = validateInventory(json('    {"name": "cn1"}'), { filename: 'cloud.json', maxBytes: 10 });
    expect(big.diagnostics[0]).toMatchObject({ code: 'yaml/too-large' });
    const deep = validateInventory(`${'['.repeat(5000)}${']'.repeat(5000)}`, { filename: 'cloud.json' });
    expect(deep.diagnostics[0]).toMatchObject({ code: 'yaml/too-deep' });
  });
});

describe('hasDuplicateJsonKey', () => {
  it('finds a key twice in one object, not in sibling or nested objects, and not among string values', () => {
    expect(hasDuplicateJsonKey('{"a": 1, "b": {"a": 2}, "c": [{"a": 1}, {"a": 2}]}')).toBe(false);
    expect(hasDuplicateJsonKey('{"a": "a", "b": ["a", "a"], "c": "x"}')).toBe(false);
    expect(hasDuplicateJsonKey('{"a": {"b": 1}, "a": 2}')).toBe(true);
    expect(hasDuplicateJsonKey('[{"x": [1, {"y": 0, "y" : 1}]}]')).toBe(true);
  });

  it('reads keys with escapes: quotes and backslashes inside, and the same key spelled two ways', () => {
    expect(hasDuplicateJsonKey('{"a\\"": 1, "a\\\\": 2, "b": "\\"a\\":"}')).toBe(false);
    expect(hasDuplicateJsonKey('{"name": 1, "n\\u0061me": 2}')).toBe(true);
    expect(hasDuplicateJsonKey('{"\\\\": 1, "\\u005c": 2}')).toBe(true);
  });

  it('agrees with the located parser on generated JSON (property)', () => {
    // Few key names, so that duplicates are common; values nest objects and arrays.
    const key = fc.constantFrom('a', 'b', 'n\\u0061me', 'name', 'a\\"', '\\\\');
    const { value } = fc.letrec((tie) => ({
      value: fc.oneof(
        { depthSize: 'small' },
        fc.constantFrom('1', 'null', '"a"', '":"', '"\\""'),
        fc.array(tie('value'), { maxLength: 3 }).map((xs) => `[${xs.join(',')}]`),
        fc
          .array(fc.tuple(key, tie('value'), fc.constantFrom('', ' ', '\n')), { maxLength: 4 })
          .map((kv) => `{${kv.map(([k, v, sp]) => `"${k}"${sp}:${sp}${v}`).join(',')}}`),
      ),
    }));
    fc.assert(
      fc.property(value, (text) => {
        JSON.parse(text);
        const located = validateDocument(text, { filename: 'x.json' });
        const duplicate = !located.ok && located.diagnostics.some((d) => d.code === 'yaml/duplicate-key');
        expect(hasDuplicateJsonKey(text)).toBe(duplicate);
      }),
      { numRuns: 500 },
    );
  });
});
