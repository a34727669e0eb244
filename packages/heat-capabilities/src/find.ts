import { promises as fsp, readFileSync } from 'node:fs';
import { join, posix, resolve } from 'node:path';
import { createDiagnostic, type Diagnostic } from '@stackspec/core';
import fg from 'fast-glob';
import { type Capabilities, canonicalValue, RESOURCE_TYPE_KEY, satisfiesFilter } from './capabilities.js';
import { type DocumentKind, type ScanResult, scanDocument, unreadableDiagnostic } from './scan.js';

/** File name endings a recursive search reads (Jinja sources among them are then skipped). */
export const TEMPLATE_FILE_EXTENSIONS: readonly string[] = ['.yaml', '.yml', '.template', '.json'];

function isTemplateFileName(name: string): boolean {
  return TEMPLATE_FILE_EXTENSIONS.some((ext) => name.endsWith(ext));
}

/** True for Jinja2 sources (`*.j2.yaml`, `*.j2`), which are not YAML until rendered. */
export function isJinjaFile(file: string): boolean {
  return /\.j2(\.[A-Za-z]+)?$/.test(file);
}

/** How file contents are read; injectable for tests and non-disk sources. */
export type ReadFileText = (path: string) => Promise<string>;

/** Options of {@link findTemplates}. */
export interface FindTemplatesOptions {
  /** Keep only templates whose capabilities satisfy every `key: value` (values compare as canonical text). */
  capabilities?: Readonly<Record<string, string | number | boolean>> | undefined;
  /** Descend into directories (default `false`: a directory is reported and skipped). */
  recursive?: boolean | undefined;
  /** fast-glob patterns to leave out (relative to each directory searched), e.g. `['ci/**']`. */
  ignore?: readonly string[] | undefined;
  /** Base for relative paths (default `process.cwd()`). */
  cwd?: string | undefined;
  /** `fast` (default) or `full` scanning, see `scanDocument`. */
  mode?: 'fast' | 'full' | undefined;
  /** Files read at once when `readFile` is given (default 64). */
  concurrency?: number | undefined;
  /** Called as files are scanned, e.g. to draw a progress line. */
  onProgress?: ((scanned: number, total: number) => void) | undefined;
  /**
   * How files are read. By default files are read synchronously in batches of
   * 256 with a yield to the event loop in between, which is several times
   * faster than asynchronous reads for thousands of small files.
   */
  readFile?: ReadFileText | undefined;
}

/** One scanned file. */
export interface ScannedFile {
  /** The path as found (joined to the path the caller gave). */
  file: string;
  kind: DocumentKind;
  version?: string | undefined;
  capabilities?: Capabilities | undefined;
  diagnostics: Diagnostic[];
}

/** Outcome of {@link findTemplates}. */
export interface FindTemplatesResult {
  /** Templates that satisfy the filter, sorted by path. */
  templates: ScannedFile[];
  /** Every file read, whatever its kind, sorted by path. */
  files: ScannedFile[];
  /** Files left out without reading them (Jinja sources), sorted. */
  skipped: string[];
  /** Directories without `recursive`, unreadable files, symlink loops, missing paths, capability problems. */
  diagnostics: Diagnostic[];
}

function note(
  code: string,
  message: string,
  file: string,
  hint?: string,
  severity: Diagnostic['severity'] = 'warning',
) {
  return createDiagnostic({ code, severity, message, file, ...(hint ? { hint } : {}) });
}

interface Walked {
  files: string[];
  diagnostics: Diagnostic[];
}

/**
 * Lists template-like files under `dir` with fast-glob, not following
 * symbolic links itself: each linked directory is resolved and walked once,
 * so a link back to an ancestor is reported instead of looping.
 */
async function walk(
  dir: string,
  shown: string,
  options: FindTemplatesOptions,
  visited: Set<string>,
  out: Walked,
) {
  let real: string;
  try {
    real = await fsp.realpath(dir);
  } catch (e) {
    out.diagnostics.push(unreadableDiagnostic(shown, e));
    return;
  }
  if (visited.has(real)) {
    out.diagnostics.push(
      note(
        'heat/find/symlink-loop',
        'This directory was already searched through another path (a symbolic link loop or a second link to it); it is skipped.',
        shown,
      ),
    );
    return;
  }
  for (const v of visited) {
    if (real.startsWith(`${v}/`) && v !== real) {
      // Inside a tree already walked: a link pointing into it would list files twice.
      out.diagnostics.push(
        note(
          'heat/find/symlink-loop',
          'This linked directory lies inside a tree already searched; it is skipped.',
          shown,
        ),
      );
      return;
    }
  }
  visited.add(real);
  const entries = await fg(['**/*'], {
    cwd: dir,
    onlyFiles: false,
    followSymbolicLinks: false,
    objectMode: true,
    dot: false,
    suppressErrors: true,
    ignore: options.ignore ? [...options.ignore] : [],
  });
  for (const entry of entries) {
    const path = posix.join(shown, entry.path);
    if (entry.dirent.isSymbolicLink()) {
      let stat: Awaited<ReturnType<typeof fsp.stat>>;
      try {
        stat = await fsp.stat(join(dir, entry.path));
      } catch (e) {
        const code = (e as { code?: string }).code;
        out.diagnostics.push(
          code === 'ENOENT'
            ? note('heat/find/broken-symlink', 'This symbolic link points to nothing.', path)
            : unreadableDiagnostic(path, e),
        );
        continue;
      }
      if (stat.isDirectory()) await walk(join(dir, entry.path), path, options, visited, out);
      else if (stat.isFile() && isTemplateFileName(entry.name)) out.files.push(path);
    } else if (entry.dirent.isFile() && isTemplateFileName(entry.name)) {
      out.files.push(path);
    }
  }
}

async function mapPool<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T, i: number) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const workers = Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, async () => {
    while (next < items.length) {
      const i = next;
      next += 1;
      results[i] = await fn(items[i] as T, i);
    }
  });
  await Promise.all(workers);
  return results;
}

function canonicalFilter(filter: FindTemplatesOptions['capabilities']): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(filter ?? {})) out[k] = canonicalValue(v) ?? String(v);
  return out;
}

/**
 * Finds the templates under the given files and directories whose
 * capabilities satisfy a filter, as `heat capabilities-find` would: every
 * YAML, `.template` and JSON file is classified (template, environment,
 * other) and its capabilities read with the fast scanner. Jinja sources
 * are skipped. Problems never stop the search: a directory without
 * `recursive`, a missing path, an unreadable file, a broken link or a
 * symbolic link loop each become a warning, and the rest is still searched.
 *
 * Codes: `heat/find/directory-not-recursive`, `heat/find/not-found`,
 * `heat/find/unreadable`, `heat/find/broken-symlink`,
 * `heat/find/symlink-loop`, and the `heat/capabilities/*` and YAML codes of
 * the files read. Jinja sources are listed in `skipped`.
 *
 * @example
 * const { templates } = await findTemplates(['tht'], {
 *   recursive: true,
 *   capabilities: { resource_type: 'OS::TripleO::Controller' },
 * });
 * templates.map((t) => t.file);
 */
export async function findTemplates(
  paths: readonly string[],
  options: FindTemplatesOptions = {},
): Promise<FindTemplatesResult> {
  const cwd = options.cwd ?? process.cwd();
  const walked: Walked = { files: [], diagnostics: [] };
  const visited = new Set<string>();
  const skipped: string[] = [];
  for (const given of paths) {
    const abs = resolve(cwd, given);
    let stat: Awaited<ReturnType<typeof fsp.stat>>;
    try {
      stat = await fsp.stat(abs);
    } catch (e) {
      const code = (e as { code?: string }).code;
      walked.diagnostics.push(
        code === 'ENOENT'
          ? note('heat/find/not-found', 'No such file or directory.', given)
          : unreadableDiagnostic(given, e),
      );
      continue;
    }
    if (stat.isDirectory()) {
      if (!options.recursive) {
        walked.diagnostics.push(
          note(
            'heat/find/directory-not-recursive',
            'This is a directory; it is skipped without -r.',
            given,
            'Add -r (recursive) to search inside it.',
          ),
        );
        continue;
      }
      await walk(abs, given, options, visited, walked);
    } else {
      walked.files.push(given);
    }
  }
  const unique = [...new Set(walked.files)];
  const toRead: string[] = [];
  for (const f of unique) {
    if (isJinjaFile(f)) skipped.push(f);
    else toRead.push(f);
  }
  let done = 0;
  const scanText = (file: string, text: string): ScannedFile => {
    const scan: ScanResult = scanDocument(text, { filename: file, mode: options.mode });
    done += 1;
    options.onProgress?.(done, toRead.length);
    return {
      file,
      kind: scan.kind,
      ...(scan.version !== undefined ? { version: scan.version } : {}),
      ...(scan.capabilities !== undefined ? { capabilities: scan.capabilities } : {}),
      diagnostics: scan.diagnostics,
    };
  };
  const unreadable = (file: string, e: unknown): ScannedFile => {
    done += 1;
    options.onProgress?.(done, toRead.length);
    return { file, kind: 'invalid', diagnostics: [unreadableDiagnostic(file, e)] };
  };
  let files: ScannedFile[];
  if (options.readFile) {
    const read = options.readFile;
    files = await mapPool(toRead, options.concurrency ?? 64, async (file) => {
      try {
        return scanText(file, await read(resolve(cwd, file)));
      } catch (e) {
        return unreadable(file, e);
      }
    });
  } else {
    // Template files are small and many: reading them synchronously is several times faster
    // than going through libuv's thread pool. Yield between batches so a server stays responsive.
    files = [];
    for (const [i, file] of toRead.entries()) {
      if (i > 0 && i % 256 === 0) await new Promise((r) => setImmediate(r));
      let text: string;
      try {
        text = readFileSync(resolve(cwd, file), 'utf8');
      } catch (e) {
        files.push(unreadable(file, e));
        continue;
      }
      files.push(scanText(file, text));
    }
  }
  files.sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
  skipped.sort();
  const filter = canonicalFilter(options.capabilities);
  const templates = files.filter((f) => f.kind === 'template' && satisfiesFilter(f.capabilities, filter));
  const diagnostics = [...walked.diagnostics];
  for (const f of files) diagnostics.push(...f.diagnostics);
  return { templates, files, skipped, diagnostics };
}

/** The two summaries of the spec's `template-capabilities`. */
export interface CapabilitiesSummary {
  /** Each label with every value some template offers, in first-seen order: `{ deployment: ['puppet', 'docker'] }`. */
  labels: Record<string, string[]>;
  /** Each resource type with the templates that declare it: `{ 'OS::TripleO::Controller': ['puppet/controller.yaml', …] }`. */
  resourceTypes: Record<string, string[]>;
}

/**
 * Summarises the capabilities of a set of scanned templates into the two
 * views the spec describes: the values each label takes across the
 * templates, and the templates that declare each resource type. Keys are
 * sorted; values keep the order of `files`. Files without capabilities add
 * nothing.
 *
 * @example
 * summarizeCapabilities([
 *   { file: 'puppet/controller.yaml', capabilities: { deployment: ['puppet'] } },
 *   { file: 'docker/controller.yaml', capabilities: { deployment: ['docker'] } },
 * ]); // { labels: { deployment: ['puppet', 'docker'] }, resourceTypes: {} }
 */
export function summarizeCapabilities(
  files: readonly { file: string; capabilities?: Capabilities | undefined }[],
): CapabilitiesSummary {
  const labels = new Map<string, string[]>();
  const types = new Map<string, string[]>();
  for (const { file, capabilities } of files) {
    for (const [key, values] of Object.entries(capabilities ?? {})) {
      if (key === RESOURCE_TYPE_KEY) {
        for (const type of values) {
          const list = types.get(type) ?? [];
          if (!list.includes(file)) list.push(file);
          types.set(type, list);
        }
        continue;
      }
      const list = labels.get(key) ?? [];
      for (const v of values) if (!list.includes(v)) list.push(v);
      labels.set(key, list);
    }
  }
  const sorted = (m: Map<string, string[]>) =>
    Object.fromEntries([...m.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  return { labels: sorted(labels), resourceTypes: sorted(types) };
}
