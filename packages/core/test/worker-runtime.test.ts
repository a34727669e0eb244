// The main entry of @stackspec/core must load on a runtime without Node's
// built-in modules (a worker serving the HTTP handlers): only
// `@stackspec/core/node` and `@stackspec/core/cli` may need them. Checked
// twice: statically, over the import graph of src/index.ts, and by importing
// the entry in a Node process whose built-in modules are blocked for
// everything the entry loads (the built dist/index.js when CI built it, else
// the sources through tsx).
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { builtinModules, createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const PKG = join(import.meta.dirname, '..');
const BUILT = join(PKG, 'dist/index.js');
const USE_BUILT = process.env.STACKSPEC_REQUIRE_BUILT === '1';
const BUILTINS = new Set([...builtinModules, ...builtinModules.map((m) => `node:${m}`)]);
const TSX_LOADER = pathToFileURL(
  join(dirname(createRequire(import.meta.url).resolve('tsx/package.json')), 'dist/loader.mjs'),
).href;

/** Module specifiers a file imports at load time (type-only imports and `import()` excluded). */
function staticImports(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.ES2022);
  const out: string[] = [];
  for (const statement of source.statements) {
    if (ts.isImportDeclaration(statement) && !statement.importClause?.isTypeOnly) {
      const named = statement.importClause?.namedBindings;
      const onlyTypes =
        named !== undefined &&
        ts.isNamedImports(named) &&
        named.elements.length > 0 &&
        named.elements.every((e) => e.isTypeOnly) &&
        statement.importClause?.name === undefined;
      if (!onlyTypes) out.push((statement.moduleSpecifier as ts.StringLiteral).text);
    }
    if (ts.isExportDeclaration(statement) && statement.moduleSpecifier && !statement.isTypeOnly) {
      out.push((statement.moduleSpecifier as ts.StringLiteral).text);
    }
  }
  return out;
}

/** Every package or built-in module the source graph of `entry` loads, with the file importing it. */
function externalImports(entry: string): Map<string, string> {
  const seen = new Set<string>();
  const external = new Map<string, string>();
  const stack = [entry];
  while (stack.length) {
    const file = stack.pop() as string;
    if (seen.has(file)) continue;
    seen.add(file);
    for (const spec of staticImports(file)) {
      if (spec.startsWith('.')) stack.push(resolve(dirname(file), spec.replace(/\.js$/, '.ts')));
      else if (!external.has(spec)) external.set(spec, file);
    }
  }
  return external;
}

// Registered after tsx, so it sees every import first: a built-in module
// imported from anywhere but tsx itself fails to resolve.
const BLOCK_HOOKS = `
import { builtinModules } from 'node:module';
const blocked = new Set([...builtinModules, ...builtinModules.map((m) => 'node:' + m)]);
export async function resolve(specifier, context, next) {
  const parent = context.parentURL ?? '';
  if (blocked.has(specifier) && !parent.includes('/tsx/') && !parent.startsWith('data:')) {
    throw new Error('blocked built-in ' + specifier + ' imported by ' + parent);
  }
  return next(specifier, context);
}
`;

function importWithoutBuiltins(entryUrl: string, fromSource: boolean) {
  const register = `import { register } from 'node:module'; register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(BLOCK_HOOKS)}`)});`;
  const script = `
    // Node's globals hidden while the entry loads and validates, as a worker lacks them.
    const hidden = ['process', 'Buffer', 'global', 'setImmediate', 'clearImmediate'];
    const saved = hidden.map((name) => Object.getOwnPropertyDescriptor(globalThis, name));
    for (const name of hidden) delete globalThis[name];
    let core, r;
    try {
      core = await import(${JSON.stringify(entryUrl)});
      r = core.validateWithSchema(core.MicroversionSchema, 'x');
      core.parseDocument('a: [1, {b: c}]\\n', { filename: 'a.yaml' });
    } finally {
      hidden.forEach((name, i) => saved[i] && Object.defineProperty(globalThis, name, saved[i]));
    }
    console.log(JSON.stringify({ exports: Object.keys(core).length, ok: r.ok }));
  `;
  const args = [
    ...(fromSource ? ['--conditions=@stackspec/source', '--import', TSX_LOADER] : []),
    '--import',
    `data:text/javascript,${encodeURIComponent(register)}`,
    '--input-type=module',
    '-e',
    script,
  ];
  return spawnSync(process.execPath, args, { encoding: 'utf8', cwd: PKG, timeout: 120_000 });
}

describe('the main entry without Node built-ins', () => {
  it('imports no built-in module statically, anywhere in its source graph', () => {
    const external = externalImports(join(PKG, 'src/index.ts'));
    const builtins = [...external].filter(([spec]) => BUILTINS.has(spec));
    expect(builtins).toEqual([]);
    // The graph was walked: the entry's own dependencies are there.
    expect([...external.keys()].sort()).toEqual(expect.arrayContaining(['yaml', 'zod']));
  });

  it('finds a static built-in import when there is one', () => {
    const external = externalImports(join(PKG, 'src/node/index.ts'));
    expect([...external.keys()]).toContain('node:http');
  });

  it(`loads and validates with built-ins blocked (${USE_BUILT ? 'built' : 'from source'})`, () => {
    if (USE_BUILT && !existsSync(BUILT)) {
      throw new Error(`STACKSPEC_REQUIRE_BUILT is set but ${BUILT} is missing; run pnpm build first`);
    }
    const entry = USE_BUILT ? BUILT : join(PKG, 'src/index.ts');
    const r = importWithoutBuiltins(pathToFileURL(entry).href, !USE_BUILT);
    expect(r.status, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as { exports: number; ok: boolean };
    expect(out.exports).toBeGreaterThan(50);
    expect(out.ok).toBe(false);
  });

  it('the block catches a static built-in import (the check can fail)', () => {
    const r = importWithoutBuiltins(pathToFileURL(join(PKG, 'src/node/index.ts')).href, true);
    expect(r.status).not.toBe(0);
    // Whichever built-in the node entry's files import first (node:fs, node:http…).
    expect(r.stderr).toMatch(/blocked built-in (node:)?[a-z/_]+ imported by \S+\/src\/node\//);
  });
});
