import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import {
  type CheckerInput,
  countBySeverity,
  createDiagnostic,
  DEFAULT_MAX_BYTES,
  type Diagnostic,
  describeError,
  type FileChecker,
  type RecognisedFile,
  type ResourceReader,
  recogniseFile,
  type SourceDocument,
  toJsonPointer,
  validateDocument,
  withFile,
} from '@stackspec/core';
import {
  createNodeResourceReader,
  mapWithConcurrency,
  type ReadTextFileResult,
  readTextFile,
  walkFiles,
} from '@stackspec/core/node';
import fg from 'fast-glob';
import { BUILTIN_CHECKERS } from './checkers.js';
import type { ArtifactKind } from './classify.js';
import type { StackspecConfig } from './config.js';

/**
 * What a per-kind check function receives for one file.
 *
 * @deprecated Write a `FileChecker` (from `@stackspec/core`) and list it in a {@link CheckerEntry}.
 */
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

/**
 * Checks one kind of file; returns every problem found (positions filled where known).
 *
 * @deprecated Write a `FileChecker` (from `@stackspec/core`) and list it in a {@link CheckerEntry}.
 */
export type Checker = (input: CheckInput) => Promise<Diagnostic[]> | Diagnostic[];

/** Where a file sits, for {@link CheckerEntry.prepare}: its paths and the config governing it. */
export interface CheckSite {
  /** The path as shown in reports. */
  file: string;
  /** Absolute path of the file. */
  absolutePath: string;
  /** The config governing the file. */
  config: StackspecConfig;
  /** Folder the config's relative paths are resolved against. */
  baseDir: string;
}

/** What {@link CheckerEntry.prepare} gives one file's check. */
export interface CheckPreparation<Options = unknown> {
  /** The reader for the files it refers to (default: a confined reader over the file's folder). */
  reader?: ResourceReader;
  /** The checker's options from the config. */
  options?: Options;
  /** Problems to report on this file before the checker's own (a plugin that failed to load). */
  diagnostics?: Diagnostic[];
}

/** A checker `stackspec check` runs, and how a file's config governs it. */
export interface CheckerEntry<Options = unknown> {
  readonly checker: FileChecker<Options>;
  /** Whether a file's config has this kind checked (default: always); a kind turned off is listed as skipped. */
  enabled?: (config: StackspecConfig) => boolean;
  /** The reader and options for one file, from its config. */
  prepare?: (site: CheckSite) => Promise<CheckPreparation<Options>> | CheckPreparation<Options>;
}

/**
 * The checkers of a run, in the order that breaks ties between equally sure
 * claims. The per-kind record of check functions is the earlier form: the
 * built-in checkers then recognise every file, and a kind without a
 * function is recognised but not checked.
 */
export type Checkers = readonly CheckerEntry[] | Partial<Record<ArtifactKind, Checker>>;

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

function internalError(who: string, e: unknown, file: string): Diagnostic {
  return createDiagnostic({
    code: 'stackspec/check/internal',
    message: `${who} failed on this file: ${describeError(e)}`,
    file,
    hint: 'This is a bug in stackspec; please report it with the file.',
  });
}

/** Checks one file's text; exported for editors and tests that have no file system. */
export async function checkText(
  text: string,
  file: string,
  options: { absolutePath?: string; config: StackspecConfig; baseDir?: string; checkers: Checkers },
): Promise<CheckedFile> {
  if (/\.j2(\.[A-Za-z]+)?$/.test(file)) return { file, kind: undefined, diagnostics: [], skipped: 'jinja' };
  const parsed = validateDocument(text, { filename: file, duplicateKeys: 'warn' });
  if (!parsed.ok) return { file, kind: undefined, diagnostics: parsed.diagnostics };
  const document = parsed.document;
  const input: CheckerInput = { path: file, text, document };
  // The earlier record form: the built-in checkers recognise, the record's functions check.
  const record = Array.isArray(options.checkers)
    ? undefined
    : (options.checkers as Partial<Record<ArtifactKind, Checker>>);
  const entries = record ? BUILTIN_CHECKERS : (options.checkers as readonly CheckerEntry[]);
  let found: RecognisedFile<FileChecker<unknown>> | undefined;
  try {
    found = recogniseFile(
      entries.map((e) => e.checker),
      input,
    );
  } catch (e) {
    // The contract says a recogniser never throws; one that does is reported, not a crash of the run.
    return { file, kind: undefined, diagnostics: [internalError('A recogniser', e, file)] };
  }
  if (!found) return { file, kind: undefined, diagnostics: [], skipped: 'unrecognised' };
  const { checker, recognition } = found;
  const entry = entries.find((e) => e.checker === checker) as CheckerEntry;
  const kind = checker.kind as ArtifactKind;
  const miss = recognition.misspelt;
  // A checker that reports the misspelling itself (Heat names a wrong section) checks the file.
  if (miss && !miss.checkAnyway) {
    return {
      file,
      kind,
      diagnostics: [
        document.diagnostic(
          {
            code: 'stackspec/check/misspelt-key',
            message: `The key '${miss.key}' looks like a misspelling of ${miss.expected}, so this file was not checked as a ${checker.label}.`,
            path: toJsonPointer([miss.key]),
            hint: `Did you mean ${miss.expected}?`,
          },
          { key: true },
        ),
      ],
    };
  }
  if (entry.enabled && !entry.enabled(options.config))
    return { file, kind, diagnostics: [], skipped: 'disabled' };
  const site: CheckSite = {
    file,
    absolutePath: options.absolutePath ?? file,
    config: options.config,
    baseDir: options.baseDir ?? process.cwd(),
  };
  const diagnostics = [...document.warnings];
  try {
    let found: Diagnostic[];
    if (record) {
      const legacy = record[kind];
      found = legacy ? await legacy({ ...site, text, document, kind }) : [];
    } else {
      const prepared = (await entry.prepare?.(site)) ?? {};
      const reader =
        prepared.reader ?? createNodeResourceReader({ roots: [dirname(resolve(site.absolutePath))] });
      found = [
        ...(prepared.diagnostics ?? []),
        ...(await checker.check(input, { reader, options: prepared.options })),
      ];
    }
    diagnostics.push(...withFile(found, file));
  } catch (e) {
    const known = (e as { diagnostics?: Diagnostic[] }).diagnostics;
    diagnostics.push(
      ...(Array.isArray(known) && known.length
        ? withFile(known, file)
        : [internalError(`The ${kind} checker`, e, file)]),
    );
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
 * Reads a file `stackspec check` was given or found, with core's bounded
 * reader: nothing but a regular file is opened for reading (a FIFO cannot
 * hang the run, `/dev/zero` cannot fill memory) and nothing over the
 * loader's size limit ({@link DEFAULT_MAX_BYTES}) is read. A failure is
 * `stackspec/check/unreadable`, its message saying why (missing, permission, a named
 * pipe, a device, too large) and its hint what to do.
 */
export function readCheckedFile(absolutePath: string, file: string): ReadTextFileResult {
  const read = readTextFile(absolutePath, { maxBytes: DEFAULT_MAX_BYTES, file });
  if (read.ok) return read;
  const d = read.diagnostic;
  const hint =
    d.code === 'fs/too-large'
      ? `stackspec reads files of up to ${DEFAULT_MAX_BYTES} bytes; split this one, or add it to ignore: in stackspec.config.yaml.`
      : unreadableHint(d.message);
  return { ...read, diagnostic: { ...d, code: 'stackspec/check/unreadable', hint } };
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
    const read = readCheckedFile(absolutePath, file);
    if (!read.ok) return { file, kind: undefined, diagnostics: [read.diagnostic] };
    return checkText(read.text, file, {
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
