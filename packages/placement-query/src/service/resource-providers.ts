import { type Microversion, normalizeUuid } from '@stackspec/core';
import { atLeast } from '../microversion.js';
import type { Provider, ProviderStore } from '../model/store.js';
import { refusal } from './refusals.js';

/**
 * The provider with `uuid`, or Placement's 404: `No resource provider with
 * uuid … found`, or the longer wording some endpoints use (`message`).
 */
export function findProvider(
  store: ProviderStore,
  uuid: string,
  message?: (uuid: string) => string,
): Provider {
  const p = store.provider(uuid);
  if (!p) {
    const text = message ? message(uuid) : `No resource provider with uuid ${uuid} found`;
    throw refusal(404, text, 'placement-query/provider-not-found');
  }
  return p;
}

/** What `POST /resource_providers` asks for, once its body passed the schema. */
export interface NewProvider {
  name: string;
  uuid?: string;
  parent_provider_uuid?: string | null;
}

/** Creates a provider (a random uuid when none is given; the store's 409s for a taken name or uuid). */
export function createProvider(store: ProviderStore, input: NewProvider): Provider {
  const uuid = input.uuid ? (normalizeUuid(input.uuid) as string) : crypto.randomUUID();
  return store.createProvider({ name: input.name, uuid, parentUuid: input.parent_provider_uuid ?? null });
}

/** What `PUT /resource_providers/{uuid}` asks for, once its body passed the schema. */
export interface ProviderChanges {
  name: string;
  parent_provider_uuid?: string | null;
}

/**
 * Renames a provider and, when the body names a parent, moves it: to another
 * tree only from 1.37, as Placement allows re-parenting from there.
 */
export function updateProvider(
  store: ProviderStore,
  p: Provider,
  changes: ProviderChanges,
  version: Microversion,
): Provider {
  store.updateProvider(
    p.uuid,
    {
      name: changes.name,
      ...('parent_provider_uuid' in changes ? { parentUuid: changes.parent_provider_uuid || null } : {}),
    },
    { allowReparenting: atLeast(version, 37) },
  );
  return p;
}
