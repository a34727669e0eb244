import {
  compilePythonRegex,
  createDiagnostic,
  type Diagnostic,
  isStackspecError,
  SpecError,
  translatePythonRegex,
} from '@stackspec/core';
import {
  BUILTIN_EXTRA_SPECS,
  definitionInRelease,
  extraSpecsForRelease,
  type ReleasedExtraSpec,
} from './catalog/index.js';
import {
  defineExtraSpec,
  type ExtraSpecDefinition,
  type ExtraSpecInput,
  type ExtraSpecParameter,
  isExtraSpecDefinition,
  type ValueRule,
} from './define.js';
import { optionsOf } from './guards.js';
import { createKeyIndex, createLookup, type KeyIndex } from './key-index.js';
import { createKeySuggester, type KeySuggester, suggestKeysByScan } from './key-suggest.js';
import { matchNamePattern } from './name-pattern.js';
import { createNameRegistry, type NameRegistry, type RegistryEntry } from './name-registry.js';
import { type NovaRelease, resolveRelease } from './releases.js';
import { type CompiledValueRule, compileValueRule } from './value-check.js';

/** Extra specs contributed from outside Nova (a scheduler filter's package, a deployment's own keys). */
export interface ExtraSpecPlugin {
  /** Who provides them (a package name); shown in conflict reports and docs. */
  name: string;
  specs: readonly ExtraSpecDefinition[];
  /** The module they came from, as shown to users; conflict reports point at it. */
  file?: string;
}

/** Options for {@link createExtraSpecRegistry}. */
export interface ExtraSpecRegistryOptions {
  /** Nova release whose built-in catalog is loaded (code name, series or version). Default: the newest. */
  release?: string | NovaRelease;
  /** Out-of-tree definitions; they rank below built-ins. */
  plugins?: readonly (ExtraSpecPlugin | ExtraSpecDefinition)[];
  /** Load the built-in catalog (default `true`). */
  builtins?: boolean;
}

/** One entry of a registry. */
export interface RegisteredExtraSpec {
  /** The name as registered in this release (placeholders included). */
  readonly name: string;
  readonly parameters: readonly ExtraSpecParameter[];
  readonly value: ValueRule;
  readonly definition: ExtraSpecDefinition;
  readonly origin: 'builtin' | 'plugin';
  /** The plugin that contributed it. */
  readonly source: string | undefined;
  /** Nova's name regex (Python syntax): the name with each placeholder replaced by its pattern. */
  readonly nameRegex: string;
}

/** What the hot path needs per entry (internal). */
export interface CompiledEntry extends RegisteredExtraSpec {
  /** `nameRegex` compiled with Python's full-match semantics. */
  readonly nameMatcher: RegExp;
  readonly checker: CompiledValueRule;
}

/** The result of looking a key up. */
export interface ExtraSpecMatch {
  readonly spec: RegisteredExtraSpec;
  /** Placeholder values taken from the key. */
  readonly params: Readonly<Record<string, string>>;
  /** True when the key is a template name written literally (`hw:numa_cpus.{num}`). */
  readonly template: boolean;
}

/**
 * A catalog of extra specs for one Nova release plus any plugins, indexed
 * for fast lookup. Build it once and reuse it: {@link validateExtraSpecs}
 * caches one per release.
 */
export interface ExtraSpecRegistry {
  readonly release: NovaRelease;
  /** Number of entries (built-ins and plugins). */
  readonly size: number;
  /** Every entry, built-ins first, each group in registration order. */
  entries(): readonly RegisteredExtraSpec[];
  /** The entry registered under exactly this name. */
  get(name: string): RegisteredExtraSpec | undefined;
  /**
   * Finds the entry for a concrete key, reading names literally (`.` is a
   * dot). A template name written as a key is found with `template: true`.
   */
  lookup(key: string): ExtraSpecMatch | undefined;
  /**
   * Known names close to a key, closest first (patterned names filled in),
   * at most `limit` (default 3). Keys longer than 255 characters, which Nova
   * cannot store, get none. Throws `SpecError` (`extra-specs/bad-option`)
   * for a limit that is not a whole number of 0 or more.
   */
  suggest(key: string, limit?: number): string[];
  /** Problems met while building: plugins redefining a name, and similar. */
  readonly conflicts: readonly Diagnostic[];
}

/** What the package's own code uses of a registry, beyond its public face (internal). */
export interface InternalRegistry extends ExtraSpecRegistry {
  /** Nova's lookup (names read as regular expressions, exact names first). */
  novaLookup(key: string): CompiledEntry | 'template' | undefined;
  /** Whether Nova would treat the text before the first `:` as one of its namespaces. */
  isOwnedNamespace(namespace: string): boolean;
  /** The compiled form of an entry. */
  compiled(spec: RegisteredExtraSpec): CompiledEntry;
  /** Like `lookup` without placeholder values: the entry, `'template'`, or `undefined`. */
  find(key: string): CompiledEntry | 'template' | undefined;
  /** What `suggest` answers, found by the straightforward scan the index must agree with (for tests). */
  suggestByScan(key: string, limit: number): string[];
}

/**
 * The internal face of a registry made by {@link createExtraSpecRegistry}
 * (by this or another copy of the package). Throws `SpecError`
 * (`extra-specs/bad-registry`) for any other object.
 */
export function internals(registry: ExtraSpecRegistry): InternalRegistry {
  const r = registry as Partial<InternalRegistry> | null | undefined;
  if (!r || typeof r.novaLookup !== 'function' || typeof r.find !== 'function') {
    throw new SpecError('The registry was not made by createExtraSpecRegistry.', {
      code: 'extra-specs/bad-registry',
    });
  }
  return registry as InternalRegistry;
}

function pythonNameRegex(name: string, parameters: readonly ExtraSpecParameter[]): string {
  let out = name;
  for (const p of parameters) out = out.split(`{${p.name}}`).join(`(?P<${p.name}>${p.pattern})`);
  return out;
}

/** The namespace a name is documented under: text before `:`, with any `{placeholder}` removed. */
export function docNamespace(name: string): string {
  const colon = name.indexOf(':');
  if (colon < 0) return '';
  const ns = name.slice(0, colon);
  const brace = ns.indexOf('{');
  return brace < 0 ? ns : ns.slice(0, brace);
}

function jsParams(parameters: readonly ExtraSpecParameter[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const p of parameters) out[p.name] = translatePythonRegex(p.pattern);
  return out;
}

/** Longest key Nova's API stores. */
export const MAX_KEY_LENGTH = 255;

const SIMPLE_NAMESPACE = /^[A-Za-z0-9_-]*$/;
const REGEX_META = new Set(['\\', '^', '$', '.', '|', '?', '*', '+', '(', ')', '[', ']', '{', '}']);

/** The text every string matching a Python pattern starts with, when the pattern has no alternation. */
function literalHeadOf(source: string): string {
  if (source.includes('|')) return '';
  let i = 0;
  while (i < source.length && !REGEX_META.has(source[i] as string)) i += 1;
  if (i < source.length && '?*{'.includes(source[i] as string)) i = Math.max(0, i - 1);
  return source.slice(0, i);
}

function indexPatterns(reg: NameRegistry<CompiledEntry>, layers: readonly string[]): KeyIndex<CompiledEntry> {
  const shared = new Map<string, RegExp>();
  return createKeyIndex(
    reg
      .entries()
      .filter((e) => e.pattern.isPattern)
      .map((e) => {
        const { prefix, suffix } = e.pattern;
        const only =
          e.value.parameters.length === 1 ? (e.value.parameters[0] as ExtraSpecParameter) : undefined;
        let middle: RegExp | undefined;
        if (only && e.name === `${prefix}{${only.name}}${suffix}`) {
          const source = translatePythonRegex(only.pattern);
          middle = shared.get(source);
          if (!middle) {
            middle = new RegExp(`^(?:${source})$`, 'u');
            shared.set(source, middle);
          }
        }
        return {
          value: e.value,
          head: prefix,
          tail: suffix,
          regex: e.pattern.regex,
          ...(middle ? { middle } : {}),
          rank: layers.indexOf(e.layer),
        };
      }),
  );
}

/**
 * A definition as given in code: kept when `defineExtraSpec` made it, checked
 * by it otherwise, so a plain object gets the same refusals, pointed at
 * `at` (`/plugins/0/specs/2`).
 */
function definedAt(item: unknown, at: string): ExtraSpecDefinition {
  if (isExtraSpecDefinition(item)) return item;
  try {
    return defineExtraSpec(item as ExtraSpecInput);
  } catch (e) {
    if (!isStackspecError(e)) throw e;
    const label = `plugins${at
      .split('/')
      .slice(2)
      .map((seg) => (/^\d+$/.test(seg) ? `[${seg}]` : `.${seg}`))
      .join('')}`;
    throw new SpecError(`${label}: ${e.message}`, {
      code: e.code,
      diagnostics: e.diagnostics.map((d) => ({ ...d, path: `${at}${d.path}` })),
      cause: e,
    });
  }
}

function normalisePlugins(list: readonly (ExtraSpecPlugin | ExtraSpecDefinition)[]): ExtraSpecPlugin[] {
  if (!Array.isArray(list)) {
    throw new SpecError('The plugins option must be a list of plugins or definitions.', {
      code: 'extra-specs/bad-plugin',
    });
  }
  const out: ExtraSpecPlugin[] = [];
  let loose: ExtraSpecDefinition[] | undefined;
  list.forEach((item, i) => {
    const plugin = item as Partial<ExtraSpecPlugin> | null;
    if (plugin && typeof plugin === 'object' && Array.isArray(plugin.specs)) {
      if (typeof plugin.name !== 'string' || plugin.name === '') {
        throw new SpecError(`Plugin entry ${i} has specs but no name.`, {
          code: 'extra-specs/bad-plugin',
          diagnostics: [
            createDiagnostic({
              code: 'extra-specs/bad-plugin',
              path: `/plugins/${i}/name`,
              message: `Plugin entry ${i} has specs but no name.`,
              hint: "Name the plugin after its package: { name: 'acme-filters', specs: [...] }.",
            }),
          ],
        });
      }
      const specs = plugin.specs.map((spec, j) => definedAt(spec, `/plugins/${i}/specs/${j}`));
      out.push({ ...(plugin as ExtraSpecPlugin), specs });
    } else if (plugin && typeof plugin === 'object' && !Array.isArray(plugin)) {
      if (!loose) {
        loose = [];
        out.push({ name: 'code', specs: loose });
      }
      loose.push(definedAt(item, `/plugins/${i}`));
    } else {
      throw new SpecError(`Plugin entry ${i} is neither a definition nor { name, specs }.`, {
        code: 'extra-specs/bad-plugin',
      });
    }
  });
  return out;
}

/**
 * Builds a registry of the built-in catalog of one Nova release (default:
 * the newest) plus plugin definitions. Built-ins win over plugins: a plugin
 * that redefines a built-in name is ignored for that name and reported in
 * `conflicts` (`extra-specs/registry/shadowed`); two plugins defining one name keep the
 * first (`extra-specs/registry/duplicate`).
 *
 * Definitions not made by {@link defineExtraSpec} go through it here, so a
 * malformed one throws its `SpecError` (`extra-specs/bad-definition`, paths
 * under `/plugins/<i>`). Throws `SpecError` (`extra-specs/unknown-release`)
 * for an unknown release and (`extra-specs/bad-plugin`) for plugin entries
 * that are neither definitions nor `{ name, specs }`.
 *
 * @example
 * const registry = createExtraSpecRegistry({ release: 'zed' });
 * registry.size; // 490
 * registry.lookup('hw:numa_cpus.0')?.spec.name; // 'hw:numa_cpus.{num}'
 */
export function createExtraSpecRegistry(options: ExtraSpecRegistryOptions = {}): ExtraSpecRegistry {
  return createRegistry(optionsOf(options, 'createExtraSpecRegistry'));
}

function createRegistry(options: ExtraSpecRegistryOptions): InternalRegistry {
  const release = resolveRelease(options.release);
  const builtin = options.builtins === false ? [] : extraSpecsForRelease(release);
  const plugins = normalisePlugins(options.plugins ?? []);

  // Two indexes over the same entries: names read literally for our modes,
  // and read as regular expressions (Nova leaves `.` unescaped) for `nova`.
  const literal: NameRegistry<CompiledEntry> = createNameRegistry({ literal: 'escape', flags: 'u' });
  // `s` lets a literal `.` match any character but `\n`-free keys only reach
  // this index; keys holding `\n` take the exact scan in `novaLookup`.
  const regex: NameRegistry<CompiledEntry> = createNameRegistry({ literal: 'regex', flags: 'su' });
  const ordered: CompiledEntry[] = [];
  const conflicts: Diagnostic[] = [];
  const ownedLiteral = new Set<string>();
  const ownedPatterns: { value: true; head: string; tail: string; regex: RegExp }[] = [];
  const ownedSeen = new Set<string>();

  const add = (
    spec: ReleasedExtraSpec,
    origin: 'builtin' | 'plugin',
    source: string | undefined,
    file?: string,
  ) => {
    const nameRegex = pythonNameRegex(spec.name, spec.parameters);
    let entry: CompiledEntry;
    try {
      entry = {
        name: spec.name,
        parameters: spec.parameters,
        value: spec.value,
        definition: spec.definition,
        origin,
        source,
        nameRegex,
        nameMatcher: compilePythonRegex(nameRegex, 'fullmatch'),
        checker: compileValueRule(spec.value),
      };
    } catch (e) {
      conflicts.push(
        createDiagnostic({
          code: 'extra-specs/bad-definition',
          ...(file ? { file } : {}),
          path: `/${spec.name}`,
          message: `The definition of '${spec.name}'${source ? ` from ${source}` : ''} cannot be compiled: ${(e as Error).message}`,
        }),
      );
      return;
    }
    const params = jsParams(spec.parameters);
    const layer = origin === 'builtin' ? 'builtin' : 'plugin';
    const clash = literal.add({ name: spec.name, value: entry, params, layer, source });
    regex.add({ name: spec.name, value: entry, params, layer, source });
    if (clash) {
      conflicts.push(file ? { ...clash, file } : clash);
      if (clash.code === 'extra-specs/registry/shadowed' || clash.code === 'extra-specs/registry/duplicate')
        return;
    }
    ordered.push(entry);
    const colon = nameRegex.indexOf(':');
    if (colon >= 0) {
      const ns = nameRegex.slice(0, colon);
      if (!ownedSeen.has(ns)) {
        ownedSeen.add(ns);
        if (SIMPLE_NAMESPACE.test(ns)) ownedLiteral.add(ns);
        else
          ownedPatterns.push({
            value: true,
            head: literalHeadOf(ns),
            tail: '',
            regex: compilePythonRegex(ns, 'fullmatch'),
          });
      }
    }
  };

  for (const spec of builtin) add(spec, 'builtin', undefined);
  for (const plugin of plugins) {
    for (const def of plugin.specs) {
      const spec = definitionInRelease(def, release);
      if (spec) add(spec, 'plugin', plugin.name, plugin.file);
    }
  }

  const byName = new Map(ordered.map((e) => [e.name, e] as const));
  const layers = ['builtin', 'plugin'];
  const literalIndex = indexPatterns(literal, layers);
  const regexIndex = indexPatterns(regex, layers);
  const ownedIndex = createKeyIndex(ownedPatterns);

  // "Did you mean" compares a key with the names of the namespaces it could
  // belong to (its own, a misspelt one, or one in another case) rather than
  // with the whole catalog, through an index built on first use.
  let suggester: KeySuggester | undefined;
  let byNamespace: Map<string, NameRegistry<CompiledEntry>> | undefined;
  const suggestByScan = (key: string, limit: number): string[] => {
    if (!byNamespace) {
      byNamespace = new Map();
      for (const e of ordered) {
        const ns = docNamespace(e.name);
        let r = byNamespace.get(ns);
        if (!r) {
          r = createNameRegistry({ literal: 'escape', flags: 'u' });
          byNamespace.set(ns, r);
        }
        r.add({ name: e.name, value: e, params: jsParams(e.parameters) });
      }
    }
    return suggestKeysByScan(byNamespace, key, limit);
  };
  const suggestNames = (key: string, limit: number): string[] => {
    suggester ??= createKeySuggester(
      ordered.map((e) => ({
        name: e.name,
        namespace: docNamespace(e.name),
        pattern: (literal.get(e.name) as RegistryEntry<CompiledEntry>).pattern,
      })),
    );
    return suggester.suggest(key, limit) ?? suggestByScan(key, limit);
  };

  const find = (key: string): CompiledEntry | 'template' | undefined => {
    const exact = byName.get(key);
    if (exact && !exact.parameters.length) return exact;
    const hit = literalIndex.find(key);
    if (hit) return hit;
    return exact ? 'template' : undefined;
  };

  return {
    release,
    get size() {
      return ordered.length;
    },
    entries: () => ordered,
    get: (name) => (typeof name === 'string' ? byName.get(name) : undefined),
    lookup(key) {
      if (typeof key !== 'string') return undefined;
      const hit = find(key);
      if (hit === undefined) return undefined;
      if (hit === 'template') return { spec: byName.get(key) as CompiledEntry, params: {}, template: true };
      const m = literal.get(hit.name);
      const params = m ? (matchNamePattern(m.pattern, key) ?? {}) : {};
      return { spec: hit, params, template: hit.name === key && hit.parameters.length > 0 };
    },
    find,
    suggest: (key, limit = 3) => {
      if (!Number.isInteger(limit) || limit < 0) {
        throw new SpecError(
          `The suggestion limit must be a whole number of 0 or more, but it is ${String(limit)}.`,
          {
            code: 'extra-specs/bad-option',
          },
        );
      }
      // Keys Nova cannot store get no suggestion: comparing them with names
      // filled in from open-ended patterns would cost the square of their length.
      if (typeof key !== 'string' || key.length > MAX_KEY_LENGTH || limit === 0) return [];
      return suggestNames(key, limit);
    },
    suggestByScan: (key, limit) =>
      key.length > MAX_KEY_LENGTH || limit === 0 ? [] : suggestByScan(key, limit),
    conflicts,
    novaLookup(key) {
      const exact = byName.get(key);
      if (exact) {
        if (exact.parameters.length && !exact.nameMatcher.test(key)) return 'template';
        return exact;
      }
      if (key.indexOf('\n') >= 0) {
        for (const e of ordered) if (e.parameters.length && e.nameMatcher.test(key)) return e;
        return undefined;
      }
      return regexIndex.find(key);
    },
    isOwnedNamespace(namespace) {
      return ownedLiteral.has(namespace) || ownedIndex.find(namespace) === true;
    },
    compiled: (spec) => spec as CompiledEntry,
  };
}

/** Where a key sits in Nova's history, for hints about keys unknown in the chosen release. */
export interface KeyHistory {
  definition: ExtraSpecDefinition;
}

let allReleases: ((key: string) => ExtraSpecDefinition | undefined) | undefined;

/** Finds the built-in definition (from any release) a key belongs to. */
export function findInAnyRelease(key: string): ExtraSpecDefinition | undefined {
  if (!allReleases) {
    const r = createNameRegistry<ExtraSpecDefinition>({ literal: 'escape', flags: 'u' });
    for (const def of BUILTIN_EXTRA_SPECS) {
      r.add({ name: def.name, value: def, params: jsParams(def.parameters) });
      for (const h of def.history ?? []) {
        if (h.name && h.name !== def.name) {
          r.add({ name: h.name, value: def, params: jsParams(h.parameters ?? def.parameters) });
        }
      }
    }
    allReleases = createLookup(r);
  }
  return allReleases(key);
}
