import { resolve, sep } from 'node:path';
import type { Diagnostic } from '@stackspec/core';
import { mapWithConcurrency, walkFiles } from '@stackspec/core/node';
import { type Capabilities, canonicalValue, RESOURCE_TYPE_KEY, satisfiesFilter } from './capabilities.js';
import { readHeatFile } from './read-file.js';
import {
  type DocumentKind,
  MAX_SCAN_CHARS,
  type ScanResult,
  scanForSearch,
  unreadableDiagnostic,
} from './scan.js';

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
   * faster than asynchronous reads for thousands of small files. Reads are
   * bounded: a FIFO or device is reported instead of waited on, and a file
   * over {@link MAX_SCAN_CHARS} bytes is reported (`heat/find/too-large`)
   * after reading no more than that.
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

// Core's walker reports with fs/* codes; Heat's CLI and users filter on heat/find/*.
const WALK_CODES: Readonly<Record<string, string>> = {
  'fs/not-found': 'heat/find/not-found',
  'fs/unreadable': 'heat/find/unreadable',
  'fs/broken-symlink': 'heat/find/broken-symlink',
  'fs/symlink-loop': 'heat/find/symlink-loop',
  'fs/not-recursive': 'heat/find/directory-not-recursive',
};

function heatWalkDiagnostic(d: Diagnostic): Diagnostic {
  const code = WALK_CODES[d.code] ?? d.code;
  // The CLI's option is -r; say so in the words heat's users know.
  if (d.code === 'fs/not-recursive') {
    return {
      ...d,
      code,
      message: 'This is a directory; it is skipped without -r.',
      hint: 'Add -r (recursive) to search inside it.',
    };
  }
  return { ...d, code };
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
 * `recursive`, a missing path, an unreadable file or directory, a FIFO,
 * socket or device (never read, since reading could block), a broken link
 * or a symbolic link loop (a link to itself, or up to a folder being
 * searched, which is then listed once) each become a warning, a file over
 * the size bound an error, and the rest is still searched.
 *
 * Codes: `heat/find/directory-not-recursive`, `heat/find/not-found`,
 * `heat/find/unreadable`, `heat/find/broken-symlink`,
 * `heat/find/symlink-loop`, `heat/find/too-large`, and the `heat/capabilities/*` and YAML codes of
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
  const walked = await walkFiles(paths, {
    cwd,
    recursive: options.recursive === true,
    match: isTemplateFileName,
    ...(options.ignore ? { ignore: options.ignore } : {}),
  });
  const skipped: string[] = [];
  const unique = walked.files;
  const toRead: string[] = [];
  for (const f of unique) {
    if (isJinjaFile(f)) skipped.push(f);
    else toRead.push(f);
  }
  // Walked paths come normalized: joining by hand spares path.resolve's character loop on every file.
  const base = resolve(cwd);
  const absolute =
    sep === '/'
      ? (file: string) => (file.startsWith('/') ? file : base === '/' ? `/${file}` : `${base}/${file}`)
      : (file: string) => resolve(base, file);
  let done = 0;
  const scanText = (file: string, text: string): ScannedFile => {
    const scan: ScanResult = scanForSearch(text, { filename: file, mode: options.mode });
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
  const unread = (file: string, diagnostic: Diagnostic): ScannedFile => {
    done += 1;
    options.onProgress?.(done, toRead.length);
    return { file, kind: 'invalid', diagnostics: [diagnostic] };
  };
  let files: ScannedFile[];
  if (options.readFile) {
    const read = options.readFile;
    files = await mapWithConcurrency(toRead, options.concurrency ?? 64, async (file) => {
      try {
        return scanText(file, await read(absolute(file)));
      } catch (e) {
        return unread(file, unreadableDiagnostic(file, e));
      }
    });
  } else {
    // Template files are small and many: reading them synchronously is several times faster
    // than going through libuv's thread pool. Yield between batches so a server stays responsive.
    files = [];
    for (const [i, file] of toRead.entries()) {
      if (i > 0 && i % 256 === 0) await new Promise((r) => setImmediate(r));
      const read = readHeatFile(absolute(file), file);
      if (read.ok) {
        files.push(scanText(file, read.text));
      } else {
        files.push(unread(file, read.diagnostic));
      }
    }
  }
  // walkFiles lists files sorted, and both read paths keep that order.
  const filter = canonicalFilter(options.capabilities);
  const templates = files.filter((f) => f.kind === 'template' && satisfiesFilter(f.capabilities, filter));
  const diagnostics = walked.diagnostics.map(heatWalkDiagnostic);
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
