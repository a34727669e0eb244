import {
  addExamples,
  addFormatOption,
  type CliIO,
  createColors,
  createProgress,
  EXIT,
  REPORT_FORMATS,
  type ReportFormat,
  usage,
} from '@stackspec/core/cli';
import { resolveRelease } from '@stackspec/extra-spec-validators';
import type { Command } from 'commander';
import { type Checkers, type CheckReport, checkPaths } from '../check.js';
import { createConfigResolver, loadConfig } from '../config.js';
import { formatCheckGithub } from '../format/github.js';
import { toSarif } from '../format/sarif.js';
import { formatCheckJson, formatCheckText } from '../format/text.js';
import { VERSION } from '../version.js';
import { addConfigOptions } from './config-options.js';

interface CheckOptions {
  format: ReportFormat;
  config?: string;
  mode?: 'strict' | 'permissive' | 'off' | 'nova';
  release?: string;
  quiet?: boolean;
  verbose?: boolean;
  maxWarnings?: string;
  color?: boolean;
}

/** A checker that crashed on a file: the run says nothing reliable about it. */
function crashed(report: CheckReport): boolean {
  return report.files.some((f) => f.diagnostics.some((d) => d.code === 'stackspec/check/internal'));
}

/**
 * Adds `stackspec check PATHS…` to a program. Exit codes: 0 clean, 1
 * errors (or more warnings than `--max-warnings`), 2 a bad command line or
 * a checker that crashed (`stackspec/check/internal`: a failure of the tool itself,
 * reported on its file like any other problem).
 */
export function addCheckCommand(
  program: Command,
  io: CliIO,
  checkers: () => Checkers,
  setExit: (code: number) => void,
) {
  const command = program
    .command('check')
    .description(
      'check flavors, deploy templates, image validation specs and Heat templates and environments',
    )
    .argument('[paths...]', 'files and folders to check', ['.']);
  addFormatOption(
    command,
    REPORT_FORMATS,
    'text',
    'report format: text, json, sarif (SARIF 2.1.0) or github (GitHub Actions annotations)',
  );
  addExamples(command, [
    { description: 'Check every file under the current folder', command: 'stackspec check' },
    {
      description: 'Annotate a pull request from a GitHub Actions job',
      command: 'stackspec check -f github .',
    },
    {
      description: 'Write a SARIF log for code scanning, allowing up to 10 warnings',
      command: 'stackspec check -f sarif --max-warnings 10 . > stackspec.sarif',
    },
  ]);
  addConfigOptions(command)
    .option('--release <name>', 'Nova release whose extra spec catalog applies (default: newest)')
    .option('-q, --quiet', 'report errors only')
    .option('--verbose', 'list every file with the kind it was recognised as')
    .option('--max-warnings <n>', 'fail when there are more warnings than this')
    .option('--no-color', 'never colour the output')
    .action(async (paths: string[], opts: CheckOptions) => {
      if (opts.release) resolveRelease(opts.release); // an unknown release is a usage error (exit 2)
      const maxWarnings =
        opts.maxWarnings === undefined ? Number.POSITIVE_INFINITY : Number(opts.maxWarnings);
      if (!(maxWarnings >= 0) || (Number.isFinite(maxWarnings) && !Number.isInteger(maxWarnings))) {
        usage(`--max-warnings takes a whole number, not ${opts.maxWarnings}.`);
      }
      const loaded = await loadConfig(io.cwd, opts.config);
      const override = (c: typeof loaded.config) => {
        const copy = structuredClone(c);
        if (opts.mode) copy.extraSpecs.mode = opts.mode;
        if (opts.release) copy.extraSpecs.release = opts.release;
        return copy;
      };
      const config = override(loaded.config);
      // An explicit --config governs everything; otherwise each file's nearest config does.
      const nearest = opts.config ? undefined : createConfigResolver(loaded);
      // A progress line only on a terminal, outside CI, and never mixed into machine-readable output.
      const progress = createProgress(io.stderr, {
        enabled: opts.format === 'text' && io.stderr.isTTY === true && !io.env.CI,
        now: io.now,
      });
      const report = await checkPaths(paths, {
        cwd: io.cwd,
        config,
        baseDir: loaded.baseDir,
        checkers: checkers(),
        ...(nearest
          ? {
              configFor: async (file: string) => {
                const found = await nearest(file);
                return { config: override(found.config), baseDir: found.baseDir };
              },
            }
          : {}),
        // Drawn once the run has taken a second (createProgress's delay), whatever the number of files.
        onProgress: (done, total, file) => progress.update(`checking ${done}/${total} files… ${file}`),
      });
      progress.done();
      const colors = createColors({
        stream: io.stdout,
        env: io.env,
        ...(opts.color === false ? { force: false } : {}),
      });
      if (opts.format === 'json') io.stdout.write(`${formatCheckJson(report)}\n`);
      else if (opts.format === 'github') {
        const annotations = formatCheckGithub(report, { quiet: opts.quiet === true });
        if (annotations) io.stdout.write(`${annotations}\n`);
      } else if (opts.format === 'sarif') {
        io.stdout.write(
          `${JSON.stringify(toSarif(report, { name: 'stackspec', version: VERSION }), null, 2)}\n`,
        );
      } else {
        io.stdout.write(
          `${formatCheckText(report, { colors, quiet: opts.quiet === true, verbose: opts.verbose === true })}\n`,
        );
      }
      setExit(
        crashed(report)
          ? EXIT.failure
          : report.summary.errors > 0 || report.summary.warnings > maxWarnings
            ? EXIT.findings
            : EXIT.ok,
      );
    });
}
