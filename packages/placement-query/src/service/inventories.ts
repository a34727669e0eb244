import type { Microversion } from '@stackspec/core';
import { PLACEMENT_ERROR_CODES } from '../errors.js';
import { atLeast } from '../microversion.js';
import { INVENTORY_DEFAULTS, type Inventory, type Provider, type ProviderStore } from '../model/store.js';
import { generationConflict, refusal, rewordRefusal } from './refusals.js';

const FIELDS = ['total', 'reserved', 'min_unit', 'max_unit', 'step_size', 'allocation_ratio'] as const;

/** An inventory from the fields a request gave, Placement's defaults for the others. */
export function inventoryFrom(fields: Readonly<Record<string, unknown>>): Inventory {
  const inv = { ...INVENTORY_DEFAULTS } as Inventory;
  for (const k of FIELDS) {
    if (fields[k] !== undefined) inv[k] = fields[k] as number;
  }
  return inv;
}

/**
 * Placement's capacity rule: `(total - reserved) * allocation_ratio` must
 * be positive, or from 1.26 at least 0 (reserved may then equal total).
 * `action` (`create`, `update`) words the 400.
 */
export function checkCapacity(
  version: Microversion,
  resourceClass: string,
  provider: string,
  inv: Inventory,
  action: string,
): void {
  const capacity = (inv.total - inv.reserved) * inv.allocation_ratio;
  const canBeTotal = atLeast(version, 26);
  if (canBeTotal ? capacity < 0 : capacity <= 0) {
    throw refusal(
      400,
      `Unable to ${action} inventory for resource provider ${provider}: Invalid inventory for '${resourceClass}' on resource provider '${provider}'. The reserved value is greater than ${canBeTotal ? '' : 'or equal to '}total.`,
      'placement-query/invalid-inventory',
    );
  }
}

function checkGeneration(p: Provider, generation: unknown): void {
  if (generation !== p.generation) throw generationConflict('resource provider generation conflict');
}

/** `PUT …/inventories`: replaces every inventory of `p` at its `generation`. */
export function replaceInventories(
  store: ProviderStore,
  p: Provider,
  generation: unknown,
  fields: Readonly<Record<string, Readonly<Record<string, unknown>>>>,
  version: Microversion,
): Provider {
  checkGeneration(p, generation);
  const inventories: Record<string, Inventory> = {};
  for (const [rc, raw] of Object.entries(fields)) inventories[rc] = inventoryFrom(raw);
  for (const [rc, inv] of Object.entries(inventories)) checkCapacity(version, rc, p.uuid, inv, 'update');
  return store.setInventories(p.uuid, inventories);
}

/** `POST …/inventories`: adds an inventory of a class `p` does not have yet. */
export function addInventory(
  store: ProviderStore,
  p: Provider,
  resourceClass: string,
  inv: Inventory,
  version: Microversion,
): void {
  checkCapacity(version, resourceClass, p.uuid, inv, 'create');
  if (!store.hasResourceClass(resourceClass)) {
    throw refusal(
      400,
      `Unable to create inventory for resource provider ${p.uuid}: No such resource class ${resourceClass}.`,
      'placement-query/unknown-resource-class',
    );
  }
  if (p.inventories.has(resourceClass)) {
    throw refusal(
      409,
      `Update conflict: Inventory for '${resourceClass}' on resource provider '${p.uuid}' already exists.`,
      'placement-query/duplicate-inventory',
      PLACEMENT_ERROR_CODES.concurrentUpdate,
    );
  }
  store.setInventories(p.uuid, { ...Object.fromEntries(p.inventories), [resourceClass]: inv });
}

/** `DELETE …/inventories` (1.5): removes every inventory, none of it in use. */
export function clearInventories(store: ProviderStore, p: Provider): void {
  rewordRefusal(
    () => store.setInventories(p.uuid, {}),
    (status, message) =>
      status === 409
        ? refusal(
            409,
            message.replace(/^update conflict: /, ''),
            'placement-query/inventory-in-use',
            PLACEMENT_ERROR_CODES.inventoryInUse,
          )
        : undefined,
  );
}

/** The inventory of a class on `p`, or Placement's 404. */
export function findInventory(p: Provider, resourceClass: string): Inventory {
  const inv = p.inventories.get(resourceClass);
  if (!inv) {
    throw refusal(
      404,
      `No inventory of class ${resourceClass} for ${p.uuid}`,
      'placement-query/inventory-not-found',
    );
  }
  return inv;
}

/** `PUT …/inventories/{resource_class}`: changes an inventory `p` has, at its `generation`. */
export function updateInventory(
  store: ProviderStore,
  p: Provider,
  resourceClass: string,
  generation: unknown,
  inv: Inventory,
  version: Microversion,
): void {
  checkGeneration(p, generation);
  checkCapacity(version, resourceClass, p.uuid, inv, 'update');
  if (!p.inventories.has(resourceClass)) {
    throw refusal(
      400,
      `No inventory record with resource class for resource provider ${p.uuid}: No inventory of class ${resourceClass} found.`,
      'placement-query/inventory-not-found',
    );
  }
  store.setInventories(p.uuid, { ...Object.fromEntries(p.inventories), [resourceClass]: inv });
}

/** `DELETE …/inventories/{resource_class}`: removes an inventory nothing is allocated from. */
export function removeInventory(store: ProviderStore, p: Provider, resourceClass: string): void {
  if (!p.inventories.has(resourceClass)) {
    throw refusal(
      404,
      `No inventory of class ${resourceClass} found for delete: No inventory of class ${resourceClass} found for delete`,
      'placement-query/inventory-not-found',
    );
  }
  if ((p.usages.get(resourceClass) ?? 0) > 0) {
    throw refusal(
      409,
      `Unable to delete inventory of class ${resourceClass}: Inventory for '${resourceClass}' on resource provider '${p.uuid}' in use.`,
      'placement-query/inventory-in-use',
      PLACEMENT_ERROR_CODES.concurrentUpdate,
    );
  }
  const all = Object.fromEntries(p.inventories);
  delete all[resourceClass];
  store.setInventories(p.uuid, all);
}
