import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, isAbsolute, join, posix, relative, resolve } from 'node:path';
import { createDiagnostic, type Diagnostic, hasErrors, sortDiagnostics, withFile } from '@stackspec/core';
import {
  addExamples,
  type CliIO,
  createProgram,
  createProgress,
  EXIT,
  formatDiagnostics,
  formatGithubAnnotations,
  formatList,
  LIST_FORMATS,
  type OutputFormat,
  readPackageVersion,
  stderrColors,
  toSarifLog,
  UsageError,
  warnDeprecated,
} from '@stackspec/core/cli';
import { type Command, Option } from 'commander';
import { stringify } from 'yaml';
import type { Capabilities } from '../capabilities.js';
import { type HeatEnvironment, validateEnvironment } from '../environment.js';
import { findTemplates, summarizeCapabilities } from '../find.js';
import { MAX_ENVIRONMENT_BYTES } from '../load.js';
import { isUrl } from '../paths.js';
import { readHeatFile } from '../read-file.js';
import { resolveEnvironment } from '../resolve.js';
import { scanDocument } from '../scan.js';
import { stripCapabilities } from '../strip.js';
import { validateTemplate } from '../template.js';

const PACKAGE = '@stackspec/heat-capabilities';

const collect = (value: string, previous: string[] | undefined) => [...(previous ?? []), value];

interface OutputOptions {
  format: OutputFormat;
  column?: string[];
  noindent?: boolean;
}

function outputOptions(
  command: Command,
  formatFlags = '-f, --format <format>',
  formats: { choices: readonly string[]; default: string } = { choices: LIST_FORMATS, default: 'table' },
): Command {
  return command
    .addOption(new Option(formatFlags, 'output format').choices(formats.choices).default(formats.default))
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

/**
 * A progress line on standard error while files are read: only on a
 * terminal, never under CI, and only once the work has taken a second.
 */
function fileProgress(io: CliIO) {
  const progress = createProgress(io.stderr, { env: io.env, now: io.now });
  return {
    scanned: (n: number, total: number) => progress.update(`scanned ${n}/${total} files`),
    validated: (n: number, total: number) => progress.update(`validated ${n}/${total} files`),
    done: () => progress.done(),
  };
}

/** Adds `capabilities-find`. */
function addFind(program: Command, io: CliIO, setCode: (code: number) => void) {
  const command = outputOptions(
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
  );
  addExamples(command, [
    {
      description: 'Templates that implement a resource type with a deployment tool',
      command:
        'stackspec-heat capabilities-find -r --capability resource_type=OS::TripleO::Controller --capability deployment=puppet .',
    },
    {
      description: 'Only their paths, one per line',
      command: 'stackspec-heat capabilities-find -r --capability deployment=docker -f value -c path .',
    },
  ]);
  command.action(async (paths: string[], opts: OutputOptions & Record<string, unknown>) => {
    const filter = parseFilters((opts.capability as string[] | undefined) ?? []);
    const progress = fileProgress(io);
    const result = await findTemplates(paths, {
      cwd: io.cwd,
      recursive: opts.recursive === true,
      capabilities: filter,
      ignore: opts.ignore as string[] | undefined,
      mode: opts.full ? 'full' : 'fast',
      onProgress: progress.scanned,
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

/**
 * `-f` values of `template-capabilities`: output formats, and, for one minor
 * version, template files as the capabilities spec spelled them (`-f FILE`,
 * now `--file FILE`). A value that names a format is one; a value with a `.`
 * or a `/` is a template, with a deprecation note; anything else is a
 * misspelt format (exit 2).
 */
function splitFormatValues(io: CliIO, values: readonly string[] | undefined) {
  let format: OutputFormat = 'table';
  const files: string[] = [];
  for (const v of values ?? []) {
    if ((LIST_FORMATS as readonly string[]).includes(v)) format = v as OutputFormat;
    else if (/[./\\]/.test(v)) files.push(v);
    else
      throw new UsageError(`'${v}' is not an output format.`, {
        diagnostics: [
          createDiagnostic({
            code: 'cli/usage',
            message: `'${v}' is not an output format.`,
            hint: `Use -f ${LIST_FORMATS.join(', ')}; templates go as arguments or with --file FILE.`,
          }),
        ],
      });
  }
  if (files.length) warnDeprecated(io, '-f FILE (a template)', '--file FILE or give the path as an argument');
  return { format, files };
}

/** Adds `template-capabilities`. */
function addSummary(program: Command, io: CliIO, setCode: (code: number) => void) {
  const command = program
    .command('template-capabilities')
    .description(
      'Summarise the capabilities of templates: the values of each label and the templates of each resource type.',
    )
    .addOption(new Option('--file <file>', 'template to read (repeatable)').argParser(collect))
    .argument('[paths...]', 'more templates or directories')
    .option('-r, --recursive', 'search directories recursively')
    .option('--types', 'show templates per resource type instead of values per label')
    .addOption(
      new Option(
        '-f, --format <format>',
        `output format: ${LIST_FORMATS.join(', ')} (default: table)`,
      ).argParser(collect),
    )
    .addOption(new Option('-c, --column <name>', 'show only this column (repeatable)').argParser(collect))
    .addOption(new Option('--noindent', 'do not indent JSON'));
  addExamples(command, [
    {
      description: 'The values of each capability label, as the spec shows them',
      command: 'stackspec-heat template-capabilities puppet/controller.yaml docker/controller.yaml -f json',
    },
    {
      description: 'The templates of each resource type in a tree',
      command: 'stackspec-heat template-capabilities -r --types .',
    },
  ]);
  command.action(async (paths: string[], raw: Record<string, unknown>) => {
    const split = splitFormatValues(io, raw.format as string[] | undefined);
    const opts = { ...raw, format: split.format } as OutputOptions & Record<string, unknown>;
    const files = [...((opts.file as string[] | undefined) ?? []), ...split.files, ...paths];
    if (!files.length)
      throw new UsageError('Give at least one template: a path, or --file FILE.', {
        diagnostics: [
          createDiagnostic({
            code: 'cli/usage',
            message: 'Give at least one template: a path, or --file FILE.',
            hint: 'For example: stackspec-heat template-capabilities -r .',
          }),
        ],
      });
    const progress = fileProgress(io);
    const result = await findTemplates(files, {
      cwd: io.cwd,
      recursive: opts.recursive === true,
      onProgress: progress.scanned,
    });
    progress.done();
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
    const read = readHeatFile(resolve(io.cwd, file), file, MAX_ENVIRONMENT_BYTES);
    if (!read.ok) {
      throw new UsageError(`The environment file ${file} cannot be used.`, {
        diagnostics: [read.diagnostic],
      });
    }
    const r = validateEnvironment(read.text, {
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
  const command = outputOptions(
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
  );
  addExamples(command, [
    {
      description: 'Print the resolved environment (YAML, for Heat)',
      command: 'stackspec-heat resolve -e environments/choose.yaml',
    },
    {
      description: 'Write it to a file, listing the choices as JSON',
      command: 'stackspec-heat resolve -e environments/choose.yaml -o out/resolved.yaml -f json',
    },
  ]);
  command.action(async (opts: OutputOptions & Record<string, unknown>, command: Command) => {
    const files = (opts.environment as string[] | undefined) ?? [];
    if (!files.length) throw new UsageError('Give at least one environment file with -e ENV.');
    const output = opts.output as string | undefined;
    // Without -o the environment itself is the output: YAML (what Heat reads) unless -f json asks otherwise.
    const explicit = command.getOptionValueSource('format') !== 'default';
    if (!output && explicit && opts.format !== 'yaml' && opts.format !== 'json') {
      throw new UsageError(
        `The resolved environment is printed as yaml or json, not ${opts.format}; pass -o FILE to list the choices as ${opts.format}.`,
      );
    }
    const pathMap = parsePathMap(opts.pathMap as string[] | undefined, io.cwd);
    const { envs, diagnostics } = await readEnvironments(io, files, pathMap, false);
    if (hasErrors(diagnostics)) {
      printDiagnostics(io, diagnostics, true);
      setCode(EXIT.findings);
      return;
    }
    const root = resolve(io.cwd, (opts.root as string | undefined) ?? '.');
    const result = await resolveEnvironment(envs, {
      root,
      outputDir: output ? dirname(resolve(io.cwd, output)) : root,
      strategy: opts.clientMerge ? 'client' : 'server',
      readTemplate: (path) => {
        if (isUrl(path)) throw new Error('fetching URLs is not supported; download the tree first');
        const read = readHeatFile(path, path);
        if (read.ok) return read.text;
        if (read.missing) return undefined;
        throw new Error(read.diagnostic.message.replace(/^The file cannot be read: |\.$/g, ''));
      },
    });
    printDiagnostics(io, [...diagnostics, ...result.diagnostics], hasErrors(result.diagnostics));
    const text =
      !output && opts.format === 'json'
        ? `${JSON.stringify(result.environment, null, opts.noindent ? undefined : 2)}\n`
        : stringify(result.environment, { version: '1.1', lineWidth: 0 });
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
  const command = outputOptions(
    program
      .command('strip')
      .description('Write copies of templates without their capabilities section, for real Heat.')
      .argument('<templates...>', 'templates to copy')
      .requiredOption('-o, --output <dir>', 'directory for the copies (the layout under --root is kept)')
      .option('--root <dir>', 'tree root the copies keep their paths under (default: the current directory)'),
  );
  addExamples(command, [
    {
      description: 'Copy templates without their capabilities, for real Heat',
      command: 'stackspec-heat strip puppet/controller.yaml docker/controller.yaml -o stripped',
    },
    {
      description: 'Report what was removed as JSON',
      command: 'stackspec-heat strip puppet/controller.yaml -o stripped -f json',
    },
  ]);
  command.action(async (templates: string[], opts: OutputOptions & Record<string, unknown>) => {
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
      const read = readHeatFile(abs, t);
      if (!read.ok) {
        // Nothing is written for a file that cannot be read: that is an error here, not a warning.
        diagnostics.push({ ...read.diagnostic, severity: 'error' });
        continue;
      }
      try {
        const r = stripCapabilities(read.text, { filename: t });
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

/** Columns of `validate` output in the list formats: one row per problem. */
const VALIDATE_COLUMNS = ['file', 'line', 'column', 'severity', 'code', 'message', 'hint'];

/** Adds `validate`. */
function addValidate(program: Command, io: CliIO, setCode: (code: number) => void, version: string) {
  const command = outputOptions(
    program
      .command('validate')
      .description('Check templates and environment files with Heat rules (and the capabilities extensions).')
      .argument('<files...>', 'templates, environments, or directories with -r')
      .option('-r, --recursive', 'search directories recursively')
      .option('--heat', 'apply real Heat rules only: reject capabilities, requires and candidate lists'),
    '-f, --format <format>',
    { choices: ['text', 'sarif', 'github', ...LIST_FORMATS], default: 'text' },
  );
  addExamples(command, [
    { description: 'Check a tree of templates and environments', command: 'stackspec-heat validate -r .' },
    {
      description: 'Check a resolved environment with real Heat rules',
      command: 'stackspec-heat validate --heat out/resolved.yaml',
    },
    {
      description: 'Annotate a pull request from a GitHub Actions job',
      command: 'stackspec-heat validate -r -f github .',
    },
  ]);
  command.action(async (paths: string[], opts: Omit<OutputOptions, 'format'> & Record<string, unknown>) => {
    const progress = fileProgress(io);
    const found = await findTemplates(paths, {
      cwd: io.cwd,
      recursive: opts.recursive === true,
      onProgress: progress.scanned,
    });
    const heat = opts.heat === true;
    // A file named on the command line must be Heat's; one met while walking a directory may be anything.
    const named = new Set(paths.map((p) => posix.normalize(p.split('\\').join('/'))));
    // A file that cannot be read was not validated: an error when it was asked for by name.
    const diagnostics: Diagnostic[] = [];
    const unread = (ds: readonly Diagnostic[]) => {
      for (const d of ds) {
        const asked =
          d.file !== undefined && named.has(d.file) && d.code !== 'heat/find/directory-not-recursive';
        diagnostics.push(asked ? { ...d, severity: 'error' } : d);
      }
    };
    // Problems of the walk itself; each file's own come with the file below.
    const ofFiles = new Set(found.files.flatMap((f) => f.diagnostics));
    unread(found.diagnostics.filter((d) => !ofFiles.has(d)));
    const skipped = (file: string, why: string): Diagnostic =>
      createDiagnostic({ code: 'heat/validate/skipped', severity: 'info', message: why, file });
    let checked = 0;
    let otherSkipped = 0;
    for (const [i, f] of found.files.entries()) {
      progress.validated(i + 1, found.files.length);
      if (f.kind === 'invalid' && f.diagnostics.every((d) => d.code.startsWith('heat/find/'))) {
        unread(f.diagnostics);
        continue;
      }
      const read = readHeatFile(resolve(io.cwd, f.file), f.file);
      if (!read.ok) {
        unread([read.diagnostic]);
        continue;
      }
      const text = read.text;
      const kind = f.kind === 'invalid' ? scanDocument(text, { mode: 'full' }).kind : f.kind;
      if (kind === 'other' && !named.has(f.file)) {
        otherSkipped += 1;
        diagnostics.push(
          skipped(
            f.file,
            'Skipped: neither a template nor an environment (found while searching a directory).',
          ),
        );
        continue;
      }
      checked += 1;
      if (kind === 'environment') {
        diagnostics.push(
          ...validateEnvironment(text, { filename: f.file, allowExtensions: !heat }).diagnostics,
        );
      } else if (kind === 'template' || kind === 'invalid') {
        diagnostics.push(
          ...validateTemplate(text, { filename: f.file, allowCapabilities: !heat }).diagnostics,
        );
      } else {
        diagnostics.push(
          createDiagnostic({
            code: 'heat/validate/not-heat',
            message:
              'This is neither a template (no heat_template_version) nor an environment (it has other top-level keys).',
            file: f.file,
            line: 1,
          }),
        );
      }
    }
    progress.done();
    for (const file of found.skipped) {
      diagnostics.push(skipped(file, 'Skipped: a Jinja source, which is not YAML until it is rendered.'));
    }
    if (!checked) {
      diagnostics.push(
        createDiagnostic({
          code: 'heat/validate/nothing',
          message: 'No template or environment was found to validate.',
          hint: paths.length && !opts.recursive ? 'Add -r to search directories.' : 'Check the paths given.',
        }),
      );
    }
    const format = opts.format as string;
    const problems = diagnostics.filter((d) => d.code !== 'heat/validate/skipped');
    if (format === 'text') {
      let report = formatDiagnostics(problems, { colors: stderrColors(io), filesChecked: checked });
      const count = (n: number, one: string, many: string) => (n ? `${n} ${n === 1 ? one : many}` : '');
      const parts = [
        count(
          otherSkipped,
          'file that is neither a template nor an environment',
          'files that are neither templates nor environments',
        ),
        count(found.skipped.length, 'Jinja source', 'Jinja sources'),
      ].filter(Boolean);
      if (parts.length) report += `\nskipped ${parts.join(' and ')}; -f json lists them`;
      show(io, report);
    } else if (format === 'sarif') {
      show(io, JSON.stringify(toSarifLog(problems, { tool: { name: 'stackspec-heat', version } }), null, 2));
    } else if (format === 'github') {
      show(io, formatGithubAnnotations(problems));
    } else {
      const rows = sortDiagnostics(diagnostics).map((d) => ({
        file: d.file ?? '',
        line: d.line ?? null,
        column: d.column ?? null,
        severity: d.severity,
        code: d.code,
        message: d.message,
        hint: d.hint ?? '',
      }));
      show(io, formatList(rows, VALIDATE_COLUMNS, listOptions({ ...opts, format: format as OutputFormat })));
      // The list holds problems only; say how many files were clean on standard error.
      io.stderr.write(
        `${formatDiagnostics(problems, { colors: stderrColors(io), filesChecked: checked })
          .split('\n')
          .pop()}\n`,
      );
    }
    setCode(hasErrors(diagnostics) || !checked ? EXIT.findings : EXIT.ok);
  });
}

/**
 * Runs `stackspec-heat` with `argv` (without the node and script names)
 * and returns the exit code: 0 when everything passed, 1 when problems
 * were found, 2 for usage errors (and, through `runCli`, for failures of
 * the tool itself). Output goes to `io`.
 */
export async function runHeatCli(argv: readonly string[], io: CliIO): Promise<number> {
  let exitCode: number = EXIT.ok;
  const setCode = (code: number) => {
    exitCode = code;
  };
  const version = readPackageVersion(import.meta.url, PACKAGE);
  const program = createProgram('stackspec-heat', io, { version }).description(
    'Heat template capabilities: find implementations, summarise, resolve environments, strip and validate.',
  );
  addExamples(program, [
    {
      description: 'Find the templates that implement a resource type',
      command: 'stackspec-heat capabilities-find -r --capability resource_type=OS::TripleO::Controller .',
    },
    {
      description: 'Resolve an environment that lists candidate templates',
      command: 'stackspec-heat resolve -e environments/choose.yaml -o out/resolved.yaml',
    },
    { description: 'Validate a tree', command: 'stackspec-heat validate -r .' },
  ]);
  addFind(program, io, setCode);
  addSummary(program, io, setCode);
  addResolve(program, io, setCode);
  addStrip(program, io, setCode);
  addValidate(program, io, setCode, version);
  await program.parseAsync([...argv], { from: 'user' });
  return exitCode;
}
