import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { YAML_SYNTAX_PIECES } from '../test/conformance-cases.js';
import { isQuietLine, outlineYaml, stateAfterLine } from './outline.js';
import { type ScanResult, scanDocument, scanForSearch, tooLargeDiagnostic } from './scan.js';

function same(text: string): { fast: ScanResult; full: ScanResult; search: ScanResult } {
  const fast = scanDocument(text);
  const full = scanDocument(text, { mode: 'full' });
  return { fast, full, search: scanForSearch(text) };
}

/** A corpus-like template, for mutation tests. */
const TEMPLATE = [
  'heat_template_version: wallaby',
  'description: >',
  '  Text',
  'capabilities:',
  '  deployment: puppet',
  'parameters:',
  '  A: {type: string, default: "x"}',
  'resources:',
  '  r:',
  '    type: OS::Heat::None',
  "    properties: {a: 'it''s'}",
  'outputs: {}',
  '',
];

/** `lines` joined, with `piece` inserted into line `line` at column `col`. */
function spliced(lines: readonly string[], line: number, col: number, piece: string): string {
  const copy = [...lines];
  const l = copy[line] as string;
  copy[line] = l.slice(0, col) + piece + l.slice(col);
  return copy.join('\n');
}

/** What a search needs from a scan: everything but the list of keys. */
function answer(r: ScanResult) {
  const { keys: _k, ...rest } = strip(r);
  return rest;
}

function strip(r: ScanResult) {
  const { method: _m, diagnostics, ...rest } = r;
  return { ...rest, codes: diagnostics.map((d) => [d.code, d.line]) };
}

describe('scanDocument', () => {
  it('classifies templates, environments and other documents', () => {
    expect(scanDocument('heat_template_version: wallaby\nresources: {}\n')).toMatchObject({
      kind: 'template',
      version: 'wallaby',
      versionKey: 'heat_template_version',
      method: 'fast',
    });
    expect(scanDocument('resource_registry:\n  OS::A: a.yaml\nrequires: {a: b}\n').kind).toBe('environment');
    expect(scanDocument('').kind).toBe('environment');
    expect(scanDocument('- name: Controller\n').kind).toBe('other');
    expect(scanDocument('resources: {}\n').kind).toBe('other');
    expect(scanDocument('a: [1\n').kind).toBe('invalid');
  });

  it('reads capabilities in both styles without parsing the whole document', () => {
    const text = [
      '---',
      '# comment',
      'heat_template_version: 2015-10-15 # a date kept as text',
      'description: |',
      '  resources: "not a key"',
      'capabilities:',
      '  deployment: puppet',
      '  resource_type: [OS::TripleO::ControllerPostDeployment,',
      '                  OS::TripleO::ComputePostDeployment]',
      'resources:',
      '  a: {type: "x # y"}',
      '',
    ].join('\n');
    const r = scanDocument(text);
    expect(r).toMatchObject({
      kind: 'template',
      method: 'fast',
      version: '2015-10-15',
      keys: ['heat_template_version', 'description', 'capabilities', 'resources'],
      capabilities: {
        deployment: ['puppet'],
        resource_type: ['OS::TripleO::ControllerPostDeployment', 'OS::TripleO::ComputePostDeployment'],
      },
    });
    expect(strip(r)).toEqual(strip(scanDocument(text, { mode: 'full' })));
  });

  it.each([
    ['block list', 'capabilities:\n  resource_type:\n    - OS::A\n    - OS::B\n  ha: yes\n'],
    [
      'flow list and comments',
      'capabilities:  # annotated\n  resource_type: [OS::A, OS::B]  # two\n\n  replicas: 2\n',
    ],
    ['list at the key indentation', 'capabilities:\n  resource_type:\n  - OS::A\n  deployment: puppet\n'],
    ['quoted values', 'capabilities:\n  deployment: \'puppet\'\n  n: "2"\n'],
    ['octal and null', 'capabilities:\n  n: 017\n  m:\n'],
    ['float', 'capabilities:\n  api: 1.0\n  n: [1.50, 2]\n'],
  ])('reads a capabilities section with a %s like the full parse', (_name, section) => {
    const text = `heat_template_version: wallaby\n${section}resources: {}\n`;
    const { fast, full } = same(text);
    expect(strip(fast)).toEqual(strip(full));
  });

  it('reads a plain version continued on the next line as the parser does', () => {
    const text = 'heat_template_version: 2015-10-15\n  x\ndescription: y\n';
    expect(scanDocument(text).version).toBe('2015-10-15 x');
    expect(scanForSearch(text).version).toBe('2015-10-15 x');
  });

  it('keeps an integral float a float in the fast scan', () => {
    const r = scanDocument('heat_template_version: wallaby\n# x\ncapabilities:\n  api: 1.0\n  n: 1\n');
    expect(r).toMatchObject({ method: 'fast', capabilities: { api: ['1.0'], n: ['1'] } });
  });

  it('reports a bad capability value at its line in the file', () => {
    const r = scanDocument('heat_template_version: wallaby\n\ncapabilities:\n  a: {b: c}\n', {
      filename: 'x.yaml',
    });
    expect(r.diagnostics[0]).toMatchObject({
      code: 'heat/capabilities/invalid-value',
      line: 4,
      file: 'x.yaml',
    });
  });

  it('treats a version that is not text as no version, like Heat', () => {
    const r = scanDocument('heat_template_version: 2013\n');
    expect(r.kind).toBe('template');
    expect(r.version).toBeUndefined();
    expect(scanDocument('heat_template_version: "2013"\n')).toMatchObject({
      kind: 'template',
      version: '2013',
    });
  });

  it('refuses text over the size bound without reading it', () => {
    const r = scanDocument(`heat_template_version: wallaby\n#${'x'.repeat(100)}\n`, {
      maxChars: 50,
      filename: 'big.yaml',
    });
    expect(r).toMatchObject({
      kind: 'invalid',
      diagnostics: [{ code: 'heat/find/too-large', file: 'big.yaml' }],
    });
  });

  it('says only "more than" the bound when the size is unknown or no longer over it', () => {
    const text = 'The file holds more than the 63 bytes a template tree file may hold; it is not read.';
    expect(tooLargeDiagnostic('a.yaml', undefined, 63, 'bytes')).toMatchObject({ message: text });
    expect(tooLargeDiagnostic('a.yaml', 10, 63, 'bytes')).toMatchObject({ message: text });
    expect(tooLargeDiagnostic(undefined, 64, 63, 'characters')).not.toHaveProperty('file');
  });

  it('reads a document that is only an empty flow collection without a full parse', () => {
    expect(scanDocument('# no networks\n[]\n')).toMatchObject({ kind: 'other', method: 'fast' });
    expect(scanDocument('{}  # nothing\n')).toMatchObject({ kind: 'environment', method: 'fast' });
    expect(scanDocument('[]\na: 1\n').kind).toBe('invalid');
  });

  it.each([
    [
      'a multi-line quoted value reaching column 0',
      'heat_template_version: wallaby\ndescription: "abc\ndef: x"\n',
    ],
    ['a flow mapping at the top', '{heat_template_version: wallaby}\n'],
    ['an anchor at the top', 'heat_template_version: &v wallaby\n'],
    ['a tab in the indentation', 'heat_template_version: wallaby\nresources:\n\t a: 1\n'],
    ['a second document', 'heat_template_version: wallaby\n---\na: 1\n'],
    ['a quoted key', '"heat_template_version": wallaby\n'],
    ['a lone carriage return', 'heat_template_version: wallaby\ra: 1\n'],
  ])('falls back to a full parse for %s', (_name, text) => {
    expect(outlineYaml(text)).toBeUndefined();
    const { fast, full } = same(text);
    expect(strip(fast)).toEqual(strip(full));
  });

  it('skips block scalar content that looks like keys and quotes', () => {
    const text =
      'heat_template_version: wallaby\noutputs:\n  x:\n    value: |\n      capabilities: "\n      it\'s [\nresources: {}\n';
    const r = scanDocument(text);
    expect(r.method).toBe('fast');
    expect(r.keys).toEqual(['heat_template_version', 'outputs', 'resources']);
  });

  it('follows a multi-line quoted scalar that stays indented', () => {
    const text = 'heat_template_version: wallaby\ndescription: "first\n  capabilities: {a: b}"\n';
    const r = scanDocument(text);
    expect(r.method).toBe('fast');
    expect(r.capabilities).toBeUndefined();
  });

  it('keeps the last of duplicate top-level keys, as the full parse does', () => {
    const text =
      'heat_template_version: 2013-05-23\ncapabilities: {a: b}\nheat_template_version: wallaby\ncapabilities: {a: c}\n';
    const { fast, full } = same(text);
    expect(fast.method).toBe('fast');
    expect(strip(fast)).toEqual(strip(full));
    expect(fast.capabilities).toEqual({ a: ['c'] });
  });

  const scalar = fc.oneof(
    fc.string({ maxLength: 12 }),
    fc.constantFrom(
      'yes',
      'no',
      '~',
      '2015-10-15',
      '017',
      '1e3',
      'a: b',
      '# x',
      "it's",
      '"q"',
      '[x',
      '{y}',
      '|',
      '>-',
    ),
    fc.integer(),
    fc.boolean(),
  );
  const value = fc.letrec((tie) => ({
    node: fc.oneof({ depthSize: 'small', withCrossShrink: true }, scalar, tie('list'), tie('map')),
    list: fc.array(tie('node'), { maxLength: 3 }),
    map: fc.dictionary(
      fc.oneof(fc.stringMatching(/^[a-z_]{1,8}$/), fc.constantFrom('resources', 'capabilities')),
      tie('node'),
      {
        maxKeys: 3,
      },
    ),
  })).node;
  const topKey = fc.constantFrom(
    'heat_template_version',
    'description',
    'capabilities',
    'resources',
    'parameter_defaults',
    'resource_registry',
    'requires',
    'other',
  );

  it('gives the same answer as a full parse for generated documents in any style', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(topKey, value), { maxLength: 5 }),
        fc.constantFrom<'block' | 'flow'>('block', 'flow'),
        fc.boolean(),
        (entries, style, comments) => {
          const doc = Object.fromEntries(entries);
          let text = stringify(doc, {
            version: '1.1',
            collectionStyle: style === 'flow' ? 'any' : 'block',
            lineWidth: 20,
          });
          if (comments) text = text.replace(/\n/g, '\n# note\n\n');
          const { fast, full, search } = same(text);
          if (full.kind === 'invalid') return;
          expect(strip(fast)).toEqual(strip(full));
          expect(answer(search)).toEqual(answer(full));
        },
      ),
      { numRuns: 400 },
    );
  });

  it('never disagrees with a full parse on mutated corpus-like text', () => {
    const pieces = fc.constantFrom(...YAML_SYNTAX_PIECES, 'x', 'capabilities:', 'a: b');
    fc.assert(
      fc.property(fc.nat({ max: TEMPLATE.length - 1 }), fc.nat({ max: 40 }), pieces, (line, col, piece) => {
        const text = spliced(TEMPLATE, line, col, piece);
        const { fast, full, search } = same(text);
        if (full.kind === 'invalid') return;
        if (!isDeepStrictEqual(strip(fast), strip(full)))
          expect({ text, fast: strip(fast) }).toEqual({ text, fast: strip(full) });
        if (!isDeepStrictEqual(answer(search), answer(full)))
          expect({ text, search: answer(search) }).toEqual({ text, search: answer(full) });
      }),
      { numRuns: 800 },
    );
  });
});

describe('scanForSearch', () => {
  it('stops reading a template after its version when nothing later can matter', () => {
    const text = 'heat_template_version: wallaby\nresources:\n  a: {type: "x\n';
    // The unclosed quote further on is not read: a search needs only the kind and version.
    expect(scanForSearch(text)).toMatchObject({ kind: 'template', version: 'wallaby', method: 'fast' });
    expect(scanForSearch(text).keys).toEqual(['heat_template_version']);
    // Read whole, the file is broken; the search answers only for files Heat can read.
    expect(scanDocument(text).kind).toBe('invalid');
  });

  it.each([
    ['a later capabilities section', 'resources: {}\ncapabilities: {a: b}\n'],
    ['a later version key', 'resources: {}\nheat_template_version: 2013-05-23\n'],
    ['a quoted key', 'resources: {}\n"capabilities": {a: b}\n'],
    ['a complex key', 'resources: {}\n? capabilities\n: {a: b}\n'],
    ['a second document', 'resources: {}\n---\nheat_template_version: wallaby\n'],
    ['a multi-line quoted scalar reaching column 0', 'description: "one\ncapabilities: {a: b}"\n'],
  ])('reads on when the rest may hold %s', (_name, rest) => {
    const text = `heat_template_version: wallaby\n${rest}`;
    const { full, search } = same(text);
    expect(answer(search)).toEqual(answer(full));
  });

  // The template without its capabilities section, so that a search may stop after the version.
  const base = TEMPLATE.filter((l) => !/^(?:capabilities:| {2}deployment:)/.test(l));
  const pieces = fc.constantFrom(
    'capabilities: {a: b}\n',
    'heat_template_version: wallaby\n',
    'HeatTemplateFormatVersion: 2012-12-12\n',
    '"capabilities": {a: c}\n',
    "'heat_template_version': wallaby\n",
    '? capabilities\n: {a: d}\n',
    '---\n',
    '...\n',
    '"\n',
    '[\n',
    '|\n',
    ' x\n',
    '\t',
    '&a ',
    '*a ',
    '!!str ',
  );

  it('gives the same kind, version and capabilities as a full parse whatever comes after the version', () => {
    fc.assert(
      fc.property(fc.nat({ max: base.length - 1 }), fc.nat({ max: 30 }), pieces, (line, col, piece) => {
        const text = spliced(base, line, col, piece);
        const { full, search } = same(text);
        if (full.kind === 'invalid') return;
        if (!isDeepStrictEqual(answer(search), answer(full)))
          expect({ text, search: answer(search) }).toEqual({ text, search: answer(full) });
      }),
      { numRuns: 1500 },
    );
  });
});

describe('the quiet-line pattern', () => {
  const clean = { quote: 0, flow: 0, blockParent: -1 };
  const piece = fc.constantFrom(
    ' ',
    ' ',
    'a',
    'b:',
    ': ',
    '- ',
    '"',
    "'",
    "''",
    '\\',
    '\\"',
    '[',
    ']',
    '{',
    '}',
    ',',
    '#',
    ' #',
    '|',
    '>',
    '|-',
    '>+',
    '2',
    '\t',
    'x"y',
    "it's",
  );

  it('only skips lines that leave the reader as it was', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 4 }), fc.array(piece, { maxLength: 14 }), (indent, parts) => {
        const line = ' '.repeat(indent) + parts.join('');
        if (/^ *\t/.test(line) || !isQuietLine(line)) return;
        expect({ line, state: stateAfterLine(line) }).toEqual({ line, state: clean });
      }),
      { numRuns: 20000 },
    );
  });

  it.each([
    ['  a: "x" [1, {b: "c, d"}] # note', true],
    ["  a: 'it''s' b", true],
    ["  msg: it's fine", true],
    ['  a: "open', false],
    ['  a: [1,', false],
    ['  a: |', false],
    ['  - >- # folded', false],
    ["  a: 'b''", false],
    ['  a: "b\\', false],
    ['  a: [[[[1]]]]', false],
  ])('reads %j as quiet: %s', (line, quiet) => {
    expect(isQuietLine(line)).toBe(quiet);
  });
});
