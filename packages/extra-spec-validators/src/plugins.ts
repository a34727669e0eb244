import { isAbsolute, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createDiagnostic, type Diagnostic, describeError, isStackspecError } from '@stackspec/core';
import {
  defineExtraSpec,
  type ExtraSpecDefinition,
  type ExtraSpecInput,
  isExtraSpecDefinition,
} from './define.js';
import { optionsOf } from './guards.js';
import { discoverPlugins } from './plugin-discovery.js';
import type { ExtraSpecPlugin } from './registry.js';

/** The `package.json` field kind plugins declare: `"stackspec": { "extraSpecValidators": "./validators.js" }`. */
export const PLUGIN_KIND = 'extraSpecValidators';

/** Options for {@link loadExtraSpecPlugins}. */
export interface LoadExtraSpecPluginsOptions {
  /** Project whose dependencies are searched for plugins (omit to search none). */
  root?: string;
  /** Plugin modules to load explicitly (paths or package names). */
  modules?: readonly string[];
  /**
   * Directory that relative module paths are resolved against, and that
   * plugin paths are shown relative to in names and diagnostics (default:
   * `root`, else the current directory).
   */
  cwd?: string;
  /** Module loader, for tests and bundlers (default: dynamic import). */
  importModule?: (url: string) => Promise<unknown>;
}

/** Outcome of {@link loadExtraSpecPlugins}. */
export interface LoadExtraSpecPluginsResult {
  plugins: ExtraSpecPlugin[];
  /** Plugins that failed to load, exports that are not definitions, malformed definitions (all warnings: the plugin or entry is skipped). */
  diagnostics: Diagnostic[];
}

function looksLikePath(spec: string): boolean {
  return isAbsolute(spec) || spec.startsWith('.') || /[\\/]/.test(spec.replace(/^@[^/]+\//, ''));
}

/** A path as shown to users: relative to `base`, with forward slashes. */
function shownPath(base: string, file: string): string {
  const rel = relative(base, file).split(sep).join('/');
  if (rel === '' || isAbsolute(rel)) return file;
  return rel.startsWith('../') ? rel : `./${rel}`;
}

/**
 * The first line of a reason, its brackets kept balanced: Node appends its
 * require stack on later lines, and names the importing file (ours, which
 * means nothing to the user) after "imported from".
 */
function firstLine(reason: string): string {
  const line = (reason.split(/\r?\n/)[0] ?? '').replace(/ imported from \S+$/, '');
  const open = (line.match(/\(/g) ?? []).length - (line.match(/\)/g) ?? []).length;
  return `${line.trimEnd()}${')'.repeat(Math.max(0, open))}`;
}

const DEFINITION_MESSAGE = /^The definition of (.+?) is not valid:/;

/** What a plugin module may export, in order of preference. */
function exportedSpecs(module: unknown): unknown {
  const m = module as Record<string, unknown>;
  if (Array.isArray(m.extraSpecs)) return m.extraSpecs;
  if (typeof m.register === 'function') return (m.register as () => unknown)();
  const d = m.default as Record<string, unknown> | unknown[] | undefined;
  if (Array.isArray(d)) return d;
  if (d && typeof d === 'object') {
    if (Array.isArray(d.extraSpecs)) return d.extraSpecs;
    if (typeof d.register === 'function') return (d.register as () => unknown)();
  }
  return undefined;
}

/**
 * Finds and loads out-of-tree extra spec definitions, the counterpart of
 * Nova's `nova.api.extra_spec_validators` entry points. A plugin is a
 * dependency whose `package.json` has `"stackspec": { "extraSpecValidators":
 * "./path.js" }`, or a module named in `modules`. The module exports its
 * definitions as `extraSpecs` (an array), a `register()` function returning
 * one (as Nova's modules do), or a default export of either; entries may be
 * results of `defineExtraSpec` or plain objects of the same shape.
 *
 * Never throws for a bad plugin: it is skipped and reported in
 * `diagnostics` (`extra-specs/plugin/load-failed`, `extra-specs/bad-plugin`,
 * `extra-specs/bad-definition`, all warnings). Pass the plugins to
 * {@link createExtraSpecRegistry}, which ranks them below the built-ins and
 * reports any that redefine a built-in name.
 *
 * @example
 * const { plugins, diagnostics } = await loadExtraSpecPlugins({ root: process.cwd() });
 * const registry = createExtraSpecRegistry({ plugins });
 */
export async function loadExtraSpecPlugins(
  options: LoadExtraSpecPluginsOptions = {},
): Promise<LoadExtraSpecPluginsResult> {
  options = optionsOf(options, 'loadExtraSpecPlugins');
  const base = resolve(options.cwd ?? options.root ?? process.cwd());
  // Paths go to discovery resolved, and come back under the name users know them by.
  const shown = new Map<string, string>();
  const modules = (options.modules ?? []).map((spec) => {
    if (!looksLikePath(spec)) return spec;
    const file = resolve(base, spec);
    shown.set(file, shownPath(base, file));
    return file;
  });
  const nameOf = (name: string) => shown.get(name) ?? (isAbsolute(name) ? shownPath(base, name) : name);
  // A module that throws one of our errors while loading (a defineExtraSpec
  // call at its top level, typically) carries every problem; keep them.
  const load = options.importModule ?? ((url: string) => import(url));
  const thrown: { url: string; error: unknown }[] = [];
  const found = await discoverPlugins({
    kind: PLUGIN_KIND,
    ...(options.root !== undefined ? { root: options.root } : {}),
    ...(modules.length ? { modules } : {}),
    importModule: async (url) => {
      try {
        return await load(url);
      } catch (e) {
        thrown.push({ url, error: e });
        throw e;
      }
    },
  });

  const diagnostics: Diagnostic[] = [];
  for (const f of found.failures) {
    const name = nameOf(f.name);
    // A package that cannot be found has no file yet; its name stands in for one.
    const file = name;
    const at = thrown.findIndex((t) => describeError(t.error) === f.reason);
    const error = at >= 0 ? thrown.splice(at, 1)[0]?.error : undefined;
    if (isStackspecError(error) && error.diagnostics.length) {
      const label = DEFINITION_MESSAGE.exec(error.message)?.[1];
      const what = label ? `its definition of ${label} is not valid` : 'it raised an error';
      for (const d of error.diagnostics) {
        diagnostics.push({
          ...d,
          severity: 'warning',
          file,
          message: `The plugin '${name}' could not be loaded: ${what}: ${d.message}`,
        });
      }
      continue;
    }
    diagnostics.push(
      createDiagnostic({
        code: f.diagnostic.code,
        severity: 'warning',
        file,
        message: `The plugin '${name}' (${PLUGIN_KIND}) could not be loaded: ${firstLine(f.reason)}`,
        ...(f.diagnostic.hint ? { hint: f.diagnostic.hint } : {}),
      }),
    );
  }

  const plugins: ExtraSpecPlugin[] = [];
  for (const loaded of found.plugins) {
    const name = nameOf(loaded.name);
    const file = shownPath(base, fileURLToPath(loaded.url));
    let list: unknown;
    try {
      list = exportedSpecs(loaded.module);
    } catch (e) {
      diagnostics.push(
        createDiagnostic({
          code: 'extra-specs/bad-plugin',
          severity: 'warning',
          file,
          message: `The plugin '${name}' failed while listing its extra specs: ${firstLine(describeError(e))}`,
        }),
      );
      continue;
    }
    if (!Array.isArray(list)) {
      diagnostics.push(
        createDiagnostic({
          code: 'extra-specs/bad-plugin',
          severity: 'warning',
          file,
          message: `The plugin '${name}' exports no extra specs.`,
          hint: 'Export `extraSpecs` (an array of definitions) or a `register()` function returning one.',
        }),
      );
      continue;
    }
    const specs: ExtraSpecDefinition[] = [];
    list.forEach((item, i) => {
      if (isExtraSpecDefinition(item)) {
        specs.push(item);
        return;
      }
      try {
        specs.push(defineExtraSpec(item as ExtraSpecInput));
      } catch (e) {
        if (!isStackspecError(e)) throw e;
        for (const d of e.diagnostics) {
          diagnostics.push({
            ...d,
            severity: 'warning',
            file,
            path: `/${i}${d.path}`,
            message: `Plugin '${name}', entry ${i}: ${d.message} The entry is skipped.`,
          });
        }
      }
    });
    plugins.push({ name, specs, file });
  }
  return { plugins, diagnostics };
}
