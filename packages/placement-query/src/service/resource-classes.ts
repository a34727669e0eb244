import type { ProviderStore } from '../model/store.js';
import { refusal, rewordRefusal } from './refusals.js';

/** Placement's 404 unless the resource class exists. */
export function requireResourceClass(store: ProviderStore, name: string): void {
  if (!store.hasResourceClass(name)) {
    throw refusal(404, `No such resource class ${name}.`, 'placement-query/resource-class-not-found');
  }
}

/** `POST /resource_classes`: creates a custom class, 409 when it exists. */
export function createResourceClass(store: ProviderStore, name: string): void {
  if (!store.createResourceClass(name)) {
    throw refusal(
      409,
      `Conflicting resource class already exists: ${name}`,
      'placement-query/duplicate-resource-class',
    );
  }
}

/** `PUT /resource_classes/{name}` before 1.7: renames a custom class. */
export function renameResourceClass(store: ProviderStore, from: string, to: string): void {
  requireResourceClass(store, from);
  rewordRefusal(
    () => store.renameResourceClass(from, to),
    (status) =>
      status === 400
        ? refusal(
            400,
            `Cannot update standard resource class ${from}`,
            'placement-query/standard-resource-class',
          )
        : status === 409
          ? refusal(409, `Resource class already exists: ${to}`, 'placement-query/duplicate-resource-class')
          : undefined,
  );
}

/** `DELETE /resource_classes/{name}`: deletes a custom class no inventory uses. */
export function deleteResourceClass(store: ProviderStore, name: string): void {
  rewordRefusal(
    () => store.deleteResourceClass(name),
    (status) =>
      status === 400
        ? refusal(
            400,
            `Error in delete resource class: Cannot delete standard resource class ${name}.`,
            'placement-query/standard-resource-class',
          )
        : status === 409
          ? refusal(
              409,
              `Error in delete resource class: Unable to delete resource class ${name}. Class is in use in inventory.`,
              'placement-query/resource-class-in-use',
            )
          : undefined,
  );
}
