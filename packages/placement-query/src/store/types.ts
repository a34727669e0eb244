import type { ProviderStore } from '../model/store.js';

/**
 * What a write locks before it decides, named from the in-memory state:
 * provider uuids (their rows, `SELECT … FOR UPDATE`, always in id order),
 * consumer uuids and names (`trait:CUSTOM_X`, `class:CUSTOM_Y`: advisory
 * locks, always in one order). Uuids the database does not hold are skipped.
 */
export interface WriteLocks {
  providers?: Iterable<string>;
  consumers?: Iterable<string>;
  names?: Iterable<string>;
}

/**
 * One write of the Placement API, in three steps a {@link PlacementStore}
 * runs in order:
 *
 * 1. `locks`: asked with the in-memory state once it has caught up with
 *    every committed write; asked again after each round of locking (the
 *    state may have moved meanwhile) until it names nothing new. A
 *    consumer's old allocations, a provider's root: what to lock can
 *    depend on what the rows hold.
 * 2. `decide`: runs the write with the {@link ProviderStore}'s own write
 *    methods, which check Placement's rules (generations, capacity, names,
 *    parents…) and throw its refusals. The store has caught up with every
 *    committed change of the locked rows, so it decides on what the database
 *    holds. What it changes is staged, not applied.
 * 3. `answer`: reads the reply from the store right after this write is
 *    applied and before any later write is (so a response shows the
 *    generation this write made, not a later one).
 *
 * Without a database (in memory) `decide` applies directly and `answer`
 * follows at once.
 */
export interface WriteIntent<T, R> {
  locks?(store: ProviderStore): WriteLocks;
  decide(store: ProviderStore): T;
  answer(store: ProviderStore, decided: T): R;
}

/** Whether a server can vouch for its in-memory state, for `/healthz` and for its reads. */
export interface StoreHealth {
  /** `ok`: current; `unavailable`: the database cannot be reached (reads are refused with 503). */
  status: 'ok' | 'unavailable';
  /** Where the state lives: `memory`, `pglite`, `postgres`. */
  kind: 'memory' | 'pglite' | 'postgres';
  /** The store in words (`PGlite in /var/lib/placement`, `PostgreSQL at db:5432/placement`). */
  description: string;
  /** The last change of the change log applied to the in-memory state (0: none). */
  position: number;
  /** Why the status is `unavailable`, as a sentence. */
  reason?: string;
}

/**
 * A Placement's state: the in-memory {@link ProviderStore} every read is
 * answered from (its indexes are the read path), kept equal to a database
 * when there is one. Writes run in the database's transactions: rows locked
 * in a fixed order, the rules checked on the current state, generations
 * compared and moved in the database, usage checked against capacity in the
 * same transaction, then one entry appended to a change log. Other servers
 * on the same database apply that entry to their own memory (woken by
 * `NOTIFY`, reading the log from where they stopped, so nothing is lost
 * across a reconnect), each entry at once, so that no read sees half of a
 * write.
 *
 * Refusals are Placement's (core's `ValidationError` 400, `NotFoundError`
 * 404, `ConflictError` 409 with Placement's code and text). A database that
 * cannot be reached is `placement-query/store-unavailable` (503); another
 * storage failure is `placement-query/storage` (500).
 */
export interface PlacementStore {
  /** The in-memory state reads are answered from (the same object for the life of the store). */
  readonly store: ProviderStore;
  /** Opens the database (migrating it unless told not to), loads the state and starts following other servers' writes. */
  open(): Promise<void>;
  /** Runs one write (see {@link WriteIntent}) and returns its answer. */
  write<T, R>(intent: WriteIntent<T, R>): Promise<R>;
  /** Whether the in-memory state is current. */
  health(): StoreHealth;
  /** Throws 503 (`placement-query/store-unavailable`) when the state cannot be vouched for. */
  assertReadable(): void;
  /** Stops following and releases the database. */
  close(): Promise<void>;
}
