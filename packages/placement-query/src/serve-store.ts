// The store `stackspec-placement serve` serves: opened (migrated unless
// --no-migrate), with the -i file loaded when the database is empty, and the
// banner lines that say where the state is kept.
import { isStackspecError } from '@stackspec/core';
import type { CliIO } from '@stackspec/core/cli';
import type { ResolvedInventory } from './model/inventory-file.js';
import type { ProviderStore } from './model/store.js';
import type { PlacementStore } from './store/types.js';
import {
  createStoreFor,
  DEFAULT_DATA_DIR,
  describePlace,
  isSqlStore,
  resolveStorePlace,
  type StoreOptionValues,
  storeProblem,
} from './store-place.js';

/** What `serve -i` loads: the file as resolved, and the state it makes in memory. */
export interface ServeInventory {
  file: string;
  load(): { inventory: ResolvedInventory; store: ProviderStore };
}

/** The opened store, and what the banner says about it. */
export interface ServedStore {
  placement: PlacementStore;
  /** Lines for the banner, after the one with the URL. */
  lines: string[];
}

/** What an ephemeral server's banner says about memory-only state. */
export const IN_MEMORY_ONLY =
  'Writes are kept in memory only (--ephemeral): stopping the server loses every provider, inventory, trait and allocation written through the API, and the inventory file is never changed.';

/** What `serve --help` says about `--ephemeral`. */
export const EPHEMERAL_HELP =
  'With --ephemeral, writes are kept in memory only: stopping the server loses every provider, inventory, trait and allocation written through the API, and the inventory file is never changed.';

/** Opens the store `serve` was told to use and loads its inventory file into it. */
export async function openServedStore(
  o: StoreOptionValues,
  io: CliIO,
  inventory: ServeInventory | undefined,
): Promise<ServedStore> {
  const place = resolveStorePlace(o, io);
  if (place.kind === 'memory') {
    const memory = inventory?.load().store;
    const placement = await createStoreFor(place, o, io, memory ? { memory } : {});
    return { placement, lines: [IN_MEMORY_ONLY] };
  }
  // Read the file before opening the database: a broken file must not leave a half-started server.
  const loaded = inventory?.load();
  const placement = await createStoreFor(place, o, io);
  try {
    await placement.open();
  } catch (e) {
    await placement.close();
    storeProblem(e);
  }
  const where = describePlace(place, o.schema);
  const lines = [
    place.kind === 'pglite'
      ? `State kept in ${where}: writes survive a restart; the directory is locked to this process${place.defaulted ? ` (the default ./${DEFAULT_DATA_DIR}; --data-dir names another, --ephemeral keeps writes in memory only)` : ''}.`
      : `State kept in ${where}: writes survive a restart, and every server on this database sees them.`,
  ];
  if (inventory && loaded && isSqlStore(placement)) {
    const memory = placement.store;
    const held = memory.providerCount + [...memory.consumers()].length;
    if (held) {
      io.stderr.write(
        `warning: The database already holds ${memory.providerCount} providers; ${inventory.file} was not loaded (stackspec-placement import --replace -i ${inventory.file} loads it over them).\n`,
      );
    } else {
      try {
        const done = await placement.importInventory(loaded.inventory);
        lines.push(
          `Loaded ${inventory.file} into the empty database: ${done.providers} providers, ${done.consumers} consumers.`,
        );
      } catch (e) {
        // Another server filled the database meanwhile: serve what it holds.
        if (!isStackspecError(e) || e.code !== 'placement-query/not-empty') {
          await placement.close();
          throw e;
        }
        io.stderr.write(`warning: ${e.message} ${inventory.file} was not loaded.\n`);
      }
    }
  }
  return { placement, lines };
}
