import { stat } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { parseDocument, parseWithSchema, SpecError } from '@stackspec/core';
import { readTextFile } from '@stackspec/core/node';
import { z } from 'zod';

/** File names searched for, from the working directory upwards. */
export const CONFIG_FILE_NAMES = [
  'stackspec.config.yaml',
  'stackspec.config.yml',
  'stackspec.config.json',
] as const;

const KindOptionsSchema = z.strictObject({
  /** Turn checking of this kind of file off. */
  enabled: z.boolean().default(true),
});

/**
 * `stackspec.config.yaml`: how `stackspec check` treats a project.
 * Every key is optional; paths are relative to the config file.
 */
export const StackspecConfigSchema = z.strictObject({
  /** Glob patterns (fast-glob syntax) of files and folders to skip. */
  ignore: z.array(z.string().min(1)).default([]),
  extraSpecs: z
    .strictObject({
      enabled: z.boolean().default(true),
      mode: z.enum(['strict', 'permissive', 'off', 'nova']).default('strict'),
      /** Nova release whose catalog applies (`zed`, …); default the newest. */
      release: z.string().min(1).optional(),
      /** Modules or package names contributing out-of-tree validators. */
      plugins: z.array(z.string().min(1)).default([]),
      /** Also load every dependency of the config folder's package.json that declares validators. */
      discover: z.boolean().default(true),
    })
    .default({ enabled: true, mode: 'strict', plugins: [], discover: true }),
  deployTemplates: KindOptionsSchema.default({ enabled: true }),
  imageSpecs: z
    .strictObject({
      enabled: z.boolean().default(true),
      /** Folders where script paths of image specs are looked up, in order; default the spec's own folder. */
      resourceRoots: z.array(z.string().min(1)).default([]),
    })
    .default({ enabled: true, resourceRoots: [] }),
  heat: z
    .strictObject({
      enabled: z.boolean().default(true),
      /** Check that environment registry paths point at files. */
      checkPaths: z.boolean().default(true),
      /**
       * Absolute path prefixes to read elsewhere, e.g.
       * `/usr/share/openstack-tripleo-heat-templates/: .` so environments that
       * name the installed tree resolve into this checkout (targets relative
       * to the config file).
       */
      pathMap: z.record(z.string().min(1), z.string().min(1)).default({}),
    })
    .default({ enabled: true, checkPaths: true, pathMap: {} }),
  inventories: KindOptionsSchema.default({ enabled: true }),
  schedule: z
    .strictObject({
      /** The spec's `placement_req_required_member_prefix`, e.g. `reservation:`. */
      requiredMemberPrefix: z.string().min(1).optional(),
      /** The spec's `placement_req_default_forbidden_member_prefix` list, e.g. `[reservation:]`. */
      defaultForbiddenMemberPrefixes: z.array(z.string().min(1)).default([]),
      /**
       * Nova's `[scheduler]/enable_isolated_aggregate_filtering`: an aggregate
       * with metadata `trait:T: required` only takes flavors that require T.
       */
      isolateAggregates: z.boolean().default(false),
    })
    .default({ defaultForbiddenMemberPrefixes: [], isolateAggregates: false }),
});
export type StackspecConfig = z.infer<typeof StackspecConfigSchema>;

/** A config and where it came from. */
export interface LoadedConfig {
  config: StackspecConfig;
  /** The config file, or `undefined` when defaults apply. */
  file: string | undefined;
  /** Folder that relative paths in the config are resolved against. */
  baseDir: string;
}

/** The defaults: strict extra-spec checking, every kind on, nothing ignored. */
export function defaultConfig(): StackspecConfig {
  return StackspecConfigSchema.parse({});
}

// Whether a config is there, without opening it: a FIFO or a huge file by that name is found here
// and then refused, with the reason, by readConfigFile. A folder by that name is not a config.
async function exists(path: string): Promise<boolean> {
  try {
    return !(await stat(path)).isDirectory();
  } catch {
    return false;
  }
}

/** Largest config file read; a config is a few hundred bytes. */
const MAX_CONFIG_BYTES = 1024 * 1024;

/**
 * Finds and loads the project's config: `explicit` when given, otherwise the
 * first `stackspec.config.{yaml,yml,json}` from `cwd` upwards. A malformed
 * config throws `SpecError` with file, line and the offending key.
 */
export async function loadConfig(cwd: string, explicit?: string): Promise<LoadedConfig> {
  let file: string | undefined;
  if (explicit) {
    file = resolve(cwd, explicit);
    if (!(await exists(file))) {
      throw new SpecError(`The config file ${explicit} does not exist.`, { code: 'cli/config-not-found' });
    }
  } else {
    for (let dir = resolve(cwd); ; dir = dirname(dir)) {
      for (const name of CONFIG_FILE_NAMES) {
        if (await exists(join(dir, name))) {
          file = join(dir, name);
          break;
        }
      }
      if (file || dirname(dir) === dir) break;
    }
  }
  if (!file) return { config: defaultConfig(), file: undefined, baseDir: resolve(cwd) };
  return readConfigFile(file);
}

/**
 * Reads one config file; throws `SpecError` (`cli/bad-config`) with located
 * diagnostics when it is malformed, and with core's `fs/*` diagnostic when
 * it cannot be read (a FIFO, a device, over 1 MiB, no permission).
 */
export async function readConfigFile(file: string): Promise<LoadedConfig> {
  const read = readTextFile(file, { maxBytes: MAX_CONFIG_BYTES });
  if (!read.ok) {
    throw new SpecError(`The config file ${file} cannot be read.`, {
      code: 'cli/bad-config',
      diagnostics: [read.diagnostic],
    });
  }
  const text = read.text;
  try {
    const doc = parseDocument(text, { filename: file });
    const config = parseWithSchema(StackspecConfigSchema, doc.value === null ? {} : doc, {
      area: 'stackspec/config',
    });
    return { config, file, baseDir: dirname(file) };
  } catch (e) {
    const diagnostics = (e as { diagnostics?: never[] }).diagnostics;
    throw new SpecError(undefined, {
      code: 'cli/bad-config',
      ...(diagnostics ? { diagnostics } : {}),
      cause: e,
    });
  }
}

/**
 * Finds the config that governs each checked file: the nearest
 * `stackspec.config.*` in the file's folder or above, like `.editorconfig`.
 * Lookups are cached per folder. Files with no config above them get
 * `fallback`.
 */
export function createConfigResolver(fallback: LoadedConfig): (file: string) => Promise<LoadedConfig> {
  const byDir = new Map<string, Promise<LoadedConfig>>();
  const find = (dir: string): Promise<LoadedConfig> => {
    const hit = byDir.get(dir);
    if (hit) return hit;
    const found = (async () => {
      for (const name of CONFIG_FILE_NAMES) {
        const candidate = join(dir, name);
        if (candidate === fallback.file) return fallback;
        if (await exists(candidate)) return readConfigFile(candidate);
      }
      const parent = dirname(dir);
      return parent === dir ? fallback : find(parent);
    })();
    byDir.set(dir, found);
    return found;
  };
  return (file) => find(dirname(resolve(file)));
}

/**
 * The config for commands that read one cloud folder (`schedule`, `serve`):
 * `explicit` when given, otherwise the nearest config to `folder`, else the
 * one found from `cwd` upwards.
 */
export async function loadConfigForFolder(
  cwd: string,
  folder: string,
  explicit?: string,
): Promise<LoadedConfig> {
  const run = await loadConfig(cwd, explicit);
  return explicit ? run : createConfigResolver(run)(resolve(cwd, folder, CONFIG_FILE_NAMES[0]));
}
