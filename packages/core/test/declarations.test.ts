// A package that re-exports core's CLI types hands core's declarations to
// its own users. Those users may not have @types/node installed, so the
// emitted declarations of `@stackspec/core/cli` must not name Node's global
// namespaces. This emits them in memory and checks them without any
// `@types` package.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const SRC = join(dirname(fileURLToPath(import.meta.url)), '..', 'src');
// Never written to disk; inside the package so that `commander` and `zod` resolve.
const OUT = join(SRC, '..', '.declarations-in-memory');

function emitDeclarations(entry: string): Map<string, string> {
  const out = new Map<string, string>();
  const program = ts.createProgram([entry], {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    customConditions: ['@stackspec/source'],
    lib: ['lib.es2023.d.ts', 'lib.dom.d.ts'],
    types: ['node'],
    strict: true,
    skipLibCheck: true,
    declaration: true,
    emitDeclarationOnly: true,
    outDir: OUT,
    rootDir: SRC,
  });
  program.emit(undefined, (name, text) => out.set(name, text));
  return out;
}

function checkWithoutNodeTypes(files: Map<string, string>, consumer: string): string[] {
  const all = new Map(files);
  all.set(`${OUT}/consumer.ts`, consumer);
  const options: ts.CompilerOptions = {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    lib: ['lib.es2023.d.ts', 'lib.dom.d.ts'],
    types: [],
    strict: true,
    noEmit: true,
  };
  const host = ts.createCompilerHost(options);
  const readFile = host.readFile.bind(host);
  const fileExists = host.fileExists.bind(host);
  host.fileExists = (name) => all.has(name) || fileExists(name);
  host.directoryExists = (dir) =>
    [...all.keys()].some((name) => name.startsWith(`${dir}/`)) || ts.sys.directoryExists(dir);
  host.readFile = (name) => all.get(name) ?? readFile(name);
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (name, version) => {
    const text = all.get(name);
    return text === undefined ? getSourceFile(name, version) : ts.createSourceFile(name, text, version);
  };
  const program = ts.createProgram([`${OUT}/consumer.ts`], options, host);
  return ts
    .getPreEmitDiagnostics(program)
    .filter((d) => d.file?.fileName.startsWith(OUT) ?? true)
    .map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
}

describe('declarations of @stackspec/core/cli', () => {
  it('compile for a consumer without @types/node and still type standard input', () => {
    const files = emitDeclarations(join(SRC, 'cli', 'index.ts'));
    expect(files.get(`${OUT}/cli/run.d.ts`)).toContain('stdin?: CliInput');
    const errors = checkWithoutNodeTypes(
      files,
      [
        "import type { CliIO } from './cli/index.js';",
        "async function* chunks() { yield 'a'; yield new Uint8Array([98]); }",
        "export const plain: CliIO = { stdout: { write: () => true }, stderr: { write: () => true }, env: {}, cwd: '/' };",
        'export const piped: CliIO = { ...plain, stdin: chunks() };',
        'export const bad: CliIO = { ...plain, stdin: 42 };',
      ].join('\n'),
    );
    // Only the number given as standard input is refused.
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/'number' is not assignable/);
  });
});
