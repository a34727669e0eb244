import { posix } from 'node:path';

/** Options for turning a registry value into a path the caller can read. */
export interface PathOptions {
  /**
   * Prefix rewrites applied to absolute paths, longest prefix first, e.g.
   * `{ '/usr/share/openstack-tripleo-heat-templates/': '/src/tht/' }` so
   * environments that name the installed tree resolve into a checkout.
   */
  pathMap?: Readonly<Record<string, string>> | undefined;
}

const URL_PATTERN = /^[A-Za-z][A-Za-z0-9+.-]*:\/\//;

/** True for values with a URL scheme (`http://…`, `file:///…`). */
export function isUrl(value: string): boolean {
  return URL_PATTERN.test(value);
}

/** Converts Windows separators so every path is handled the POSIX way. */
export function toPosix(path: string): string {
  return path.replace(/\\/g, '/');
}

/** The directory paths in a file resolve against: its own directory, or `.` without a file name. */
export function baseDirOf(file: string | undefined): string {
  if (!file) return '.';
  return posix.dirname(toPosix(file));
}

/** Applies the longest matching prefix of `pathMap` to an absolute path. */
export function mapPath(path: string, pathMap: PathOptions['pathMap']): string {
  if (!pathMap) return path;
  let best: string | undefined;
  for (const prefix of Object.keys(pathMap)) {
    if (path.startsWith(prefix) && (best === undefined || prefix.length > best.length)) best = prefix;
  }
  if (best === undefined) return path;
  const target = pathMap[best] as string;
  const rest = path.slice(best.length);
  return target.endsWith('/') || rest.startsWith('/') || rest === ''
    ? `${target}${rest}`
    : `${target}/${rest}`;
}

/**
 * Resolves a template reference the way heatclient does for local files:
 * URLs stay as they are, `file://` URLs become their path, absolute paths
 * go through `pathMap`, and relative paths join the base directory
 * (`../x.yaml` climbs). The result is normalised.
 */
export function resolveReference(value: string, baseDir: string, options: PathOptions = {}): string {
  let text = toPosix(value);
  if (text.startsWith('file://')) text = decodeURIComponent(text.slice('file://'.length));
  else if (isUrl(text)) return value;
  else if (isUrl(baseDir) && !text.startsWith('/')) {
    // A base_url is joined with URL rules, as heatclient does (a base without a trailing slash loses its last segment).
    try {
      return resolveReference(new URL(text, baseDir).href, '.', options);
    } catch {
      return text;
    }
  }
  if (text.startsWith('/')) return posix.normalize(mapPath(text, options.pathMap));
  return posix.normalize(posix.join(toPosix(baseDir), text));
}

/** `target` as seen from `fromDir` (relative when both are on the same kind of path, else `target`). */
export function relativeTo(target: string, fromDir: string | undefined): string {
  if (fromDir === undefined || isUrl(target)) return target;
  const a = toPosix(target);
  const b = toPosix(fromDir);
  if (a.startsWith('/') !== b.startsWith('/')) return target;
  const rel = posix.relative(b, a);
  return rel === '' ? '.' : rel;
}
