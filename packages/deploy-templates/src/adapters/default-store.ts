import type { DeployTemplateStore } from '../store/types.js';

/**
 * The store the API and the server use when they are given none: an
 * in-memory PGlite store (see `createPgliteStore` in
 * `@stackspec/deploy-templates/pglite`), made on first use. PGlite is
 * imported then, not when the package is imported, so that the main entry
 * never loads it and a caller who passes a store never loads it at all.
 * It behaves as the PGlite store does, `close` included (a store closed
 * before its first use fails every later call the way a closed PGlite
 * store does).
 */
export function createDefaultStore(): DeployTemplateStore {
  let store: Promise<DeployTemplateStore> | undefined;
  let closed = false;
  const open = (): Promise<DeployTemplateStore> => {
    store ??= import('./pglite.js').then(async ({ createPgliteStore }) => {
      const made = createPgliteStore();
      if (closed) await made.close();
      return made;
    });
    return store;
  };
  return {
    create: async (template) => (await open()).create(template),
    getByUuid: async (uuid) => (await open()).getByUuid(uuid),
    getByName: async (name) => (await open()).getByName(name),
    list: async (options) => (await open()).list(options),
    listByNames: async (names) => (await open()).listByNames(names),
    modify: async (uuid, change) => (await open()).modify(uuid, change),
    delete: async (uuid) => (await open()).delete(uuid),
    async close() {
      closed = true;
      // Nothing was opened: nothing to load just to close it.
      if (store) await (await store).close();
    },
  };
}
