// A package's package.json as the export tests read it: the subpaths it
// declares and the typesVersions that old TypeScript resolves them through.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The parts of a package.json the export tests look at. */
export interface PackageManifest {
  exports: Record<string, unknown>;
  typesVersions: Record<string, Record<string, string[]>>;
}

/** Reads `<packageDir>/package.json`. */
export function readPackageManifest(packageDir: string): PackageManifest {
  return JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as PackageManifest;
}

/**
 * An export entry as JSON with every occurrence of `name` replaced by
 * `<name>`, so that the conditions and layout of two subpaths compare equal
 * when only their file names differ.
 */
export function exportLayout(entry: unknown, name: string): string {
  return JSON.stringify(entry).replaceAll(name, '<name>');
}
