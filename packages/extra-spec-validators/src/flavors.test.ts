import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parsePropertiesString, readFlavorFile, validateFlavorFile } from './flavors.js';

describe('parsePropertiesString', () => {
  it("reads the client's key='value', … text", () => {
    expect(parsePropertiesString("hw:cpu_policy='dedicated', hw:numa_nodes='2'")).toEqual({
      'hw:cpu_policy': 'dedicated',
      'hw:numa_nodes': '2',
    });
    expect(parsePropertiesString("a='x, y', b=''")).toEqual({ a: 'x, y', b: '' });
    expect(parsePropertiesString('')).toEqual({});
  });

  it('refuses text of another shape and never throws', () => {
    expect(parsePropertiesString('a=b')).toBeUndefined();
    expect(parsePropertiesString("a='b' junk")).toBeUndefined();
    fc.assert(
      fc.property(fc.string(), (s) => {
        parsePropertiesString(s);
      }),
    );
  });

  it('round-trips what the client prints', () => {
    fc.assert(
      fc.property(
        fc.dictionary(
          fc.stringMatching(/^[a-z][a-z0-9_:.]{0,12}$/),
          fc.stringMatching(/^[a-z0-9 ,-]{0,8}$/),
          {
            maxKeys: 5,
          },
        ),
        (props) => {
          const text = Object.entries(props)
            .map(([k, v]) => `${k}='${v}'`)
            .join(', ');
          expect(parsePropertiesString(text)).toEqual(props);
        },
      ),
    );
  });
});

describe('readFlavorFile', () => {
  it('accepts one flavor, a list, {flavors}, {flavor} and client output', () => {
    const one = readFlavorFile('name: a\nextra_specs:\n  hw:cpu_policy: shared\n', 'a.yaml');
    expect(one.flavors).toEqual([
      { name: 'a', extraSpecs: { 'hw:cpu_policy': 'shared' }, path: '/extra_specs' },
    ]);
    expect(readFlavorFile('[{"Name": "b", "Properties": {}}]', 'b.json').flavors[0]?.name).toBe('b');
    expect(readFlavorFile('{"flavor": {"name": "c", "extra_specs": {}}}', 'c.json').flavors[0]?.path).toBe(
      '/flavor/extra_specs',
    );
    expect(readFlavorFile('flavors: []\n').flavors).toEqual([]);
  });

  it('warns about numbers and refuses booleans and nested values, with positions', () => {
    const r = readFlavorFile('extra_specs:\n  hw:numa_nodes: 2\n  hw:pmu: yes\n  hw:x: [1]\n', 'f.yaml');
    expect(r.flavors[0]?.extraSpecs).toEqual({ 'hw:numa_nodes': '2' });
    expect(r.diagnostics.map((d) => [d.severity, d.line])).toEqual([
      ['warning', 2],
      ['error', 3],
      ['error', 4],
    ]);
  });

  it('reports files of the wrong shape', () => {
    expect(readFlavorFile('42\n').diagnostics[0]?.code).toBe('extra-specs/bad-flavor-file');
    expect(readFlavorFile('flavors: [1]\n').diagnostics[0]?.message).toContain('must be a mapping');
    expect(readFlavorFile('name: x\n').diagnostics[0]?.severity).toBe('warning');
    expect(readFlavorFile('extra_specs: 5\n').diagnostics[0]?.message).toContain('must be a mapping');
    expect(readFlavorFile('properties: "a=b"\n').diagnostics[0]?.message).toContain("key='value'");
    expect(readFlavorFile('a: [\n').diagnostics[0]?.code).toBe('yaml/syntax');
  });

  it('refuses a flavors key that is not a list, located at it', () => {
    for (const [text, what] of [
      ['flavors: 3\n', 'a number'],
      ['name: x\nflavors:\n  a: 1\n', 'a mapping'],
      ['flavors:\n', 'null'],
      ['{"flavors": "m1"}', 'a string'],
    ] as const) {
      const r = readFlavorFile(text, 'f.yaml');
      expect(r.flavors, text).toEqual([]);
      expect(r.diagnostics, text).toHaveLength(1);
      expect(r.diagnostics[0], text).toMatchObject({
        code: 'extra-specs/bad-flavor-file',
        severity: 'error',
        path: '/flavors',
        file: 'f.yaml',
      });
      expect(r.diagnostics[0]?.message).toBe(`'flavors' must be a list of flavors, but it is ${what}.`);
    }
    expect(readFlavorFile('name: x\nflavors: 3\n').diagnostics[0]?.line).toBe(2);
    expect(validateFlavorFile('flavors: 3\n', 'f.yaml').ok).toBe(false);
  });

  it('refuses a flavor key that is not a mapping, and list items that are not mappings', () => {
    expect(readFlavorFile('flavor: [1]\n').diagnostics[0]).toMatchObject({
      severity: 'error',
      path: '/flavor',
      message: "'flavor' must be a mapping, but it is a list.",
    });
    const items = readFlavorFile('flavors:\n  - 3\n  - extra_specs: {}\n  - [x]\n', 'f.yaml');
    expect(items.diagnostics.map((d) => [d.severity, d.path, d.line])).toEqual([
      ['error', '/flavors/0', 2],
      ['error', '/flavors/2', 4],
    ]);
    expect(items.flavors).toHaveLength(1);
  });
});

describe('validateFlavorFile', () => {
  it('points unknown keys at the key and bad values at the value', () => {
    const r = validateFlavorFile('extra_specs:\n  hw:cpu_polcy: x\n  hw:cpu_policy: y\n', 'f.yaml');
    expect(r.ok).toBe(false);
    expect(r.diagnostics.map((d) => [d.code, d.line, d.column])).toEqual([
      ['extra-specs/unknown-key', 2, 3],
      ['extra-specs/invalid-value', 3, 18],
    ]);
    expect(r.diagnostics[0]?.file).toBe('f.yaml');
  });
});

describe('validateFlavorFile on arbitrary input', () => {
  it('returns diagnostics for any text and never throws', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.json(),
          fc
            .dictionary(fc.string({ maxLength: 20 }), fc.jsonValue())
            .map((specs) => `extra_specs: ${JSON.stringify(specs)}\n`),
        ),
        (text) => {
          const r = validateFlavorFile(text, 'x.yaml', { mode: 'strict' });
          expect(r.ok).toBe(!r.diagnostics.some((d) => d.severity === 'error'));
        },
      ),
      { numRuns: 300 },
    );
  });
});
