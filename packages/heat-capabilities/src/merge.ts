import { createDiagnostic, type Diagnostic, type DiagnosticInit } from '@stackspec/core';
import type { Requirements } from './capabilities.js';
import {
  ENVIRONMENT_SECTIONS,
  type HeatEnvironment,
  pointerSegment,
  type RegistryEntry,
} from './environment.js';
import { isMapping, isTruthy } from './load.js';

/** Parameter types of HOT templates, which decide how `merge` combines values. */
export type ParameterType = 'string' | 'number' | 'json' | 'comma_delimited_list' | 'boolean';

/** Options of {@link mergeEnvironments}. */
export interface MergeEnvironmentsOptions {
  /**
   * `server` (default) merges as the Heat engine does with several `-e`
   * files: the registry one level deep, later keys winning, later nulls
   * ignored, a later `resources:` block replacing an earlier one, and
   * parameters combined with `parameter_merge_strategies`. `client` merges
   * as heatclient's `deep_update` does: mappings recursively, later wins,
   * a later null replaces a value but not a mapping.
   */
  strategy?: 'server' | 'client' | undefined;
  /**
   * Parameters the stack's templates declare, with their types. Heat only
   * merges declared parameters once a section is non-empty (later
   * undeclared keys are dropped). Without this, every parameter counts as
   * declared, its type guessed from the first value (text → string,
   * number, boolean, list → comma_delimited_list, mapping → json).
   */
  parameterTypes?: Readonly<Record<string, ParameterType>> | undefined;
}

/** Several environment files merged into one. */
export interface MergedEnvironment {
  /** The merged sections; registry template paths are resolved, `base_url` is dropped. */
  value: Record<string, unknown>;
  /** Merged requirements, key by key, the later file winning. */
  requires: Requirements;
  /** Classified registry entries of the merged registry, each with the index of the file it came from. */
  registry: (RegistryEntry & { origin: number })[];
  /** For each requirement key, the index of the file that set it. */
  requiresOrigin: Record<string, number>;
  /** The merged inputs, in order. */
  environments: readonly HeatEnvironment[];
}

/** Outcome of {@link mergeEnvironments}: the merge as far as it got, and every finding. */
export interface MergeEnvironmentsResult {
  ok: boolean;
  environment: MergedEnvironment;
  diagnostics: Diagnostic[];
}

const HEAT_STRATEGIES = ['overwrite', 'merge', 'deep_merge'];

function clone<T>(value: T): T {
  return value === undefined ? value : (JSON.parse(JSON.stringify(value)) as T);
}

function guessType(value: unknown): ParameterType {
  if (typeof value === 'number') return 'number';
  if (typeof value === 'boolean') return 'boolean';
  if (Array.isArray(value)) return 'comma_delimited_list';
  if (isMapping(value)) return 'json';
  return 'string';
}

class MergeFailure extends Error {
  constructor(readonly init: DiagnosticInit) {
    super(init.message);
  }
}

function mergeList(old: unknown, add: unknown, where: string): unknown {
  if (!isTruthy(old)) return add;
  if (Array.isArray(add)) {
    if (!Array.isArray(old)) throw new MergeFailure(typeClash(where, old, add));
    return [...old, ...add];
  }
  if (typeof old !== 'string' || typeof add !== 'string') throw new MergeFailure(typeClash(where, old, add));
  return `${old},${add}`;
}

function typeClash(where: string, old: unknown, add: unknown): DiagnosticInit {
  return {
    code: 'heat/merge/type-clash',
    message: `The values of '${where}' cannot be merged: ${kind(old)} and ${kind(add)} (Heat fails on this).`,
    hint: 'Use the overwrite strategy for this parameter, or give every file the same kind of value.',
  };
}

function kind(v: unknown): string {
  if (Array.isArray(v)) return 'a list';
  if (isMapping(v)) return 'a mapping';
  if (v === null) return 'null';
  return `a ${typeof v}`;
}

function mergeMap(old: unknown, add: Record<string, unknown>, deep: boolean, where: string): unknown {
  if (!isTruthy(old)) return add;
  if (!isMapping(old)) throw new MergeFailure(typeClash(where, old, add));
  for (const [k, v] of Object.entries(add)) {
    if (v === null || v === undefined) continue;
    if (!deep) old[k] = v;
    else if (isMapping(v)) old[k] = isTruthy(old[k]) ? mergeMap(old[k], v, true, `${where}.${k}`) : v;
    else if (Array.isArray(v)) old[k] = isTruthy(old[k]) ? mergeList(old[k], v, `${where}.${k}`) : v;
    else if (typeof v === 'string') {
      const prev = old[k] ?? '';
      if (typeof prev !== 'string') throw new MergeFailure(typeClash(`${where}.${k}`, prev, v));
      old[k] = prev + v;
    } else old[k] = v;
  }
  return old;
}

function parseForMerge(value: unknown, type: ParameterType): unknown {
  if (type === 'json') {
    const text = typeof value === 'string' ? value : JSON.stringify(value);
    if (!text) return text;
    try {
      return JSON.parse(text);
    } catch (e) {
      throw new MergeFailure({
        code: 'heat/merge/invalid-parameter',
        message: `Invalid parameter in environment ${(e as Error).message}.`,
        hint: 'A json parameter merged from text must hold a JSON object.',
      });
    }
  }
  if (typeof value !== 'string' && !Array.isArray(value)) {
    throw new MergeFailure({
      code: 'heat/merge/invalid-parameter',
      message: 'Invalid parameter in environment .',
      hint: 'Heat merges only text and lists; numbers and booleans cannot use the merge strategies.',
    });
  }
  return value;
}

interface ParamState {
  strategies: Record<string, string>;
  types: Record<string, ParameterType>;
  declared: (key: string) => boolean;
}

function mergeParameters(
  old: Record<string, unknown>,
  add: Record<string, unknown>,
  fileStrategies: Record<string, unknown>,
  state: ParamState,
  fileName: string,
  warn: (init: DiagnosticInit) => void,
  section: string,
): Record<string, unknown> {
  const fileDefault = (fileStrategies.default as string | undefined) ?? 'overwrite';
  for (const [key, value] of Object.entries(add)) {
    if (!state.declared(key) || value === null || value === undefined) continue;
    if (!(key in state.types)) state.types[key] = guessType(value);
    let strategy = (fileStrategies[key] ?? state.strategies[key] ?? fileDefault) as string;
    if (!HEAT_STRATEGIES.includes(strategy)) strategy = fileDefault;
    if (!(key in state.strategies)) state.strategies[key] = strategy;
    else if (strategy !== state.strategies[key]) {
      throw new MergeFailure({
        code: 'heat/merge/conflicting-strategy',
        message: `Conflicting merge strategy '${strategy}' for parameter '${key}' in file '${fileName}'.`,
        path: `/parameter_merge_strategies/${pointerSegment(key)}`,
        hint: `An earlier file chose '${state.strategies[key]}'; every file must agree on one strategy per parameter.`,
      });
    }
  }
  if (!isTruthy(old)) return add;
  for (const [key, value] of Object.entries(add)) {
    if (value === null || value === undefined) continue;
    if (!state.declared(key)) {
      warn({
        code: 'heat/merge/undeclared-parameter-dropped',
        severity: 'warning',
        message: `'${key}' is not a parameter of the templates, so Heat drops this later value; the first file's value stays.`,
        path: `/${section}/${pointerSegment(key)}`,
      });
      continue;
    }
    const strategy = state.strategies[key];
    const type = state.types[key] ?? 'string';
    if (strategy === 'merge' || strategy === 'deep_merge') {
      const deep = strategy === 'deep_merge';
      const parsed = parseForMerge(value, type);
      if (type === 'json') old[key] = mergeMap(old[key] ?? {}, parsed as Record<string, unknown>, deep, key);
      else if (type === 'comma_delimited_list') old[key] = mergeList(old[key], parsed, key);
      else if (type === 'string') {
        const prev = old[key] ?? '';
        if (typeof prev !== 'string' || typeof parsed !== 'string')
          throw new MergeFailure(typeClash(key, prev, parsed));
        old[key] = prev + parsed;
      } else if (type === 'number') {
        throw new MergeFailure(typeClash(key, old[key] ?? 0, parsed));
      } else {
        throw new MergeFailure({
          code: 'heat/merge/invalid-strategy',
          message: `Invalid merge strategy 'merge' for parameter '${key}'.`,
          hint: 'Boolean parameters can only be overwritten.',
        });
      }
    } else {
      old[key] = value;
    }
  }
  return old;
}

function deepUpdate(old: unknown, add: Record<string, unknown>, where: string): Record<string, unknown> {
  const base: Record<string, unknown> =
    old === null || old === undefined ? {} : (old as Record<string, unknown>);
  if (!isMapping(base)) {
    throw new MergeFailure({
      code: 'heat/merge/type-clash',
      message: `heatclient cannot merge the mapping '${where}' over ${kind(old)}.`,
    });
  }
  for (const [k, v] of Object.entries(add)) {
    if (isMapping(v)) base[k] = deepUpdate(base[k] ?? {}, v, where ? `${where}.${k}` : k);
    else if (v === null && isMapping(base[k])) continue;
    else base[k] = v;
  }
  return base;
}

/** The registry of one environment with template paths replaced by their resolved form. */
function resolvedRegistry(env: HeatEnvironment): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const entry of env.registry) {
    if (entry.kind === 'base-url' || entry.kind === 'ignored') continue;
    let value: unknown = entry.value;
    if (entry.kind === 'template' && entry.target !== entry.type) value = entry.resolved;
    else if (entry.kind === 'candidates') value = entry.candidates?.map((c) => c.resolved ?? c.value);
    else if (entry.kind === 'remove') value = null;
    let node = out;
    for (const k of entry.path.slice(0, -1)) {
      if (!isMapping(node[k])) node[k] = {};
      node = node[k] as Record<string, unknown>;
    }
    node[entry.type] = clone(value);
  }
  // Nested mappings Heat ignores still travel with the environment.
  const raw = env.value.resource_registry;
  if (isMapping(raw)) {
    for (const entry of env.registry) {
      if (entry.kind === 'ignored' && entry.path.length === 1) out[entry.type] = clone(raw[entry.type]);
    }
  }
  return out;
}

function entriesUnder(env: HeatEnvironment, prefix: readonly string[]): RegistryEntry[] {
  return env.registry.filter((e) => prefix.every((k, i) => e.path[i] === k) && e.kind !== 'base-url');
}

/**
 * Merges environment files in order, as Heat does (later wins), with the
 * server's quirks by default and heatclient's client-side merge as an
 * option. Template paths were already resolved against each file's own
 * directory when the files were parsed, so the merged registry refers to
 * the right files whatever their directories. `requires` merges key by
 * key, the later file winning.
 *
 * Quirks of the server merge are reported as warnings: a later
 * `resources:` block replacing an earlier one (its hooks are lost), a later
 * null that does not remove an entry, and later values of undeclared
 * parameters being dropped. A second `event_sinks` or
 * `encrypted_param_names` list, conflicting merge strategies and values
 * that cannot be merged are errors (Heat fails on them).
 *
 * Codes: `heat/merge/resources-replaced`, `heat/merge/null-ignored`,
 * `heat/merge/undeclared-parameter-dropped` (warnings);
 * `heat/merge/list-section-twice`, `heat/merge/conflicting-strategy`,
 * `heat/merge/invalid-parameter`, `heat/merge/invalid-strategy`,
 * `heat/merge/type-clash` (errors).
 *
 * @example
 * const merged = mergeEnvironments([parseEnvironment(a, { filename: 'a.yaml' }), parseEnvironment(b, { filename: 'b.yaml' })]);
 * merged.environment.value.resource_registry;
 */
export function mergeEnvironments(
  envs: readonly HeatEnvironment[],
  options: MergeEnvironmentsOptions = {},
): MergeEnvironmentsResult {
  const strategy = options.strategy ?? 'server';
  const diagnostics: Diagnostic[] = [];
  const value: Record<string, unknown> = {};
  const requires: Requirements = {};
  const requiresOrigin: Record<string, number> = {};
  const registryOrigin = new Map<string, number>();
  const resourcesOrigin = new Map<string, number>();
  const declaredTypes = options.parameterTypes;
  const state: ParamState = {
    strategies: {},
    types: declaredTypes ? { ...declaredTypes } : {},
    declared: (key) => (declaredTypes ? key in declaredTypes : true),
  };

  envs.forEach((env, index) => {
    const file = env.file ?? `environment ${index + 1}`;
    const at = (init: DiagnosticInit): Diagnostic =>
      env.document
        ? env.document.diagnostic(init)
        : createDiagnostic({ ...init, ...(env.file ? { file: env.file } : {}) });
    const report = (init: DiagnosticInit) => diagnostics.push(at(init));
    for (const [key, raw] of Object.entries(env.requires)) {
      requires[key] = raw;
      requiresOrigin[key] = index;
    }
    const strategies = isMapping(env.value.parameter_merge_strategies)
      ? env.value.parameter_merge_strategies
      : {};
    try {
      if (strategy === 'client') {
        // heatclient deep-updates whole documents, after rewriting registry paths.
        const whole: Record<string, unknown> = clone(env.value);
        delete whole.requires;
        const reg = isMapping(env.value.resource_registry) ? resolvedRegistry(env) : undefined;
        if (reg) whole.resource_registry = reg;
        const before = value.resource_registry;
        for (const [key, v] of Object.entries(reg ?? {})) {
          if (key === 'resources' && isMapping(v)) {
            for (const [name, body] of Object.entries(v)) {
              if (!isMapping(body)) continue;
              for (const [k, x] of Object.entries(body)) {
                const prior =
                  isMapping(before) && isMapping(before.resources) ? before.resources[name] : undefined;
                if (x !== null || !(isMapping(prior) && isMapping(prior[k])))
                  resourcesOrigin.set(`${name}\u0000${k}`, index);
              }
            }
          } else if (!(v === null && isMapping(before) && isMapping(before[key]))) {
            registryOrigin.set(key, index);
          }
        }
        // After the origins: they look at the registry as it was before this file.
        deepUpdate(value, whole, '');
        return;
      }
      // Sections merge in the order the file writes them, as Heat walks the parsed mapping.
      for (const section of Object.keys(env.value)) {
        if (
          section === 'parameter_merge_strategies' ||
          !(ENVIRONMENT_SECTIONS as readonly string[]).includes(section)
        )
          continue;
        const raw = env.value[section];
        if (raw === null || raw === undefined) continue;
        // Server: sections that are empty in a file are skipped.
        if (!isTruthy(raw)) continue;
        if (section === 'parameters' || section === 'parameter_defaults') {
          value[section] = mergeParameters(
            (value[section] as Record<string, unknown>) ?? {},
            clone(raw) as Record<string, unknown>,
            strategies,
            state,
            file,
            report,
            section,
          );
        } else if (section === 'event_sinks' || section === 'encrypted_param_names') {
          if (isTruthy(value[section])) {
            report({
              code: 'heat/merge/list-section-twice',
              message: `The ${section} section appears in more than one environment file; Heat cannot merge two of them.`,
              path: `/${section}`,
              hint: 'Put every entry in one file.',
            });
          } else {
            value[section] = clone(raw);
          }
        } else {
          const reg = resolvedRegistry(env);
          const merged = (value[section] as Record<string, unknown> | undefined) ?? {};
          if (!isTruthy(merged)) {
            value[section] = reg;
            for (const key of Object.keys(reg)) registryOrigin.set(key, index);
          } else {
            for (const [key, v] of Object.entries(reg)) {
              if (v === null) {
                if (key in merged) {
                  report({
                    code: 'heat/merge/null-ignored',
                    severity: 'warning',
                    message: `'${key}: null' does not remove the mapping from an earlier file when Heat merges environments on the server.`,
                    path: `/resource_registry/${pointerSegment(key)}`,
                    hint: 'Map the type to OS::Heat::None to disable it instead.',
                  });
                }
                continue;
              }
              if (
                key === 'resources' &&
                isMapping(merged.resources) &&
                Object.keys(merged.resources).length
              ) {
                report({
                  code: 'heat/merge/resources-replaced',
                  severity: 'warning',
                  message:
                    'This resources: block replaces the one from an earlier file as a whole when Heat merges on the server; its hooks and per-resource mappings are lost.',
                  path: '/resource_registry/resources',
                  hint: 'Keep every per-resource setting in one file.',
                });
              }
              merged[key] = v;
              registryOrigin.set(key, index);
            }
          }
        }
      }
    } catch (e) {
      if (!(e instanceof MergeFailure)) throw e;
      report(e.init);
    }
  });

  const registry: (RegistryEntry & { origin: number })[] = [];
  for (const [key, origin] of registryOrigin) {
    const env = envs[origin] as HeatEnvironment;
    if (key === 'resources' && strategy === 'client') continue;
    for (const entry of entriesUnder(env, [key])) registry.push({ ...entry, origin });
  }
  if (strategy === 'client') {
    for (const [pair, origin] of resourcesOrigin) {
      const [name, k] = pair.split('\u0000') as [string, string];
      const env = envs[origin] as HeatEnvironment;
      for (const entry of entriesUnder(env, ['resources', name, k])) registry.push({ ...entry, origin });
    }
  }
  if (Object.keys(requires).length) value.requires = { ...requires };
  return {
    ok: !diagnostics.some((d) => d.severity === 'error'),
    environment: { value, requires, registry, requiresOrigin, environments: envs },
    diagnostics,
  };
}
