import { statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createMemoryResourceReader, type Diagnostic, type ResourceReader } from '@stackspec/core';
import { createNodeResourceReader, readTextFile } from '@stackspec/core/node';

/** Where an image spec's text came from, and the reader for the scripts it names. */
export interface SpecFileRead {
  ok: true;
  source: { text: string; file?: string };
  reader: ResourceReader;
}

/** Options of {@link readImageSpecFile}. */
export interface ReadImageSpecFileOptions {
  /** Largest spec read, in bytes. */
  maxBytes: number;
  /** Folders scripts are looked up in, in order (default: the spec file's folder, as Sahara's plugins pass). */
  resourceRoots?: readonly string[] | undefined;
  /** Base of relative resource roots (default: the spec file's folder). */
  baseDir?: string | undefined;
}

/**
 * Reads an image spec from a path the caller named as a path (the
 * `stackspec-image` command line), with core's bounded reader, and builds
 * the confined reader over its resource roots. A file that cannot be read
 * is the diagnostic `image/spec/unreadable`, saying why. Internal to the
 * package: the loader itself only takes text and a reader.
 */
export function readImageSpecFile(
  file: string,
  options: ReadImageSpecFileOptions,
): SpecFileRead | { ok: false; diagnostics: Diagnostic[] } {
  // Core's bounded reader: a folder, /dev/zero or a FIFO is refused before a byte is read.
  const read = readTextFile(file, { maxBytes: options.maxBytes });
  if (!read.ok) {
    return {
      ok: false,
      diagnostics: [
        {
          code: 'image/spec/unreadable',
          severity: 'error',
          message: `The spec file could not be read: ${read.reason ?? read.diagnostic.message}.`,
          path: '',
          file,
          hint: 'Give the path of an image.yaml file, or the text of the spec itself.',
        },
      ],
    };
  }
  const folder = dirname(resolve(file));
  const baseDir = options.baseDir ?? folder;
  const roots = (options.resourceRoots ?? [folder]).map((r) => resolve(baseDir, r));
  return { ok: true, source: { text: read.text, file }, reader: createNodeResourceReader({ roots }) };
}

// One line without a colon cannot be a spec (a spec is a mapping, which needs `key:`), so it is
// read as a path: a missing file or a folder then says so, instead of "not a mapping". Not when
// the caller names the file the text came from (`filename`): then the input is that file's text.
function looksLikePath(input: string, textNamed: boolean): boolean {
  if (input.includes('\n')) return false;
  const text = input.trim();
  if (/\.(ya?ml|json)$/i.test(text)) return true;
  if (!textNamed && text && !text.includes(':')) return true;
  // Only a guess at what the input is: nothing is opened here (reading is readImageSpecFile's, bounded).
  try {
    return statSync(input, { throwIfNoEntry: false })?.isFile() === true;
  } catch {
    return false;
  }
}

/** Options of the string or URL form of the loader, which guesses whether its input is a path. */
export interface LegacySpecInputOptions extends Omit<ReadImageSpecFileOptions, 'baseDir'> {
  baseDir?: string | undefined;
  filename?: string | undefined;
  reader?: ResourceReader | undefined;
}

/**
 * The deprecated string or URL input of `validateImageSpec`/`loadImageSpec`:
 * a URL, a string ending in `.yaml`, `.yml` or `.json`, an existing file,
 * or (unless `filename` names the text's file) one line without a colon is
 * a path, read by {@link readImageSpecFile}; anything else is spec text,
 * whose scripts are looked up under `resourceRoots` (against `baseDir`,
 * default the working directory). With a `reader`, the string is always
 * text and the reader answers for scripts.
 */
export function readLegacySpecInput(
  input: string | URL,
  options: LegacySpecInputOptions,
): SpecFileRead | { ok: false; diagnostics: Diagnostic[] } {
  if (typeof input === 'string' && options.reader) {
    return {
      ok: true,
      source: { text: input, ...(options.filename !== undefined ? { file: options.filename } : {}) },
      reader: options.reader,
    };
  }
  if (input instanceof URL || looksLikePath(input, options.filename !== undefined)) {
    return readImageSpecFile(input instanceof URL ? fileURLToPath(input) : input, options);
  }
  const file = options.filename;
  const roots = options.resourceRoots ?? [];
  const baseDir = options.baseDir ?? process.cwd();
  return {
    ok: true,
    source: { text: input, ...(file !== undefined ? { file } : {}) },
    reader: roots.length
      ? createNodeResourceReader({ roots: roots.map((r) => resolve(baseDir, r)) })
      : createMemoryResourceReader({}, { roots: [] }),
  };
}
