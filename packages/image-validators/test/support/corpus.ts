import { mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { parseDocument } from '@stackspec/core';
import { sharedAvailable, sharedPath } from '../../../../test-support/shared.js';

/** Where the shared Sahara corpus lives: `corpus/sahara` in the shared folder (`../shared`, or `STACKSPEC_SHARED`). */
export const CORPUS_DIR = sharedPath('corpus', 'sahara');

/**
 * Whether the corpus is present, for `describe.runIf`: skips with the reason
 * printed, and fails when STACKSPEC_REQUIRE_ORACLES is set (CI).
 */
export function corpusAvailable(): boolean {
  return sharedAvailable('Sahara corpus', 'corpus', 'sahara');
}

/** Every image.yaml under the corpus (current and historical), sorted. */
export function corpusFiles(dir = CORPUS_DIR): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (name === 'image.yaml') out.push(p);
    }
  };
  walk(dir);
  return out.sort();
}

/** Script and copy_script paths a raw spec refers to (not inline ones). */
export function scriptPaths(value: unknown): string[] {
  const out = new Set<string>();
  const visit = (v: unknown) => {
    if (Array.isArray(v)) {
      for (const x of v) visit(x);
      return;
    }
    if (!v || typeof v !== 'object') return;
    for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
      if (k === 'script' || k === 'copy_script') {
        if (typeof x === 'string') out.add(x);
        else if (x && typeof x === 'object' && !Array.isArray(x)) {
          const [name, props] = Object.entries(x as Record<string, unknown>)[0] ?? [];
          if (name && !(props && typeof props === 'object' && 'inline' in (props as object))) out.add(name);
        }
      } else visit(x);
    }
  };
  visit(value);
  return [...out];
}

/** The marker line a stand-in script carries, so simulated machines can tell scripts apart. */
export function standInMarker(path: string): string {
  return `# stand-in: ${path}`;
}

/**
 * Copies a corpus spec into a fresh resource root and writes a stand-in for
 * every script it names. Returns the spec path inside the root.
 */
export function prepareCorpusSpec(
  specFile: string,
  base = mkdtempSync(join(tmpdir(), 'siv-corpus-')),
): {
  root: string;
  spec: string;
  scripts: string[];
  name: string;
} {
  const text = readFileSync(specFile, 'utf8');
  const name = relative(CORPUS_DIR, specFile);
  const root = join(base, name.replace(/[^A-Za-z0-9_.-]+/g, '_').replace(/_image\.yaml$/, ''));
  mkdirSync(root, { recursive: true });
  const spec = join(root, 'image.yaml');
  writeFileSync(spec, text);
  const scripts = scriptPaths(parseDocument(text).value);
  for (const s of scripts) {
    mkdirSync(dirname(join(root, s)), { recursive: true });
    writeFileSync(join(root, s), `#!/bin/bash\n${standInMarker(s)}\nexit 0\n`);
  }
  return { root, spec, scripts, name };
}
