import { readFile } from 'node:fs/promises';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import {
  countBySeverity,
  createDiagnostic,
  type Diagnostic,
  describeError,
  type SourceDocument,
  safeParseDocument,
  toJsonPointer,
  withFile,
} from '@stackspec/core';
import { mapWithConcurrency, walkFiles } from '@stackspec/core/node';
import fg from 'fast-glob';
import { type ArtifactKind, classifyDocument, findNearMiss, KIND_LABELS } from './classify.js';
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
  /** Problems that belong to no single checked file (missing or unreadable paths, symlink loops). */
  walkDiagnostics: Diagnostic[];
  summary: { files: number; checked: number; skipped: number; errors: number; warnings: number };
}

/** Options for {@link checkPaths}. */
export interface CheckPathsOptions {
  cwd: string;
  /** The run's config: it governs files with no nearer config. */
  config: StackspecConfig;
  /** Folder the run config's relative paths and `ignore` patterns are resolved against (default `cwd`). */
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
  let kind = classifyDocument(parsed.document.value, file);
  if (!kind) {
    const miss = findNearMiss(parsed.document.value);
    if (!miss) return { file, kind, diagnostics: [], skipped: 'unrecognised' };
    // Heat's own environment check reports a wrong section, with a suggestion; other kinds stop here.
    if (miss.kind !== 'heat-environment') {
      return {
        file,
        kind: miss.kind,
        diagnostics: [
          parsed.document.diagnostic(
            {
              code: 'check/misspelt-key',
              message: `The key '${miss.key}' looks like a misspelling of ${miss.expected}, so this file was not checked as a ${KIND_LABELS[miss.kind]}.`,
              path: toJsonPointer([miss.key]),
              hint: `Did you mean ${miss.expected}?`,
            },
            { key: true },
          ),
        ],
      };
    }
    kind = miss.kind;
  }
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
 * Whether a config's `ignore` patterns cover `absolutePath` (the file or a
 * folder above it), relative to the config's folder. fast-glob lists what
 * the patterns match once per config, so the patterns mean exactly what
 * they mean to fast-glob.
 */
function createIgnoreMatcher(): (
  absolutePath: string,
  config: StackspecConfig,
  baseDir: string,
) => Promise<boolean> {
  const matched = new Map<string, Promise<Set<string>>>();
  return async (absolutePath, config, baseDir) => {
    if (!config.ignore.length) return false;
    const rel = relative(baseDir, absolutePath).split(sep).join('/');
    if (!rel || rel.startsWith('../') || isAbsolute(rel)) return false;
    const key = JSON.stringify([baseDir, config.ignore]);
    let found = matched.get(key);
    if (!found) {
      found = fg([...config.ignore], {
        cwd: baseDir,
        dot: true,
        onlyFiles: false,
        followSymbolicLinks: false,
        suppressErrors: true,
        ignore: ALWAYS_IGNORED,
      }).then((list) => new Set(list.map((p) => p.replace(/\/+$/, ''))));
      matched.set(key, found);
    }
    const set = await found;
    const parts = rel.split('/');
    for (let i = parts.length; i > 0; i -= 1) if (set.has(parts.slice(0, i).join('/'))) return true;
    return false;
  };
}

// Walk problems that mean a path the user named was not checked: errors, so CI cannot pass by accident.
function asWalkError(d: Diagnostic): Diagnostic {
  if (d.code === 'fs/not-found') return { ...d, severity: 'error' };
  if (d.code !== 'fs/unreadable') return d;
  return { ...d, severity: 'error', hint: d.hint ?? unreadableHint(d.message) };
}

function unreadableHint(message: string): string {
  return /permission|EACCES|EPERM/i.test(message)
    ? 'Check the permissions: the user running stackspec must be able to read it (and list it, for a folder), or leave it out with ignore: in stackspec.config.yaml.'
    : 'stackspec reads regular files and folders; leave this path out, or add it to ignore: in stackspec.config.yaml.';
}

/**
 * Walks the given files and folders, recognises each YAML/JSON file and
 * checks it with the right package. Each file is governed by its config
 * (see {@link CheckPathsOptions.configFor}), whose `ignore` patterns,
 * relative to that config's folder, leave it out. Never throws for a bad
 * or unreadable file: every problem is in the report, and a path that does
 * not exist or cannot be read is an error.
 */
export async function checkPaths(paths: readonly string[], options: CheckPathsOptions): Promise<CheckReport> {
  const walked = await walkFiles(paths.length ? paths : ['.'], {
    cwd: options.cwd,
    ignore: ALWAYS_IGNORED,
  });
  const isIgnored = createIgnoreMatcher();
  const checkOne = async (file: string): Promise<CheckedFile | undefined> => {
    const absolutePath = isAbsolute(file) ? file : resolve(options.cwd, file);
    let governing: { config: StackspecConfig; baseDir?: string } = {
      config: options.config,
      ...(options.baseDir ? { baseDir: options.baseDir } : {}),
    };
    if (options.configFor) {
      try {
        governing = await options.configFor(absolutePath);
      } catch (e) {
        const known = (e as { diagnostics?: Diagnostic[] }).diagnostics;
        return {
          file,
          kind: undefined,
          diagnostics: known?.length
            ? known
            : [createDiagnostic({ code: 'cli/bad-config', message: describeError(e), file })],
        };
      }
    }
    if (await isIgnored(absolutePath, governing.config, governing.baseDir ?? options.cwd)) return undefined;
    let text: string;
    try {
      text = await readFile(absolutePath, 'utf8');
    } catch (e) {
      const message = `The file cannot be read: ${describeError(e)}.`;
      return {
        file,
        kind: undefined,
        diagnostics: [
          createDiagnostic({ code: 'check/unreadable', message, file, hint: unreadableHint(message) }),
        ],
      };
    }
    return checkText(text, file, {
      absolutePath,
      config: governing.config,
      ...(governing.baseDir ? { baseDir: governing.baseDir } : {}),
      checkers: options.checkers,
    });
  };
  let done = 0;
  const results = await mapWithConcurrency(walked.files, options.concurrency ?? 16, async (file) => {
    const result = await checkOne(file);
    done += 1;
    options.onProgress?.(done, walked.files.length, file);
    return result;
  });
  const files = results.filter((f): f is CheckedFile => f !== undefined);
  const walkDiagnostics = walked.diagnostics.map(asWalkError);
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
