import { createHash } from 'node:crypto';
import {
  CUSTOM_RESOURCE_CLASS_PATTERN,
  CUSTOM_TRAIT_PATTERN,
  createDiagnostic,
  type Diagnostic,
  type DiagnosticInit,
  didYouMean,
  isUuidLike,
  normalizeUuid,
  optionsOf,
  type PathSegment,
  requireString,
  type SourceDocument,
  STANDARD_RESOURCE_CLASSES,
  suggest,
  toJsonPointer,
  validateDocument,
  validateWithSchema,
  validationErrorOf,
} from '@stackspec/core';
import { z } from 'zod';
import {
  createProviderStore,
  INVENTORY_DEFAULTS,
  type Inventory,
  MAX_INT,
  type ProviderStore,
  type ProviderStoreOptions,
} from './store.js';

const InventoryObjectSchema = z
  .object({
    total: z.number().int().min(1).max(MAX_INT),
    reserved: z.number().int().min(0).max(MAX_INT).optional(),
    min_unit: z.number().int().min(1).max(MAX_INT).optional(),
    max_unit: z.number().int().min(1).max(MAX_INT).optional(),
    step_size: z.number().int().min(1).max(MAX_INT).optional(),
    allocation_ratio: z.number().positive().max(3.40282e38).optional(),
  })
  .strict();

/** A provider entry of the inventory file; `children` nests providers under it. */
export const InventoryProviderSchema = z
  .object({
    name: z.string().min(1).max(200),
    uuid: z.string().optional(),
    parent: z.string().optional(),
    inventories: z
      .record(z.string(), z.union([z.number().int().min(1).max(MAX_INT), InventoryObjectSchema]))
      .optional(),
    traits: z.array(z.string()).optional(),
    aggregates: z.array(z.string()).optional(),
    usages: z.record(z.string(), z.number().int().min(1)).optional(),
    get children() {
      return z.array(InventoryProviderSchema).optional();
    },
  })
  .strict();
/** One provider of an inventory file. */
export type InventoryProviderEntry = z.infer<typeof InventoryProviderSchema>;

/** A consumer with allocations, keyed by provider name or uuid. */
export const InventoryConsumerSchema = z
  .object({
    uuid: z.string(),
    project_id: z.string().optional(),
    user_id: z.string().optional(),
    consumer_type: z.string().optional(),
    allocations: z.record(z.string(), z.record(z.string(), z.number().int().min(1))),
  })
  .strict();

/**
 * The inventory file: custom traits and resource classes, aggregate
 * aliases, providers (nested with `children` or linked with `parent`) and
 * consumers. See the package README for the format.
 */
export const InventoryFileSchema = z
  .object({
    traits: z.array(z.string()).optional(),
    resource_classes: z.array(z.string()).optional(),
    /**
     * Aggregate aliases: `alias: <uuid>`, or `alias: {uuid, metadata}` where
     * `metadata` is the Nova host aggregate's metadata (what the reservation
     * rules of flavor-to-request read).
     */
    aggregates: z
      .record(
        z.string(),
        z.union([
          z.string(),
          z.strictObject({ uuid: z.string(), metadata: z.record(z.string(), z.string()).default({}) }),
        ]),
      )
      .optional(),
    providers: z.array(InventoryProviderSchema),
    consumers: z.array(InventoryConsumerSchema).optional(),
  })
  .strict();
/** The inventory file as written. */
export type InventoryFile = z.infer<typeof InventoryFileSchema>;

/** A provider after loading: uuids resolved, parent by uuid, inventories complete. */
export interface ResolvedProvider {
  name: string;
  uuid: string;
  parentUuid: string | null;
  inventories: Record<string, Inventory>;
  traits: string[];
  aggregates: string[];
}

/** A consumer after loading. */
export interface ResolvedConsumer {
  uuid: string;
  projectId: string;
  userId: string;
  consumerType: string;
  allocations: Record<string, Record<string, number>>;
}

/** An inventory with every reference resolved, parents before children. */
export interface ResolvedInventory {
  /** Aggregates declared in the `aggregates` section, with their metadata (empty when none is given). */
  aggregates: { alias: string; uuid: string; metadata: Record<string, string> }[];
  customTraits: string[];
  customResourceClasses: string[];
  providers: ResolvedProvider[];
  consumers: ResolvedConsumer[];
}

const NAMESPACE = 'f3b1c9a4-6a0e-5d5c-9d7e-2b8f0c7e4a11';
const NAMESPACE_BYTES = Buffer.from(NAMESPACE.replaceAll('-', ''), 'hex');

/** A name-based (version 5) UUID in our namespace: the same name always gives the same UUID. */
export function uuidFromName(name: string, namespace = NAMESPACE): string {
  const ns = namespace === NAMESPACE ? NAMESPACE_BYTES : Buffer.from(namespace.replaceAll('-', ''), 'hex');
  const hash = createHash('sha1').update(ns).update(name, 'utf8').digest();
  hash[6] = ((hash[6] as number) & 0x0f) | 0x50;
  hash[8] = ((hash[8] as number) & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

/** Options for {@link validateInventory}. */
export interface ParseInventoryOptions extends ProviderStoreOptions {
  /** Shown in diagnostics; `.json` files are read as JSON. */
  filename?: string;
  /** Largest file accepted, in bytes (default: core's document limit, 10 MiB); a 100k-node cloud is ~50 MB. */
  maxBytes?: number;
}

/** Outcome of {@link validateInventory}. */
export type ValidateInventoryResult =
  | { ok: true; inventory: ResolvedInventory; store: ProviderStore; diagnostics: Diagnostic[] }
  | { ok: false; diagnostics: Diagnostic[] };

/**
 * Reads an inventory file (YAML or JSON) and builds a {@link ProviderStore}
 * from it, collecting every problem with its file, line and column: unknown
 * traits or resource classes (with "did you mean"), duplicate names or
 * uuids, unknown parents and aggregate aliases, reserved above total,
 * usages beyond capacity.
 */
export function validateInventory(
  text: string,
  options: ParseInventoryOptions = {},
): ValidateInventoryResult {
  requireString(text, 'The text of validateInventory', 'placement-query/invalid-argument');
  options = optionsOf(options, 'validateInventory', 'placement-query/invalid-argument');
  const parsed = parseInventoryText(text, options);
  if (!parsed.ok) return { ok: false, diagnostics: parsed.diagnostics };
  const doc = parsed.document;
  const checked = validateWithSchema(InventoryFileSchema, doc, { area: 'placement-query/inventory' });
  if (!checked.ok) return { ok: false, diagnostics: checked.diagnostics };
  const store = createProviderStore(options);
  const resolved = resolveInventory(checked.value, store, doc);
  if (!resolved.ok) return { ok: false, diagnostics: resolved.diagnostics };
  applyInventory(store, resolved.inventory);
  return {
    ok: true,
    inventory: resolved.inventory,
    store,
    diagnostics: [...doc.warnings, ...resolved.diagnostics],
  };
}

/**
 * The inventory text as a document. A JSON file (by its name) is read on a
 * fast path: JSON.parse, then one scan of the text for duplicate keys
 * (which JSON.parse resolves silently to the last value). Positions are
 * worked out only when a diagnostic needs one, so a clean file never pays
 * for the located parser, which re-reads the whole text with the YAML
 * parser (most of the time of a 100,000-node load). When the scan finds a
 * duplicate, the located parser reads the file and reports it at its line.
 */
function parseInventoryText(
  text: string,
  options: ParseInventoryOptions,
): ReturnType<typeof validateDocument> {
  const base = {
    ...(options.filename ? { filename: options.filename } : {}),
    ...(options.maxBytes !== undefined ? { maxBytes: options.maxBytes } : {}),
  };
  if (options.filename && /\.json$/i.test(options.filename)) {
    const fast = validateDocument(text, { ...base, duplicateKeys: 'ignore' });
    // Syntax, size and depth problems are found before duplicate keys are looked for: the same either way.
    if (!fast.ok || !hasDuplicateJsonKey(text)) return fast;
  }
  return validateDocument(text, base);
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;

function isJsonSpace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

/** The index of the quote closing the string opened at `open`. */
function closingQuote(text: string, open: number): number {
  let end = text.indexOf('"', open + 1);
  for (;;) {
    let slashes = 0;
    while (text.charCodeAt(end - 1 - slashes) === BACKSLASH) slashes += 1;
    if (slashes % 2 === 0) return end;
    end = text.indexOf('"', end + 1);
  }
}

/**
 * Whether an object of `text`, which JSON.parse accepted, has a key twice
 * (keys compared once unescaped, so `"a"` and `"\u0061"` are the same). A
 * single pass with a set of keys per open object; strings are skipped with
 * indexOf.
 */
export function hasDuplicateJsonKey(text: string): boolean {
  const outer: (Set<string> | null)[] = [];
  let keys: Set<string> | null = null;
  const n = text.length;
  for (let i = 0; i < n; i += 1) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const end = closingQuote(text, i);
      if (keys !== null) {
        let j = end + 1;
        while (j < n && isJsonSpace(text.charCodeAt(j))) j += 1;
        if (text.charCodeAt(j) === COLON) {
          const raw = text.slice(i + 1, end);
          const key = raw.includes('\\') ? (JSON.parse(`"${raw}"`) as string) : raw;
          if (keys.has(key)) return true;
          keys.add(key);
          i = j;
          continue;
        }
      }
      i = end;
    } else if (c === 0x7b) {
      outer.push(keys);
      keys = new Set();
    } else if (c === 0x5b) {
      outer.push(keys);
      keys = null;
    } else if (c === 0x7d || c === 0x5d) {
      keys = outer.pop() ?? null;
    }
  }
  return false;
}

/** Like {@link validateInventory} but throws a `ValidationError` carrying every diagnostic. */
export function parseInventory(
  text: string,
  options: ParseInventoryOptions = {},
): { inventory: ResolvedInventory; store: ProviderStore } {
  const r = validateInventory(text, options);
  if (!r.ok) {
    throw validationErrorOf(r.diagnostics);
  }
  return { inventory: r.inventory, store: r.store };
}

/** Fills a store from a resolved inventory (no checks beyond the store's own). */
export function applyInventory(store: ProviderStore, inventory: ResolvedInventory): void {
  for (const t of inventory.customTraits) store.createTrait(t);
  for (const c of inventory.customResourceClasses) store.createResourceClass(c);
  for (const p of inventory.providers) {
    store.createProvider({ name: p.name, uuid: p.uuid, parentUuid: p.parentUuid });
    if (Object.keys(p.inventories).length) store.setInventories(p.uuid, p.inventories);
    if (p.traits.length) store.setTraits(p.uuid, p.traits);
    if (p.aggregates.length) store.setAggregates(p.uuid, p.aggregates);
  }
  for (const c of inventory.consumers) {
    store.setAllocations(c.uuid, c.allocations, {
      projectId: c.projectId,
      userId: c.userId,
      consumerType: c.consumerType,
    });
  }
}

const DEFAULT_PROJECT = '00000000-0000-0000-0000-000000000001';
const DEFAULT_USER = '00000000-0000-0000-0000-000000000002';

/**
 * Checks cross-references of a schema-valid inventory and resolves them.
 * `vocabulary` answers which standard traits and classes exist.
 */
export function resolveInventory(
  file: InventoryFile,
  vocabulary: Pick<ProviderStore, 'isStandardTrait' | 'hasResourceClass' | 'traitNames'>,
  doc?: SourceDocument,
):
  | { ok: true; inventory: ResolvedInventory; diagnostics: Diagnostic[] }
  | { ok: false; diagnostics: Diagnostic[] } {
  const diagnostics: Diagnostic[] = [];
  // Paths in the hot loops are made only when there is a problem to report.
  type PathOf = PathSegment[] | (() => PathSegment[]);
  const report = (path: PathOf, init: Omit<DiagnosticInit, 'path'>, key = false) => {
    const full = { ...init, path: toJsonPointer(typeof path === 'function' ? path() : path) };
    diagnostics.push(doc ? doc.diagnostic(full, { key }) : createDiagnostic(full));
  };
  const customTraits = new Set<string>();
  const customClasses = new Set<string>();
  const standardTraitList = vocabulary.traitNames().filter((t) => vocabulary.isStandardTrait(t));
  const checkTrait = (t: string, path: PathOf) => {
    if (vocabulary.isStandardTrait(t)) return;
    if (CUSTOM_TRAIT_PATTERN.test(t) && t.length <= 255) {
      customTraits.add(t);
      return;
    }
    report(path, {
      code: 'placement-query/inventory/unknown-trait',
      message: `${t} is neither a standard trait nor a custom trait (CUSTOM_[A-Z0-9_]+).`,
      ...hint(suggest(t, standardTraitList)),
    });
  };
  const checkClass = (rc: string, path: PathOf, key = true) => {
    if (vocabulary.hasResourceClass(rc)) return;
    if (CUSTOM_RESOURCE_CLASS_PATTERN.test(rc) && rc.length <= 255) {
      customClasses.add(rc);
      return;
    }
    report(
      path,
      {
        code: 'placement-query/inventory/unknown-resource-class',
        message: `${rc} is neither a standard resource class nor a custom one (CUSTOM_[A-Z0-9_]+).`,
        ...hint(suggest(rc, STANDARD_CLASS_LIST)),
      },
      key,
    );
  };
  (file.traits ?? []).forEach((t, i) => {
    if (!CUSTOM_TRAIT_PATTERN.test(t)) {
      report(['traits', i], {
        code: 'placement-query/inventory/not-custom-trait',
        message: `${t} is not a custom trait; only CUSTOM_ traits are declared here.`,
        hint: vocabulary.isStandardTrait(t)
          ? `${t} is a standard trait and always exists`
          : 'custom traits look like CUSTOM_GOLD',
      });
    } else customTraits.add(t);
  });
  (file.resource_classes ?? []).forEach((c, i) => {
    if (!CUSTOM_RESOURCE_CLASS_PATTERN.test(c)) {
      report(['resource_classes', i], {
        code: 'placement-query/inventory/not-custom-resource-class',
        message: `${c} is not a custom resource class; only CUSTOM_ classes are declared here.`,
      });
    } else customClasses.add(c);
  });
  const aliases = new Map<string, string>();
  const declaredAggregates: ResolvedInventory['aggregates'] = [];
  for (const [alias, value] of Object.entries(file.aggregates ?? {})) {
    const uuid = typeof value === 'string' ? value : value.uuid;
    if (!isUuidLike(uuid)) {
      report(typeof value === 'string' ? ['aggregates', alias] : ['aggregates', alias, 'uuid'], {
        code: 'placement-query/inventory/invalid-uuid',
        message: `Aggregate ${alias} must map to a UUID, not '${uuid}'.`,
      });
    } else {
      const normal = normalizeUuid(uuid) as string;
      aliases.set(alias, normal);
      declaredAggregates.push({
        alias,
        uuid: normal,
        metadata: typeof value === 'string' ? {} : { ...value.metadata },
      });
    }
  }

  // Flatten nested providers, remembering where each came from.
  // Where an entry sits (its index, and the entry it is nested in): its path is made only for a diagnostic.
  // What is learnt of an entry is kept on it rather than in maps by name: a
  // large cloud has hundreds of thousands of providers, and each map lookup
  // by name is a cache miss.
  interface Flat {
    entry: InventoryProviderEntry;
    index: number;
    up: Flat | undefined;
    parentName?: string;
    /** Set for the entry that owns its name, once its uuid is known. */
    uuid?: string;
    /** The name of its parent, nested or named (set with `resolved`). */
    parentRef?: string | undefined;
    resolved?: ResolvedProvider;
    /** While ordering parents first: 1 visiting, 2 done. */
    mark?: number;
  }
  const flat: Flat[] = [];
  const walk = (entries: InventoryProviderEntry[], up: Flat | undefined, parentName?: string) => {
    entries.forEach((entry, index) => {
      const f: Flat = { entry, index, up, ...(parentName !== undefined ? { parentName } : {}) };
      flat.push(f);
      if (entry.children) walk(entry.children, f, entry.name);
    });
  };
  walk(file.providers, undefined);
  const pathOf = (f: Flat, ...rest: PathSegment[]): PathSegment[] => {
    const indexes: number[] = [];
    for (let x: Flat | undefined = f; x; x = x.up) indexes.push(x.index);
    const out: PathSegment[] = ['providers'];
    for (let i = indexes.length - 1; i >= 0; i -= 1) {
      out.push(indexes[i] as number);
      if (i > 0) out.push('children');
    }
    return [...out, ...rest];
  };

  const byName = new Map<string, Flat>();
  const seenUuids = new Map<string, string>();
  for (const f of flat) {
    const { entry } = f;
    if (byName.has(entry.name)) {
      report(pathOf(f, 'name'), {
        code: 'placement-query/inventory/duplicate-provider',
        message: `The provider name ${entry.name} is used twice.`,
      });
      continue;
    }
    byName.set(entry.name, f);
    let uuid: string;
    if (entry.uuid !== undefined) {
      if (!CANONICAL_UUID.test(entry.uuid) && !isUuidLike(entry.uuid)) {
        report(pathOf(f, 'uuid'), {
          code: 'placement-query/inventory/invalid-uuid',
          message: `The uuid of provider ${entry.name} is not a UUID: '${entry.uuid}'.`,
          hint: 'leave uuid out to derive a stable one from the name',
        });
        continue;
      }
      uuid = CANONICAL_UUID.test(entry.uuid) ? entry.uuid : (normalizeUuid(entry.uuid) as string);
    } else uuid = uuidFromName(`provider:${entry.name}`);
    const other = seenUuids.get(uuid);
    if (other) {
      report(pathOf(f, 'uuid'), {
        code: 'placement-query/inventory/duplicate-provider',
        message: `Providers ${other} and ${entry.name} share the uuid ${uuid}.`,
      });
      continue;
    }
    seenUuids.set(uuid, entry.name);
    f.uuid = uuid;
  }
  const refToName = (ref: string): string | undefined => {
    if (byName.has(ref)) return ref;
    // A uuid as this file normalised it (a usage names its provider so) needs no parsing.
    const known = seenUuids.get(ref);
    if (known !== undefined) return known;
    const u = isUuidLike(ref) ? normalizeUuid(ref) : undefined;
    return u ? seenUuids.get(u) : undefined;
  };

  // The resolved provider of a name (the entry that owns it).
  const resolvedOf = (name: string): ResolvedProvider | undefined => byName.get(name)?.resolved;
  // Aggregate uuids as written → normalised: a cloud has few aggregates and many mentions of each.
  const aggregateUuids = new Map<string, string>();
  for (const f of flat) {
    const { entry } = f;
    // Only the entry that owns its name gets a uuid.
    const uuid = f.uuid;
    if (!uuid) continue;
    let parentName = f.parentName;
    if (entry.parent !== undefined) {
      if (parentName !== undefined) {
        report(pathOf(f, 'parent'), {
          code: 'placement-query/inventory/conflicting-parent',
          message: `Provider ${entry.name} is nested under ${parentName} and also names parent ${entry.parent}.`,
        });
      } else {
        parentName = refToName(entry.parent);
        if (!parentName) {
          report(pathOf(f, 'parent'), {
            code: 'placement-query/inventory/unknown-parent',
            message: `The parent ${entry.parent} of provider ${entry.name} is not a provider of this file.`,
            ...hint(suggest(entry.parent, [...byName.keys()])),
          });
        }
      }
    }
    f.parentRef = parentName;
    const inventories: Record<string, Inventory> = {};
    for (const [rc, raw] of Object.entries(entry.inventories ?? {})) {
      checkClass(rc, () => pathOf(f, 'inventories', rc));
      // One literal of one shape (the key order of the defaults, then total:
      // the order a spread of the defaults gives), whatever the file wrote.
      const inv: Inventory =
        typeof raw === 'number'
          ? {
              reserved: INVENTORY_DEFAULTS.reserved,
              min_unit: INVENTORY_DEFAULTS.min_unit,
              max_unit: INVENTORY_DEFAULTS.max_unit,
              step_size: INVENTORY_DEFAULTS.step_size,
              allocation_ratio: INVENTORY_DEFAULTS.allocation_ratio,
              total: raw,
            }
          : {
              reserved: raw.reserved ?? INVENTORY_DEFAULTS.reserved,
              min_unit: raw.min_unit ?? INVENTORY_DEFAULTS.min_unit,
              max_unit: raw.max_unit ?? INVENTORY_DEFAULTS.max_unit,
              step_size: raw.step_size ?? INVENTORY_DEFAULTS.step_size,
              allocation_ratio: raw.allocation_ratio ?? INVENTORY_DEFAULTS.allocation_ratio,
              total: raw.total,
            };
      if (inv.reserved > inv.total) {
        report(pathOf(f, 'inventories', rc, 'reserved'), {
          code: 'placement-query/inventory/reserved-above-total',
          message: `The reserved amount of ${rc} on ${entry.name} (${inv.reserved}) is greater than its total (${inv.total}).`,
        });
      }
      if (inv.min_unit > inv.max_unit) {
        report(pathOf(f, 'inventories', rc, 'min_unit'), {
          code: 'placement-query/inventory/min-above-max',
          message: `min_unit of ${rc} on ${entry.name} (${inv.min_unit}) is greater than max_unit (${inv.max_unit}); nothing could be allocated.`,
          severity: 'warning',
        });
      }
      inventories[rc] = inv;
    }
    (entry.traits ?? []).forEach((t, i) => {
      checkTrait(t, () => pathOf(f, 'traits', i));
    });
    const aggregates: string[] = [];
    (entry.aggregates ?? []).forEach((a, i) => {
      const alias = aliases.get(a) ?? aggregateUuids.get(a);
      if (alias) aggregates.push(alias);
      else if (isUuidLike(a)) {
        const uuid = normalizeUuid(a) as string;
        aggregateUuids.set(a, uuid);
        aggregates.push(uuid);
      } else {
        report(pathOf(f, 'aggregates', i), {
          code: 'placement-query/inventory/unknown-aggregate',
          message: `The aggregate ${a} of provider ${entry.name} is neither a UUID nor an alias from the aggregates section.`,
          ...hint(suggest(a, [...aliases.keys()])),
        });
      }
    });
    f.resolved = {
      name: entry.name,
      uuid,
      parentUuid: null,
      inventories,
      traits: uniqueList(entry.traits ?? []),
      aggregates: uniqueList(aggregates),
    };
  }
  // Parents resolved; order parents first and refuse loops. Iterative, so a
  // parent chain of any length cannot overflow the stack.
  const ordered: ResolvedProvider[] = [];
  const VISITING = 1;
  const DONE = 2;
  for (const start of flat) {
    if (!start.resolved || start.mark !== undefined) continue;
    const chain: Flat[] = [];
    let cur: Flat | undefined = start;
    let loopAt: Flat | undefined;
    while (cur?.resolved && cur.mark !== DONE) {
      if (cur.mark === VISITING) {
        loopAt = cur;
        break;
      }
      cur.mark = VISITING;
      chain.push(cur);
      cur = cur.parentRef === undefined ? undefined : byName.get(cur.parentRef);
    }
    if (loopAt !== undefined) {
      const cycle = [...chain.slice(chain.indexOf(loopAt)), loopAt].map((x) => x.entry.name);
      report(pathOf(loopAt, 'parent'), {
        code: 'placement-query/inventory/parent-loop',
        message: `Providers form a loop through their parents: ${cycle.join(' -> ')}.`,
      });
      for (const x of chain) x.mark = DONE;
      continue;
    }
    for (let i = chain.length - 1; i >= 0; i -= 1) {
      const x = chain[i] as Flat;
      x.mark = DONE;
      const r = x.resolved as ResolvedProvider;
      if (x.parentRef !== undefined) r.parentUuid = resolvedOf(x.parentRef)?.uuid ?? null;
      ordered.push(r);
    }
  }

  // Usages and consumers, checked against capacity.
  const used = new Map<string, Map<string, number>>();
  const consumers: ResolvedConsumer[] = [];
  const allocate = (
    providerRef: string,
    rc: string,
    amount: number,
    pathOf: () => PathSegment[],
    into: Record<string, Record<string, number>>,
  ) => {
    const name = refToName(providerRef);
    const p = name ? resolvedOf(name) : undefined;
    if (!p) {
      report(
        () => pathOf().slice(0, -1),
        {
          code: 'placement-query/inventory/unknown-provider',
          message: `Allocations name provider ${providerRef}, which this file does not define.`,
          ...hint(suggest(providerRef, [...byName.keys()])),
        },
        true,
      );
      return;
    }
    const inv = p.inventories[rc];
    if (!inv) {
      report(
        pathOf,
        {
          code: 'placement-query/inventory/no-inventory',
          message: `Provider ${p.name} has no ${rc} inventory to allocate from.`,
        },
        true,
      );
      return;
    }
    const per = used.get(p.uuid) ?? new Map<string, number>();
    used.set(p.uuid, per);
    const now = (per.get(rc) ?? 0) + amount;
    if (now > (inv.total - inv.reserved) * inv.allocation_ratio) {
      report(pathOf, {
        code: 'placement-query/inventory/capacity-exceeded',
        message: `Allocating ${amount} ${rc} on ${p.name} exceeds its capacity (${Math.trunc((inv.total - inv.reserved) * inv.allocation_ratio)}, ${per.get(rc) ?? 0} already used).`,
      });
      return;
    }
    if (amount < inv.min_unit || amount > inv.max_unit || amount % inv.step_size !== 0) {
      report(pathOf, {
        code: 'placement-query/inventory/allocation-constraints',
        message: `Allocating ${amount} ${rc} on ${p.name} breaks its min_unit/max_unit/step_size (${inv.min_unit}/${inv.max_unit}/${inv.step_size}).`,
      });
      return;
    }
    per.set(rc, now);
    const inner = into[p.uuid] ?? {};
    inner[rc] = (inner[rc] ?? 0) + amount;
    into[p.uuid] = inner;
  };
  for (const f of flat) {
    if (!f.entry.usages) continue;
    const p = resolvedOf(f.entry.name);
    if (!p) continue;
    const allocations: Record<string, Record<string, number>> = {};
    for (const [rc, amount] of Object.entries(f.entry.usages))
      allocate(p.uuid, rc, amount, () => pathOf(f, 'usages', rc), allocations);
    if (Object.keys(allocations).length) {
      consumers.push({
        uuid: uuidFromName(`usage:${p.uuid}`),
        projectId: DEFAULT_PROJECT,
        userId: DEFAULT_USER,
        consumerType: 'INSTANCE',
        allocations,
      });
    }
  }
  const consumerUuids = new Set(consumers.map((c) => c.uuid));
  (file.consumers ?? []).forEach((c, i) => {
    const path: PathSegment[] = ['consumers', i];
    if (!isUuidLike(c.uuid)) {
      report([...path, 'uuid'], {
        code: 'placement-query/inventory/invalid-uuid',
        message: `The consumer uuid '${c.uuid}' is not a UUID.`,
      });
      return;
    }
    const uuid = normalizeUuid(c.uuid) as string;
    if (consumerUuids.has(uuid)) {
      report([...path, 'uuid'], {
        code: 'placement-query/inventory/duplicate-consumer',
        message: `The consumer ${uuid} appears twice.`,
      });
      return;
    }
    consumerUuids.add(uuid);
    const allocations: Record<string, Record<string, number>> = {};
    for (const [ref, resources] of Object.entries(c.allocations)) {
      for (const [rc, amount] of Object.entries(resources))
        allocate(ref, rc, amount, () => [...path, 'allocations', ref, rc], allocations);
    }
    consumers.push({
      uuid,
      projectId: c.project_id ?? DEFAULT_PROJECT,
      userId: c.user_id ?? DEFAULT_USER,
      consumerType: c.consumer_type ?? 'INSTANCE',
      allocations,
    });
  });

  if (diagnostics.some((d) => d.severity === 'error')) return { ok: false, diagnostics };
  return {
    ok: true,
    diagnostics,
    inventory: {
      aggregates: declaredAggregates,
      customTraits: [...customTraits].sort(),
      customResourceClasses: [...customClasses].sort(),
      providers: ordered,
      consumers: consumers.filter((c) => Object.keys(c.allocations).length),
    },
  };
}

const STANDARD_CLASS_LIST: readonly string[] = STANDARD_RESOURCE_CLASSES;

/** A UUID already in the spelling `normalizeUuid` gives: most files write them so, and need no rewriting. */
const CANONICAL_UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** A copy of `list` without repeats, first occurrences kept; no set for the short lists of a provider. */
function uniqueList(list: readonly string[]): string[] {
  if (list.length > 16) return [...new Set(list)];
  const out: string[] = [];
  for (const x of list) if (!out.includes(x)) out.push(x);
  return out;
}

function hint(suggestions: string[]): { hint?: string } {
  const h = didYouMean(suggestions);
  return h ? { hint: h } : {};
}
