import { createDiagnostic, type Diagnostic, describeError } from '@stackspec/core';

/**
 * The field in a plugin's `package.json` that lists what it contributes:
 * `"stackspec": { "extraSpecValidators": "./dist/validators.js" }`. A value may
 * be one module path or a list of them, relative to the package root.
 */
export const PLUGIN_MANIFEST_FIELD = 'stackspec';

/** Options for {@link discoverPlugins}. */
export interface DiscoverPluginsOptions {
  /** The contribution to look for, e.g. `extraSpecValidators`. */
  kind: string;
  /**
   * Project root whose `package.json` dependencies are searched
   * (`dependencies`, `devDependencies`, `optionalDependencies`). Omit to
   * search no dependencies.
   */
  root?: string;
  /**
   * Modules to load explicitly: file paths (relative to `root` or the current
   * directory) or package names resolved from `root`.
   */
  modules?: readonly string[];
  /** Module loader; defaults to dynamic `import()`. Injectable for tests and bundlers. */
  importModule?: (url: string) => Promise<unknown>;
}

/** A plugin module that loaded. */
export interface LoadedPlugin {
  /** Package name, or the module path for explicit modules. */
  name: string;
  /** Absolute file URL of the loaded module. */
  url: string;
  /** The module namespace object. */
  module: unknown;
  origin: 'dependency' | 'explicit';
}

/** A plugin that could not be loaded; the host carries on without it. */
export interface PluginFailure {
  name: string;
  reason: string;
  diagnostic: Diagnostic;
}

/** Outcome of {@link discoverPlugins}. */
export interface DiscoverPluginsResult {
  plugins: LoadedPlugin[];
  failures: PluginFailure[];
}

interface Manifest {
  name?: unknown;
  dependencies?: Record<string, unknown>;
  devDependencies?: Record<string, unknown>;
  optionalDependencies?: Record<string, unknown>;
  [PLUGIN_MANIFEST_FIELD]?: unknown;
}

// Core's Node entry (and with it the file reader) is loaded when plugins are
// discovered, not when the package is imported: most importers validate
// flavors and never discover plugins, and keep a shorter cold start.
interface NodeApis {
  readTextFile: typeof import('@stackspec/core/node').readTextFile;
  isFile: (path: string) => boolean;
  realpath: (path: string) => string;
  createRequire: typeof import('node:module').createRequire;
  path: typeof import('node:path');
  pathToFileURL: typeof import('node:url').pathToFileURL;
  cwd: () => string;
}

async function loadNodeApis(): Promise<NodeApis> {
  const [reader, fs, module, path, url] = await Promise.all([
    import('@stackspec/core/node'),
    import('node:fs'),
    import('node:module'),
    import('node:path'),
    import('node:url'),
  ]);
  return {
    readTextFile: reader.readTextFile,
    isFile: (p) => {
      try {
        return fs.statSync(p, { throwIfNoEntry: false })?.isFile() === true;
      } catch {
        return false;
      }
    },
    realpath: (p) => fs.realpathSync(p),
    createRequire: module.createRequire,
    path,
    pathToFileURL: url.pathToFileURL,
    cwd: () => process.cwd(),
  };
}

// A package.json is a few kilobytes; a bound keeps a hostile one (or a FIFO in its place) harmless.
const MAX_MANIFEST_BYTES = 1024 * 1024;

async function readManifest(node: NodeApis, path: string): Promise<Manifest> {
  const read = node.readTextFile(path, { maxBytes: MAX_MANIFEST_BYTES });
  if (!read.ok) throw new Error(read.reason ?? read.diagnostic.message);
  const parsed: unknown = JSON.parse(read.text);
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new Error(`${path} does not hold a JSON object`);
  }
  return parsed as Manifest;
}

/**
 * Finds `node_modules/<name>/package.json` from `root` upwards, in the
 * folders Node searches. Only their existence is checked: asking Node to
 * resolve `<name>/package.json` would make it read the whole manifest, with
 * no bound (a gigabyte one ends the process).
 */
function findPackageDir(node: NodeApis, name: string, root: string): string | undefined {
  const { join } = node.path;
  const req = node.createRequire(join(root, 'package.json'));
  for (const base of req.resolve.paths(name) ?? []) {
    const dir = join(base, name);
    if (!node.isFile(join(dir, 'package.json'))) continue;
    try {
      // The real folder, as Node's resolver gives it (pnpm links packages into node_modules).
      return node.realpath(dir);
    } catch {
      return dir;
    }
  }
  return undefined;
}

function failure(name: string, reason: string, kind: string): PluginFailure {
  return {
    name,
    reason,
    diagnostic: createDiagnostic({
      code: 'extra-specs/plugin/load-failed',
      severity: 'warning',
      message: `The plugin '${name}' (${kind}) could not be loaded: ${reason}`,
      hint: 'The plugin is skipped; fix or remove it to silence this warning.',
    }),
  };
}

/**
 * Finds and loads plugin modules, the npm counterpart of Python entry points.
 *
 * A dependency of the project is a plugin for `kind` when its package.json
 * has `stackspec[kind]`. Explicit `modules` are loaded too. Dependencies are
 * visited in name order, explicit modules in the order given. A plugin that
 * fails to resolve, read or import is reported in `failures` with its name
 * and reason and never makes this function throw.
 *
 * Core's Node entry and Node's `fs`, `module`, `path` and `url` are
 * imported when this function first runs, not when the package is imported.
 *
 * @example
 * const { plugins, failures } = await discoverPlugins({ kind: 'extraSpecValidators', root: process.cwd() });
 */
export async function discoverPlugins(options: DiscoverPluginsOptions): Promise<DiscoverPluginsResult> {
  const node = await loadNodeApis();
  const { isAbsolute, join, resolve, sep } = node.path;
  const load = options.importModule ?? ((url: string) => import(url));
  const plugins: LoadedPlugin[] = [];
  const failures: PluginFailure[] = [];
  const kind = options.kind;
  const seen = new Set<string>();

  const tryLoad = async (name: string, file: string, origin: LoadedPlugin['origin']) => {
    const url = node.pathToFileURL(file).href;
    if (seen.has(url)) return;
    seen.add(url);
    try {
      plugins.push({ name, url, module: await load(url), origin });
    } catch (e) {
      failures.push(failure(name, describeError(e), kind));
    }
  };

  /** Loads what a package declares for `kind`; false when it declares nothing. */
  const loadDeclared = async (
    name: string,
    dir: string,
    origin: LoadedPlugin['origin'],
  ): Promise<boolean> => {
    let dep: Manifest;
    try {
      dep = await readManifest(node, join(dir, 'package.json'));
    } catch (e) {
      failures.push(failure(name, `its package.json could not be read (${describeError(e)})`, kind));
      return true;
    }
    const field = dep[PLUGIN_MANIFEST_FIELD];
    const entry =
      typeof field === 'object' && field !== null ? (field as Record<string, unknown>)[kind] : undefined;
    if (entry === undefined) return false;
    const paths = Array.isArray(entry) ? entry : [entry];
    if (!paths.every((p): p is string => typeof p === 'string' && p.length > 0)) {
      failures.push(
        failure(name, `"${PLUGIN_MANIFEST_FIELD}.${kind}" must be a path or a list of paths`, kind),
      );
      return true;
    }
    for (const p of paths) {
      const file = resolve(dir, p);
      if (file !== dir && !file.startsWith(`${dir}${sep}`)) {
        failures.push(failure(name, `the path '${p}' points outside the package`, kind));
        continue;
      }
      await tryLoad(name, file, origin);
    }
    return true;
  };

  if (options.root) {
    const root = resolve(options.root);
    let manifest: Manifest | undefined;
    try {
      manifest = await readManifest(node, join(root, 'package.json'));
    } catch (e) {
      failures.push(
        failure(root, `the project's package.json could not be read (${describeError(e)})`, kind),
      );
    }
    const deps = new Set<string>();
    for (const field of ['dependencies', 'devDependencies', 'optionalDependencies'] as const) {
      const group = manifest?.[field];
      if (group && typeof group === 'object') for (const name of Object.keys(group)) deps.add(name);
    }
    for (const name of [...deps].sort()) {
      const dir = findPackageDir(node, name, root);
      // A dependency that is not installed cannot declare anything; skip it.
      if (dir) await loadDeclared(name, dir, 'dependency');
    }
  }

  const base = options.root ? resolve(options.root) : node.cwd();
  for (const spec of options.modules ?? []) {
    const looksLikePath =
      isAbsolute(spec) || spec.startsWith('.') || /[\\/]/.test(spec.replace(/^@[^/]+\//, ''));
    if (looksLikePath) {
      await tryLoad(spec, resolve(base, spec), 'explicit');
      continue;
    }
    const dir = findPackageDir(node, spec, base);
    if (dir && (await loadDeclared(spec, dir, 'explicit'))) continue;
    let file: string;
    try {
      file = node.createRequire(join(base, 'package.json')).resolve(spec);
    } catch (e) {
      failures.push(failure(spec, `it could not be resolved from ${base} (${describeError(e)})`, kind));
      continue;
    }
    await tryLoad(spec, file, 'explicit');
  }
  return { plugins, failures };
}
