import type { ChangeEntry } from '../model/changes.js';
import type { ProviderStore } from '../model/store.js';

/** What {@link ChangeFeed.offer} did. */
export type OfferResult =
  /** Every entry after the position was applied (or there were none). */
  | 'applied'
  /** The first entry offered is beyond the next position: the entries between are missing. */
  | 'gap'
  /** An entry rewrote the whole state (an import): the state must be read again from the tables. */
  | 'reload';

/**
 * The in-memory state's place in the change log: applies committed entries
 * to a {@link ProviderStore} strictly in log order, each in one synchronous
 * step, whoever offers them (the write that made one, a write catching up
 * inside its transaction, the follower woken by `NOTIFY`), skipping what
 * was already applied. A write registers a callback for its own entry
 * before it commits; the callback runs right after that entry is applied,
 * before any later one, so that the write answers with the state it made.
 */
export class ChangeFeed {
  #position = 0;
  readonly #waiting = new Map<number, () => void>();

  constructor(readonly store: ProviderStore) {}

  /** The last entry applied (0: none). */
  get position(): number {
    return this.#position;
  }

  /**
   * Applies the entries that follow the position, in order, and runs the
   * callbacks waiting for them. Stops at a gap or at a `reload` entry (which
   * it leaves unapplied).
   */
  offer(entries: readonly ChangeEntry[]): OfferResult {
    const sorted = [...entries].sort((a, b) => a.position - b.position);
    for (const entry of sorted) {
      if (entry.position <= this.#position) continue;
      if (entry.position !== this.#position + 1) return 'gap';
      if (entry.changes.some((c) => c.type === 'reload')) return 'reload';
      this.store.applyChanges(entry.changes);
      this.#position = entry.position;
      this.#release(entry.position);
    }
    return 'applied';
  }

  /**
   * Replaces the whole state at once (a full reload from the tables, at
   * `position`), then runs every callback waiting for an entry up to it.
   */
  replace(position: number, load: (store: ProviderStore) => void): void {
    this.store.reset();
    load(this.store);
    this.#position = position;
    for (const p of [...this.#waiting.keys()].sort((a, b) => a - b)) if (p <= position) this.#release(p);
  }

  /** Runs `callback` right after the entry at `position` is applied. */
  expect(position: number, callback: () => void): void {
    this.#waiting.set(position, callback);
  }

  /** Drops the callback of an entry that will not come (its transaction failed). */
  forget(position: number): void {
    this.#waiting.delete(position);
  }

  #release(position: number): void {
    const callback = this.#waiting.get(position);
    if (!callback) return;
    this.#waiting.delete(position);
    callback();
  }
}
