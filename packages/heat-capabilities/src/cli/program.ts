import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { createDiagnostic, type Diagnostic, hasErrors, withFile } from '@stackspec/core';
import {
  type CliIO,
  createProgram,
  createProgress,
  EXIT,
  formatDiagnostics,
  formatList,
  LIST_FORMATS,
  type OutputFormat,
  stderrColors,
  UsageError,
} from '@stackspec/core/cli';
import { type Command, Option } from 'commander';
import { stringify } from 'yaml';
import type { Capabilities } from '../capabilities.js';
import { type HeatEnvironment, safeParseEnvironment } from '../environment.js';
import { findTemplates, summarizeCapabilities } from '../find.js';
import { isUrl } from '../paths.js';
import { resolveEnvironment } from '../resolve.js';
import { scanDocument } from '../scan.js';
import { stripCapabilities } from '../strip.js';
import { safeParseTemplate } from '../template.js';

/** The version printed by `--version`. */
export const VERSION = '0.1.0';

const collect = (value: string, previous: string[] | undefined) => [...(previous ?? []), value];

interface OutputOptions {
  format: OutputFormat;
  column?: string[];
  noindent?: boolean;
}

function outputOptions(command: Command, formatFlags = '-f, --format <format>'): Command {
  return command
    .addOption(new Option(formatFlags, 'output format').choices(LIST_FORMATS).default('table'))
    .addOption(new Option('-c, --column <name>', 'show only this column (repeatable)').argParser(collect))
    .addOption(new Option('--noindent', 'do not indent JSON'));
}

function parseFilters(values: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const v of values) {
    const eq = v.indexOf('=');
    if (eq <= 0) {
      throw new UsageError(`The capability filter '${v}' must look like key=value.`, {
        diagnostics: [
          createDiagnostic({
            code: 'cli/usage',
            message: `The capability filter '${v}' must look like key=value.`,
            hint: 'For example --capability resource_type=OS::TripleO::Controller',
          }),
        ],
      });
    }
    // Split on the first '=': values may contain '=' themselves.
    out[v.slice(0, eq)] = v.slice(eq + 1);
  }
  return out;
}

function parsePathMap(values: readonly string[] | undefined, cwd: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const v of values ?? []) {
    const eq = v.indexOf('=');
    if (eq <= 0) throw new UsageError(`The path mapping '${v}' must look like FROM=TO.`);
    out[v.slice(0, eq)] = resolve(cwd, v.slice(eq + 1));
  }
  return out;
}

function capabilityText(caps: Capabilities | undefined): string {
  if (!caps) return '';
  return Object.entries(caps)
    .map(([k, v]) => `${k}=${v.join(',')}`)
    .join(' ');
}

function printDiagnostics(io: CliIO, diagnostics: readonly Diagnostic[], summary = false) {
  if (!diagnostics.length) return;
  io.stderr.write(`${formatDiagnostics(diagnostics, { colors: stderrColors(io), summary })}\n`);
}

function show(io: CliIO, text: string) {
  if (text) io.stdout.write(`${text}\n`);
}

/** Adds `capabilities-find`. */
function addFind(program: Command, io: CliIO, setCode: (code: number) => void) {
  outputOptions(
    program
      .command('capabilities-find')
      .description('List the templates whose capabilities satisfy every --capability filter.')
      .argument('<paths...>', 'template files and directories')
      .option('-r, --recursive', 'search directories recursively')
      .addOption(
        new Option('--capability <key=value>', 'required capability (repeatable)').argParser(collect),
      )
      .addOption(
        new Option('--ignore <pattern>', 'glob pattern to leave out (repeatable)').argParser(collect),
      )
      .option('--full', 'parse every file completely instead of the fast scan'),
  ).action(async (paths: string[], opts: OutputOptions & Record<string, unknown>) => {
    const filter = parseFilters((opts.capability as string[] | undefined) ?? []);
    const progress = createProgress(io.stderr, { enabled: io.stderr.isTTY === true && !io.env.CI });
    const result = await findTemplates(paths, {
      cwd: io.cwd,
      recursive: opts.recursive === true,
      capabilities: filter,
      ignore: opts.ignore as string[] | undefined,
      mode: opts.full ? 'full' : 'fast',
      onProgress: (n, total) => progress.update(`scanned ${n}/${total} files`),
    });
    progress.done();
    printDiagnostics(io, result.diagnostics);
    const rows = result.templates.map((t) => ({
      path: t.file,
      version: t.version ?? '',
      capabilities: capabilityText(t.capabilities),
    }));
    show(io, formatList(rows, ['path', 'version', 'capabilities'], listOptions(opts)));
    setCode(hasErrors(result.diagnostics) ? EXIT.findings : EXIT.ok);
  });
}

function listOptions(opts: OutputOptions) {
  return {
    format: opts.format,
    ...(opts.column ? { columns: opts.column } : {}),
    ...(opts.noindent ? { noindent: true } : {}),
  };
}

/** Adds `template-capabilities`. */
function addSummary(program: Command, io: CliIO, setCode: (code: number) => void) {
  outputOptions(
    program
      .command('template-capabilities')
      .description(
        'Summarise the capabilities of templates: the values of each label and the templates of each resource type.',
      )
      .addOption(new Option('-f, --file <file>', 'template to read (repeatable)').argParser(collect))
      .argument('[paths...]', 'more templates or directories')
      .option('-r, --recursive', 'search directories recursively')
      .option('--types', 'show templates per resource type instead of values per label'),
    '--format <format>',
  ).action(async (paths: string[], opts: OutputOptions & Record<string, unknown>) => {
    const files = [...((opts.file as string[] | undefined) ?? []), ...paths];
    if (!files.length) throw new UsageError('Give at least one template with -f FILE.');
    const result = await findTemplates(files, { cwd: io.cwd, recursive: opts.recursive === true });
    printDiagnostics(io, result.diagnostics);
    // Files named on the command line keep their order, as in the spec's example; the rest follow by path.
    const given = new Map(files.map((f, i) => [f, i]));
    const ordered = [...result.templates].sort(
      (a, b) => (given.get(a.file) ?? files.length) - (given.get(b.file) ?? files.length),
    );
    const summary = summarizeCapabilities(ordered);
    const format = opts.format;
    if (format === 'json' || format === 'yaml') {
      const object = opts.types ? summary.resourceTypes : summary.labels;
      show(
        io,
        format === 'json'
          ? JSON.stringify(object, null, opts.noindent ? undefined : 2)
          : stringify(object).trimEnd(),
      );
    } else if (opts.types) {
      const rows = Object.entries(summary.resourceTypes).map(([type, templates]) => ({
        resource_type: type,
        templates: templates.join('\n'),
      }));
      show(io, formatList(rows, ['resource_type', 'templates'], { ...listOptions(opts), format }));
    } else {
      const rows = Object.entries(summary.labels).map(([label, values]) => ({
        capability: label,
        values: values.join(', '),
      }));
      show(io, formatList(rows, ['capability', 'values'], { ...listOptions(opts), format }));
    }
    setCode(hasErrors(result.diagnostics) ? EXIT.findings : EXIT.ok);
  });
}

async function readEnvironments(
  io: CliIO,
  files: readonly string[],
  pathMap: Record<string, string>,
  heatRules: boolean,
) {
  const envs: HeatEnvironment[] = [];
  const diagnostics: Diagnostic[] = [];
  for (const file of files) {
    let text: string;
    try {
      text = await readFile(resolve(io.cwd, file), 'utf8');
    } catch (e) {
      throw new UsageError(`The environment file ${file} cannot be read: ${(e as Error).message}`);
    }
    const r = safeParseEnvironment(text, {
      filename: file,
      baseDir: dirname(resolve(io.cwd, file)),
      pathMap,
      allowExtensions: !heatRules,
    });
    diagnostics.push(...r.diagnostics);
    if (r.ok) envs.push(r.environment);
  }
  return { envs, diagnostics };
}

/** Adds `resolve`. */
function addResolve(program: Command, io: CliIO, setCode: (code: number) => void) {
  outputOptions(
    program
      .command('resolve')
      .description(
        'Merge environment files and pick, for each list in resource_registry, the template that satisfies requires.',
      )
      .addOption(
        new Option('-e, --environment <file>', 'environment file, in order (repeatable)').argParser(collect),
      )
      .option('-o, --output <file>', 'write the resolved environment here (default: standard output)')
      .option('--root <dir>', 'tree root: choices are shown relative to it (default: the current directory)')
      .addOption(
        new Option(
          '--path-map <from=to>',
          'rewrite an absolute path prefix, e.g. /usr/share/openstack-tripleo-heat-templates/=.',
        ).argParser(collect),
      )
      .option('--client-merge', "merge like heatclient's deep_update instead of the Heat server"),
  ).action(async (opts: OutputOptions & Record<string, unknown>) => {
    const files = (opts.environment as string[] | undefined) ?? [];
    if (!files.length) throw new UsageError('Give at least one environment file with -e ENV.');
    const pathMap = parsePathMap(opts.pathMap as string[] | undefined, io.cwd);
    const { envs, diagnostics } = await readEnvironments(io, files, pathMap, false);
    if (hasErrors(diagnostics)) {
      printDiagnostics(io, diagnostics, true);
      setCode(EXIT.findings);
      return;
    }
    const root = resolve(io.cwd, (opts.root as string | undefined) ?? '.');
    const output = opts.output as string | undefined;
    const result = await resolveEnvironment(envs, {
      root,
      outputDir: output ? dirname(resolve(io.cwd, output)) : root,
      strategy: opts.clientMerge ? 'client' : 'server',
      readTemplate: async (path) => {
        if (isUrl(path)) throw new Error('fetching URLs is not supported; download the tree first');
        try {
          return await readFile(path, 'utf8');
        } catch (e) {
          if ((e as { code?: string }).code === 'ENOENT') return undefined;
          throw e;
        }
      },
    });
    printDiagnostics(io, [...diagnostics, ...result.diagnostics], hasErrors(result.diagnostics));
    const text = stringify(result.environment, { version: '1.1', lineWidth: 0 });
    if (output) {
      await mkdir(dirname(resolve(io.cwd, output)), { recursive: true });
      await writeFile(resolve(io.cwd, output), text);
      const rows = Object.entries(result.choices).map(([type, template]) => ({
        resource_type: type,
        template,
      }));
      show(io, formatList(rows, ['resource_type', 'template'], listOptions(opts)));
    } else {
      io.stdout.write(text);
    }
    setCode(result.ok ? EXIT.ok : EXIT.findings);
  });
}

/** Adds `strip`. */
function addStrip(program: Command, io: CliIO, setCode: (code: number) => void) {
  outputOptions(
    program
      .command('strip')
      .description('Write copies of templates without their capabilities section, for real Heat.')
      .argument('<templates...>', 'templates to copy')
      .requiredOption('-o, --output <dir>', 'directory for the copies (the layout under --root is kept)')
      .option('--root <dir>', 'tree root the copies keep their paths under (default: the current directory)'),
  ).action(async (templates: string[], opts: OutputOptions & Record<string, unknown>) => {
    const root = resolve(io.cwd, (opts.root as string | undefined) ?? '.');
    const outDir = resolve(io.cwd, opts.output as string);
    const rows: Record<string, unknown>[] = [];
    const diagnostics: Diagnostic[] = [];
    for (const t of templates) {
      const abs = resolve(io.cwd, t);
      const rel = relative(root, abs);
      if (rel.startsWith('..') || isAbsolute(rel)) {
        throw new UsageError(`The template ${t} is outside the root ${root}.`, {
          diagnostics: [
            createDiagnostic({
              code: 'cli/usage',
              message: `The template ${t} is outside the root ${root}.`,
              hint: 'Pass --root DIR.',
            }),
          ],
        });
      }
      let text: string;
      try {
        text = await readFile(abs, 'utf8');
      } catch (e) {
        diagnostics.push(
          createDiagnostic({
            code: 'heat/find/unreadable',
            message: `The file cannot be read: ${(e as Error).message}.`,
            file: t,
          }),
        );
        continue;
      }
      try {
        const r = stripCapabilities(text, { filename: t });
        const target = join(outDir, rel);
        await mkdir(dirname(target), { recursive: true });
        await writeFile(target, r.text);
        rows.push({
          template: t,
          output: relative(io.cwd, target) || target,
          removed: r.removed,
          method: r.method,
        });
      } catch (e) {
        const d = (e as { diagnostics?: Diagnostic[] }).diagnostics;
        diagnostics.push(
          ...withFile(
            d ?? [createDiagnostic({ code: 'heat/strip/failed', message: (e as Error).message })],
            t,
          ),
        );
      }
    }
    printDiagnostics(io, diagnostics, true);
    show(io, formatList(rows, ['template', 'output', 'removed', 'method'], listOptions(opts)));
    setCode(hasErrors(diagnostics) ? EXIT.findings : EXIT.ok);
  });
}

/** Adds `validate`. */
function addValidate(program: Command, io: CliIO, setCode: (code: number) => void) {
  program
    .command('validate')
    .description('Check templates and environment files with Heat rules (and the capabilities extensions).')
    .argument('<files...>', 'templates, environments, or directories with -r')
    .option('-r, --recursive', 'search directories recursively')
    .option('--heat', 'apply real Heat rules only: reject capabilities, requires and candidate lists')
    .addOption(new Option('-f, --format <format>', 'output format').choices(['text', 'json']).default('text'))
    .action(async (paths: string[], opts: Record<string, unknown>) => {
      const found = await findTemplates(paths, { cwd: io.cwd, recursive: opts.recursive === true });
      const heat = opts.heat === true;
      const diagnostics: Diagnostic[] = found.diagnostics.filter((d) => d.code.startsWith('heat/find/'));
      const rows: Record<string, unknown>[] = [];
      for (const f of found.files) {
        if (f.kind === 'invalid' && !f.diagnostics.some((d) => !d.code.startsWith('heat/find/'))) {
          diagnostics.push(...f.diagnostics);
          continue;
        }
        const text = await readFile(resolve(io.cwd, f.file), 'utf8');
        const kind = f.kind === 'invalid' ? scanDocument(text, { mode: 'full' }).kind : f.kind;
        let result: { ok: boolean; diagnostics: Diagnostic[] };
        if (kind === 'environment') {
          result = safeParseEnvironment(text, { filename: f.file, allowExtensions: !heat });
        } else if (kind === 'template' || kind === 'invalid') {
          result = safeParseTemplate(text, { filename: f.file, allowCapabilities: !heat });
        } else {
          result = {
            ok: false,
            diagnostics: [
              createDiagnostic({
                code: 'heat/validate/not-heat',
                message:
                  'This is neither a template (no heat_template_version) nor an environment (it has other top-level keys).',
                file: f.file,
                line: 1,
              }),
            ],
          };
        }
        diagnostics.push(...result.diagnostics);
        rows.push({ file: f.file, kind, ok: result.ok });
      }
      if (opts.format === 'json') {
        show(io, JSON.stringify({ files: rows, diagnostics }, null, 2));
      } else {
        io.stdout.write(
          `${formatDiagnostics(diagnostics, { colors: stderrColors(io), filesChecked: rows.length })}\n`,
        );
      }
      setCode(hasErrors(diagnostics) || !rows.length ? EXIT.findings : EXIT.ok);
    });
}

/**
 * Runs `stackspec-heat` with `argv` (without the node and script names)
 * and returns the exit code: 0 when everything passed, 1 when problems
 * were found, 2 for usage errors. Output goes to `io`.
 */
export async function runHeatCli(argv: readonly string[], io: CliIO): Promise<number> {
  let exitCode: number = EXIT.ok;
  const setCode = (code: number) => {
    exitCode = code;
  };
  const program = createProgram('stackspec-heat', io)
    .description(
      'Heat template capabilities: find implementations, summarise, resolve environments, strip and validate.',
    )
    .version(VERSION);
  addFind(program, io, setCode);
  addSummary(program, io, setCode);
  addResolve(program, io, setCode);
  addStrip(program, io, setCode);
  addValidate(program, io, setCode);
  await program.parseAsync([...argv], { from: 'user' });
  return exitCode;
}
