import type { InventoryFile } from './inventory-file.js';
import { INVENTORY_DEFAULTS, type Inventory, type ProviderStore } from './store.js';

type InventoryValue = NonNullable<InventoryFile['providers'][number]['inventories']>[string];

/** An inventory as the file writes it: the bare total when every other field is Placement's default. */
function inventoryValue(inv: Inventory): InventoryValue {
  const fields: Record<string, number> = { total: inv.total };
  for (const [k, v] of Object.entries(INVENTORY_DEFAULTS)) {
    const value = inv[k as keyof Inventory];
    if (value !== v) fields[k] = value;
  }
  return Object.keys(fields).length === 1 ? inv.total : (fields as InventoryValue);
}

/**
 * The state of a {@link ProviderStore} as an inventory file (see
 * `InventoryFileSchema`): its custom traits and resource classes, every
 * provider in id order with its uuid, parent (by uuid), inventories, traits
 * and aggregates, and every consumer with its allocations, project, user
 * and type. Loading the file gives the same state but for generations and
 * timestamps, which the format does not keep. Empty lists are left out.
 *
 * @example
 * writeFileSync('cloud.json', JSON.stringify(exportInventory(store), null, 2));
 */
export function exportInventory(store: ProviderStore): InventoryFile {
  const customTraits = store.traitNames().filter((t) => !store.isStandardTrait(t));
  const customClasses = store.resourceClassNames().filter((c) => c.startsWith('CUSTOM_'));
  const providers: InventoryFile['providers'] = [];
  for (const p of store.providers()) {
    const entry: InventoryFile['providers'][number] = { name: p.name, uuid: p.uuid };
    if (p.parent) entry.parent = p.parent.uuid;
    if (p.inventories.size)
      entry.inventories = Object.fromEntries(
        [...p.inventories].map(([rc, inv]) => [rc, inventoryValue(inv)]),
      );
    if (p.traits.size) entry.traits = [...p.traits];
    if (p.aggregates.size) entry.aggregates = [...p.aggregates];
    providers.push(entry);
  }
  const consumers: NonNullable<InventoryFile['consumers']> = [];
  for (const c of store.consumers()) {
    consumers.push({
      uuid: c.uuid,
      project_id: c.projectId,
      user_id: c.userId,
      consumer_type: c.consumerType,
      allocations: Object.fromEntries(
        [...c.allocations].map(([rp, inner]) => [rp, Object.fromEntries(inner)]),
      ),
    });
  }
  return {
    ...(customTraits.length ? { traits: customTraits } : {}),
    ...(customClasses.length ? { resource_classes: customClasses } : {}),
    providers,
    ...(consumers.length ? { consumers } : {}),
  };
}
