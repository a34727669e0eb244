import type { Diagnostic } from './diagnostic.js';
import type { SourceDocument } from './document.js';
import type { ResourceReader } from './resource-reader.js';
import { suggest } from './suggest.js';

/** A file as a checker sees it when asked whether it is of its kind. */
export interface CheckerFile {
  /** The path reports show (`/`- or `\`-separated, relative to where the run started, or absolute). */
  readonly path: string;
  /** The text, when it was read. */
  readonly text?: string;
  /** The parsed YAML or JSON document, when the text parses; recognisers read its value only. */
  readonly document?: Pick<SourceDocument, 'value'>;
}

/** A file handed to {@link FileChecker.check}: read, and parsed as YAML or JSON. */
export interface CheckerInput extends CheckerFile {
  readonly text: string;
  readonly document: SourceDocument;
}

/**
 * How sure recognisers are, on one scale so that two packages' claims on a
 * file compare. The levels, strongest first; a checker may answer between
 * them, but should not without a reason it documents.
 */
export const CONFIDENCE = {
  /** The file's name says what it is (`stackspec.config.yaml`). */
  name: 1,
  /** A key that marks this kind alone, with the shape it must have (`heat_template_version`, `validators: [...]`). */
  marker: 0.8,
  /** Fields that together make the kind (`extra_specs`; `name` with `steps`; a `providers` list). */
  shape: 0.6,
  /** Nothing but keys the kind allows (a Heat environment's sections). */
  keys: 0.4,
  /** One top-level key is a misspelling of the key that would mark the kind (see {@link Misspelling}). */
  misspelt: 0.2,
  /** Every key is one the kind allows or close to one: worth checking, so that its own check names the wrong key. */
  close: 0.1,
} as const;

/** A top-level key that looks like a misspelling of the key marking a kind. */
export interface Misspelling {
  /** The key as written. */
  key: string;
  /** The key it most likely stands for. */
  expected: string;
  /**
   * The checker's own check reports the misspelling in its words (Heat
   * names a wrong section), so the file is checked; otherwise the host
   * reports the misspelling and does not check the file.
   */
  checkAnyway?: boolean;
}

/** A checker's claim on a file. */
export interface Recognition {
  /** How sure, above 0 and at most 1, on the {@link CONFIDENCE} scale. */
  confidence: number;
  /** Set when the claim rests on a misspelt key rather than on the file's content as written. */
  misspelt?: Misspelling;
}

/** What a checker receives besides the file. */
export interface CheckContext<Options = undefined> {
  /**
   * Reads the files the checked file refers to; a checker reads nothing any
   * other way. Relative paths are relative to the checked file's folder
   * unless the host chose other roots (a config's resource roots).
   */
  readonly reader: ResourceReader;
  /** Settings for this file (from a config), as the checker documents them; absent means its defaults. */
  readonly options?: Options | undefined;
}

/**
 * How a spec package teaches a host (the `stackspec check` command, an
 * editor, a browser page) one kind of file: how to recognise it and how to
 * check one. Each package exports its checkers from its main entry; a host
 * iterates a list of them, picks one per file with {@link recogniseFile},
 * and calls {@link FileChecker.check}.
 *
 * Contract, which the shared checker suite proves for every package:
 * - `recognise` is pure and fast, never throws, and claims only files of its
 *   kind (`undefined` otherwise); it looks at the parsed value and the
 *   file's name, not at the disk.
 * - `check` returns every problem as a {@link Diagnostic} with `code`,
 *   `severity`, `message` and `file`, and `line` where it is known; it never
 *   throws for any file content, and a referenced file that is missing,
 *   unreadable or too large is a diagnostic.
 * - Referenced files are read only through `context.reader`.
 *
 * @example
 * const found = recogniseFile(checkers, { path: 'flavors.yaml', text, document });
 * if (found && !found.recognition.misspelt) {
 *   const diagnostics = await found.checker.check({ path: 'flavors.yaml', text, document }, { reader });
 * }
 */
export interface FileChecker<Options = undefined> {
  /** The kind of file, kebab-case and unique among a host's checkers (`flavor`, `heat-environment`). */
  readonly kind: string;
  /** What reports call the kind (`Heat environment`). */
  readonly label: string;
  /** The checker's claim on `file`, or `undefined` when the file is not of its kind. */
  recognise(file: CheckerFile): Recognition | undefined;
  /** Every problem in `file`, positions filled in where known. */
  check(file: CheckerInput, context: CheckContext<Options>): Diagnostic[] | Promise<Diagnostic[]>;
}

/** The checker {@link recogniseFile} picked for a file, with its claim. */
export interface RecognisedFile<C> {
  checker: C;
  recognition: Recognition;
}

function keyIndex(file: CheckerFile, misspelt: Misspelling | undefined): number {
  const value = file.document?.value;
  if (!misspelt || typeof value !== 'object' || value === null) return Number.POSITIVE_INFINITY;
  const at = Object.keys(value).indexOf(misspelt.key);
  return at < 0 ? Number.POSITIVE_INFINITY : at;
}

/**
 * Picks the checker for a file: the highest confidence wins. On a tie, the
 * claim whose misspelt key comes first in the document wins (so the first
 * typo a reader meets is the one reported), then the checker listed first.
 * Claims of 0 or less, or not numbers, do not count. `undefined` when no
 * checker claims the file. Deterministic for a given list and file.
 */
export function recogniseFile<C extends Pick<FileChecker<unknown>, 'recognise'>>(
  checkers: readonly C[],
  file: CheckerFile,
): RecognisedFile<C> | undefined {
  let best: (RecognisedFile<C> & { at: number }) | undefined;
  for (const checker of checkers) {
    const recognition = checker.recognise(file);
    const confidence = recognition?.confidence;
    if (!recognition || typeof confidence !== 'number' || !(confidence > 0)) continue;
    const at = keyIndex(file, recognition.misspelt);
    if (
      !best ||
      confidence > best.recognition.confidence ||
      (confidence === best.recognition.confidence && at < best.at)
    ) {
      best = { checker, recognition, at };
    }
  }
  return best && { checker: best.checker, recognition: best.recognition };
}

/** A key that marks a kind, for {@link findMisspeltKey}. */
export interface MarkerKey {
  /** The key as the kind spells it (`extra_specs`). */
  key: string;
  /** Whether a value under a misspelt key has the shape the marker's value must have (default: any value). */
  fits?: (value: unknown, document: Record<string, unknown>) => boolean;
}

/**
 * The first top-level key of `value`, in document order, that is a close
 * misspelling of one of `markers` (a few edits, ignoring case, as
 * `suggest` decides) whose value fits the marker's shape, so that a typo
 * does not hide a whole file from its checker. A marker the mapping already
 * has is not looked for; for one key, markers are tried in order.
 * `undefined` when `value` is not a mapping or nothing is close.
 *
 * @example
 * findMisspeltKey({ extra_spec: {} }, [{ key: 'extra_specs' }]); // { key: 'extra_spec', expected: 'extra_specs' }
 */
export function findMisspeltKey(value: unknown, markers: readonly MarkerKey[]): Misspelling | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const doc = value as Record<string, unknown>;
  for (const key of Object.keys(doc)) {
    for (const m of markers) {
      if (m.key in doc) continue;
      if (suggest(key, [m.key])[0] === m.key && (m.fits?.(doc[key], doc) ?? true)) {
        return { key, expected: m.key };
      }
    }
  }
  return undefined;
}

/**
 * The claim a checker makes on a mapping whose only link to its kind is a
 * misspelt marker key: `CONFIDENCE.misspelt` with the misspelling that
 * {@link findMisspeltKey} finds, or `undefined` when there is none.
 *
 * @example
 * claimMisspelling({ extra_spec: {} }, [{ key: 'extra_specs' }]);
 * // { confidence: 0.2, misspelt: { key: 'extra_spec', expected: 'extra_specs' } }
 */
export function claimMisspelling(value: unknown, markers: readonly MarkerKey[]): Recognition | undefined {
  const misspelt = findMisspeltKey(value, markers);
  return misspelt ? { confidence: CONFIDENCE.misspelt, misspelt } : undefined;
}
