import {
  ConflictError,
  createDiagnostic,
  describeError,
  isStackspecError,
  STANDARD_RESOURCE_CLASSES,
} from '@stackspec/core';
import { createSchemaMigrator, quoteIdent, type SqlMigrationResult } from '@stackspec/core/sql';
import { type ChangeEntry, PlacementChangeSchema } from '../model/changes.js';
import { applyInventory, type ResolvedInventory } from '../model/inventory-file.js';
import { createProviderStore } from '../model/store.js';
import { isRace, StaleStateError, storageError, storeUnavailable } from './errors.js';
import { ChangeFeed } from './feed.js';
import { MIGRATIONS } from './schema.js';
import type { SqlDriver, SqlExecutor, SqlListener } from './sql-driver.js';
import { planRows, readSnapshot, writeRows } from './sql-rows.js';
import type { PlacementStore, StoreHealth, WriteIntent } from './types.js';

/** Options shared by the SQL stores (PGlite and PostgreSQL). */
export interface SqlStoreOptions {
  /** PostgreSQL schema holding the tables (created when missing); default `placement`. */
  schema?: string;
  /**
   * Whether opening may create what is missing: the schema, the tables,
   * later migrations (default `true`). What exists is looked up first, so
   * an up-to-date schema needs no right beyond reading and writing rows.
   * With `false` the store only checks that the schema is at the latest
   * version, and fails with `placement-query/not-migrated` (503) when it is
   * not: for a role that may not create anything, after `migrate()` ran as
   * the owner.
   */
  migrate?: boolean;
  /**
   * Whether to follow other servers' writes (`LISTEN` on a connection of its
   * own, and a poll of the change log every `heartbeatMillis`); default: for
   * PostgreSQL yes, for PGlite (one process holds the directory) no.
   */
  follow?: boolean;
  /** How often the follower polls the change log when nothing wakes it, in ms (default 1000). */
  heartbeatMillis?: number;
  /**
   * How long after its last successful poll a following server still vouches
   * for its state, in ms (default 3000); past it, or while its listening
   * connection is down, reads are refused with 503.
   */
  staleAfterMillis?: number;
  /** Change log entries kept (default 100,000); a server further behind reads the whole state again. */
  changeLogSize?: number;
  /** os-traits release whose standard traits exist (default: Debian 12's Placement's, 2.9.0). */
  osTraitsRelease?: string;
  /** Clock for created and updated times (default: the system clock). */
  clock?: () => Date;
  /** Milliseconds now, for staleness (default `Date.now`). */
  now?: () => number;
  /** Operational messages, one sentence each (a lost connection, a reload); default nowhere. */
  log?: (line: string) => void;
}

/**
 * What {@link SqlPlacementStore.migrate} did: the schema (unquoted), the
 * migrations this call applied in order (empty when the schema was up to
 * date), and the version the schema is at now (the latest this package
 * knows).
 */
export type MigrationResult = SqlMigrationResult;

/** What {@link SqlPlacementStore.importInventory} did. */
export interface ImportResult {
  providers: number;
  consumers: number;
  /** Providers the import replaced (0 unless `replace`). */
  replaced: number;
}

/** A durable Placement on PostgreSQL (PGlite or a server). */
export interface SqlPlacementStore extends PlacementStore {
  /**
   * Creates what is missing (the schema, the tables, later migrations), one
   * migrator at a time across processes, each migration once, then adds the
   * standard traits and resource classes the tables lack. Run it as the
   * owner; then serve with a role that may only read and write rows and
   * `migrate: false`.
   */
  migrate(): Promise<MigrationResult>;
  /**
   * Loads a resolved inventory file into the database in one transaction,
   * and has every server read the state again. Refused with 409
   * (`placement-query/not-empty`) when the database already holds
   * providers, consumers or custom traits or classes, unless `replace`,
   * which first removes all of them. The store must be open.
   */
  importInventory(inventory: ResolvedInventory, options?: { replace?: boolean }): Promise<ImportResult>;
}

const MAX_ATTEMPTS = 6;
const PAGE = 1000;
const PRUNE_EVERY = 500;

/** The change log cannot be continued from where memory is: the whole state must be read again. */
class NeedsReload extends Error {}

/** A LISTEN channel per schema (an identifier: short and plain). */
function channelOf(schema: string): string {
  let h = 0x811c9dc5;
  for (const ch of schema) h = Math.imul(h ^ (ch.codePointAt(0) as number), 0x01000193) >>> 0;
  return `stackspec_placement_${h.toString(16)}`;
}

function parseEntry(id: string, text: string): ChangeEntry {
  const changes = PlacementChangeSchema.array().parse(JSON.parse(text));
  return { position: Number(id), changes };
}

/**
 * The durable Placement on any PostgreSQL driver (see {@link PlacementStore}
 * for what a write does). `open()` migrates (or checks) the schema, adds
 * the standard traits and resource classes, reads the whole state in one
 * snapshot and, when following, listens for other servers' writes.
 */
export function createSqlPlacementStore(driver: SqlDriver, options: SqlStoreOptions = {}): SqlPlacementStore {
  const schemaName = options.schema ?? 'placement';
  const s = quoteIdent(schemaName);
  const channel = channelOf(schemaName);
  const clock = options.clock ?? (() => new Date());
  const now = options.now ?? Date.now;
  const log = options.log ?? (() => {});
  const follow = options.follow ?? driver.kind === 'postgres';
  const heartbeat = options.heartbeatMillis ?? 1000;
  const staleAfter = options.staleAfterMillis ?? Math.max(3000, heartbeat * 3);
  const keep = options.changeLogSize ?? 100_000;
  const store = createProviderStore({
    ...(options.osTraitsRelease ? { osTraitsRelease: options.osTraitsRelease } : {}),
    ...(options.clock ? { clock: options.clock } : {}),
  });
  const feed = new ChangeFeed(store);
  let opened = false;
  let closed = false;
  let listener: SqlListener | undefined;
  let timer: ReturnType<typeof setInterval> | undefined;
  let listening = false;
  let vouched = false;
  let epoch = 0;
  let lastOk = 0;
  let downReason: string | undefined;
  let reloading: Promise<void> | undefined;
  let polling: Promise<void> | undefined;
  let pollAgain = false;
  let appended = 0;

  // -- schema ---------------------------------------------------------------

  const migrator = createSchemaMigrator({
    schema: schemaName,
    table: 'placement_migrations',
    migrations: MIGRATIONS,
    lockKey: `stackspec-placement-migrate:${schemaName}`,
    badOptionCode: 'placement-query/bad-option',
    notMigrated: {
      code: 'placement-query/not-migrated',
      tables: 'Placement',
      command: 'stackspec-placement migrate',
      message: (what, latest, missing) =>
        `${what}, and this stackspec needs version ${latest} (missing: ${missing.map((m) => `${m.version} ${m.name}`).join(', ')}).`,
    },
  });
  // Looks first: an up-to-date schema gets no CREATE, which a serving role may not run.
  const migrateSchema = () => migrator.migrate(driver);
  const verifySchema = () => migrator.verify(driver);

  /** Adds the standard traits and resource classes the tables lack (rows only: no CREATE). */
  async function seedVocabulary(): Promise<void> {
    const traits = store.traitNames().filter((t) => store.isStandardTrait(t));
    const classes = [...STANDARD_RESOURCE_CLASSES];
    const { rows } = await driver.query<{ t: number; c: number }>(
      `SELECT (SELECT count(*)::int FROM ${s}.traits WHERE name = ANY($1::text[])) AS t,
              (SELECT count(*)::int FROM ${s}.resource_classes WHERE name = ANY($2::text[])) AS c`,
      [traits, classes],
    );
    const row = rows[0];
    if (row && row.t === traits.length && row.c === classes.length) return;
    const at = clock().toISOString();
    await driver.transaction(async (tx) => {
      await tx.query(
        `INSERT INTO ${s}.traits (name, created_at)
         SELECT n, ($2::timestamptz AT TIME ZONE 'UTC') FROM unnest($1::text[]) AS n
         ON CONFLICT (name) DO NOTHING`,
        [traits, at],
      );
      // Standard classes take their index in os-resource-classes' list as id, as in Placement.
      await tx.query(
        `INSERT INTO ${s}.resource_classes (id, name, created_at)
         SELECT (o - 1)::int, n, ($2::timestamptz AT TIME ZONE 'UTC')
         FROM unnest($1::text[]) WITH ORDINALITY AS x(n, o)
         ON CONFLICT DO NOTHING`,
        [classes, at],
      );
    });
  }

  // -- the change log ---------------------------------------------------------

  async function reload(): Promise<void> {
    reloading ??= (async () => {
      const snapshot = await driver.transaction(
        (tx) => readSnapshot(tx, s, (t) => store.isStandardTrait(t)),
        {
          snapshot: true,
        },
      );
      feed.replace(snapshot.position, (st) => st.applyChanges(snapshot.changes));
    })().finally(() => {
      reloading = undefined;
    });
    return reloading;
  }

  /** Applies every committed entry after the in-memory position (read through `db`). */
  async function catchUp(db: SqlExecutor): Promise<void> {
    for (;;) {
      const { rows } = await db.query<{ id: string; changes: string }>(
        `SELECT id::text AS id, changes FROM ${s}.placement_changes WHERE id > $1 ORDER BY id LIMIT ${PAGE}`,
        [feed.position],
      );
      if (!rows.length) return;
      const result = feed.offer(rows.map((r) => parseEntry(r.id, r.changes)));
      if (result !== 'applied') throw new NeedsReload(result);
      if (rows.length < PAGE) return;
    }
  }

  async function append(tx: SqlExecutor, changes: unknown[]): Promise<number> {
    // Entries are numbered under one lock, held to commit: they commit in
    // their order and leave no gap, so a follower that read up to n has
    // seen everything before n.
    await tx.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [
      `stackspec-placement-changes:${schemaName}`,
    ]);
    const { rows } = await tx.query<{ id: string }>(
      `INSERT INTO ${s}.placement_changes (id, created_at, changes)
       SELECT COALESCE(MAX(id), 0) + 1, now() AT TIME ZONE 'UTC', $1 FROM ${s}.placement_changes
       RETURNING id::text AS id`,
      [JSON.stringify(changes)],
    );
    const position = Number(rows[0]?.id);
    await tx.query('SELECT pg_notify($1, $2)', [channel, String(position)]);
    return position;
  }

  function prune(position: number): void {
    appended += 1;
    if (appended % PRUNE_EVERY !== 0 || position <= keep) return;
    driver
      .query(`DELETE FROM ${s}.placement_changes WHERE id <= $1`, [position - keep])
      .catch((e: unknown) => log(`Pruning the Placement change log failed: ${describeError(e)}`));
  }

  async function lockNames(tx: SqlExecutor, names: readonly string[]): Promise<void> {
    await tx.query(
      `SELECT pg_advisory_xact_lock(k)
       FROM (SELECT hashtextextended($2 || ':' || n, 0) AS k FROM unnest($1::text[]) AS n ORDER BY 1) AS keys`,
      [[...names], `stackspec-placement:${schemaName}`],
    );
  }

  async function lockProviders(tx: SqlExecutor, uuids: readonly string[]): Promise<void> {
    // One order for every writer (by id): two writes that lock the same providers never wait on each other in a cycle.
    await tx.query(
      `SELECT id FROM ${s}.resource_providers WHERE uuid = ANY($1::text[]) ORDER BY id FOR UPDATE`,
      [[...uuids]],
    );
  }

  /** Brings memory to at least `entry`, and applies `entry` itself when it is next. */
  async function applyOwn(entry: ChangeEntry): Promise<void> {
    for (let i = 0; i < 3 && feed.position < entry.position; i += 1) {
      if (feed.position < entry.position - 1) {
        try {
          await catchUp(driver);
        } catch (e) {
          if (!(e instanceof NeedsReload)) throw e;
          await reload();
        }
      }
      if (feed.position === entry.position - 1) feed.offer([entry]);
    }
    if (feed.position < entry.position) await reload();
  }

  // -- following other servers ------------------------------------------------

  function poll(): Promise<void> {
    if (polling) {
      pollAgain = true;
      return polling;
    }
    polling = (async () => {
      try {
        do {
          pollAgain = false;
          const started = epoch;
          const through = listener;
          if (!through || !listening) return;
          try {
            await catchUp(through);
          } catch (e) {
            if (!(e instanceof NeedsReload)) throw e;
            await reload();
          }
          if (started === epoch && listening) {
            vouched = true;
            lastOk = now();
            downReason = undefined;
          }
        } while (pollAgain);
      } catch (e) {
        downReason = describeError(e);
      } finally {
        polling = undefined;
      }
    })();
    return polling;
  }

  async function startFollowing(): Promise<void> {
    listener = await driver.listen(channel, {
      onNotify: () => void poll(),
      onState: (up, reason) => {
        epoch += 1;
        listening = up;
        if (up) {
          log('The Placement database connection is back; catching up with the change log.');
          void poll();
        } else {
          vouched = false;
          downReason = reason ?? 'the listening connection was lost';
          log(
            `The Placement database connection was lost (${downReason}); reads answer 503 until it is back.`,
          );
        }
      },
    });
    listening = true;
    epoch += 1;
    await poll();
    timer = setInterval(() => void poll(), heartbeat);
    timer.unref?.();
  }

  function readable(): boolean {
    if (!follow) return true;
    return listening && vouched && now() - lastOk <= staleAfter;
  }

  // -- the store ------------------------------------------------------------

  function assertOpen(): void {
    if (closed) throw storeUnavailable('the store is closed');
    if (!opened) throw storeUnavailable('the store is not open yet');
  }

  async function write<T, R>(intent: WriteIntent<T, R>): Promise<R> {
    assertOpen();
    for (let attempt = 1; ; attempt += 1) {
      let registered: number | undefined;
      let answer: { value: R } | undefined;
      let answerFailure: { error: unknown } | undefined;
      try {
        const outcome = await driver.transaction(async (tx) => {
          await catchUp(tx);
          const held = new Set<string>();
          for (let round = 0; ; round += 1) {
            const want = intent.locks?.(store) ?? {};
            const names = [
              ...(want.names ?? []),
              ...[...(want.consumers ?? [])].map((c) => `consumer:${c}`),
            ].filter((n) => !held.has(`n:${n}`));
            const providers = [...(want.providers ?? [])].filter((u) => !held.has(`p:${u}`));
            if (!names.length && !providers.length) break;
            if (round >= 8) throw new StaleStateError('the rows to lock kept changing');
            if (names.length) await lockNames(tx, [...new Set(names)]);
            if (providers.length) await lockProviders(tx, [...new Set(providers)]);
            for (const n of names) held.add(`n:${n}`);
            for (const u of providers) held.add(`p:${u}`);
            // What was committed before the locks were granted, now in memory.
            await catchUp(tx);
          }
          const staged = store.stage((st) => intent.decide(st));
          if (!staged.changes.length) return { value: staged.value, entry: undefined };
          // Worked out now, while memory is the state the write was decided on.
          const plan = planRows(staged.changes, staged.before, store, clock().toISOString());
          const changes = await writeRows(tx, s, plan);
          const position = await append(tx, changes);
          registered = position;
          feed.expect(position, () => {
            try {
              answer = { value: intent.answer(store, staged.value) };
            } catch (e) {
              answerFailure = { error: e };
            }
          });
          return { value: staged.value, entry: { position, changes } };
        });
        if (!outcome.entry) return intent.answer(store, outcome.value);
        registered = undefined;
        await applyOwn(outcome.entry);
        prune(outcome.entry.position);
        if (answerFailure) throw (answerFailure as { error: unknown }).error;
        if (!answer) throw new Error('a committed write was applied without its answer');
        return (answer as { value: R }).value;
      } catch (e) {
        if (registered !== undefined) feed.forget(registered);
        if (e instanceof NeedsReload && attempt < MAX_ATTEMPTS) {
          await reload();
          continue;
        }
        if (isRace(e) && attempt < MAX_ATTEMPTS) continue;
        if (isStackspecError(e)) throw e;
        if (e instanceof StaleStateError) {
          // Memory and database still disagree after every retry: read everything again.
          log(`A Placement write kept finding the database changed (${e.message}); reading the state again.`);
          await reload().catch(() => undefined);
        }
        throw storageError(e);
      }
    }
  }

  async function importInventory(
    inventory: ResolvedInventory,
    importOptions: { replace?: boolean } = {},
  ): Promise<ImportResult> {
    assertOpen();
    const scratch = createProviderStore({
      ...(options.osTraitsRelease ? { osTraitsRelease: options.osTraitsRelease } : {}),
      ...(options.clock ? { clock: options.clock } : {}),
    });
    const staged = scratch.stage((st) => applyInventory(st, inventory));
    const plan = planRows(staged.changes, staged.before, scratch, clock().toISOString());
    let replaced = 0;
    try {
      await driver.transaction(async (tx) => {
        await lockNames(tx, ['import']);
        const { rows } = await tx.query<{ p: number; c: number; v: number }>(
          `SELECT (SELECT count(*)::int FROM ${s}.resource_providers) AS p,
                  (SELECT count(*)::int FROM ${s}.consumers) AS c,
                  (SELECT count(*)::int FROM ${s}.traits WHERE NOT (name = ANY($1::text[])))
                  + (SELECT count(*)::int FROM ${s}.resource_classes WHERE id >= 10000) AS v`,
          [store.traitNames().filter((t) => store.isStandardTrait(t))],
        );
        const held = rows[0] ?? { p: 0, c: 0, v: 0 };
        if ((held.p || held.c || held.v) && !importOptions.replace) {
          const message = `The Placement database already holds ${held.p} providers, ${held.c} consumers and ${held.v} custom traits or resource classes; an import would mix two clouds.`;
          throw new ConflictError(message, {
            code: 'placement-query/not-empty',
            diagnostics: [
              createDiagnostic({
                code: 'placement-query/not-empty',
                message,
                hint: 'Import with --replace to remove what the database holds first, or load the file through the API (stackspec-placement load).',
              }),
            ],
          });
        }
        replaced = held.p;
        if (held.p || held.c || held.v) {
          const standard = store.traitNames().filter((t) => store.isStandardTrait(t));
          for (const sql of [
            `DELETE FROM ${s}.allocations`,
            `DELETE FROM ${s}.consumers`,
            `DELETE FROM ${s}.projects`,
            `DELETE FROM ${s}.users`,
            `DELETE FROM ${s}.consumer_types`,
            `DELETE FROM ${s}.resource_provider_traits`,
            `DELETE FROM ${s}.resource_provider_aggregates`,
            `DELETE FROM ${s}.placement_aggregates`,
            `DELETE FROM ${s}.inventories`,
            `UPDATE ${s}.resource_providers SET parent_provider_id = NULL, root_provider_id = NULL`,
            `DELETE FROM ${s}.resource_providers`,
            `DELETE FROM ${s}.resource_classes WHERE id >= 10000`,
          ])
            await tx.query(sql);
          await tx.query(`DELETE FROM ${s}.traits WHERE NOT (name = ANY($1::text[]))`, [standard]);
        }
        await writeRows(tx, s, plan);
        await append(tx, [{ type: 'reload' }]);
      });
    } catch (e) {
      throw storageError(e);
    }
    await reload();
    return { providers: inventory.providers.length, consumers: inventory.consumers.length, replaced };
  }

  const placement: SqlPlacementStore = {
    store,
    async open() {
      if (opened) return;
      if (closed) throw storeUnavailable('the store is closed');
      try {
        if (options.migrate === false) await verifySchema();
        else await migrateSchema();
        await seedVocabulary();
        await reload();
        if (follow) await startFollowing();
        opened = true;
      } catch (e) {
        throw storageError(e);
      }
    },
    async migrate() {
      try {
        const done = await migrateSchema();
        await seedVocabulary();
        return done;
      } catch (e) {
        throw storageError(e);
      }
    },
    write,
    importInventory,
    health(): StoreHealth {
      const ok = !closed && opened && readable();
      return {
        status: ok ? 'ok' : 'unavailable',
        kind: driver.kind,
        description: driver.description,
        position: feed.position,
        ...(ok
          ? {}
          : {
              reason: closed
                ? 'the store is closed'
                : !opened
                  ? 'the store is not open yet'
                  : (downReason ?? `no word from the database for ${Math.round((now() - lastOk) / 1000)} s`),
            }),
      };
    },
    assertReadable() {
      const h = placement.health();
      if (h.status !== 'ok') throw storeUnavailable(h.reason ?? 'unknown');
    },
    async close() {
      if (closed) return;
      closed = true;
      if (timer) clearInterval(timer);
      await polling?.catch(() => undefined);
      await listener?.close().catch(() => undefined);
      await driver.close();
    },
  };
  return placement;
}
