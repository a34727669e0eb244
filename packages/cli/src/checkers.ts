import { dirname, relative, resolve, sep } from 'node:path';
import { CONFIDENCE, type FileChecker } from '@stackspec/core';
import { createNodeResourceReader } from '@stackspec/core/node';
import { deployTemplateChecker } from '@stackspec/deploy-templates';
import {
  type FlavorCheckOptions,
  flavorChecker,
  type ValidationMode,
} from '@stackspec/extra-spec-validators';
import {
  type HeatEnvironmentCheckOptions,
  heatEnvironmentChecker,
  heatTemplateChecker,
} from '@stackspec/heat-capabilities';
import { imageSpecChecker } from '@stackspec/image-validators';
import { inventoryChecker } from '@stackspec/placement-query';
import type { CheckerEntry } from './check.js';
import { driverStepsChecker } from './driver-steps.js';
import { registryFor } from './extra-spec-registry.js';

/** The config file itself, recognised by its name so that it is listed, not reported as unknown YAML. */
const configFileChecker: FileChecker = {
  kind: 'stackspec-config',
  label: 'stackspec config',
  recognise({ path }) {
    const base = path.split(/[\\/]/).pop() ?? path;
    return /^stackspec\.config\.(ya?ml|json)$/.test(base) ? { confidence: CONFIDENCE.name } : undefined;
  },
  check: () => [],
};

/** `entry`, typed by its checker's options (the list itself holds entries of any options). */
function entry<O>(e: CheckerEntry<O>): CheckerEntry {
  return e;
}

// The heat.pathMap targets are relative to the config; the checker's reader looks relative to the file.
function pathMapFor(pathMap: Record<string, string>, configDir: string, fileDir: string) {
  return Object.fromEntries(
    Object.entries(pathMap).map(([from, to]) => {
      const target = relative(fileDir, resolve(configDir, to)).split(sep).join('/');
      return [from, target ? `${target}/` : './'];
    }),
  );
}

/**
 * The checkers `stackspec check` runs, in the order that breaks a tie
 * between two equally sure claims: each spec package's own, the driver
 * steps files `stackspec schedule` reads, and the config file. Each entry
 * says which config section turns its kind off and builds the file's reader
 * and options from the config: image spec scripts under
 * `imageSpecs.resourceRoots` (default the spec's folder, confined), Heat
 * templates relative to the environment (not confined, as heatclient reads
 * them) with `heat.pathMap` and `heat.checkPaths`, flavors with the
 * configured mode, release and plugins.
 */
export const BUILTIN_CHECKERS: readonly CheckerEntry[] = [
  entry({ checker: configFileChecker }),
  entry({ checker: heatTemplateChecker, enabled: (c) => c.heat.enabled }),
  entry({
    checker: imageSpecChecker,
    enabled: (c) => c.imageSpecs.enabled,
    prepare: ({ absolutePath, config, baseDir }) => ({
      reader: createNodeResourceReader({
        roots: config.imageSpecs.resourceRoots.length
          ? config.imageSpecs.resourceRoots.map((r) => resolve(baseDir, r))
          : [dirname(absolutePath)],
      }),
    }),
  }),
  entry({ checker: driverStepsChecker, enabled: (c) => c.inventories.enabled }),
  entry<FlavorCheckOptions>({
    checker: flavorChecker,
    enabled: (c) => c.extraSpecs.enabled && c.extraSpecs.mode !== 'off',
    prepare: async ({ file, config, baseDir }) => {
      const choice = await registryFor(config, baseDir);
      const { release } = config.extraSpecs;
      return {
        options: {
          mode: config.extraSpecs.mode as ValidationMode,
          ...(choice.registry ? { registry: choice.registry } : release ? { release } : {}),
        },
        // Plugin problems are reported once, on the first flavor file checked.
        diagnostics: choice.pending.splice(0).map((d) => ({ ...d, file: d.file ?? file })),
      };
    },
  }),
  entry({ checker: deployTemplateChecker, enabled: (c) => c.deployTemplates.enabled }),
  entry({ checker: inventoryChecker, enabled: (c) => c.inventories.enabled }),
  entry<HeatEnvironmentCheckOptions>({
    checker: heatEnvironmentChecker,
    enabled: (c) => c.heat.enabled,
    prepare: ({ absolutePath, config, baseDir }) => {
      const dir = dirname(absolutePath);
      return {
        reader: createNodeResourceReader({ roots: [dir], confine: false }),
        options: {
          checkPaths: config.heat.checkPaths,
          pathMap: pathMapFor(config.heat.pathMap, baseDir, dir),
        },
      };
    },
  }),
];

/** The checkers `stackspec check` runs by default: {@link BUILTIN_CHECKERS}, in a list of their own. */
export function defaultCheckers(): CheckerEntry[] {
  return [...BUILTIN_CHECKERS];
}
