import {
  createDiagnostic,
  type Diagnostic,
  type DiscoverPluginsOptions,
  discoverPlugins,
  isStackspecError,
} from '@stackspec/core';
import {
  defineExtraSpec,
  type ExtraSpecDefinition,
  type ExtraSpecInput,
  isExtraSpecDefinition,
} from './define.js';
import type { ExtraSpecPlugin } from './registry.js';

/** The `package.json` field kind plugins declare: `"stackspec": { "extraSpecValidators": "./validators.js" }`. */
export const PLUGIN_KIND = 'extraSpecValidators';

/** Options for {@link loadExtraSpecPlugins}. */
export interface LoadExtraSpecPluginsOptions {
  /** Project whose dependencies are searched for plugins (omit to search none). */
  root?: string;
  /** Plugin modules to load explicitly (paths or package names). */
  modules?: readonly string[];
  /** Module loader, for tests and bundlers (default: dynamic import). */
  importModule?: DiscoverPluginsOptions['importModule'];
}

/** Outcome of {@link loadExtraSpecPlugins}. */
export interface LoadExtraSpecPluginsResult {
  plugins: ExtraSpecPlugin[];
  /** Plugins that failed to load, exports that are not definitions, malformed definitions (all warnings: the plugin or entry is skipped). */
  diagnostics: Diagnostic[];
}

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
 * `diagnostics` (`plugin/load-failed`, `extra-specs/bad-plugin`,
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
  const found = await discoverPlugins({
    kind: PLUGIN_KIND,
    ...(options.root !== undefined ? { root: options.root } : {}),
    ...(options.modules ? { modules: options.modules } : {}),
    ...(options.importModule ? { importModule: options.importModule } : {}),
  });
  const diagnostics: Diagnostic[] = found.failures.map((f) => f.diagnostic);
  const plugins: ExtraSpecPlugin[] = [];
  for (const loaded of found.plugins) {
    let list: unknown;
    try {
      list = exportedSpecs(loaded.module);
    } catch (e) {
      diagnostics.push(
        createDiagnostic({
          code: 'extra-specs/bad-plugin',
          severity: 'warning',
          message: `The plugin '${loaded.name}' failed while listing its extra specs: ${(e as Error).message ?? String(e)}`,
        }),
      );
      continue;
    }
    if (!Array.isArray(list)) {
      diagnostics.push(
        createDiagnostic({
          code: 'extra-specs/bad-plugin',
          severity: 'warning',
          message: `The plugin '${loaded.name}' exports no extra specs.`,
          hint: 'Export `extraSpecs` (an array of definitions) or a `register()` function returning one.',
        }),
      );
      continue;
    }
    const specs: ExtraSpecDefinition[] = [];
    list.forEach((item, i) => {
      if (isExtraSpecDefinition(item) && Object.isFrozen(item)) {
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
            path: `/${i}${d.path}`,
            message: `Plugin '${loaded.name}', entry ${i}: ${d.message} The entry is skipped.`,
          });
        }
      }
    });
    plugins.push({ name: loaded.name, specs });
  }
  return { plugins, diagnostics };
}
