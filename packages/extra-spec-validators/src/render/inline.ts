// Inline text shared by the renderers. Definitions are written with
// reStructuredText inline markup (``literal``, *emphasis*); facts we compute
// mix plain words with literal data (key names, values, patterns). Each
// output format writes the same parts its own way, so a literal is a literal
// in reStructuredText, a code span in Markdown and bare text in a terminal.

/** One piece of inline text. */
export type InlinePart =
  /** Plain words: escaped for each format. */
  | string
  /** Literal data (a key, a value, a pattern). */
  | { readonly code: string }
  /** Text written in reStructuredText inline markup by a definition's author. */
  | { readonly rst: string };

/** A run of inline text. */
export type Inline = readonly InlinePart[];

/** Marks literal data. */
export function code(text: string): InlinePart {
  return { code: text };
}

/** Marks author-written reStructuredText. */
export function rst(text: string): InlinePart {
  return { rst: text };
}

/** Literal items separated by `, `. */
export function codeList(items: readonly string[]): InlinePart[] {
  return items.flatMap((item, i) => (i ? [', ', code(item)] : [code(item)]));
}

type Token = { kind: 'text' | 'code' | 'em' | 'strong'; text: string };

// ``literal``, **strong**, *emphasis*, :role:`text`, `text`_ or `text`__, a backslash escape.
const RST_INLINE =
  /``(?=\S)([\s\S]*?\S)``|\*\*(?=\S)([\s\S]*?\S)\*\*|\*(?=[^\s*])([\s\S]*?[^\s*])\*|:[A-Za-z][\w.+-]*:`([^`]+)`|`([^`]+)`_{0,2}|\\([\s\S])/g;

/** Splits reStructuredText inline markup into tokens; other constructs become their text. */
function parseRst(text: string): Token[] {
  const out: Token[] = [];
  let last = 0;
  const push = (kind: Token['kind'], t: string) => {
    const prev = out[out.length - 1];
    if (kind === 'text' && prev?.kind === 'text') prev.text += t;
    else if (t !== '') out.push({ kind, text: t });
  };
  for (const m of text.matchAll(RST_INLINE)) {
    push('text', text.slice(last, m.index));
    if (m[1] !== undefined) push('code', m[1]);
    else if (m[2] !== undefined) push('strong', m[2]);
    else if (m[3] !== undefined) push('em', m[3]);
    else if (m[4] !== undefined) push('text', m[4].replace(/\s*<[^>]*>$/, ''));
    else if (m[5] !== undefined) push('text', m[5].replace(/\s*<[^>]*>$/, ''));
    else push('text', m[6] ?? '');
    last = (m.index ?? 0) + m[0].length;
  }
  push('text', text.slice(last));
  return out;
}

function tokens(parts: Inline): Token[] {
  return parts.flatMap((p): Token[] =>
    typeof p === 'string'
      ? [{ kind: 'text', text: p }]
      : 'code' in p
        ? [{ kind: 'code', text: p.code }]
        : parseRst(p.rst),
  );
}

// --- reStructuredText ---------------------------------------------------

/** Plain words made safe from inline markup. */
export function rstEscape(text: string): string {
  return text.replace(/([`*|\\_])/g, '\\$1');
}

/**
 * An inline literal. Text that ``…`` cannot hold (empty, surrounded by
 * spaces, containing two backticks in a row) is written as escaped words in
 * quotes instead.
 */
export function rstLiteral(text: string): string {
  if (text === '' || /^\s|\s$|``|`$/.test(text)) return `'${rstEscape(text)}'`;
  return `\`\`${text}\`\``;
}

/** Inline text as reStructuredText. */
export function toRst(parts: Inline): string {
  return parts
    .map((p) => (typeof p === 'string' ? rstEscape(p) : 'code' in p ? rstLiteral(p.code) : p.rst))
    .join('');
}

// --- Markdown -------------------------------------------------------------

/** A CommonMark code span around any text (longer fences for backticks inside). */
export function mdCode(text: string, inTable = false): string {
  if (text === '') return '""';
  const runs = text.match(/`+/g) ?? [];
  const fence = '`'.repeat(Math.max(0, ...runs.map((r) => r.length)) + 1);
  const pad = text.startsWith('`') || text.endsWith('`') || /^ .*[^ ].* $/s.test(text);
  const body = inTable ? text.replace(/\|/g, '\\|') : text;
  return pad ? `${fence} ${body} ${fence}` : `${fence}${body}${fence}`;
}

/** Plain words made safe from Markdown syntax (and from table cell breaks in a table). */
export function mdEscape(text: string, inTable = false): string {
  let out = text.replace(/[\\`*[\]<>]/g, '\\$&');
  // `_` only emphasises at a word's edge; inside words (hw_cpu) it is kept readable.
  out = out.replace(/(?<![\p{L}\p{N}])_|_(?![\p{L}\p{N}])/gu, '\\_');
  if (inTable) out = out.replace(/\|/g, '\\|');
  // Characters that start a block at the beginning of a line.
  out = out.replace(
    /^(\s*)([#+=-]|\d+[.)])(?=\s|$)/gm,
    (_, space: string, mark: string) => `${space}${mark.replace(/([#+=\-.)])$/, '\\$1')}`,
  );
  return out;
}

/** Inline text as Markdown. */
export function toMarkdown(parts: Inline, inTable = false): string {
  return tokens(parts)
    .map((t) => {
      if (t.kind === 'code') return mdCode(t.text, inTable);
      const text = mdEscape(t.text, inTable);
      return t.kind === 'strong' ? `**${text}**` : t.kind === 'em' ? `*${text}*` : text;
    })
    .join('');
}

// --- plain text -------------------------------------------------------------

/** Inline text without markup, for terminals and JSON documents. */
export function toPlain(parts: Inline): string {
  return tokens(parts)
    .map((t) => t.text)
    .join('');
}

/** Author-written reStructuredText as Markdown. */
export function rstToMarkdown(text: string): string {
  return toMarkdown([rst(text)]);
}

/** Author-written reStructuredText as plain text. */
export function rstToPlain(text: string): string {
  return toPlain([rst(text)]);
}
