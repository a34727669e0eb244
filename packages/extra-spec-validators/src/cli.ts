import { mkdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { createDiagnostic, type Diagnostic, didYouMean, hasErrors, SpecError } from '@stackspec/core';
import {
  addOutputOptions,
  type CliIO,
  createProgram,
  EXIT,
  formatDiagnostics,
  formatList,
  formatObject,
  type OutputOptionValues,
  runCli,
  stderrColors,
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

/**
 * The `stackspec-extra-specs` command line: `validate`, `list`, `describe`,
 * `docs`, `metadef` and `json-schema`. Returns the exit code (0 fine, 1
 * problems found, 2 bad usage); never exits the process.
 */
export async function runExtraSpecsCli(argv: readonly string[], io: CliIO): Promise<number> {
  if (!Array.isArray(argv) || !io || typeof io.stdout?.write !== 'function') {
    throw new SpecError('runExtraSpecsCli takes the arguments (a list of strings) and a CliIO.', {
      code: 'extra-specs/bad-option',
    });
  }
  return runCli(async () => {
    const program = createProgram('stackspec-extra-specs', io)
      .description("Check flavor extra specs against Nova's catalog, and document the catalog.")
      .showSuggestionAfterError(true);
    let exit: number = EXIT.ok;

    registryOptions(
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
      )
      .addOption(new Option('--format <format>', 'output format').choices(['text', 'json']).default('text'))
      .action(
        async (
          files: string[],
          flags: RegistryFlags & { spec: string[]; mode: ValidationMode; format: 'text' | 'json' },
        ) => {
          if (!files.length && !flags.spec.length)
            usage('Give flavor files or --spec KEY=VALUE pairs to validate.');
          const registry = await buildRegistry(flags, io);
          const diagnostics: Diagnostic[] = [];
          let flavors = 0;
          for (const file of files) {
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
          if (flags.spec.length) {
            const r = validateExtraSpecs(pairsFrom(flags.spec), { mode: flags.mode, registry });
            diagnostics.push(...r.diagnostics.map((d) => ({ ...d, file: '--spec' })));
          }
          if (flags.format === 'json') {
            io.stdout.write(
              `${JSON.stringify({ ok: !hasErrors(diagnostics), flavors, diagnostics }, null, 2)}\n`,
            );
          } else {
            const checked = files.length + (flags.spec.length ? 1 : 0);
            io.stdout.write(
              `${formatDiagnostics(diagnostics, { colors: stderrColors({ ...io, stderr: io.stdout }), filesChecked: checked })}\n`,
            );
          }
          exit = hasErrors(diagnostics) ? EXIT.findings : EXIT.ok;
        },
      );

    addOutputOptions(
      registryOptions(
        program
          .command('list')
          .description('list the extra specs of a release')
          .option('--namespace <ns>', 'only this namespace (text before the colon)'),
      ),
      'list',
    ).action(async (flags: RegistryFlags & OutputOptionValues & { namespace?: string }) => {
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

    addOutputOptions(
      registryOptions(
        program
          .command('describe')
          .description('describe one extra spec (a key such as hw:numa_cpus.0, or a name)')
          .argument('<key>'),
      ),
      'object',
    ).action(async (key: string, flags: RegistryFlags & OutputOptionValues) => {
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

    registryOptions(program.command('docs').description('render the catalog as documentation'))
      .addOption(new Option('--format <format>', 'document format').choices(['rst', 'md']).default('rst'))
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

    registryOptions(program.command('metadef').description('write Glance metadata definition files'))
      .requiredOption('--out <dir>', 'directory to write the JSON files to')
      .action(async (flags: RegistryFlags & { out: string }) => {
        const registry = await buildRegistry(flags, io);
        const dir = resolve(io.cwd, flags.out);
        await mkdir(dir, { recursive: true });
        const files = renderMetadefs(registry);
        for (const f of files) await writeFile(join(dir, f.fileName), formatMetadef(f.namespace));
        io.stderr.write(`wrote ${files.length} metadef files to ${flags.out}\n`);
      });

    registryOptions(
      program.command('json-schema').description('print a JSON Schema for extra_specs mappings'),
    )
      .option('--out <file>', 'write to a file instead of standard output')
      .option('--open', 'allow keys the catalog does not know')
      .action(async (flags: RegistryFlags & { out?: string; open?: boolean }) => {
        const registry = await buildRegistry(flags, io);
        const schema = renderJsonSchema(registry, { closed: !flags.open });
        await writeOut(io, `${JSON.stringify(schema, null, 2)}\n`, flags.out);
      });

    program.addHelpText('after', `\nReleases: ${RELEASE_NAMES.join(', ')} (default: the newest).`);
    await program.parseAsync([...argv], { from: 'user' });
    return exit;
  }, io);
}

// A flavor file, or standard input for '-', read with core's bounded readers at the document size
// limit: a FIFO, a device or a file over the limit is refused before it is read.
async function readFlavorInput(io: CliIO, file: string): Promise<ReadTextFileResult> {
  if (file !== '-') return readTextFile(resolve(io.cwd, file), { file });
  if (!io.stdin) usage('Standard input is not available.');
  return readTextInput(io.stdin, { file: '<stdin>' });
}
