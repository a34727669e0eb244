import { mkdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { createDiagnostic, type Diagnostic, didYouMean, hasErrors, SpecError } from '@stackspec/core';
import {
  addExamples,
  addFormatOption,
  addOutputOptions,
  type CliIO,
  createProgram,
  createProgress,
  EXIT,
  formatDiagnostics,
  formatGithubAnnotations,
  formatList,
  formatObject,
  type OutputOptionValues,
  REPORT_FORMATS,
  type ReportFormat,
  readPackageVersion,
  runCli,
  stderrColors,
  toSarifLog,
  usage,
} from '@stackspec/core/cli';
import { type ReadTextFileResult, readTextFile, readTextInput } from '@stackspec/core/node';
import { Option } from 'commander';
import { validateFlavorFile } from './flavors.js';
import { loadExtraSpecPlugins } from './plugins.js';
import { createExtraSpecRegistry, type ExtraSpecRegistry, type RegisteredExtraSpec } from './registry.js';
import { RELEASE_NAMES, resolveRelease } from './releases.js';
import { facts } from './render/common.js';
import { rstToPlain, toPlain } from './render/inline.js';
import { renderJsonSchema } from './render/json-schema.js';
import { formatMetadef, renderMetadefs } from './render/metadef.js';
import { renderMarkdown, renderRst } from './render/text.js';
import { VALIDATION_MODES, type ValidationMode, validateExtraSpecs } from './validate.js';
import { describeValueRule } from './value-check.js';

interface RegistryFlags {
  release?: string;
  plugin: string[];
  discover?: boolean;
}

const collect = (value: string, previous: string[] = []) => [...previous, value];

function registryOptions(command: ReturnType<typeof createProgram>) {
  return command
    .addOption(
      new Option('--release <release>', 'Nova release (code name, series or version)').default('latest'),
    )
    .addOption(
      new Option('--plugin <module>', 'load extra spec definitions from a module (repeatable)')
        .argParser(collect)
        .default([]),
    )
    .addOption(new Option('--discover', 'load plugins declared by the dependencies of ./package.json'));
}

async function buildRegistry(flags: RegistryFlags, io: CliIO): Promise<ExtraSpecRegistry> {
  const release = resolveRelease(flags.release);
  const warnings: Diagnostic[] = [];
  let plugins: Awaited<ReturnType<typeof loadExtraSpecPlugins>>['plugins'] = [];
  if (flags.plugin.length || flags.discover) {
    const loaded = await loadExtraSpecPlugins({
      ...(flags.discover ? { root: io.cwd } : {}),
      cwd: io.cwd,
      modules: flags.plugin,
    });
    plugins = loaded.plugins;
    warnings.push(...loaded.diagnostics);
  }
  const registry = createExtraSpecRegistry({ release, plugins });
  warnings.push(...registry.conflicts);
  if (warnings.length) {
    io.stderr.write(`${formatDiagnostics(warnings, { colors: stderrColors(io), summary: false })}\n`);
  }
  return registry;
}

function pairsFrom(list: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const item of list) {
    const eq = item.indexOf('=');
    if (eq <= 0)
      usage(`--spec needs KEY=VALUE, but got '${item}'.`, 'For example: --spec hw:cpu_policy=dedicated');
    out[item.slice(0, eq)] = item.slice(eq + 1);
  }
  return out;
}

function ruleText(e: RegisteredExtraSpec): string {
  return describeValueRule(e.value);
}

function statusText(e: RegisteredExtraSpec): string {
  const s = e.definition.status;
  if (!s) return e.origin === 'plugin' ? `plugin ${e.source ?? ''}`.trim() : '';
  const bits = [`since ${s.added}`];
  if (e.definition.deprecated) bits.push(`deprecated (${e.definition.deprecated.since})`);
  if (s.renamed) bits.push(`renamed in ${s.renamed.release}`);
  if (s.removed) bits.push(`removed in ${s.removed.release}`);
  return bits.join(', ');
}

async function writeOut(io: CliIO, text: string, out: string | undefined): Promise<void> {
  if (!out) {
    io.stdout.write(text);
    return;
  }
  await writeFile(resolve(io.cwd, out), text);
  io.stderr.write(`wrote ${out}\n`);
}

const PACKAGE = '@stackspec/extra-spec-validators';

/**
 * The `stackspec-extra-specs` command line: `validate`, `list`, `describe`,
 * `docs`, `metadef` and `json-schema`. Returns the exit code (0 fine, 1
 * problems found, 2 bad usage or a failure of the tool itself); never
 * exits the process.
 */
export async function runExtraSpecsCli(argv: readonly string[], io: CliIO): Promise<number> {
  if (!Array.isArray(argv) || !io || typeof io.stdout?.write !== 'function') {
    throw new SpecError('runExtraSpecsCli takes the arguments (a list of strings) and a CliIO.', {
      code: 'extra-specs/bad-option',
    });
  }
  return runCli(async () => {
    const version = readPackageVersion(import.meta.url, PACKAGE);
    const program = createProgram('stackspec-extra-specs', io, { version })
      .description("Check flavor extra specs against Nova's catalog, and document the catalog.")
      .showSuggestionAfterError(true);
    let exit: number = EXIT.ok;

    const validate = registryOptions(
      program
        .command('validate')
        .description(
          'validate flavor files (YAML/JSON, or openstack flavor show/list -f json output) and --spec pairs',
        )
        .argument('[files...]', 'flavor files; - reads standard input'),
    )
      .addOption(
        new Option('--spec <key=value>', 'an extra spec to check (repeatable)')
          .argParser(collect)
          .default([]),
      )
      .addOption(
        new Option('--mode <mode>', 'how strictly to check').choices(VALIDATION_MODES).default('strict'),
      );
    addFormatOption(validate, REPORT_FORMATS, 'text', 'report format: text, json, sarif or github');
    addExamples(validate, [
      { description: 'Validate a flavor file', command: 'stackspec-extra-specs validate flavors.yaml' },
      {
        description: 'Validate what the OpenStack client prints, as JSON',
        command: 'openstack flavor show m1.large -f json | stackspec-extra-specs validate - -f json',
      },
      {
        description: 'Check one pair against an older release',
        command: 'stackspec-extra-specs validate --spec hw:cpu_policy=dedicated --release zed',
      },
    ]);
    validate.action(
      async (
        files: string[],
        flags: RegistryFlags & { spec: string[]; mode: ValidationMode; format: ReportFormat },
      ) => {
        if (!files.length && !flags.spec.length)
          usage('Give flavor files or --spec KEY=VALUE pairs to validate.');
        const registry = await buildRegistry(flags, io);
        const diagnostics: Diagnostic[] = [];
        let flavors = 0;
        // Many large files take a while: a progress line on a terminal, once a second has passed.
        const progress = createProgress(io.stderr, { env: io.env, now: io.now });
        for (const [i, file] of files.entries()) {
          progress.update(`validating ${i + 1}/${files.length} files… ${file}`);
          const read = await readFlavorInput(io, file);
          if (!read.ok) {
            // The package's code for a file it could not read; core's message says why.
            diagnostics.push({ ...read.diagnostic, code: 'extra-specs/unreadable-file' });
            continue;
          }
          const r = validateFlavorFile(read.text, file === '-' ? '<stdin>' : file, {
            mode: flags.mode,
            registry,
          });
          diagnostics.push(...r.diagnostics);
          flavors += r.flavors;
        }
        progress.done();
        if (flags.spec.length) {
          const r = validateExtraSpecs(pairsFrom(flags.spec), { mode: flags.mode, registry });
          diagnostics.push(...r.diagnostics.map((d) => ({ ...d, file: '--spec' })));
        }
        if (flags.format === 'json') {
          io.stdout.write(
            `${JSON.stringify({ ok: !hasErrors(diagnostics), flavors, diagnostics }, null, 2)}\n`,
          );
        } else if (flags.format === 'sarif') {
          const log = toSarifLog(inFiles(diagnostics), { tool: { name: 'stackspec-extra-specs', version } });
          io.stdout.write(`${JSON.stringify(log, null, 2)}\n`);
        } else if (flags.format === 'github') {
          if (diagnostics.length) io.stdout.write(`${formatGithubAnnotations(inFiles(diagnostics))}\n`);
        } else {
          const checked = files.length + (flags.spec.length ? 1 : 0);
          io.stdout.write(
            `${formatDiagnostics(diagnostics, { colors: stderrColors({ ...io, stderr: io.stdout }), filesChecked: checked })}\n`,
          );
        }
        exit = hasErrors(diagnostics) ? EXIT.findings : EXIT.ok;
      },
    );

    const list = addOutputOptions(
      registryOptions(
        program
          .command('list')
          .description('list the extra specs of a release')
          .option('--namespace <ns>', 'only this namespace (text before the colon)'),
      ),
      'list',
    );
    addExamples(list, [
      { description: 'List the hw: extra specs', command: 'stackspec-extra-specs list --namespace hw' },
      {
        description: 'Only the names, one per line',
        command: 'stackspec-extra-specs list -f value -c Name',
      },
      {
        description: 'The extra specs of an older release, as CSV',
        command: 'stackspec-extra-specs list --release zed -f csv',
      },
    ]);
    list.action(async (flags: RegistryFlags & OutputOptionValues & { namespace?: string }) => {
      const registry = await buildRegistry(flags, io);
      const rows = registry
        .entries()
        .filter(
          (e) =>
            flags.namespace === undefined || e.name.split(':')[0]?.replace(/\{.*$/, '') === flags.namespace,
        )
        .map((e) => ({ Name: e.name, Type: e.value.type, Rule: ruleText(e), Status: statusText(e) }));
      if (!rows.length && flags.namespace !== undefined) {
        usage(`No extra specs in the namespace '${flags.namespace}'.`);
      }
      io.stdout.write(
        `${formatList(rows, ['Name', 'Type', 'Rule', 'Status'], {
          format: flags.format,
          ...(flags.column ? { columns: flags.column } : {}),
          ...(flags.noindent ? { noindent: true } : {}),
        })}\n`,
      );
    });

    const describe = addOutputOptions(
      registryOptions(
        program
          .command('describe')
          .description('describe one extra spec (a key such as hw:numa_cpus.0, or a name)')
          .argument('<key>'),
      ),
      'object',
    );
    addExamples(describe, [
      { description: 'Describe a key', command: 'stackspec-extra-specs describe hw:cpu_policy' },
      {
        description: 'A numbered key, as JSON',
        command: 'stackspec-extra-specs describe hw:numa_cpus.0 -f json',
      },
    ]);
    describe.action(async (key: string, flags: RegistryFlags & OutputOptionValues) => {
      const registry = await buildRegistry(flags, io);
      const match = registry.get(key) ?? registry.lookup(key)?.spec;
      if (!match) {
        const hint = didYouMean(registry.suggest(key));
        io.stderr.write(
          `${formatDiagnostics(
            [
              createDiagnostic({
                code: 'extra-specs/unknown-key',
                message: `'${key}' is not a known extra spec in ${registry.release.name}.`,
                ...(hint ? { hint } : {}),
              }),
            ],
            { colors: stderrColors(io), summary: false },
          )}\n`,
        );
        exit = EXIT.findings;
        return;
      }
      const object: Record<string, unknown> = { Name: match.name };
      for (const [label, value] of facts(match)) object[label] = toPlain(value);
      object.Description = rstToPlain(match.definition.description);
      if (match.definition.deprecated) {
        const d = match.definition.deprecated;
        object.Deprecated = `since ${d.since}: ${rstToPlain(d.reason)}${d.replacement ? ` (use ${d.replacement})` : ''}`;
      }
      io.stdout.write(
        `${formatObject(object, {
          format: flags.format,
          ...(flags.column ? { columns: flags.column } : {}),
          ...(flags.noindent ? { noindent: true } : {}),
        })}\n`,
      );
    });

    const docs = registryOptions(program.command('docs').description('render the catalog as documentation'));
    addFormatOption(docs, ['rst', 'md'], 'rst', 'document format');
    addExamples(docs, [
      {
        description: 'reStructuredText for Sphinx',
        command: 'stackspec-extra-specs docs --out extra-specs.rst',
      },
      {
        description: 'Markdown for an older release',
        command: 'stackspec-extra-specs docs -f md --release zed --out extra-specs-zed.md',
      },
    ]);
    docs
      .option('--out <file>', 'write to a file instead of standard output')
      .option('--title <title>', 'page title')
      .action(async (flags: RegistryFlags & { format: 'rst' | 'md'; out?: string; title?: string }) => {
        const registry = await buildRegistry(flags, io);
        const options = flags.title ? { title: flags.title } : {};
        await writeOut(
          io,
          flags.format === 'md' ? renderMarkdown(registry, options) : renderRst(registry, options),
          flags.out,
        );
      });

    const metadef = registryOptions(
      program.command('metadef').description('write Glance metadata definition files'),
    );
    addExamples(metadef, [
      {
        description: 'Write the metadefs of the newest release',
        command: 'stackspec-extra-specs metadef --out metadefs',
      },
      {
        description: 'Include the keys of a plugin',
        command: 'stackspec-extra-specs metadef --plugin ./acme.js --out metadefs',
      },
    ]);
    metadef
      .requiredOption('--out <dir>', 'directory to write the JSON files to')
      .action(async (flags: RegistryFlags & { out: string }) => {
        const registry = await buildRegistry(flags, io);
        const dir = resolve(io.cwd, flags.out);
        await mkdir(dir, { recursive: true });
        const files = renderMetadefs(registry);
        for (const f of files) await writeFile(join(dir, f.fileName), formatMetadef(f.namespace));
        io.stderr.write(`wrote ${files.length} metadef files to ${flags.out}\n`);
      });

    const jsonSchema = registryOptions(
      program.command('json-schema').description('print a JSON Schema for extra_specs mappings'),
    );
    addExamples(jsonSchema, [
      { description: 'Print the schema', command: 'stackspec-extra-specs json-schema' },
      {
        description: 'A schema that allows unknown keys, to a file',
        command: 'stackspec-extra-specs json-schema --open --out extra-specs.schema.json',
      },
    ]);
    jsonSchema
      .option('--out <file>', 'write to a file instead of standard output')
      .option('--open', 'allow keys the catalog does not know')
      .action(async (flags: RegistryFlags & { out?: string; open?: boolean }) => {
        const registry = await buildRegistry(flags, io);
        const schema = renderJsonSchema(registry, { closed: !flags.open });
        await writeOut(io, `${JSON.stringify(schema, null, 2)}\n`, flags.out);
      });

    program.addHelpText('after', `\nReleases: ${RELEASE_NAMES.join(', ')} (default: the newest).`);
    addExamples(program, [
      { description: 'Validate flavor files', command: 'stackspec-extra-specs validate flavors/*.yaml' },
      {
        description: 'Annotate a pull request from a GitHub Actions job',
        command: 'stackspec-extra-specs validate -f github flavors/*.yaml',
      },
      { description: 'Describe a key', command: 'stackspec-extra-specs describe hw:cpu_policy' },
    ]);
    await program.parseAsync([...argv], { from: 'user' });
    return exit;
  }, io);
}

// Problems of --spec pairs and of standard input are in no file a code-scanning service or an
// annotation could point at: their `file` (the option or the stream) is for the text report only.
function inFiles(diagnostics: readonly Diagnostic[]): Diagnostic[] {
  return diagnostics.map((d) => {
    if (d.file !== '--spec' && d.file !== '<stdin>') return d;
    const { file: _f, line: _l, column: _c, endLine: _el, endColumn: _ec, ...rest } = d;
    return rest;
  });
}

// A flavor file, or standard input for '-', read with core's bounded readers at the document size
// limit: a FIFO, a device or a file over the limit is refused before it is read.
async function readFlavorInput(io: CliIO, file: string): Promise<ReadTextFileResult> {
  if (file !== '-') return readTextFile(resolve(io.cwd, file), { file });
  if (!io.stdin) usage('Standard input is not available.');
  return readTextInput(io.stdin, { file: '<stdin>' });
}
