// Writes docs/reference/error-codes.md: every diagnostic code the packages
// report, found in their sources, with a one-line meaning taken from the
// message next to it. SARIF rules link into this page (`helpUri`, one anchor
// per code: see errorCodeAnchor in @stackspec/core/cli), and
// packages/core/test/error-codes-reference.test.ts fails when the committed
// page differs from what this script writes.
//
//   npx tsx --conditions=@stackspec/source scripts/gen-error-codes.ts
//
// How codes are found, in the non-test sources of packages/*/src:
// - a string literal `area/kebab-case[/…]` whose area is one that some
//   `code: '…'` property uses (so paths and media types are left out);
// - a template `area/${name}` inside a function whose parameter `name` is a
//   union of literals (each is a code), or whose calls pass a literal first
//   (`fail('invalid-name', …)`);
// - for each `area: '…'` given to core's schema helpers, the codes those
//   helpers derive from zod's issues (`area/invalid-type`…), listed apart.
// The meaning is the first message found after an occurrence (a `message:`
// or a sentence literal), with interpolations shown as `…`.

import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { errorCodeAnchor } from '../packages/core/src/cli/error-codes.js';

/** The command that regenerates the page, as its header and the staleness test quote it. */
export const ERROR_CODES_COMMAND = 'npx tsx --conditions=@stackspec/source scripts/gen-error-codes.ts';
/** Where the page is written, from the repository root. */
export const ERROR_CODES_PAGE = 'docs/reference/error-codes.md';

const REPO_ROOT = resolve(import.meta.dirname, '..');

/** One code on the page. */
export interface ErrorCodeEntry {
  code: string;
  /** Packages whose sources report it, such as `@stackspec/core`. */
  packages: string[];
  /** One sentence. */
  meaning: string;
  /** Derived by core's schema helpers from a zod issue, rather than written out. */
  fromSchema: boolean;
}

// What each area is about, for the headings.
const AREA_TITLES: Readonly<Record<string, string>> = {
  cli: 'Command lines',
  'deploy-templates': 'Ironic deploy templates',
  'extra-specs': 'Flavor extra specs, their registry and plugins',
  fs: 'Files and folders',
  heat: 'Heat templates and environments',
  http: 'HTTP requests',
  image: 'Image validation: specs, options, runs and remote machines',
  json: 'JSON syntax',
  'json-pointer': 'JSON pointers',
  jsonschema: 'JSON Schema',
  microversion: 'API microversions',
  'placement-query': 'Placement queries, inventories and flavors',
  policy: 'API policy',
  python: 'Python values and patterns',
  stackspec: 'The `stackspec` command: `check`, cloud folders, `stackspec.config.yaml`',
  store: 'Stores and their data directories',
  validation: 'Arguments and validation in general',
  yaml: 'YAML syntax',
};

// Meanings of the codes core's schema helpers derive from zod's issues (packages/core/src/schema.ts).
const SCHEMA_MEANINGS: Readonly<Record<string, string>> = {
  'missing-key': 'A required key is missing.',
  'unknown-key': 'A key that is not allowed here.',
  'invalid-type': 'A value of the wrong type.',
  'invalid-value': 'A value that is not one of those allowed.',
  'invalid-format': 'A string that does not have the expected format.',
  'too-few': 'A list with fewer items than required.',
  'too-many': 'A list with more items than allowed.',
  'too-short': 'A string shorter than required.',
  'too-long': 'A string longer than allowed.',
  'too-small': 'A number below the minimum.',
  'too-big': 'A number above the maximum.',
  'not-multiple-of': 'A number that is not a multiple of the required step.',
  custom: 'A value that a rule of the schema refuses; the message says which.',
};

const CODE = /^[a-z0-9-]+(?:\/[a-z0-9-]+)+$/;
// Codes of core's argument guards, whose message is written by core for every package.
const ARGUMENT_CODE = /\/invalid-argument$/;
const ARGUMENT_MEANING =
  'A public function was given an argument of the wrong type (a number where text was expected, a list for options…); the message names the argument and what it must be.';
const LITERAL = /'((?:[^'\\\n]|\\.)*)'|"((?:[^"\\\n]|\\.)*)"|`((?:[^`\\]|\\.)*)`/g;

interface Source {
  file: string;
  pkg: string;
  text: string;
}

function sources(root: string): Source[] {
  const out: Source[] = [];
  const packages = join(root, 'packages');
  for (const dir of readdirSync(packages).sort()) {
    let pkg: string;
    try {
      pkg = JSON.parse(readFileSync(join(packages, dir, 'package.json'), 'utf8')).name;
    } catch {
      continue;
    }
    const walk = (folder: string) => {
      let entries: import('node:fs').Dirent[];
      try {
        entries = readdirSync(folder, { withFileTypes: true });
      } catch {
        return;
      }
      for (const e of entries.sort((a, b) => a.name.localeCompare(b.name))) {
        const path = join(folder, e.name);
        if (e.isDirectory()) {
          if (e.name !== 'fixtures' && e.name !== '__snapshots__') walk(path);
        } else if (
          /\.ts$/.test(e.name) &&
          !/\.(test|test-d|bench)\.ts$/.test(e.name) &&
          !e.name.endsWith('.d.ts')
        ) {
          out.push({ file: relative(root, path), pkg, text: readFileSync(path, 'utf8') });
        }
      }
    };
    walk(join(packages, dir, 'src'));
  }
  return out;
}

/** The text of a literal as a one-line meaning: interpolations become `…`. */
function sentence(raw: string): string {
  const text = raw
    .replace(/\$\{(?:[^{}]|\{[^{}]*\})*\}/g, '…')
    // An interpolation holding a template of its own was cut short by the literal's match: drop the rest.
    .replace(/\$\{[\s\S]*$/, '…')
    .replace(/\\(['"`\\])/g, '$1')
    .replace(/\\n/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  const first = /^(.+?[.?!])(?:\s|$)/.exec(text)?.[1] ?? text;
  const cut = first.length > 200 ? `${first.slice(0, 197)}…` : first;
  return /[.?!…]$/.test(cut) ? cut : `${cut}.`;
}

function looksLikeSentence(raw: string): boolean {
  const text = raw.replace(/\$\{[^}]*\}/g, 'x');
  return text.length >= 12 && /\s/.test(text) && /^[A-Z'"`…x(]/.test(text) && !CODE.test(raw);
}

/** The end of the string literal that starts at `i` (its quote), or `i + 1` when it is not one. */
function skipLiteral(text: string, i: number): number {
  const quote = text[i];
  let j = i + 1;
  while (j < text.length && text[j] !== quote) {
    if (text[j] === '\\') j += 1;
    else if (quote !== '`' && text[j] === '\n') return i + 1;
    else if (quote === '`' && text[j] === '$' && text[j + 1] === '{') {
      let depth = 1;
      j += 2;
      while (j < text.length && depth > 0) {
        if (text[j] === '{') depth += 1;
        else if (text[j] === '}') depth -= 1;
        if (depth > 0) j += 1;
      }
    }
    j += 1;
  }
  return j + 1;
}

/** The spans of the brackets around `index`, innermost first: `{…}`, `(…)` or `[…]` (at most `levels`). */
function enclosingSpans(text: string, index: number, levels: number): [number, number][] {
  // Bracket positions of the whole text, strings and comments left out, computed once per text.
  let pairs = PAIRS.get(text);
  if (!pairs) {
    pairs = [];
    const stack: number[] = [];
    for (let i = 0; i < text.length; i += 1) {
      const c = text[i] as string;
      if (c === "'" || c === '"' || c === '`') {
        i = skipLiteral(text, i) - 1;
      } else if (c === '/' && text[i + 1] === '/') {
        i = text.indexOf('\n', i);
        if (i < 0) break;
      } else if (c === '/' && text[i + 1] === '*') {
        i = text.indexOf('*/', i);
        if (i < 0) break;
      } else if (c === '{' || c === '(' || c === '[') stack.push(i);
      else if (c === '}' || c === ')' || c === ']') {
        const open = stack.pop();
        if (open !== undefined) pairs.push([open, i + 1]);
      }
    }
    PAIRS.set(text, pairs);
  }
  return pairs
    .filter(([a, b]) => a < index && index < b)
    .sort((x, y) => x[1] - x[0] - (y[1] - y[0]))
    .slice(0, levels);
}
const PAIRS = new Map<string, [number, number][]>();

function literalsIn(text: string): { raw: string; at: number }[] {
  return [...text.matchAll(LITERAL)].map((m) => ({ raw: m[1] ?? m[2] ?? m[3] ?? '', at: m.index ?? 0 }));
}

/**
 * The message reported with the code at `index`: a `message:` (or a
 * `message` variable set just before) in the object or call around it, else
 * a sentence literal there, looking one bracket further out when the inner
 * one names no other code.
 */
function meaningAt(text: string, index: number): string | undefined {
  for (const [a, b] of enclosingSpans(text, index, 3)) {
    const span = text.slice(a, b);
    const literals = literalsIn(span);
    const codes = literals.filter((l) => CODE.test(l.raw));
    if (codes.length > 1) return undefined;
    const message = /\bmessage:\s*('(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*"|`(?:[^`\\]|\\.)*`)/.exec(span);
    if (message) {
      const raw = (message[1] as string).slice(1, -1);
      if (raw.replace(/\$\{[^}]*\}/g, '').trim().length >= 3) return sentence(raw);
    }
    if (/\bmessage\b(?!:)/.test(span)) {
      const before = text.slice(Math.max(0, a - 600), a);
      const set = [
        ...before.matchAll(/\bmessage\s*=\s*('(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*"|`(?:[^`\\]|\\.)*`)/g),
      ].at(-1);
      if (set) return sentence((set[1] as string).slice(1, -1));
    }
    const sentenceLiteral = literals.find((l) => looksLikeSentence(l.raw));
    if (sentenceLiteral) return sentence(sentenceLiteral.raw);
  }
  return undefined;
}

/** The name and parameters of the function that encloses `index`, found by its nearest `function` keyword. */
function enclosingFunction(text: string, index: number): { name: string; params: string } | undefined {
  const before = text.slice(0, index);
  const matches = [...before.matchAll(/function\s+(\w+)\s*(?:<[^>]*>)?\(([^)]*)\)/g)];
  const last = matches.at(-1);
  return last ? { name: last[1] as string, params: last[2] as string } : undefined;
}

function humanized(code: string): string {
  const [, ...rest] = code.split('/');
  const words = rest.join(': ').replace(/-/g, ' ');
  return `${words.charAt(0).toUpperCase()}${words.slice(1)}.`;
}

/** Every code the packages' sources report, sorted. */
export function collectErrorCodes(root: string = REPO_ROOT): ErrorCodeEntry[] {
  const files = sources(root);
  const areas = new Set<string>();
  for (const f of files) {
    for (const m of f.text.matchAll(/\bcode:\s*['"`]([a-z0-9-]+)\//g)) areas.add(m[1] as string);
  }
  // Areas named only through constants and defaults (core's argument guards).
  for (const area of Object.keys(AREA_TITLES)) areas.add(area);
  const found = new Map<string, { packages: Set<string>; meaning?: string; fromSchema: boolean }>();
  const add = (code: string, pkg: string, meaning: string | undefined, fromSchema = false) => {
    if (!CODE.test(code)) return;
    const entry = found.get(code) ?? { packages: new Set<string>(), fromSchema };
    entry.packages.add(pkg);
    if (ARGUMENT_CODE.test(code)) entry.meaning = ARGUMENT_MEANING;
    else if (!entry.meaning && meaning) entry.meaning = meaning;
    if (!fromSchema) entry.fromSchema = false;
    found.set(code, entry);
  };
  for (const f of files) {
    for (const m of f.text.matchAll(LITERAL)) {
      const raw = m[1] ?? m[2] ?? m[3] ?? '';
      const at = m.index ?? 0;
      // An `area:` given to the schema helpers is a prefix of codes, not one.
      const isArea = /\barea:\s*$/.test(f.text.slice(Math.max(0, at - 12), at));
      if (CODE.test(raw) && !isArea && areas.has(raw.split('/')[0] as string)) {
        add(raw, f.pkg, meaningAt(f.text, at));
        continue;
      }
      // `area/${name}` and `area/prefix-${name}`: the codes a helper builds from its argument.
      const template = m[3] !== undefined ? /^([a-z0-9-]+\/[a-z0-9-]*)\$\{(\w+)\}$/.exec(raw) : null;
      if (!template || !areas.has((template[1] as string).split('/')[0] as string)) continue;
      const [, prefix, name] = template as unknown as [string, string, string];
      const fn = enclosingFunction(f.text, at);
      if (!fn) continue;
      const union = new RegExp(`\\b${name}\\s*:\\s*((?:'[a-z0-9-]+'\\s*\\|?\\s*)+)`).exec(fn.params);
      if (union) {
        for (const v of (union[1] as string).matchAll(/'([a-z0-9-]+)'/g))
          add(`${prefix}${v[1]}`, f.pkg, meaningAt(f.text, at));
        continue;
      }
      for (const call of f.text.matchAll(new RegExp(`\\b${fn.name}\\(\\s*'([a-z0-9-]+)'`, 'g')))
        add(`${prefix}${call[1]}`, f.pkg, meaningAt(f.text, (call.index ?? 0) + fn.name.length + 2));
    }
  }
  // Codes core's schema helpers derive, for each area they are given.
  const schema = files.find((f) => f.file.endsWith('core/src/schema.ts'));
  const drafts = new Set<string>();
  for (const line of schema?.text.split('\n') ?? []) {
    if (!/\bcode:/.test(line)) continue;
    for (const m of line.matchAll(/'([a-z]+(?:-[a-z]+)*)'/g))
      if (SCHEMA_MEANINGS[m[1] as string]) drafts.add(m[1] as string);
  }
  for (const f of files) {
    for (const m of f.text.matchAll(/\barea:\s*'([a-z0-9-]+(?:\/[a-z0-9-]+)*)'/g)) {
      for (const d of drafts) add(`${m[1]}/${d}`, f.pkg, SCHEMA_MEANINGS[d], true);
    }
  }
  return [...found.entries()]
    .map(([code, e]) => ({
      code,
      packages: [...e.packages].sort(),
      meaning: e.meaning ?? humanized(code),
      fromSchema: e.fromSchema,
    }))
    .sort((a, b) => (a.code < b.code ? -1 : a.code > b.code ? 1 : 0));
}

function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/</g, '&lt;');
}

/** The page, from the entries. */
export function renderErrorCodes(entries: readonly ErrorCodeEntry[]): string {
  const byArea = new Map<string, ErrorCodeEntry[]>();
  for (const e of entries) {
    const area = e.code.split('/')[0] as string;
    byArea.set(area, [...(byArea.get(area) ?? []), e]);
  }
  const out: string[] = [
    '<!--',
    'Generated from the sources of packages/*/src by',
    `  ${ERROR_CODES_COMMAND}`,
    'Do not edit by hand: change the code or its message and rerun it.',
    '-->',
    '',
    '# Diagnostic codes',
    '',
    `Every problem stackspec reports carries a permanent code, \`area/kebab-case\`: ${entries.length} in all.`,
    'Each package reports under one area of its own (`image/remote/timeout`, `placement-query/inventory/…`);',
    "core's areas (`yaml`, `fs`, `http`…) are shared by all. Codes are never renamed, only deprecated (the",
    'regrouping into one area per package came before the first release). Each has an anchor here (`#extra-specs_unknown-key` for',
    '`extra-specs/unknown-key`): the SARIF logs of `stackspec check -f sarif` (and of the other commands',
    'that write SARIF) link every rule to it, and the `title` of a GitHub annotation is the code. The',
    'meaning is the message the code is reported with, `…` standing for the parts that vary; the message',
    'you see names the key, file or value, and a hint says what to do.',
    '',
    'Codes marked *schema* are derived from a schema check by `@stackspec/core` (a key of the wrong type,',
    'a missing one…) for the area named; the message names the key and what was expected.',
    '',
  ];
  for (const [area, list] of [...byArea.entries()].sort(([a], [b]) => (a < b ? -1 : 1))) {
    out.push(`## <a id="area-${errorCodeAnchor(area)}"></a>\`${area}\`: ${AREA_TITLES[area] ?? area}`, '');
    out.push('| Code | Meaning | Reported by |', '| --- | --- | --- |');
    for (const e of list) {
      const by = e.packages.map((p) => `\`${p}\``).join(', ');
      out.push(
        `| <a id="${errorCodeAnchor(e.code)}"></a>\`${e.code}\` | ${cell(e.meaning)}${e.fromSchema ? ' *schema*' : ''} | ${by} |`,
      );
    }
    out.push('');
  }
  return `${out.join('\n').trimEnd()}\n`;
}

/** The page as the script writes it. */
export function renderErrorCodesPage(root: string = REPO_ROOT): string {
  return renderErrorCodes(collectErrorCodes(root));
}

/** The 1-based line where the committed page first differs, `undefined` when missing; `null` when up to date. */
export function staleErrorCodesPage(root: string = REPO_ROOT): number | undefined | null {
  let committed: string;
  try {
    committed = readFileSync(join(root, ERROR_CODES_PAGE), 'utf8');
  } catch {
    return undefined;
  }
  const fresh = renderErrorCodesPage(root);
  if (committed === fresh) return null;
  const a = committed.split('\n');
  const b = fresh.split('\n');
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i += 1;
  return i + 1;
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  const text = renderErrorCodesPage();
  writeFileSync(join(REPO_ROOT, ERROR_CODES_PAGE), text);
  process.stdout.write(
    `wrote ${ERROR_CODES_PAGE} (${text.split('\n').filter((l) => l.startsWith('| <a')).length} codes)\n`,
  );
}
