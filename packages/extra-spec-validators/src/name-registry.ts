import {
  createDiagnostic,
  type Diagnostic,
  defaultMaxDistance,
  editDistance,
  SpecError,
  ValidationError,
} from '@stackspec/core';
import {
  compileNamePattern,
  type LiteralMode,
  matchNamePattern,
  type NameParameter,
  type NamePattern,
} from './name-pattern.js';

/** What is registered under one name. */
export interface RegistryEntryInput<T> {
  /** Plain (`hw:cpu_policy`) or patterned (`hw:numa_cpus.{num}`). */
  name: string;
  value: T;
  /** Patterns for the placeholders in `name`. */
  params?: Readonly<Record<string, string | RegExp | NameParameter>>;
  /** Precedence layer; one of the registry's layers (default: the first). */
  layer?: string;
  /** Who contributed it (a plugin's package name), for conflict reports. */
  source?: string;
}

/** A registered entry. */
export interface RegistryEntry<T> {
  readonly name: string;
  readonly value: T;
  readonly layer: string;
  readonly source: string | undefined;
  readonly pattern: NamePattern;
  /** Registration order, used to break ties between patterns. */
  readonly order: number;
}

/** A successful lookup. */
export interface RegistryMatch<T> {
  entry: RegistryEntry<T>;
  /** Placeholder values taken from the key (empty for a plain name). */
  params: Record<string, string>;
  /** True when the key is literally a registered name. */
  exact: boolean;
}

/** Options for {@link createNameRegistry}. */
export interface NameRegistryOptions {
  /** Precedence layers, strongest first. Default `['builtin', 'plugin']`. */
  layers?: readonly string[];
  /** How text outside placeholders is read (see `compileNamePattern`). */
  literal?: LiteralMode;
  /** Regular-expression flags for every pattern (default `u`). */
  flags?: string;
}

/** A registry of names with placeholders. See {@link createNameRegistry}. */
export interface NameRegistry<T> {
  /** Registers one entry; returns the first clash it causes (every clash is also in `conflicts`). */
  add(input: RegistryEntryInput<T>): Diagnostic | undefined;
  /** Registers many entries; returns every clash. */
  addAll(inputs: Iterable<RegistryEntryInput<T>>): Diagnostic[];
  /** The entry registered under exactly this name (placeholders included). */
  get(name: string): RegistryEntry<T> | undefined;
  /**
   * Finds the entry for a concrete key: the strongest layer with a name that
   * matches wins; within a layer an exact plain name beats a pattern, and an
   * earlier pattern a later one. A key that is not a string finds nothing.
   */
  lookup(key: string): RegistryMatch<T> | undefined;
  /**
   * Names close to a key that matched nothing, closest first; patterned names
   * are shown filled in where possible. A key that is not a string throws
   * `ValidationError` (`extra-specs/registry/invalid-key`).
   */
  suggest(key: string, options?: { limit?: number; maxDistance?: number }): string[];
  /** Every winning entry, in registration order. */
  entries(): RegistryEntry<T>[];
  /** Number of winning entries. */
  readonly size: number;
  /** Every clash reported so far. */
  readonly conflicts: readonly Diagnostic[];
}

interface Bucket<T> {
  bySuffix: Map<string, RegistryEntry<T>[]>;
  suffixLengths: number[];
}

function insertSorted(lengths: number[], n: number): void {
  if (lengths.includes(n)) return;
  lengths.push(n);
  lengths.sort((a, b) => b - a);
}

/**
 * Creates a registry keyed by names that may contain placeholders, with
 * layered precedence (built-ins over plugins by default).
 *
 * Lookup cost: a plain key is one hash lookup. A patterned key is found
 * through an index on the literal text before the first and after the last
 * placeholder, so only patterns sharing both are tried with their regular
 * expression; cost depends on the number of distinct prefix and suffix
 * lengths, not on the number of entries.
 *
 * A name registered twice keeps the entry of the stronger layer (the earlier
 * one within a layer) and reports `extra-specs/registry/shadowed` (different layers) or
 * `extra-specs/registry/duplicate` (same layer) as a warning. Layers also rank plain
 * names against patterns: a plugin's `hw:numa_cpus.0` loses to a built-in
 * `hw:numa_cpus.{num}` and is reported as `extra-specs/registry/shadowed`; a plugin
 * pattern that also matches a built-in plain name keeps every other key and
 * is reported as `extra-specs/registry/overlap`. Either is reported when the second of
 * the two is added. An entry that is
 * not an object with a string name throws `SpecError` (`extra-specs/registry/invalid-entry`).
 *
 * @example
 * const r = createNameRegistry<string>();
 * r.add({ name: 'hw:numa_cpus.{num}', params: { num: '\\d+' }, value: 'cpus' });
 * r.lookup('hw:numa_cpus.0'); // { entry, params: { num: '0' }, exact: false }
 */
export function createNameRegistry<T>(options: NameRegistryOptions = {}): NameRegistry<T> {
  const layers = options.layers ?? ['builtin', 'plugin'];
  const rank = new Map(layers.map((l, i) => [l, i] as const));
  const byName = new Map<string, RegistryEntry<T>>();
  const byPrefix = new Map<string, Bucket<T>>();
  const prefixLengths: number[] = [];
  const conflicts: Diagnostic[] = [];
  let order = 0;

  const describe = (e: { layer: string; source: string | undefined }) =>
    e.source ? `${e.layer} '${e.source}'` : `the ${e.layer} definitions`;

  const index = (entry: RegistryEntry<T>) => {
    const { prefix, suffix } = entry.pattern;
    let bucket = byPrefix.get(prefix);
    if (!bucket) {
      bucket = { bySuffix: new Map(), suffixLengths: [] };
      byPrefix.set(prefix, bucket);
      insertSorted(prefixLengths, prefix.length);
    }
    const list = bucket.bySuffix.get(suffix);
    if (list) list.push(entry);
    else bucket.bySuffix.set(suffix, [entry]);
    insertSorted(bucket.suffixLengths, suffix.length);
  };

  const unindex = (entry: RegistryEntry<T>) => {
    const list = byPrefix.get(entry.pattern.prefix)?.bySuffix.get(entry.pattern.suffix);
    if (!list) return;
    const i = list.indexOf(entry);
    if (i >= 0) list.splice(i, 1);
  };

  const plainByLayer = new Map<string, Set<RegistryEntry<T>>>();
  const rankOf = (e: { layer: string }) => rank.get(e.layer) as number;
  const pointer = (name: string) => `/${name.replace(/~/g, '~0').replace(/\//g, '~1')}`;

  /** Every pattern entry matching `key`, through the prefix/suffix index. */
  const matchingPatterns = (
    key: string,
    visit: (entry: RegistryEntry<T>, params: Record<string, string>) => void,
  ) => {
    for (const pl of prefixLengths) {
      if (pl > key.length) continue;
      const bucket = byPrefix.get(key.slice(0, pl));
      if (!bucket) continue;
      for (const sl of bucket.suffixLengths) {
        if (pl + sl > key.length) continue;
        const candidates = bucket.bySuffix.get(sl === 0 ? '' : key.slice(key.length - sl));
        if (!candidates) continue;
        for (const c of candidates) {
          const params = matchNamePattern(c.pattern, key);
          if (params) visit(c, params);
        }
      }
    }
  };

  /** A plain name and a pattern from different layers that both match the plain name. */
  const overlap = (plain: RegistryEntry<T>, pattern: RegistryEntry<T>): Diagnostic => {
    const plainWins = rankOf(plain) < rankOf(pattern);
    return createDiagnostic({
      // The plain name loses everywhere (shadowed); the pattern only for that one key (overlap).
      code: plainWins ? 'extra-specs/registry/overlap' : 'extra-specs/registry/shadowed',
      severity: 'warning',
      path: pointer(plainWins ? pattern.name : plain.name),
      message: plainWins
        ? `'${pattern.name}' from ${describe(pattern)} also matches '${plain.name}', which ${describe(plain)} defines and which takes precedence for that key.`
        : `'${plain.name}' from ${describe(plain)} is matched by '${pattern.name}' from ${describe(pattern)}, which takes precedence; it is never used.`,
    });
  };

  const addOne = (input: RegistryEntryInput<T>): Diagnostic[] => {
    if (input === null || typeof input !== 'object' || typeof input.name !== 'string') {
      throw new SpecError('A registry entry must be an object with a string name.', {
        code: 'extra-specs/registry/invalid-entry',
      });
    }
    const layer = input.layer ?? (layers[0] as string);
    if (!rank.has(layer)) {
      return [
        createDiagnostic({
          code: 'extra-specs/registry/unknown-layer',
          message: `The layer '${layer}' is not one of: ${layers.join(', ')}.`,
          path: pointer(input.name),
        }),
      ];
    }
    const pattern = compileNamePattern(input.name, {
      ...(input.params ? { params: input.params } : {}),
      ...(options.literal ? { literal: options.literal } : {}),
      ...(options.flags !== undefined ? { flags: options.flags } : {}),
    });
    order += 1;
    const entry: RegistryEntry<T> = {
      name: input.name,
      value: input.value,
      layer,
      source: input.source,
      pattern,
      order,
    };
    const existing = byName.get(input.name);
    if (existing) {
      const newWins = rankOf(entry) < rankOf(existing);
      const [winner, loser] = newWins ? [entry, existing] : [existing, entry];
      const sameLayer = existing.layer === layer;
      if (newWins) {
        byName.set(input.name, entry);
        if (existing.pattern.isPattern) unindex(existing);
        else plainByLayer.get(existing.layer)?.delete(existing);
        if (pattern.isPattern) index(entry);
        else plainsOf(layer).add(entry);
      }
      return [
        createDiagnostic({
          code: sameLayer ? 'extra-specs/registry/duplicate' : 'extra-specs/registry/shadowed',
          severity: 'warning',
          path: pointer(input.name),
          message: sameLayer
            ? `'${input.name}' is defined more than once by ${describe(entry)}; the first definition is used.`
            : `'${input.name}' from ${describe(loser)} is shadowed by ${describe(winner)}, which takes precedence.`,
        }),
      ];
    }
    byName.set(input.name, entry);
    const found: Diagnostic[] = [];
    if (pattern.isPattern) {
      index(entry);
      for (const [other, plains] of plainByLayer) {
        if (other === layer) continue;
        for (const plain of plains)
          if (matchNamePattern(pattern, plain.name)) found.push(overlap(plain, entry));
      }
    } else {
      plainsOf(layer).add(entry);
      matchingPatterns(input.name, (c) => {
        if (c.layer !== layer) found.push(overlap(entry, c));
      });
    }
    return found;
  };

  const plainsOf = (layer: string) => {
    let set = plainByLayer.get(layer);
    if (!set) {
      set = new Set();
      plainByLayer.set(layer, set);
    }
    return set;
  };

  const add = (input: RegistryEntryInput<T>): Diagnostic[] => {
    const found = addOne(input);
    conflicts.push(...found);
    return found;
  };

  const better = (a: RegistryEntry<T>, b: RegistryEntry<T>) => {
    const ra = rankOf(a);
    const rb = rankOf(b);
    return ra !== rb ? ra < rb : a.order < b.order;
  };

  const lookup = (key: string): RegistryMatch<T> | undefined => {
    if (typeof key !== 'string') return undefined;
    const exact = byName.get(key);
    const plain = exact && !exact.pattern.isPattern ? exact : undefined;
    // A plain name of the strongest layer cannot lose: one hash lookup.
    if (plain && rankOf(plain) === 0) return { entry: plain, params: {}, exact: true };
    let best: RegistryEntry<T> | undefined;
    let bestParams: Record<string, string> | undefined;
    matchingPatterns(key, (c, params) => {
      // Within its own layer (or against a weaker one) the plain name wins.
      if (plain && rankOf(c) >= rankOf(plain)) return;
      if (best && !better(c, best)) return;
      best = c;
      bestParams = params;
    });
    if (best && bestParams) return { entry: best, params: bestParams, exact: best.name === key };
    // A patterned name written literally is still its own registry name.
    if (exact) return { entry: exact, params: {}, exact: true };
    return undefined;
  };

  const suggestNames = (key: string, opts: { limit?: number; maxDistance?: number } = {}): string[] => {
    if (typeof key !== 'string') {
      throw new ValidationError(`Suggestions need a string key, not ${key === null ? 'null' : typeof key}.`, {
        code: 'extra-specs/registry/invalid-key',
      });
    }
    const max = opts.maxDistance ?? defaultMaxDistance(key);
    const limit = opts.limit ?? 3;
    const lowerKey = key.toLowerCase();
    const scored: { text: string; distance: number; order: number }[] = [];
    for (const entry of byName.values()) {
      const p = entry.pattern;
      if (!p.isPattern) {
        if (entry.name === key) continue;
        const d = entry.name.toLowerCase() === lowerKey ? 0 : editDistance(key, entry.name, max);
        if (d <= max) scored.push({ text: entry.name, distance: d, order: entry.order });
        continue;
      }
      // Compare the key's ends with the pattern's literal ends, allowing the
      // typo to shift each boundary by one character either way.
      const heads: [number, number][] = [];
      for (const delta of [0, -1, 1]) {
        const len = p.prefix.length + delta;
        if (len < 0 || len > key.length) continue;
        const d = editDistance(key.slice(0, len).toLowerCase(), p.prefix.toLowerCase(), max);
        if (d <= max) heads.push([d, len]);
      }
      if (!heads.length) continue;
      let best: { distance: number; text: string } | undefined;
      for (const [dh, head] of heads) {
        for (const delta of [0, -1, 1]) {
          const len = p.suffix.length + delta;
          if (len < 0 || head + len > key.length) continue;
          const dt = editDistance(
            key.slice(key.length - len).toLowerCase(),
            p.suffix.toLowerCase(),
            max - dh,
          );
          const distance = dh + dt;
          if (distance > max || distance === 0) continue;
          // Show the name filled in with the key's own middle part when that is a valid key.
          const filled = p.prefix + key.slice(head, key.length - len) + p.suffix;
          const text = p.regex.test(filled) ? filled : entry.name;
          const better =
            !best ||
            distance < best.distance ||
            (distance === best.distance && text !== entry.name && best.text === entry.name);
          if (better) best = { distance, text };
        }
      }
      if (!best) continue;
      const { distance, text } = best;
      scored.push({ text, distance, order: entry.order });
    }
    scored.sort((a, b) => a.distance - b.distance || a.order - b.order);
    const out: string[] = [];
    for (const s of scored) {
      if (!out.includes(s.text)) out.push(s.text);
      if (out.length >= limit) break;
    }
    return out;
  };

  return {
    add: (input) => add(input)[0],
    addAll: (inputs) => [...inputs].flatMap(add),
    get: (name) => byName.get(name),
    lookup,
    suggest: suggestNames,
    entries: () => [...byName.values()].sort((a, b) => a.order - b.order),
    get size() {
      return byName.size;
    },
    get conflicts() {
      return conflicts;
    },
  };
}
