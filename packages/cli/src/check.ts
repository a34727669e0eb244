import { readFile } from 'node:fs/promises';
import { isAbsolute, resolve } from 'node:path';
import {
  countBySeverity,
  createDiagnostic,
  type Diagnostic,
  describeError,
  type SourceDocument,
  safeParseDocument,
  withFile,
} from '@stackspec/core';
import { mapWithConcurrency, walkFiles } from '@stackspec/core/node';
import { type ArtifactKind, classifyDocument } from './classify.js';
import type { StackspecConfig } from './config.js';

/** What a checker receives for one file. */
export interface CheckInput {
  /** The path as shown in reports. */
  file: string;
  /** Absolute path, to resolve references relative to the file. */
  absolutePath: string;
  text: string;
  document: SourceDocument;
  kind: ArtifactKind;
  config: StackspecConfig;
  /** Folder the config's relative paths are resolved against. */
  baseDir: string;
}

/** Checks one kind of file; returns every problem found (positions filled where known). */
export type Checker = (input: CheckInput) => Promise<Diagnostic[]> | Diagnostic[];

/** The checker for each kind; kinds without one are recognised but not checked. */
export type Checkers = Partial<Record<ArtifactKind, Checker>>;

/** Why a file was not checked. */
export type SkipReason = 'unrecognised' | 'disabled' | 'jinja';

/** The outcome for one file. */
export interface CheckedFile {
  file: string;
  kind: ArtifactKind | undefined;
  diagnostics: Diagnostic[];
  skipped?: SkipReason;
}

/** The outcome of a whole run. */
export interface CheckReport {
  files: CheckedFile[];
  /** Problems that belong to no single checked file (missing paths, symlink loops). */
  walkDiagnostics: Diagnostic[];
  summary: { files: number; checked: number; skipped: number; errors: number; warnings: number };
}

/** Options for {@link checkPaths}. */
export interface CheckPathsOptions {
  cwd: string;
  /** The run's config: its ignore patterns apply to the walk, and it governs files with no nearer config. */
  config: StackspecConfig;
  baseDir?: string;
  /** The config governing one file (default: the run's config for every file). */
  configFor?: (absolutePath: string) => Promise<{ config: StackspecConfig; baseDir: string }>;
  checkers: Checkers;
  /** Called after each file, e.g. to draw a progress line. */
  onProgress?: (done: number, total: number, file: string) => void;
  /** Files read at once (default 16). */
  concurrency?: number;
}

const ALWAYS_IGNORED = ['**/node_modules/**', '**/.git/**', '**/dist/**'];

function isEnabled(kind: ArtifactKind, config: StackspecConfig): boolean {
  switch (kind) {
    case 'flavor':
      return config.extraSpecs.enabled && config.extraSpecs.mode !== 'off';
    case 'deploy-template':
      return config.deployTemplates.enabled;
    case 'image-spec':
      return config.imageSpecs.enabled;
    case 'heat-template':
    case 'heat-environment':
      return config.heat.enabled;
    case 'placement-inventory':
    case 'driver-steps':
      return config.inventories.enabled;
    default:
      return true;
  }
}

/** Checks one file's text; exported for editors and tests that have no file system. */
export async function checkText(
  text: string,
  file: string,
  options: { absolutePath?: string; config: StackspecConfig; baseDir?: string; checkers: Checkers },
): Promise<CheckedFile> {
  if (/\.j2(\.[A-Za-z]+)?$/.test(file)) return { file, kind: undefined, diagnostics: [], skipped: 'jinja' };
  const parsed = safeParseDocument(text, { filename: file, duplicateKeys: 'warn' });
  if (!parsed.ok) return { file, kind: undefined, diagnostics: parsed.diagnostics };
  const kind = classifyDocument(parsed.document.value, file);
  if (!kind) return { file, kind, diagnostics: [], skipped: 'unrecognised' };
  if (!isEnabled(kind, options.config)) return { file, kind, diagnostics: [], skipped: 'disabled' };
  const checker = options.checkers[kind];
  const diagnostics = [...parsed.document.warnings];
  if (checker) {
    try {
      const found = await checker({
        file,
        absolutePath: options.absolutePath ?? file,
        text,
        document: parsed.document,
        kind,
        config: options.config,
        baseDir: options.baseDir ?? process.cwd(),
      });
      diagnostics.push(...withFile(found, file));
    } catch (e) {
      const known = (e as { diagnostics?: Diagnostic[] }).diagnostics;
      diagnostics.push(
        ...(Array.isArray(known) && known.length
          ? withFile(known, file)
          : [
              createDiagnostic({
                code: 'check/internal',
                message: `The ${kind} checker failed on this file: ${describeError(e)}`,
                file,
                hint: 'This is a bug in stackspec; please report it with the file.',
              }),
            ]),
      );
    }
  }
  return { file, kind, diagnostics };
}

/**
 * Walks the given files and folders, recognises each YAML/JSON file and
 * checks it with the right package. Never throws for a bad or unreadable
 * file: every problem is in the report.
 */
export async function checkPaths(paths: readonly string[], options: CheckPathsOptions): Promise<CheckReport> {
  const walked = await walkFiles(paths.length ? paths : ['.'], {
    cwd: options.cwd,
    ignore: [...ALWAYS_IGNORED, ...options.config.ignore],
  });
  let done = 0;
  const files = await mapWithConcurrency(walked.files, options.concurrency ?? 16, async (file) => {
    const absolutePath = isAbsolute(file) ? file : resolve(options.cwd, file);
    let text: string;
    try {
      text = await readFile(absolutePath, 'utf8');
    } catch (e) {
      done += 1;
      options.onProgress?.(done, walked.files.length, file);
      return {
        file,
        kind: undefined,
        diagnostics: [
          createDiagnostic({
            code: 'check/unreadable',
            message: `The file cannot be read: ${describeError(e)}.`,
            file,
          }),
        ],
      } satisfies CheckedFile;
    }
    let governing: { config: StackspecConfig; baseDir?: string } = {
      config: options.config,
      ...(options.baseDir ? { baseDir: options.baseDir } : {}),
    };
    if (options.configFor) {
      try {
        governing = await options.configFor(absolutePath);
      } catch (e) {
        done += 1;
        options.onProgress?.(done, walked.files.length, file);
        const known = (e as { diagnostics?: Diagnostic[] }).diagnostics;
        return {
          file,
          kind: undefined,
          diagnostics: known?.length
            ? known
            : [createDiagnostic({ code: 'cli/bad-config', message: describeError(e), file })],
        } satisfies CheckedFile;
      }
    }
    const result = await checkText(text, file, {
      absolutePath,
      config: governing.config,
      ...(governing.baseDir ? { baseDir: governing.baseDir } : {}),
      checkers: options.checkers,
    });
    done += 1;
    options.onProgress?.(done, walked.files.length, file);
    return result;
  });
  // A path that does not exist is an error: in CI a mistyped path must not pass silently.
  const walkDiagnostics = walked.diagnostics.map((d) =>
    d.code === 'fs/not-found' ? { ...d, severity: 'error' as const } : d,
  );
  const all = [...walkDiagnostics, ...files.flatMap((f) => f.diagnostics)];
  const counts = countBySeverity(all);
  return {
    files,
    walkDiagnostics,
    summary: {
      files: files.length,
      // Every file read and not skipped, including those that failed to parse.
      checked: files.filter((f) => !f.skipped).length,
      skipped: files.filter((f) => f.skipped).length,
      errors: counts.error,
      warnings: counts.warning,
    },
  };
}
