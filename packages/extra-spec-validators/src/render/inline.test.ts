import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  code,
  mdCode,
  mdEscape,
  rst,
  rstLiteral,
  rstToMarkdown,
  rstToPlain,
  toMarkdown,
  toPlain,
  toRst,
} from './inline.js';

describe('inline text', () => {
  const parts = [
    'until ussuri: ',
    rst('Victoria added ``mixed`` and *more*.'),
    ' See ',
    code('hw:cpu_policy'),
  ];

  it('writes each part in reStructuredText', () => {
    expect(toRst(parts)).toBe('until ussuri: Victoria added ``mixed`` and *more*. See ``hw:cpu_policy``');
    expect(toRst(['a_b *c* `d`'])).toBe('a\\_b \\*c\\* \\`d\\`');
  });

  it('writes each part in Markdown', () => {
    expect(toMarkdown(parts)).toBe('until ussuri: Victoria added `mixed` and *more*. See `hw:cpu_policy`');
    expect(toMarkdown([code('a|b')], true)).toBe('`a\\|b`');
    expect(toMarkdown(['x | y'], true)).toBe('x \\| y');
  });

  it('writes each part as plain text', () => {
    expect(toPlain(parts)).toBe('until ussuri: Victoria added mixed and more. See hw:cpu_policy');
    expect(rstToPlain('Use :ref:`the guide <guide>` or `Nova`_, not \\*this\\*.')).toBe(
      'Use the guide or Nova, not *this*.',
    );
  });

  it('falls back where an inline literal cannot hold the text', () => {
    expect(rstLiteral('a``b')).toBe("'a\\`\\`b'");
    expect(rstLiteral(' x')).toBe("' x'");
    expect(rstLiteral('')).toBe("''");
    expect(rstLiteral('\\d+')).toBe('``\\d+``');
  });

  it('fences code spans around backticks', () => {
    expect(mdCode('a`b')).toBe('``a`b``');
    expect(mdCode('`x')).toBe('`` `x ``');
    expect(mdCode('')).toBe('""');
    expect(mdCode(' a ')).toBe('`  a  `');
  });

  it('escapes Markdown syntax in plain words but keeps underscores inside words', () => {
    expect(mdEscape('hw_cpu_policy _x_ *y* [z](u) <b>')).toBe(
      'hw_cpu_policy \\_x\\_ \\*y\\* \\[z\\](u) \\<b\\>',
    );
    expect(mdEscape('# not a heading\n- not a list\n1. nor this')).toBe(
      '\\# not a heading\n\\- not a list\n1\\. nor this',
    );
  });

  it('turns the catalog markup into Markdown', () => {
    expect(rstToMarkdown('Which vCPUs are *left out*, as ``^0-1``.')).toBe(
      'Which vCPUs are *left out*, as `^0-1`.',
    );
  });

  it('keeps the text of any input, whatever the markup', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 40 }), (s) => {
        expect(() => toRst([s, rst(s), code(s)])).not.toThrow();
        expect(toPlain([s])).toBe(s);
        if (s === '' || /[\r\n]/.test(s)) return;
        // Read the code span back as CommonMark does.
        const m = /^(`+)([\s\S]*)\1$/.exec(toMarkdown([code(s)]));
        let inner = m?.[2] ?? '';
        if (inner.length > 1 && inner.startsWith(' ') && inner.endsWith(' ') && inner.trim() !== '') {
          inner = inner.slice(1, -1);
        }
        expect(inner).toBe(s);
      }),
    );
  });
});
