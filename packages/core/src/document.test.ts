import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseDocument, validateDocument } from './document.js';
import { isStackspecError } from './errors.js';

const fail = (text: string, options = {}) => {
  const r = validateDocument(text, options);
  if (r.ok) throw new Error(`expected failure for ${JSON.stringify(text)}`);
  return r.diagnostics;
};

describe('validateDocument: YAML', () => {
  it('parses YAML 1.1 the PyYAML way by default', () => {
    const r = validateDocument('heat_template_version: 2015-10-15\nenabled: yes\nmode: 0644\n');
    expect(r.ok && r.document.value).toEqual({
      heat_template_version: '2015-10-15',
      enabled: true,
      mode: 420,
    });
  });

  it('can use the YAML 1.2 core schema instead', () => {
    const r = validateDocument('enabled: yes\nmode: 0644\nn: 1e3\n', { yamlVersion: '1.2' });
    expect(r.ok && r.document.value).toEqual({ enabled: 'yes', mode: 644, n: 1000 });
  });

  it('rejects a duplicate key and points at its line', () => {
    const [d] = fail('name: a\nsteps: []\nname: b\n', { filename: 'tpl.yaml' });
    expect(d).toMatchObject({
      code: 'yaml/duplicate-key',
      severity: 'error',
      path: '/name',
      file: 'tpl.yaml',
      line: 3,
      column: 1,
      hint: 'It was first defined on line 1.',
    });
  });

  it('keeps the last value of a duplicate key with a warning in warn mode', () => {
    const r = validateDocument('a:\n  b: 1\n  b: 2\n', { duplicateKeys: 'warn' });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.document.value).toEqual({ a: { b: 2 } });
    expect(r.document.warnings).toMatchObject([
      { code: 'yaml/duplicate-key', severity: 'warning', path: '/a/b', line: 3 },
    ]);
  });

  it('ignores duplicates silently in ignore mode', () => {
    const r = validateDocument('b: 1\nb: 2\n', { duplicateKeys: 'ignore' });
    expect(r.ok && r.document.value).toEqual({ b: 2 });
    expect(r.diagnostics).toEqual([]);
  });

  it('refuses language-specific tags instead of running or stringifying them', () => {
    const [d] = fail('x: !!python/object/apply:os.system ["echo pwned"]\n', { filename: 'evil.yaml' });
    expect(d).toMatchObject({ code: 'yaml/unsupported-tag', file: 'evil.yaml', line: 1, column: 4 });
    expect(fail('x: !custom 1\n')[0]?.code).toBe('yaml/unsupported-tag');
    expect(fail('x: !!binary aGVsbG8=\n')[0]?.code).toBe('yaml/unsupported-tag');
    expect(fail('x: !!set {a, b}\n')[0]?.code).toBe('yaml/unsupported-tag');
  });

  it('reports syntax errors with line and column', () => {
    const [d] = fail('a: [1, 2\nb: 3\n', { filename: 'f.yaml' });
    expect(d).toMatchObject({ code: 'yaml/syntax', file: 'f.yaml' });
    expect(d?.line).toBeGreaterThanOrEqual(1);
    expect(d?.column).toBeGreaterThanOrEqual(1);
    expect(d?.message).toMatch(/\.$/);
  });

  it('rejects several documents in one stream', () => {
    expect(fail('a: 1\n---\nb: 2\n')[0]?.code).toBe('yaml/multiple-documents');
  });

  it('rejects mapping keys that are collections', () => {
    expect(fail('? [1, 2]\n: x\n')[0]).toMatchObject({ code: 'yaml/complex-key', line: 1 });
  });

  it("refuses a ':' after a flow collection on the same line instead of inventing an empty key", () => {
    for (const [text, line, column] of [
      ['a: {}: x\n', 1, 6],
      ['a: [1]: \n', 1, 7],
      ['a: {b: c}: d\n', 1, 10],
      ['list:\n  - a: [] : x\n', 2, 11],
    ] as const) {
      expect(fail(text, { filename: 'f.yaml' })).toEqual([
        expect.objectContaining({
          code: 'yaml/syntax',
          file: 'f.yaml',
          line,
          column,
          message: "A mapping value is not allowed here: this ':' follows a value on the same line.",
          hint: expect.stringContaining('line of their own'),
        }),
      ]);
    }
  });

  it("refuses a ':' with no key, as PyYAML does, but reads an explicit empty key", () => {
    for (const [text, line, column] of [
      [': x\n', 1, 1],
      ['a: 1\n  : x\n', 2, 3],
      ['- : x\n', 1, 3],
      ['[a, : x]\n', 1, 5],
      ['{: x}\n', 1, 2],
    ] as const) {
      expect(fail(text)).toEqual([
        expect.objectContaining({ code: 'yaml/syntax', line, column, hint: "Write the key before the ':'." }),
      ]);
    }
    expect(validateDocument('?\n: x\n').document?.value).toEqual({ '': 'x' });
    expect(validateDocument('[? : x]\n').document?.value).toEqual([{ '': 'x' }]);
    // An anchor or a tag makes an empty key node of its own, which PyYAML accepts.
    expect(validateDocument('- &k : x\n- !!str : y\n').document?.value).toEqual([{ '': 'x' }, { '': 'y' }]);
    // ...unless the parser would give it to the whole mapping.
    expect(fail('a:\n  &k : x\n')[0]).toMatchObject({
      line: 2,
      column: 6,
      message: expect.stringContaining('wrong node'),
    });
    expect(fail('b:\n  [1]\n  &k : y\n')[0]).toMatchObject({
      line: 3,
      column: 6,
      message: expect.stringContaining('not aligned'),
    });
  });

  it('refuses text glued to an explicit key, which would otherwise be dropped', () => {
    expect(fail('? "q"a\n')).toEqual([
      expect.objectContaining({
        code: 'yaml/syntax',
        line: 1,
        column: 6,
        message: expect.stringContaining("a ':' was expected"),
      }),
    ]);
    expect(fail("x: 1\n? 'q'&a\n")[0]).toMatchObject({ line: 2, column: 6 });
  });

  it("refuses an explicit key's ':' out of the column of its '?'", () => {
    expect(fail('? a\n  : x\n')[0]).toMatchObject({
      code: 'yaml/syntax',
      line: 2,
      column: 3,
      message: "This ':' is not in the column of its '?' (column 1).",
    });
    expect(validateDocument('- ? a\n  : x\n').document?.value).toEqual([{ a: 'x' }]);
  });

  it("refuses a '?' in plain text inside a flow collection, which PyYAML reads as a key or cannot read", () => {
    expect(fail('hosts: [a, ?b]\n')[0]).toMatchObject({
      line: 1,
      column: 12,
      message: expect.stringContaining('explicit key'),
    });
    expect(fail('urls: [http://x?y=1]\n')[0]).toMatchObject({ line: 1, column: 16, hint: 'Quote the text.' });
    expect(validateDocument('urls: ["http://x?y=1", ? k]\nq: a?b\n').document?.value).toEqual({
      urls: ['http://x?y=1', { k: null }],
      q: 'a?b',
    });
  });

  it("keeps YAML 1.2's reading of these shapes when asked for YAML 1.2", () => {
    expect(validateDocument(': x\nl: [?x]\n', { yamlVersion: '1.2' }).document?.value).toEqual({
      '': 'x',
      l: ['?x'],
    });
  });

  it('rejects a billion-laughs document at the alias that overflows the budget', () => {
    const rows = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
    for (let i = 1; i < 9; i += 1) {
      const prev = String.fromCharCode(96 + i);
      const cur = String.fromCharCode(97 + i);
      rows.push(`${cur}: &${cur} [${Array(9).fill(`*${prev}`).join(',')}]`);
    }
    // The expansion is counted, not performed: 9^9 nodes would take gigabytes.
    const [d, ...rest] = fail(rows.join('\n'), { filename: 'lol.yaml' });
    expect(rest).toEqual([]);
    expect(d).toMatchObject({ code: 'yaml/alias-limit', file: 'lol.yaml', line: 7, column: 8 });
  });

  it('rejects a bomb built from merge keys too', () => {
    let text = 'a: &a {x: 1, y: 2, z: 3}\n';
    for (let i = 1; i < 12; i += 1) {
      const prev = String.fromCharCode(96 + i);
      const cur = String.fromCharCode(97 + i);
      const refs = Array(9).fill(`*${prev}`).join(', ');
      text += `${cur}: &${cur}\n  <<: [${refs}]\n  k${i}: [${refs}]\n`;
    }
    expect(fail(text)[0]).toMatchObject({ code: 'yaml/alias-limit', line: expect.any(Number) });
  });

  it('bounds what aliases add, not how many there are: 5,000 aliases of a small mapping load', () => {
    let text = 'base: &b {x: 1, y: [1, 2]}\nlist:\n';
    for (let i = 0; i < 5000; i += 1) text += '  - *b\n';
    const r = validateDocument<{ base: unknown; list: unknown[] }>(text);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.document.value.list).toHaveLength(5000);
    // An alias is its anchor's value, shared as PyYAML shares it.
    expect(r.document.value.list[4999]).toBe(r.document.value.base);
    // Each alias stands for 7 nodes (the mapping, two keys, 1, the list, 1, 2), so it adds 6: 30,000 in all.
    expect(validateDocument(text, { maxAliasCount: 30_000 }).ok).toBe(true);
    expect(fail(text, { maxAliasCount: 29_999 })[0]).toMatchObject({ code: 'yaml/alias-limit', line: 5002 });
  });

  it('refuses an alias inside the node it names, whose data would be infinite', () => {
    expect(fail('a: &a [1, *a]\n')[0]).toMatchObject({ code: 'yaml/alias-limit', line: 1, column: 11 });
  });

  it('refuses an alias to no anchor and an anchor defined twice, as PyYAML does', () => {
    expect(fail('a: *nope\n')[0]).toMatchObject({ code: 'yaml/bad-alias', line: 1, column: 4 });
    expect(fail('a: &x 1\nb: &x 2\n')[0]).toMatchObject({
      code: 'yaml/duplicate-anchor',
      line: 2,
      column: 4,
      hint: expect.stringContaining('line 1'),
    });
    // YAML 1.2 lets a later anchor replace an earlier one.
    const r = validateDocument('a: &x 1\nb: &x 2\nc: *x\n', { yamlVersion: '1.2' });
    expect(r.ok && r.document.value).toEqual({ a: 1, b: 2, c: 2 });
  });

  it('merges mappings with PyYAML precedence and key order', () => {
    const r = validateDocument(
      'm1: &m1 {a: 1, b: 1}\nm2: &m2 {b: 2, c: 2}\nr:\n  z: 0\n  <<: [*m1, *m2]\n  b: 9\nl: &l [{a: 1}, {a: 2, b: 2}]\ns:\n  <<: *l\n',
    );
    if (!r.ok) throw new Error(JSON.stringify(r.diagnostics));
    const value = r.document.value as Record<string, Record<string, number>>;
    // Merged keys first (later sources first, earlier ones win), then the mapping's own keys, which win.
    expect(Object.entries(value.r ?? {})).toEqual([
      ['b', 9],
      ['c', 2],
      ['a', 1],
      ['z', 0],
    ]);
    expect(value.s).toEqual({ a: 1, b: 2 });
    // Several '<<' keys are not duplicates; a later one wins over an earlier one, as in PyYAML.
    const twice = validateDocument('m1: &m1 {a: 1}\nm2: &m2 {a: 2}\nr:\n  <<: *m1\n  <<: *m2\n');
    expect(twice.ok && twice.document.value).toMatchObject({ r: { a: 2 } });
  });

  it('refuses a merge of anything but mappings, at the offending value', () => {
    expect(fail('a: 1\n<<: 3\n')[0]).toMatchObject({ code: 'yaml/bad-merge', line: 2, column: 5 });
    expect(fail('a: &a [1]\nb:\n  <<: [*a]\n')[0]).toMatchObject({
      code: 'yaml/bad-merge',
      line: 3,
      column: 8,
    });
  });

  it('refuses an alias of a list used as a mapping key', () => {
    expect(fail('a: &k [1]\n*k : 2\n')[0]).toMatchObject({ code: 'yaml/complex-key', line: 2, column: 1 });
  });

  it('keeps __proto__ and constructor as plain keys', () => {
    const r = validateDocument('__proto__: {x: 1}\nconstructor: 2\n');
    if (!r.ok) throw new Error('expected success');
    const value = r.document.value as Record<string, unknown>;
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(Object.keys(value)).toEqual(['__proto__', 'constructor']);
    expect(value.constructor).toBe(2);
  });

  it('allows ordinary anchors and merge keys', () => {
    const r = validateDocument('base: &b {x: 1}\nderived:\n  <<: *b\n  y: 2\nagain: *b\n');
    expect(r.ok && r.document.value).toEqual({ base: { x: 1 }, derived: { x: 1, y: 2 }, again: { x: 1 } });
  });

  it('forbids aliases entirely when maxAliasCount is 0', () => {
    expect(fail('a: &x 1\nb: *x\n', { maxAliasCount: 0 })[0]?.code).toBe('yaml/alias-limit');
  });

  it('enforces the size limit in bytes and points where it is passed', () => {
    expect(fail('a: é\n', { maxBytes: 5 })[0]).toMatchObject({ code: 'yaml/too-large', line: 1, column: 5 });
    expect(validateDocument('a: é\n', { maxBytes: 6 }).ok).toBe(true);
    // A character outside the BMP is four bytes.
    expect(fail('ab\n😀', { maxBytes: 6 })[0]).toMatchObject({ code: 'yaml/too-large', line: 2, column: 1 });
  });

  it('enforces the depth limit for flow and block nesting', () => {
    expect(fail(`${'['.repeat(300)}${']'.repeat(300)}`)[0]).toMatchObject({
      code: 'yaml/too-deep',
      line: 1,
      column: 201,
    });
    expect(fail('['.repeat(1_000_000))[0]?.code).toBe('yaml/too-deep');
    let block = '';
    for (let i = 0; i < 30; i += 1) block += `${' '.repeat(i)}a:\n`;
    expect(fail(block, { maxDepth: 10 })[0]).toMatchObject({ code: 'yaml/too-deep', line: 11 });
    expect(validateDocument(block, { maxDepth: 40 }).ok).toBe(true);
  });

  it('reports block nesting past what the parser can recurse through as one located too-deep', () => {
    // Compact sequences, two characters a level.
    const compact = fail(`${'- '.repeat(100_000)}x`);
    expect(compact).toEqual([expect.objectContaining({ code: 'yaml/too-deep', line: 1, column: 401 })]);
    expect(compact[0]?.message).toBe('The document nests deeper than the limit of 200 levels.');
    // Shorter runs spread over lines, each more indented than the last.
    let stairs = '';
    for (let i = 0; i < 10; i += 1) stairs += `${' '.repeat(60 * i)}${'- '.repeat(30)}\n`;
    expect(fail(`${stairs}${' '.repeat(600)}x\n`)).toEqual([
      expect.objectContaining({ code: 'yaml/too-deep', line: 7, column: 1 + 360 + 20 * 2 }),
    ]);
    let mappings = '';
    for (let i = 0; i < 3000; i += 1) mappings += `${' '.repeat(i)}a:\n`;
    expect(fail(mappings)).toEqual([
      expect.objectContaining({ code: 'yaml/too-deep', line: 201, column: 201 }),
    ]);
  });

  it('caps maxDepth where the parser would run out of stack', () => {
    let block = '';
    for (let i = 0; i < 1000; i += 1) block += `${' '.repeat(i)}a:\n`;
    const [d] = fail(block, { maxDepth: 100_000 });
    expect(d).toMatchObject({ code: 'yaml/too-deep', line: 401 });
    expect(d?.message).toContain('400 levels');
  });

  it('stops after 1,000 problems with a located note', () => {
    const text = 'a: 1\n'.repeat(1500);
    const diagnostics = fail(text);
    expect(diagnostics).toHaveLength(1001);
    expect(diagnostics[1000]).toMatchObject({ code: 'yaml/too-many-problems', severity: 'info', line: 1002 });
    const warned = validateDocument(text, { duplicateKeys: 'warn' });
    expect(warned.ok && warned.document.warnings).toHaveLength(1001);
  });

  it('does not mistake brackets inside quoted or plain text for nesting', () => {
    const text = `a: "${'['.repeat(500)}"\nb: '${'{'.repeat(500)}'\nc: x${'['.repeat(500)}\n`;
    expect(validateDocument(text).ok).toBe(true);
    const block = `script: |\n  ${'['.repeat(300)}\n\n  echo ${'{'.repeat(300)}\nafter: 1\n# ${'['.repeat(300)}\n`;
    const r = validateDocument(block);
    expect(r.ok && r.document.value).toMatchObject({ after: 1 });
  });

  it('reads an empty document as null', () => {
    const r = validateDocument('# only a comment\n');
    expect(r.ok && r.document.value).toBeNull();
  });

  it('accepts a byte-order mark', () => {
    expect(validateDocument('\ufeffa: 1\n').ok).toBe(true);
    expect(validateDocument('\ufeff{"a": 1}', { format: 'json' }).ok).toBe(true);
  });
});

describe('validateDocument: JSON', () => {
  it('parses JSON strictly by file extension', () => {
    const r = validateDocument('{"a": [1, 2.5, "x", null, true]}', { filename: 'x.json' });
    expect(r.ok && r.document.format).toBe('json');
    expect(r.ok && r.document.value).toEqual({ a: [1, 2.5, 'x', null, true] });
  });

  it('rejects YAML-only syntax in JSON and says where', () => {
    const [d] = fail('{\n  "a": 1,\n  b: 2\n}', { format: 'json', filename: 'x.json' });
    expect(d).toMatchObject({ code: 'json/syntax', file: 'x.json', line: 3, column: 3 });
  });

  it('reports duplicate keys in JSON too', () => {
    expect(fail('{"a": 1, "a": 2}', { format: 'json' })[0]).toMatchObject({
      code: 'yaml/duplicate-key',
      line: 1,
    });
  });

  it('enforces the depth limit on JSON with one pass over the brackets', () => {
    expect(fail(`${'['.repeat(300)}${']'.repeat(300)}`, { format: 'json' })[0]).toMatchObject({
      code: 'yaml/too-deep',
      line: 1,
      column: 201,
    });
    // Megabytes of nesting are refused before any parser builds a tree.
    expect(fail('['.repeat(3_000_000), { format: 'json', filename: 'deep.json' })).toEqual([
      expect.objectContaining({ code: 'yaml/too-deep', file: 'deep.json', line: 1, column: 201 }),
    ]);
    const objects = `${'{"a":'.repeat(100_000)}1${'}'.repeat(100_000)}`;
    expect(fail(objects, { format: 'json' })).toEqual([
      expect.objectContaining({ code: 'yaml/too-deep', line: 1, column: 1001 }),
    ]);
    // Brackets inside strings are text.
    const r = validateDocument(`{"a": "${'['.repeat(500)}\\"${'{'.repeat(500)}"}`, { format: 'json' });
    expect(r.ok).toBe(true);
  });
});

describe('validateDocument: every code is located', () => {
  // One document per code named in validateDocument's TSDoc, with where it must point.
  const cases: Record<string, [text: string, options: object, line: number, column: number]> = {
    'yaml/syntax': ['a: b: c\n', {}, 1, 4],
    'json/syntax': ['{\n  "a": 1,\n  b: 2\n}', { format: 'json' }, 3, 3],
    'yaml/duplicate-key': ['a: 1\nb: 2\na: 3\n', {}, 3, 1],
    'yaml/duplicate-anchor': ['a: &x 1\nb: &x 2\n', {}, 2, 4],
    'yaml/unsupported-tag': ['a: 1\nb: !custom 2\n', {}, 2, 4],
    'yaml/multiple-documents': ['a: 1\n---\nb: 2\n', {}, 2, 1],
    'yaml/bad-alias': ['a: 1\nb: *c\n', {}, 2, 4],
    'yaml/alias-limit': ['a: &a [1, 2, 3]\nb: *a\nc: *a\n', { maxAliasCount: 5 }, 3, 4],
    'yaml/bad-merge': ['a: 1\n<<: 3\n', {}, 2, 5],
    'yaml/complex-key': ['x: 1\n? [1, 2]\n: x\n', {}, 2, 3],
    'yaml/too-large': ['a: 1\nb: 2\n', { maxBytes: 7 }, 2, 3],
    'yaml/too-deep': ['a:\n  b:\n    c: [[1]]\n', { maxDepth: 4 }, 3, 9],
    'yaml/too-many-problems': ['a: 1\n'.repeat(1002), {}, 1002, 1],
  };

  it('covers every code the TSDoc lists', () => {
    const source = readFileSync(new URL('./document.ts', import.meta.url), 'utf8');
    const doc = /\* Codes: ([\s\S]*?)\n \*\n/.exec(source)?.[1] ?? '';
    const listed = [...doc.matchAll(/`([a-z]+\/[a-z-]+)`/g)].map((m) => m[1]);
    expect(listed.length).toBeGreaterThan(10);
    expect(Object.keys(cases).sort()).toEqual([...new Set(listed)].sort());
  });

  it.each(Object.entries(cases))('%s carries its line and column', (code, [text, options, line, column]) => {
    const r = validateDocument(text, { filename: 'f', ...options });
    expect(r.ok).toBe(false);
    const d = r.diagnostics.find((x) => x.code === code);
    expect(d).toMatchObject({ file: 'f', line, column });
  });
});

describe('SourceDocument.locate', () => {
  const doc = parseDocument('name: CUSTOM_X\nsteps:\n  - interface: bios\n    priority: high\n', {
    filename: 't.yaml',
  });

  it('points at a nested value', () => {
    expect(doc.locate('/steps/0/priority')).toEqual({ line: 4, column: 15, endLine: 4, endColumn: 19 });
  });

  it('points at the key when asked', () => {
    expect(doc.locate(['steps', 0, 'priority'], { key: true })).toMatchObject({ line: 4, column: 5 });
  });

  it('falls back to the nearest existing ancestor', () => {
    expect(doc.locate('/steps/0/missing')?.line).toBe(3);
    expect(doc.locate('/steps/7')?.line).toBe(3);
    expect(doc.locate('/nope')?.line).toBe(1);
  });

  it('returns undefined for text that is not a pointer', () => {
    expect(doc.locate('steps')).toBeUndefined();
  });

  it('builds located diagnostics', () => {
    expect(doc.diagnostic({ code: 'x/y', message: 'm', path: '/name' })).toMatchObject({
      file: 't.yaml',
      line: 1,
      column: 7,
      path: '/name',
    });
  });

  it('locates values in JSON documents', () => {
    const j = parseDocument('{\n  "steps": [\n    {"priority": -1}\n  ]\n}', { format: 'json' });
    expect(j.locate('/steps/0/priority')).toMatchObject({ line: 3, column: 18 });
  });
});

describe('parseDocument', () => {
  it('throws a ValidationError carrying every diagnostic', () => {
    try {
      parseDocument('a: 1\na: 2\nb: 1\nb: 2\n', { filename: 'd.yaml' });
      expect.unreachable();
    } catch (e) {
      expect(isStackspecError(e)).toBe(true);
      if (!isStackspecError(e)) return;
      expect(e.status).toBe(400);
      expect(e.code).toBe('yaml/duplicate-key');
      expect(e.diagnostics).toHaveLength(2);
      expect(e.message).toContain('d.yaml:2:1');
    }
  });
});

describe('hostile input (properties)', () => {
  const yamlish = fc.stringMatching(/^[-:?&*!|>'"%@`#{}[\],\n .a-z0-9~]{0,80}$/);

  it('yields a value or our own diagnostics for any YAML text, never a foreign exception', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string({ maxLength: 200 }), yamlish), (text) => {
        const r = validateDocument(text);
        if (!r.ok) {
          expect(r.diagnostics.length).toBeGreaterThan(0);
          for (const d of r.diagnostics) {
            expect(d.code).toMatch(/^(yaml|json)\//);
            expect(d.line).toBeGreaterThan(0);
            expect(d.column).toBeGreaterThan(0);
          }
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('yields a value or our own diagnostics for any JSON-ish text', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string({ maxLength: 100 }), fc.json()), (text) => {
        const r = validateDocument(text, { format: 'json' });
        if (r.ok) expect(r.document.value).toEqual(JSON.parse(text));
        else
          expect(r.diagnostics[0]).toMatchObject({
            code: expect.stringMatching(/^(yaml|json)\//),
            line: expect.any(Number),
          });
      }),
      { numRuns: 1000 },
    );
  });

  it('ends any nesting of any depth in a value or one located too-deep, never a crash', () => {
    const level = fc.constantFrom('[', '{"a": ', '- ', 'k:\n', '? ');
    fc.assert(
      fc.property(
        fc.array(level, { minLength: 1, maxLength: 8 }),
        fc.integer({ min: 1, max: 3000 }),
        (kinds, n) => {
          let text = '';
          let indent = 0;
          const closers: string[] = [];
          for (let i = 0; i < n; i += 1) {
            const k = kinds[i % kinds.length] as string;
            if (k === 'k:\n') {
              indent += 1;
              text += `k:\n${' '.repeat(indent)}`;
            } else {
              text += k;
              if (k === '[') closers.push(']');
              else if (k === '{"a": ') closers.push('}');
              else indent += 2;
            }
          }
          text += `x${closers.reverse().join('')}`;
          const r = validateDocument(text);
          if (r.ok) return;
          const deep = r.diagnostics.filter((d) => d.code === 'yaml/too-deep');
          if (deep.length)
            expect(r.diagnostics).toEqual([expect.objectContaining({ line: expect.any(Number) })]);
          for (const d of r.diagnostics) expect(d.code).toMatch(/^yaml\//);
        },
      ),
      { numRuns: 150 },
    );
  });

  it('round-trips any JSON value written as YAML flow text', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 5 }), (value) => {
        const r = validateDocument(JSON.stringify(value), { yamlVersion: '1.2', duplicateKeys: 'ignore' });
        expect(r.ok).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it('locates every path that exists in a parsed document', () => {
    fc.assert(
      fc.property(
        fc.dictionary(fc.stringMatching(/^[a-z]{1,6}$/), fc.array(fc.integer(), { maxLength: 3 })),
        (obj) => {
          const text = Object.entries(obj)
            .map(([k, v]) => `${k}:\n${v.map((n) => `  - ${n}`).join('\n') || '  []'}`)
            .join('\n');
          const doc = parseDocument(text || '{}');
          for (const [k, v] of Object.entries(obj)) {
            v.forEach((_, i) => {
              expect(doc.locate([k, i])?.line).toBeGreaterThan(0);
            });
          }
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe('SourceDocument.scalar', () => {
  const yaml = parseDocument(
    [
      'ratio: 2.0',
      'count: 2',
      'tagged: !!str 3',
      "quoted: '1'",
      '1: one',
      'yes: on',
      '~: nothing',
      'empty:',
      'base: &b {x: 1.50, y: 7}',
      'merged: {<<: *b, y: 8}',
      'alias: *b',
      'list: [a, "b\\tc", 1e3]',
      'block: |',
      '  text',
      'dup: 1',
      'dup: 2.0',
    ].join('\n'),
    { duplicateKeys: 'ignore' },
  );

  it('gives the text of a scalar as written, which the loaded value forgets', () => {
    expect(yaml.value).toMatchObject({ ratio: 2, count: 2, tagged: '3', quoted: '1' });
    expect(yaml.scalar('/ratio')).toEqual({
      source: '2.0',
      value: 2,
      range: { line: 1, column: 8, endLine: 1, endColumn: 11 },
    });
    expect(yaml.scalar('/count')?.source).toBe('2');
    expect(yaml.scalar(['tagged'])).toMatchObject({ source: '3', tag: 'tag:yaml.org,2002:str', value: '3' });
    expect(yaml.scalar('/quoted')).toMatchObject({ source: "'1'", value: '1' });
    expect(yaml.scalar('/list/1')).toMatchObject({ source: '"b\\tc"', value: 'b\tc' });
    expect(yaml.scalar('/list/2')).toMatchObject({ source: '1e3', value: '1e3' });
    expect(yaml.scalar('/block')?.source).toBe('|\n  text\n');
    expect(yaml.scalar('/empty')).toMatchObject({ source: '', value: null });
  });

  it('gives a mapping key its typed value, as PyYAML built it', () => {
    expect(yaml.scalar('/1', { key: true })).toMatchObject({ source: '1', value: 1 });
    expect(yaml.scalar('/true', { key: true })).toMatchObject({ source: 'yes', value: true });
    expect(yaml.scalar('/true')).toMatchObject({ source: 'on', value: true });
    expect(yaml.scalar('/', { key: true })).toMatchObject({ source: '~', value: null });
    expect(yaml.scalar('/ratio', { key: true })).toMatchObject({ source: 'ratio', value: 'ratio' });
  });

  it('follows aliases and merge keys to the text, and takes the last of repeated keys', () => {
    expect(yaml.scalar('/alias/x')).toMatchObject({ source: '1.50', value: 1.5, range: { line: 9 } });
    expect(yaml.scalar('/merged/x')).toMatchObject({ source: '1.50' });
    expect(yaml.scalar('/merged/y')).toMatchObject({ source: '8', range: { line: 10 } });
    expect(yaml.scalar('/dup')).toMatchObject({ source: '2.0', value: 2 });
    // In a merge list the earlier mapping wins, as the loaded value has it.
    const merged = parseDocument('a: &a {x: 1.0}\nb: &b {x: 2.00, y: 3.0}\nm: {<<: [*a, *b]}\n');
    expect(merged.value).toMatchObject({ m: { x: 1, y: 3 } });
    expect(merged.scalar('/m/x')?.source).toBe('1.0');
    expect(merged.scalar('/m/y')?.source).toBe('3.0');
  });

  it('finds nothing where the path leads to no scalar', () => {
    for (const path of ['/nope', '/base', '/list', '/list/9', '/ratio/x', '', '/list/0/x']) {
      expect(yaml.scalar(path), path).toBeUndefined();
    }
    expect(yaml.scalar('', { key: true })).toBeUndefined();
    expect(yaml.scalar('/list/0', { key: true })).toBeUndefined();
  });

  it('reads JSON documents too', () => {
    const json = parseDocument('\ufeff{"a": [1.0, 1, -0, "x"], "1": 2}', { format: 'json' });
    expect(json.scalar('/a/0')).toMatchObject({ source: '1.0', value: 1 });
    expect(json.scalar('/a/1')?.source).toBe('1');
    expect(json.scalar('/a/2')?.source).toBe('-0');
    expect(json.scalar('/a/3')?.source).toBe('"x"');
    expect(json.scalar('/1', { key: true })).toMatchObject({ source: '"1"', value: '1' });
  });
});
