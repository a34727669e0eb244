// Changes (the states a staged write produced) to rows, and rows back to
// changes. Writing is in two steps: `planRows` works out every statement's
// parameters synchronously, right after the write was staged, while the
// in-memory state is the one the write decided on; `writeRows` then runs
// them in the transaction. Every statement is set-based (arrays through
// unnest), so one allocation and a whole imported cloud take the same few
// statements. Each checks how many rows it touched: fewer than expected
// means the database moved under a row the memory thought current (or a
// trait, class or parent went away), and the write is retried after catching
// up, when the in-memory rules give Placement's own refusal.
import { STANDARD_RESOURCE_CLASSES } from '@stackspec/core';
import type { ConsumerState, PlacementChange, ProviderState } from '../model/changes.js';
import type { Inventory, ProviderStore } from '../model/store.js';
import { StaleStateError } from './errors.js';
import { FIRST_CUSTOM_CLASS_ID } from './schema.js';
import type { SqlExecutor } from './sql-driver.js';

/** A naive UTC timestamp column from an ISO 8601 text expression. */
const ts = (expr: string) => `((${expr})::timestamptz AT TIME ZONE 'UTC')`;
/** An ISO 8601 text (UTC, milliseconds) from a timestamp column. */
const iso = (column: string) => `to_char(${column}, 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

const INVENTORY_FIELDS = [
  'total',
  'reserved',
  'min_unit',
  'max_unit',
  'step_size',
  'allocation_ratio',
] as const;

/** The parameters of every statement a write needs. */
export interface RowPlan {
  at: string;
  renames: { from: string; to: string }[];
  newTraits: { name: string; at: string }[];
  newClasses: { name: string; at: string }[];
  goneTraits: string[];
  goneClasses: string[];
  created: ProviderState[];
  updated: { state: ProviderState; oldGeneration: number }[];
  parents: { uuid: string; parent: string | null }[];
  roots: { uuid: string; root: string }[];
  inventoriesGone: { uuid: string; rc: string }[];
  inventoriesChanged: { uuid: string; rc: string; inv: Inventory }[];
  inventoriesAdded: { uuid: string; rc: string; inv: Inventory }[];
  traitsGone: { uuid: string; trait: string }[];
  traitsAdded: { uuid: string; trait: string }[];
  aggregatesSet: { uuid: string; aggregates: string[] }[];
  consumersCreated: ConsumerState[];
  consumersUpdated: { state: ConsumerState; oldGeneration: number }[];
  consumersGone: string[];
  /** Consumers whose allocation rows are rewritten (changed, created or removed). */
  allocationsOf: string[];
  allocations: { consumer: string; provider: string; rc: string; used: number }[];
  providersGone: string[];
  /** What goes to the change log (created providers get their ids once inserted). */
  changes: PlacementChange[];
}

/**
 * Works out the row changes of a staged write: `changes` are its after
 * states, `before` its before states, `memory` the in-memory state it was
 * decided on (for the providers it did not change: ancestors, subtrees).
 */
export function planRows(
  changes: readonly PlacementChange[],
  before: readonly PlacementChange[],
  memory: ProviderStore,
  at: string,
): RowPlan {
  const plan: RowPlan = {
    at,
    renames: [],
    newTraits: [],
    newClasses: [],
    goneTraits: [],
    goneClasses: [],
    created: [],
    updated: [],
    parents: [],
    roots: [],
    inventoriesGone: [],
    inventoriesChanged: [],
    inventoriesAdded: [],
    traitsGone: [],
    traitsAdded: [],
    aggregatesSet: [],
    consumersCreated: [],
    consumersUpdated: [],
    consumersGone: [],
    allocationsOf: [],
    allocations: [],
    providersGone: [],
    changes: changes.map((c) =>
      c.type === 'provider' && c.state ? { ...c, state: { ...c.state } } : c,
    ) as PlacementChange[],
  };
  const beforeProviders = new Map<string, ProviderState | null>();
  const beforeConsumers = new Map<string, ConsumerState | null>();
  for (const c of before) {
    if (c.type === 'provider') beforeProviders.set(c.uuid, c.state);
    else if (c.type === 'consumer') beforeConsumers.set(c.uuid, c.state);
  }
  const renamed = new Map<string, string>();
  const afterProviders = new Map<string, ProviderState | null>();
  for (const c of plan.changes) {
    switch (c.type) {
      case 'rename-resource-class':
        plan.renames.push({ from: c.from, to: c.to });
        renamed.set(c.from, c.to);
        break;
      case 'trait':
        if (c.createdAt === null) plan.goneTraits.push(c.name);
        else plan.newTraits.push({ name: c.name, at: c.createdAt });
        break;
      case 'resource-class':
        if (c.createdAt === null) plan.goneClasses.push(c.name);
        else plan.newClasses.push({ name: c.name, at: c.createdAt });
        break;
      case 'provider':
        afterProviders.set(c.uuid, c.state);
        break;
      default:
        break;
    }
  }
  const className = (rc: string) => renamed.get(rc) ?? rc;

  // Providers: rows, parents, inventories, traits, aggregates.
  const parentChanged: string[] = [];
  for (const [uuid, after] of afterProviders) {
    const was = beforeProviders.get(uuid) ?? null;
    if (!after) {
      if (was) plan.providersGone.push(uuid);
      continue;
    }
    if (!was) plan.created.push(after);
    else if (
      was.name !== after.name ||
      was.generation !== after.generation ||
      was.updatedAt !== after.updatedAt
    )
      plan.updated.push({ state: after, oldGeneration: was.generation });
    if ((was?.parentUuid ?? null) !== after.parentUuid || !was) {
      if (was || after.parentUuid !== null) plan.parents.push({ uuid, parent: after.parentUuid });
      parentChanged.push(uuid);
    }
    const wasInventories = new Map(
      Object.entries(was?.inventories ?? {}).map(([rc, inv]) => [className(rc), inv]),
    );
    for (const rc of wasInventories.keys()) {
      if (!(rc in after.inventories)) plan.inventoriesGone.push({ uuid, rc });
    }
    for (const [rc, inv] of Object.entries(after.inventories)) {
      const old = wasInventories.get(rc);
      if (!old) plan.inventoriesAdded.push({ uuid, rc, inv });
      else if (INVENTORY_FIELDS.some((f) => old[f] !== inv[f]))
        plan.inventoriesChanged.push({ uuid, rc, inv });
    }
    const wasTraits = new Set(was?.traits ?? []);
    const nowTraits = new Set(after.traits);
    for (const t of wasTraits) if (!nowTraits.has(t)) plan.traitsGone.push({ uuid, trait: t });
    for (const t of nowTraits) if (!wasTraits.has(t)) plan.traitsAdded.push({ uuid, trait: t });
    const wasAggregates = was?.aggregates ?? [];
    if (
      wasAggregates.length !== after.aggregates.length ||
      wasAggregates.some((a, i) => a !== after.aggregates[i])
    )
      plan.aggregatesSet.push({ uuid, aggregates: after.aggregates });
  }

  // Roots: every provider whose parent changed, and everything under it,
  // from the parent links as they are after the write.
  if (parentChanged.length) {
    const parentOf = (uuid: string): string | null => {
      if (afterProviders.has(uuid)) return afterProviders.get(uuid)?.parentUuid ?? null;
      return memory.provider(uuid)?.parent?.uuid ?? null;
    };
    const rootOf = (uuid: string): string => {
      let at = uuid;
      for (let i = 0; i <= afterProviders.size + memory.providerCount; i += 1) {
        const parent = parentOf(at);
        if (parent === null) return at;
        at = parent;
      }
      throw new StaleStateError(`the provider tree of ${uuid} has a loop`);
    };
    const affected = new Set<string>();
    for (const uuid of parentChanged) {
      affected.add(uuid);
      const p = memory.provider(uuid);
      if (!p) continue;
      const stack = [...p.children];
      while (stack.length) {
        const q = stack.pop();
        if (!q) break;
        if (afterProviders.has(q.uuid) && afterProviders.get(q.uuid) === null) continue;
        affected.add(q.uuid);
        stack.push(...q.children);
      }
    }
    for (const uuid of affected) plan.roots.push({ uuid, root: rootOf(uuid) });
  }

  // Consumers and their allocations.
  for (const c of plan.changes) {
    if (c.type !== 'consumer') continue;
    const was = beforeConsumers.get(c.uuid) ?? null;
    const after = c.state;
    if (!after) {
      if (was) {
        plan.consumersGone.push(c.uuid);
        plan.allocationsOf.push(c.uuid);
      }
      continue;
    }
    if (!was) plan.consumersCreated.push(after);
    else plan.consumersUpdated.push({ state: after, oldGeneration: was.generation });
    const wasAllocations = JSON.stringify(renameAllocations(was?.allocations ?? {}, className));
    if (wasAllocations !== JSON.stringify(after.allocations)) {
      plan.allocationsOf.push(c.uuid);
      for (const [provider, resources] of Object.entries(after.allocations)) {
        for (const [rc, used] of Object.entries(resources))
          plan.allocations.push({ consumer: c.uuid, provider, rc, used });
      }
    }
  }
  return plan;
}

function renameAllocations(
  allocations: ConsumerState['allocations'],
  rename: (rc: string) => string,
): ConsumerState['allocations'] {
  const out: ConsumerState['allocations'] = {};
  for (const [rp, resources] of Object.entries(allocations)) {
    const inner: Record<string, number> = {};
    for (const [rc, n] of Object.entries(resources)) inner[rename(rc)] = n;
    out[rp] = inner;
  }
  return out;
}

/** Runs a statement that must touch exactly `expected` rows; fewer (or more) means the state moved. */
async function exactly(
  db: SqlExecutor,
  expected: number,
  what: string,
  sql: string,
  params: unknown[],
): Promise<{ rows: Record<string, unknown>[] }> {
  const r = await db.query(sql, params);
  if (r.rowCount !== expected)
    throw new StaleStateError(`${what}: ${r.rowCount} rows where ${expected} were expected`);
  return r;
}

/**
 * Runs a set-based statement over the entries of `list` (nothing when it is
 * empty), which must touch one row per entry, as {@link exactly} checks.
 */
function oneRowEach(
  db: SqlExecutor,
  list: readonly unknown[],
  what: string,
  sql: string,
  params: unknown[],
): Promise<{ rows: Record<string, unknown>[] }> {
  return list.length ? exactly(db, list.length, what, sql, params) : Promise.resolve({ rows: [] });
}

const col = <T, K>(list: readonly T[], f: (x: T) => K): K[] => list.map(f);

/**
 * Runs a {@link RowPlan} in a transaction (schema `s` quoted, `sequence` the
 * custom class sequence as a text literal). Returns the changes for the log,
 * with the ids the database gave new providers.
 */
export async function writeRows(db: SqlExecutor, s: string, plan: RowPlan): Promise<PlacementChange[]> {
  const at = plan.at;
  for (const r of plan.renames) {
    await exactly(
      db,
      1,
      `rename of resource class ${r.from}`,
      `UPDATE ${s}.resource_classes SET name = $2, updated_at = ${ts('$3')} WHERE name = $1`,
      [r.from, r.to, at],
    );
  }
  await oneRowEach(
    db,
    plan.newTraits,
    'new traits',
    `INSERT INTO ${s}.traits (name, created_at) SELECT n, ${ts('a')} FROM unnest($1::text[], $2::text[]) AS x(n, a)`,
    [col(plan.newTraits, (t) => t.name), col(plan.newTraits, (t) => t.at)],
  );
  const sequence = `${s}.resource_classes_custom_id`.replace(/'/g, "''");
  await oneRowEach(
    db,
    plan.newClasses,
    'new resource classes',
    `INSERT INTO ${s}.resource_classes (id, name, created_at)
     SELECT nextval('${sequence}'), n, ${ts('a')} FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS x(n, a, o) ORDER BY o`,
    [col(plan.newClasses, (c) => c.name), col(plan.newClasses, (c) => c.at)],
  );
  const created = await oneRowEach(
    db,
    plan.created,
    'new providers',
    `INSERT INTO ${s}.resource_providers (uuid, name, generation, created_at, updated_at)
     SELECT u, n, g, ${ts('c')}, ${ts('m')}
     FROM unnest($1::text[], $2::text[], $3::int[], $4::text[], $5::text[]) WITH ORDINALITY AS x(u, n, g, c, m, o)
     ORDER BY o
     RETURNING id, uuid`,
    [
      col(plan.created, (p) => p.uuid),
      col(plan.created, (p) => p.name),
      col(plan.created, (p) => p.generation),
      col(plan.created, (p) => p.createdAt),
      col(plan.created, (p) => p.updatedAt),
    ],
  );
  if (created.rows.length) {
    const ids = new Map(created.rows.map((r) => [r.uuid as string, Number(r.id)]));
    for (const c of plan.changes) {
      if (c.type === 'provider' && c.state && ids.has(c.uuid)) c.state.id = ids.get(c.uuid) as number;
    }
  }
  await oneRowEach(
    db,
    plan.updated,
    'provider generations',
    `UPDATE ${s}.resource_providers rp SET name = x.n, generation = x.g, updated_at = ${ts('x.m')}
     FROM unnest($1::text[], $2::text[], $3::int[], $4::int[], $5::text[]) AS x(u, n, g, old, m)
     WHERE rp.uuid = x.u AND rp.generation = x.old`,
    [
      col(plan.updated, (u) => u.state.uuid),
      col(plan.updated, (u) => u.state.name),
      col(plan.updated, (u) => u.state.generation),
      col(plan.updated, (u) => u.oldGeneration),
      col(plan.updated, (u) => u.state.updatedAt),
    ],
  );
  // A parent that is gone leaves no row to join: fewer rows than expected.
  await oneRowEach(
    db,
    plan.parents,
    'provider parents',
    `UPDATE ${s}.resource_providers rp SET parent_provider_id = par.id
     FROM unnest($1::text[], $2::text[]) AS x(u, pu)
     LEFT JOIN ${s}.resource_providers par ON par.uuid = x.pu
     WHERE rp.uuid = x.u AND (x.pu IS NULL OR par.id IS NOT NULL)`,
    [col(plan.parents, (p) => p.uuid), col(plan.parents, (p) => p.parent)],
  );
  await oneRowEach(
    db,
    plan.roots,
    'provider roots',
    `UPDATE ${s}.resource_providers rp SET root_provider_id = r.id
     FROM unnest($1::text[], $2::text[]) AS x(u, ru)
     JOIN ${s}.resource_providers r ON r.uuid = x.ru
     WHERE rp.uuid = x.u`,
    [col(plan.roots, (r) => r.uuid), col(plan.roots, (r) => r.root)],
  );
  await oneRowEach(
    db,
    plan.inventoriesGone,
    'removed inventories',
    `DELETE FROM ${s}.inventories i
     USING unnest($1::text[], $2::text[]) AS x(u, rc), ${s}.resource_providers rp, ${s}.resource_classes c
     WHERE rp.uuid = x.u AND c.name = x.rc AND i.resource_provider_id = rp.id AND i.resource_class_id = c.id`,
    [col(plan.inventoriesGone, (i) => i.uuid), col(plan.inventoriesGone, (i) => i.rc)],
  );
  const inventoryParams = (list: RowPlan['inventoriesAdded']) => [
    col(list, (i) => i.uuid),
    col(list, (i) => i.rc),
    ...INVENTORY_FIELDS.map((f) => col(list, (i) => i.inv[f])),
    at,
  ];
  await oneRowEach(
    db,
    plan.inventoriesChanged,
    'changed inventories',
    `UPDATE ${s}.inventories i
     SET total = x.t, reserved = x.r, min_unit = x.mi, max_unit = x.ma, step_size = x.st,
         allocation_ratio = x.ra, updated_at = ${ts('$9')}
     FROM unnest($1::text[], $2::text[], $3::int[], $4::int[], $5::int[], $6::int[], $7::int[], $8::float8[])
            AS x(u, rc, t, r, mi, ma, st, ra),
          ${s}.resource_providers rp, ${s}.resource_classes c
     WHERE rp.uuid = x.u AND c.name = x.rc AND i.resource_provider_id = rp.id AND i.resource_class_id = c.id`,
    inventoryParams(plan.inventoriesChanged),
  );
  await oneRowEach(
    db,
    plan.inventoriesAdded,
    'new inventories',
    `INSERT INTO ${s}.inventories
       (resource_provider_id, resource_class_id, total, reserved, min_unit, max_unit, step_size, allocation_ratio, created_at)
     SELECT rp.id, c.id, x.t, x.r, x.mi, x.ma, x.st, x.ra, ${ts('$9')}
     FROM unnest($1::text[], $2::text[], $3::int[], $4::int[], $5::int[], $6::int[], $7::int[], $8::float8[])
            WITH ORDINALITY AS x(u, rc, t, r, mi, ma, st, ra, o)
     JOIN ${s}.resource_providers rp ON rp.uuid = x.u
     JOIN ${s}.resource_classes c ON c.name = x.rc
     ORDER BY x.o`,
    inventoryParams(plan.inventoriesAdded),
  );
  await oneRowEach(
    db,
    plan.traitsGone,
    'removed provider traits',
    `DELETE FROM ${s}.resource_provider_traits rpt
     USING unnest($1::text[], $2::text[]) AS x(u, t), ${s}.resource_providers rp, ${s}.traits t
     WHERE rp.uuid = x.u AND t.name = x.t AND rpt.resource_provider_id = rp.id AND rpt.trait_id = t.id`,
    [col(plan.traitsGone, (t) => t.uuid), col(plan.traitsGone, (t) => t.trait)],
  );
  await oneRowEach(
    db,
    plan.traitsAdded,
    'new provider traits',
    `INSERT INTO ${s}.resource_provider_traits (trait_id, resource_provider_id, created_at)
     SELECT t.id, rp.id, ${ts('$3')}
     FROM unnest($1::text[], $2::text[]) AS x(u, tn)
     JOIN ${s}.resource_providers rp ON rp.uuid = x.u
     JOIN ${s}.traits t ON t.name = x.tn`,
    [col(plan.traitsAdded, (t) => t.uuid), col(plan.traitsAdded, (t) => t.trait), at],
  );
  if (plan.aggregatesSet.length) {
    const uuids = col(plan.aggregatesSet, (a) => a.uuid);
    await db.query(
      `DELETE FROM ${s}.resource_provider_aggregates
       WHERE resource_provider_id IN (SELECT id FROM ${s}.resource_providers WHERE uuid = ANY($1::text[]))`,
      [uuids],
    );
    const rows = plan.aggregatesSet.flatMap((a) =>
      a.aggregates.map((agg, position) => ({ uuid: a.uuid, agg, position })),
    );
    if (rows.length) {
      await db.query(
        `INSERT INTO ${s}.placement_aggregates (uuid, created_at)
         SELECT DISTINCT a, ${ts('$2')} FROM unnest($1::text[]) AS a
         ON CONFLICT (uuid) DO NOTHING`,
        [[...new Set(rows.map((r) => r.agg))], at],
      );
      await exactly(
        db,
        rows.length,
        'provider aggregates',
        `INSERT INTO ${s}.resource_provider_aggregates (resource_provider_id, aggregate_id, position, created_at)
         SELECT rp.id, a.id, x.p, ${ts('$4')}
         FROM unnest($1::text[], $2::text[], $3::int[]) AS x(u, ag, p)
         JOIN ${s}.resource_providers rp ON rp.uuid = x.u
         JOIN ${s}.placement_aggregates a ON a.uuid = x.ag`,
        [col(rows, (r) => r.uuid), col(rows, (r) => r.agg), col(rows, (r) => r.position), at],
      );
    }
  }
  await writeConsumers(db, s, plan);
  if (plan.providersGone.length) {
    const gone = plan.providersGone;
    const ids = `SELECT id FROM ${s}.resource_providers WHERE uuid = ANY($1::text[])`;
    await db.query(`DELETE FROM ${s}.inventories WHERE resource_provider_id IN (${ids})`, [gone]);
    await db.query(`DELETE FROM ${s}.resource_provider_traits WHERE resource_provider_id IN (${ids})`, [
      gone,
    ]);
    await db.query(`DELETE FROM ${s}.resource_provider_aggregates WHERE resource_provider_id IN (${ids})`, [
      gone,
    ]);
    await exactly(
      db,
      gone.length,
      'removed providers',
      `DELETE FROM ${s}.resource_providers WHERE uuid = ANY($1::text[])`,
      [gone],
    );
  }
  await oneRowEach(
    db,
    plan.goneTraits,
    'removed traits',
    `DELETE FROM ${s}.traits WHERE name = ANY($1::text[])`,
    [plan.goneTraits],
  );
  await oneRowEach(
    db,
    plan.goneClasses,
    'removed resource classes',
    `DELETE FROM ${s}.resource_classes WHERE name = ANY($1::text[]) AND id >= ${FIRST_CUSTOM_CLASS_ID}`,
    [plan.goneClasses],
  );
  return plan.changes;
}

async function writeConsumers(db: SqlExecutor, s: string, plan: RowPlan): Promise<void> {
  const at = plan.at;
  const present = [...plan.consumersCreated, ...plan.consumersUpdated.map((u) => u.state)];
  if (present.length) {
    for (const [table, values] of [
      ['projects', present.map((c) => c.projectId)],
      ['users', present.map((c) => c.userId)],
    ] as const) {
      await db.query(
        `INSERT INTO ${s}.${table} (external_id, created_at)
         SELECT DISTINCT e, ${ts('$2')} FROM unnest($1::text[]) AS e
         ON CONFLICT (external_id) DO NOTHING`,
        [[...new Set(values)], at],
      );
    }
    const types = [...new Set(present.map((c) => c.consumerType).filter((t) => t !== 'unknown'))];
    if (types.length) {
      await db.query(
        `INSERT INTO ${s}.consumer_types (name, created_at)
         SELECT DISTINCT n, ${ts('$2')} FROM unnest($1::text[]) AS n
         ON CONFLICT (name) DO NOTHING`,
        [types, at],
      );
    }
  }
  const consumerParams = (list: readonly ConsumerState[]) => [
    col(list, (c) => c.uuid),
    col(list, (c) => c.projectId),
    col(list, (c) => c.userId),
    col(list, (c) => c.generation),
    col(list, (c) => c.consumerType),
    col(list, (c) => c.createdAt),
    col(list, (c) => c.updatedAt),
  ];
  const joins = `JOIN ${s}.projects p ON p.external_id = x.pr
                 JOIN ${s}.users us ON us.external_id = x.us
                 LEFT JOIN ${s}.consumer_types ct ON ct.name = x.ty`;
  await oneRowEach(
    db,
    plan.consumersCreated,
    'new consumers',
    `INSERT INTO ${s}.consumers (uuid, project_id, user_id, generation, consumer_type_id, created_at, updated_at)
     SELECT x.u, p.id, us.id, x.g, ct.id, ${ts('x.c')}, ${ts('x.m')}
     FROM unnest($1::text[], $2::text[], $3::text[], $4::int[], $5::text[], $6::text[], $7::text[])
            WITH ORDINALITY AS x(u, pr, us, g, ty, c, m, o)
     ${joins}
     ORDER BY x.o`,
    consumerParams(plan.consumersCreated),
  );
  await oneRowEach(
    db,
    plan.consumersUpdated,
    'consumer generations',
    `UPDATE ${s}.consumers cs
     SET project_id = p.id, user_id = us.id, generation = x.g, consumer_type_id = ct.id, updated_at = ${ts('x.m')}
     FROM unnest($1::text[], $2::text[], $3::text[], $4::int[], $5::text[], $6::text[], $7::text[], $8::int[])
            AS x(u, pr, us, g, ty, c, m, old)
     ${joins}
     WHERE cs.uuid = x.u AND cs.generation = x.old`,
    [
      ...consumerParams(plan.consumersUpdated.map((u) => u.state)),
      col(plan.consumersUpdated, (u) => u.oldGeneration),
    ],
  );
  if (plan.allocationsOf.length) {
    await db.query(`DELETE FROM ${s}.allocations WHERE consumer_id = ANY($1::text[])`, [plan.allocationsOf]);
  }
  if (plan.allocations.length) {
    const a = plan.allocations;
    await exactly(
      db,
      a.length,
      'allocations',
      `INSERT INTO ${s}.allocations (resource_provider_id, consumer_id, resource_class_id, used, created_at)
       SELECT rp.id, x.cu, c.id, x.n, ${ts('$5')}
       FROM unnest($1::text[], $2::text[], $3::text[], $4::int[]) WITH ORDINALITY AS x(cu, u, rc, n, o)
       JOIN ${s}.resource_providers rp ON rp.uuid = x.u
       JOIN ${s}.resource_classes c ON c.name = x.rc
       ORDER BY x.o`,
      [col(a, (r) => r.consumer), col(a, (r) => r.provider), col(a, (r) => r.rc), col(a, (r) => r.used), at],
    );
    // The same rule the in-memory check applied, now on the committed rows:
    // every class the new allocations name fits its provider's capacity.
    // It cannot fail unless memory and database disagree; if they do, the
    // write is retried after catching up rather than over-commit.
    const over = await db.query<{ u: string; rc: string }>(
      `SELECT x.u, x.rc
       FROM (SELECT DISTINCT u, rc FROM unnest($1::text[], $2::text[]) AS y(u, rc)) AS x
       JOIN ${s}.resource_providers rp ON rp.uuid = x.u
       JOIN ${s}.resource_classes c ON c.name = x.rc
       JOIN ${s}.inventories i ON i.resource_provider_id = rp.id AND i.resource_class_id = c.id
       WHERE (SELECT COALESCE(SUM(a.used), 0) FROM ${s}.allocations a
              WHERE a.resource_provider_id = rp.id AND a.resource_class_id = c.id)
             > (i.total - i.reserved) * i.allocation_ratio`,
      [col(a, (r) => r.provider), col(a, (r) => r.rc)],
    );
    if (over.rows.length) {
      const first = over.rows[0] as { u: string; rc: string };
      throw new StaleStateError(`${first.rc} on provider ${first.u} would exceed its capacity`);
    }
  }
  await oneRowEach(
    db,
    plan.consumersGone,
    'removed consumers',
    `DELETE FROM ${s}.consumers WHERE uuid = ANY($1::text[])`,
    [plan.consumersGone],
  );
}

/** The whole state as changes (for `ProviderStore.applyChanges` on a reset store), with its log position. */
export interface Snapshot {
  position: number;
  changes: PlacementChange[];
}

/**
 * Reads the whole state in one transaction that sees one moment (the
 * caller runs it with `snapshot: true`): every row and the last log entry
 * they include. `standardTraits` are left out of the trait changes (a new
 * store has them).
 */
export async function readSnapshot(
  db: SqlExecutor,
  s: string,
  isStandardTrait: (name: string) => boolean,
): Promise<Snapshot> {
  const position = Number(
    (await db.query<{ p: string }>(`SELECT COALESCE(MAX(id), 0)::text AS p FROM ${s}.placement_changes`))
      .rows[0]?.p ?? 0,
  );
  const changes: PlacementChange[] = [];
  const traits = await db.query<{ name: string; c: string }>(
    `SELECT name, ${iso('created_at')} AS c FROM ${s}.traits ORDER BY id`,
  );
  for (const t of traits.rows)
    if (!isStandardTrait(t.name)) changes.push({ type: 'trait', name: t.name, createdAt: t.c });
  const standard = new Set<string>(STANDARD_RESOURCE_CLASSES);
  const classes = await db.query<{ name: string; c: string }>(
    `SELECT name, ${iso('created_at')} AS c FROM ${s}.resource_classes ORDER BY id`,
  );
  for (const c of classes.rows)
    if (!standard.has(c.name)) changes.push({ type: 'resource-class', name: c.name, createdAt: c.c });

  const providers = await db.query<{
    id: number;
    uuid: string;
    name: string;
    generation: number;
    parent: string | null;
    c: string;
    m: string;
  }>(
    `SELECT rp.id, rp.uuid, rp.name, rp.generation, par.uuid AS parent,
            ${iso('rp.created_at')} AS c, ${iso('COALESCE(rp.updated_at, rp.created_at)')} AS m
     FROM ${s}.resource_providers rp LEFT JOIN ${s}.resource_providers par ON par.id = rp.parent_provider_id
     ORDER BY rp.id`,
  );
  const byId = new Map<number, ProviderState>();
  for (const r of providers.rows) {
    const state: ProviderState = {
      id: Number(r.id),
      uuid: r.uuid,
      name: r.name,
      parentUuid: r.parent,
      generation: Number(r.generation),
      inventories: {},
      traits: [],
      aggregates: [],
      createdAt: r.c,
      updatedAt: r.m,
    };
    byId.set(state.id, state);
  }
  const inventories = await db.query<Record<string, number | string>>(
    `SELECT i.resource_provider_id AS rp, c.name, i.total, i.reserved, i.min_unit, i.max_unit, i.step_size,
            i.allocation_ratio
     FROM ${s}.inventories i JOIN ${s}.resource_classes c ON c.id = i.resource_class_id
     ORDER BY i.id`,
  );
  for (const r of inventories.rows) {
    const p = byId.get(Number(r.rp));
    if (!p) continue;
    const inv = {} as Inventory;
    for (const f of INVENTORY_FIELDS) inv[f] = Number(r[f]);
    p.inventories[r.name as string] = inv;
  }
  const rpTraits = await db.query<{ rp: number; name: string }>(
    `SELECT rpt.resource_provider_id AS rp, t.name
     FROM ${s}.resource_provider_traits rpt JOIN ${s}.traits t ON t.id = rpt.trait_id`,
  );
  for (const r of rpTraits.rows) byId.get(Number(r.rp))?.traits.push(r.name);
  for (const p of byId.values()) p.traits.sort();
  const rpAggregates = await db.query<{ rp: number; uuid: string }>(
    `SELECT rpa.resource_provider_id AS rp, a.uuid
     FROM ${s}.resource_provider_aggregates rpa JOIN ${s}.placement_aggregates a ON a.id = rpa.aggregate_id
     ORDER BY rpa.resource_provider_id, rpa.position`,
  );
  for (const r of rpAggregates.rows) byId.get(Number(r.rp))?.aggregates.push(r.uuid);
  for (const state of byId.values()) changes.push({ type: 'provider', uuid: state.uuid, state });

  const consumers = await db.query<{
    uuid: string;
    project: string;
    usr: string;
    type: string | null;
    generation: number;
    c: string;
    m: string;
  }>(
    `SELECT cs.uuid, p.external_id AS project, u.external_id AS usr, ct.name AS type, cs.generation,
            ${iso('cs.created_at')} AS c, ${iso('COALESCE(cs.updated_at, cs.created_at)')} AS m
     FROM ${s}.consumers cs
     JOIN ${s}.projects p ON p.id = cs.project_id
     JOIN ${s}.users u ON u.id = cs.user_id
     LEFT JOIN ${s}.consumer_types ct ON ct.id = cs.consumer_type_id
     ORDER BY cs.id`,
  );
  const byUuid = new Map<string, ConsumerState>();
  for (const r of consumers.rows) {
    byUuid.set(r.uuid, {
      uuid: r.uuid,
      projectId: r.project,
      userId: r.usr,
      consumerType: r.type ?? 'unknown',
      generation: Number(r.generation),
      allocations: {},
      createdAt: r.c,
      updatedAt: r.m,
    });
  }
  const allocations = await db.query<{ consumer: string; rp: string; rc: string; used: number }>(
    `SELECT a.consumer_id AS consumer, rp.uuid AS rp, c.name AS rc, a.used
     FROM ${s}.allocations a
     JOIN ${s}.resource_providers rp ON rp.id = a.resource_provider_id
     JOIN ${s}.resource_classes c ON c.id = a.resource_class_id
     ORDER BY a.id`,
  );
  for (const r of allocations.rows) {
    const c = byUuid.get(r.consumer);
    if (!c) continue;
    const inner = c.allocations[r.rp] ?? {};
    inner[r.rc] = (inner[r.rc] ?? 0) + Number(r.used);
    c.allocations[r.rp] = inner;
  }
  for (const state of byUuid.values()) changes.push({ type: 'consumer', uuid: state.uuid, state });
  return { position, changes };
}
