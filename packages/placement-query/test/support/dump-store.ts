// Everything a reader can see of a ProviderStore, indexes included, in a
// form tests compare with toEqual: two stores that dump equal answer every
// query alike.
import type { ProviderStore } from '../../src/model/store.js';

/** Everything a reader can see of a store, indexes included, in a comparable form. */
export function dumpStore(s: ProviderStore) {
  const providers = [...s.providers()].map((p) => ({
    ...s.providerState(p),
    root: p.root.uuid,
    children: [...p.children].map((c) => c.uuid),
    usages: Object.fromEntries([...p.usages].sort()),
    capacity: Object.fromEntries(
      [...p.capacity].map(([rc, e]) => [rc, { limit: e.limit, used: e.used, provider: e.provider.uuid }]),
    ),
  }));
  const classes = s.resourceClassNames();
  const traits = s.traitNames();
  const aggregates = [...s.aggregates()].sort();
  return {
    providers,
    consumers: [...s.consumers()].map((c) => s.consumerState(c)),
    traits,
    classes,
    hasTrees: s.hasTrees,
    trees: providers
      .filter((p) => p.root === p.uuid)
      .map((p) => s.treeOf(s.requireProvider(p.uuid)).map((q) => q.uuid)),
    byTrait: Object.fromEntries(
      traits
        .map((t) => [t, [...s.withTrait(t)].map((p) => p.uuid).sort()] as const)
        .filter(([, v]) => v.length),
    ),
    byAggregate: Object.fromEntries(
      aggregates.map((a) => [a, [...s.inAggregate(a)].map((p) => p.uuid).sort()]),
    ),
    byClass: Object.fromEntries(
      classes
        .map(
          (rc) => [rc, s.capacityEntries(rc).map((e) => `${e.provider.uuid}:${e.limit}:${e.used}`)] as const,
        )
        .filter(([, v]) => v.length),
    ),
    columns: Object.fromEntries(
      classes.map((rc) => {
        const c = s.columnsOf(s.classIndexOf(rc));
        return [
          rc,
          [...s.providers()]
            .filter((p) => c && p.id < c.limit.length && !Number.isNaN(c.limit[p.id]))
            .map((p) => `${p.uuid}:${c?.used[p.id]}`),
        ];
      }),
    ),
    byName: providers.map((p) => s.providerByName(p.name)?.uuid),
  };
}
