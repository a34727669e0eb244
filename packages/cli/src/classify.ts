import { recogniseFile } from '@stackspec/core';
import { BUILTIN_CHECKERS } from './checkers.js';

/** The kinds of file `stackspec check` recognises: those of its built-in checkers. */
export const ARTIFACT_KINDS = [
  'flavor',
  'deploy-template',
  'image-spec',
  'heat-template',
  'heat-environment',
  'placement-inventory',
  'driver-steps',
  'stackspec-config',
] as const;
export type ArtifactKind = (typeof ARTIFACT_KINDS)[number];

/** What each kind is called in reports: the label of its checker. */
export const KIND_LABELS: Readonly<Record<ArtifactKind, string>> = Object.fromEntries(
  BUILTIN_CHECKERS.map((e) => [e.checker.kind, e.checker.label]),
) as Record<ArtifactKind, string>;

function recognise(value: unknown, file: string) {
  return recogniseFile(
    BUILTIN_CHECKERS.map((e) => e.checker),
    { path: file, document: { value } },
  );
}

/**
 * Recognises a parsed document by its shape (and its file name) with the
 * built-in checkers, the way a reader would: `heat_template_version` makes
 * a Heat template, a `validators` list an image validation spec,
 * `extra_specs` a flavor, `name` plus `steps` a deploy template, only
 * environment sections an environment, a `providers` list an inventory.
 * Returns `undefined` for anything else, misspellings included (such files
 * are listed as skipped, never as errors).
 */
export function classifyDocument(value: unknown, file: string): ArtifactKind | undefined {
  const found = recognise(value, file);
  return found && !found.recognition.misspelt ? (found.checker.kind as ArtifactKind) : undefined;
}

/** A top-level key that looks like a misspelling of the key that marks a kind. */
export interface NearMiss {
  /** What the file would be with the key spelt right. */
  kind: ArtifactKind;
  /** The key as written. */
  key: string;
  /** The key it most likely stands for. */
  expected: string;
}

/**
 * For a document {@link classifyDocument} does not recognise: the top-level
 * key that is most likely a misspelling of the key marking a kind
 * (`extra_spec` for `extra_specs`, `resource_registy` for
 * `resource_registry`), so that a typo does not hide a whole file. Only
 * close spellings count (a few edits, ignoring case) whose value has the
 * expected shape; an environment counts when every key is a section or
 * close to one. Returns `undefined` when nothing is close.
 */
export function findNearMiss(value: unknown): NearMiss | undefined {
  const found = recognise(value, '');
  const miss = found?.recognition.misspelt;
  if (!found || !miss) return undefined;
  return { kind: found.checker.kind as ArtifactKind, key: miss.key, expected: miss.expected };
}
