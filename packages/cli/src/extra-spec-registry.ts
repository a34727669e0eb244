import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Diagnostic } from '@stackspec/core';
import {
  createExtraSpecRegistry,
  type ExtraSpecRegistry,
  loadExtraSpecPlugins,
} from '@stackspec/extra-spec-validators';
import type { StackspecConfig } from './config.js';

/** The registry a config asks for, and plugin problems not reported yet. */
export interface RegistryChoice {
  /** Undefined: the built-in catalog of the configured release applies. */
  registry?: ExtraSpecRegistry;
  /** Plugin problems; whoever reports them first empties the list. */
  pending: Diagnostic[];
}

// One registry per (config folder, plugins, release): plugins load once per run.
const registries = new Map<string, Promise<RegistryChoice>>();

/**
 * The extra spec registry for a config: the built-ins of its release plus
 * the plugins it lists (`extraSpecs.plugins`) and, unless
 * `extraSpecs.discover` is off, those the config folder's package.json
 * dependencies declare. Loaded once per folder and settings.
 */
export function registryFor(config: StackspecConfig, baseDir: string): Promise<RegistryChoice> {
  const { plugins, release } = config.extraSpecs;
  // Discovery reads the config folder's package.json; without one there is nothing to discover.
  const discover = config.extraSpecs.discover && existsSync(join(baseDir, 'package.json'));
  if (!plugins.length && !discover) {
    return Promise.resolve({ pending: [] });
  }
  const key = JSON.stringify([baseDir, plugins, release ?? null, discover]);
  let hit = registries.get(key);
  if (!hit) {
    hit = (async () => {
      const loaded = await loadExtraSpecPlugins({
        ...(discover ? { root: baseDir } : {}),
        cwd: baseDir,
        modules: plugins,
      });
      if (!loaded.plugins.length && !loaded.diagnostics.length) return { pending: [] };
      const registry = createExtraSpecRegistry({ plugins: loaded.plugins, ...(release ? { release } : {}) });
      return { registry, pending: [...loaded.diagnostics, ...registry.conflicts] };
    })();
    registries.set(key, hit);
  }
  return hit;
}
