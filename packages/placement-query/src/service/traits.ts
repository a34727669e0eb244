import type { Provider, ProviderStore } from '../model/store.js';
import { generationConflict, refusal, rewordRefusal } from './refusals.js';

/** The filters of `GET /traits`, as the query gave them (the last of each). */
export interface TraitFilter {
  /** `in:A,B` or `startswith:PREFIX`. */
  name?: string | undefined;
  /** `true` or `false`, in any case: only traits some provider has, or none has. */
  associated?: string | undefined;
}

/** The trait names `GET /traits` lists, with Placement's 400 for a malformed filter. */
export function listTraits(store: ProviderStore, filter: TraitFilter): string[] {
  let names = store.traitNames();
  const name = filter.name;
  if (name !== undefined) {
    const i = name.indexOf(':');
    if (i < 0) {
      throw refusal(
        400,
        `Badly formatted name parameter. Expected name query string parameter in form: ?name=[in|startswith]:[name1,name2|prefix]. Got: "${name}"`,
        'placement-query/bad-trait-filter',
      );
    }
    const op = name.slice(0, i);
    const value = name.slice(i + 1);
    if (op === 'in') {
      const wanted = new Set(value.split(','));
      names = names.filter((n) => wanted.has(n));
    } else if (op === 'startswith') names = names.filter((n) => n.startsWith(value));
  }
  if (filter.associated !== undefined) {
    const a = filter.associated.toLowerCase();
    if (a !== 'true' && a !== 'false') {
      throw refusal(
        400,
        'The query parameter "associated" only accepts "true" or "false"',
        'placement-query/bad-trait-filter',
      );
    }
    names = names.filter((n) => store.withTrait(n).size > 0 === (a === 'true'));
  }
  return names;
}

/** Placement's 404 unless the trait exists. */
export function requireTrait(store: ProviderStore, name: string): void {
  if (!store.hasTrait(name))
    throw refusal(404, `No such trait(s): ${name}.`, 'placement-query/trait-not-found');
}

/** Deletes a custom trait no provider has. */
export function deleteTrait(store: ProviderStore, name: string): void {
  rewordRefusal(
    () => store.deleteTrait(name),
    (status) =>
      status === 400
        ? refusal(400, `Cannot delete standard trait ${name}.`, 'placement-query/standard-trait')
        : undefined,
  );
}

/** Replaces the traits of `p` at its `generation`; every trait must exist. */
export function setProviderTraits(
  store: ProviderStore,
  p: Provider,
  traits: readonly string[],
  generation: unknown,
): void {
  if (generation !== p.generation) {
    throw generationConflict(
      "Resource provider's generation already changed. Please update the generation and try again.",
    );
  }
  const unknown = [...new Set(traits)].filter((t) => !store.hasTrait(t));
  if (unknown.length)
    throw refusal(400, `No such trait ${unknown.join(', ')}`, 'placement-query/unknown-trait');
  store.setTraits(p.uuid, traits);
}
