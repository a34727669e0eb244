import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseDocument, safeParseDocument } from './document.js';
import { isStackspecError } from './errors.js';

const fail = (text: string, options = {}) => {
  const r = safeParseDocument(text, options);
  if (r.ok) throw new Error(`expected failure for ${JSON.stringify(text)}`);
  return r.diagnostics;
};

describe('safeParseDocument: YAML', () => {
  it('parses YAML 1.1 the PyYAML way by default', () => {
    const r = safeParseDocument('heat_template_version: 2015-10-15\nenabled: yes\nmode: 0644\n');
    expect(r.ok && r.document.value).toEqual({
      heat_template_version: '2015-10-15',
      enabled: true,
      mode: 420,
    });
  });

  it('can use the YAML 1.2 core schema instead', () => {
    const r = safeParseDocument('enabled: yes\nmode: 0644\nn: 1e3\n', { yamlVersion: '1.2' });
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
    const r = safeParseDocument('a:\n  b: 1\n  b: 2\n', { duplicateKeys: 'warn' });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.document.value).toEqual({ a: { b: 2 } });
    expect(r.document.warnings).toMatchObject([
      { code: 'yaml/duplicate-key', severity: 'warning', path: '/a/b', line: 3 },
    ]);
  });

  it('ignores duplicates silently in ignore mode', () => {
    const r = safeParseDocument('b: 1\nb: 2\n', { duplicateKeys: 'ignore' });
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

  it('rejects a billion-laughs document in milliseconds', () => {
    const rows = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
    for (let i = 1; i < 9; i += 1) {
      const prev = String.fromCharCode(96 + i);
      const cur = String.fromCharCode(97 + i);
      rows.push(`${cur}: &${cur} [${Array(9).fill(`*${prev}`).join(',')}]`);
    }
    const started = performance.now();
    expect(fail(rows.join('\n'))[0]?.code).toBe('yaml/alias-limit');
    // Not a timing assertion on speed targets: a bomb that expanded would take minutes and gigabytes.
    expect(performance.now() - started).toBeLessThan(5_000);
  });

  it('allows ordinary anchors and merge keys', () => {
    const r = safeParseDocument('base: &b {x: 1}\nderived:\n  <<: *b\n  y: 2\nagain: *b\n');
    expect(r.ok && r.document.value).toEqual({ base: { x: 1 }, derived: { x: 1, y: 2 }, again: { x: 1 } });
  });

  it('forbids aliases entirely when maxAliasCount is 0', () => {
    expect(fail('a: &x 1\nb: *x\n', { maxAliasCount: 0 })[0]?.code).toBe('yaml/alias-limit');
  });

  it('enforces the size limit in bytes', () => {
    expect(fail('a: é\n', { maxBytes: 5 })[0]).toMatchObject({ code: 'yaml/too-large' });
    expect(safeParseDocument('a: é\n', { maxBytes: 6 }).ok).toBe(true);
  });

  it('enforces the depth limit for flow and block nesting', () => {
    expect(fail(`${'['.repeat(300)}${']'.repeat(300)}`)[0]?.code).toBe('yaml/too-deep');
    expect(fail('['.repeat(1_000_000))[0]?.code).toBe('yaml/too-deep');
    let block = '';
    for (let i = 0; i < 30; i += 1) block += `${' '.repeat(i)}a:\n`;
    expect(fail(block, { maxDepth: 10 })[0]).toMatchObject({ code: 'yaml/too-deep', line: 11 });
    expect(safeParseDocument(block, { maxDepth: 40 }).ok).toBe(true);
  });

  it('does not mistake brackets inside quoted or plain text for nesting', () => {
    const text = `a: "${'['.repeat(500)}"\nb: '${'{'.repeat(500)}'\nc: x${'['.repeat(500)}\n`;
    expect(safeParseDocument(text).ok).toBe(true);
    const block = `script: |\n  ${'['.repeat(300)}\n\n  echo ${'{'.repeat(300)}\nafter: 1\n# ${'['.repeat(300)}\n`;
    const r = safeParseDocument(block);
    expect(r.ok && r.document.value).toMatchObject({ after: 1 });
  });

  it('reads an empty document as null', () => {
    const r = safeParseDocument('# only a comment\n');
    expect(r.ok && r.document.value).toBeNull();
  });

  it('accepts a byte-order mark', () => {
    expect(safeParseDocument('\ufeffa: 1\n').ok).toBe(true);
    expect(safeParseDocument('\ufeff{"a": 1}', { format: 'json' }).ok).toBe(true);
  });
});

describe('safeParseDocument: JSON', () => {
  it('parses JSON strictly by file extension', () => {
    const r = safeParseDocument('{"a": [1, 2.5, "x", null, true]}', { filename: 'x.json' });
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

  it('enforces the depth limit on JSON', () => {
    expect(fail(`${'['.repeat(300)}${']'.repeat(300)}`, { format: 'json' })[0]?.code).toBe('yaml/too-deep');
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
        const r = safeParseDocument(text);
        if (!r.ok) {
          expect(r.diagnostics.length).toBeGreaterThan(0);
          for (const d of r.diagnostics) expect(d.code).toMatch(/^(yaml|json)\//);
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('yields a value or our own diagnostics for any JSON-ish text', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string({ maxLength: 100 }), fc.json()), (text) => {
        const r = safeParseDocument(text, { format: 'json' });
        if (r.ok) expect(r.document.value).toEqual(JSON.parse(text));
        else expect(r.diagnostics[0]?.code).toMatch(/^(yaml|json)\//);
      }),
      { numRuns: 1000 },
    );
  });

  it('round-trips any JSON value written as YAML flow text', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 5 }), (value) => {
        const r = safeParseDocument(JSON.stringify(value), { yamlVersion: '1.2', duplicateKeys: 'ignore' });
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
