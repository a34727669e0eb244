import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

// Deep enough for src/cli/program.ts and dist/bin/x.js; a package never nests its modules deeper.
const MAX_LEVELS = 6;
const found = new Map<string, string>();

/**
 * The `version` of the package named `name`, read at run time from its
 * `package.json`: the first one named `name` found from the folder of
 * `moduleUrl` upwards. Pass the module's own `import.meta.url`; that works
 * from the sources (`src/cli.ts`), from a build (`dist/bin/x.js`, `.cjs`
 * included, where tsup shims `import.meta.url`) and from an installed
 * tarball alike, and the version never drifts from the manifest as a
 * hard-coded string would. Returns `'unknown'` when no such manifest is
 * found (a bundler that inlined the module elsewhere); never throws.
 *
 * @example
 * program.version(readPackageVersion(import.meta.url, '@stackspec/heat-capabilities'));
 */
export function readPackageVersion(moduleUrl: string | URL, name: string): string {
  const key = `${String(moduleUrl)}\u0000${name}`;
  const cached = found.get(key);
  if (cached !== undefined) return cached;
  let version = 'unknown';
  try {
    let dir = dirname(fileURLToPath(moduleUrl));
    for (let level = 0; level <= MAX_LEVELS; level += 1) {
      const manifest = readManifest(join(dir, 'package.json'));
      if (manifest?.name === name && typeof manifest.version === 'string') {
        version = manifest.version;
        break;
      }
      const up = dirname(dir);
      if (up === dir) break;
      dir = up;
    }
  } catch {
    // Not a file: URL (a bundle evaluated from a string): no manifest to find.
  }
  found.set(key, version);
  return version;
}

function readManifest(file: string): { name?: unknown; version?: unknown } | undefined {
  try {
    const value: unknown = JSON.parse(readFileSync(file, 'utf8'));
    return value !== null && typeof value === 'object' ? value : undefined;
  } catch {
    return undefined;
  }
}
