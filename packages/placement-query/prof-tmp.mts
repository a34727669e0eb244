import { createPlacementHandler } from '/work/main/packages/placement-query/src/http/service.ts';
import {
  applyInventory,
  resolveInventory,
} from '/work/main/packages/placement-query/src/model/inventory-file.ts';
import { createProviderStore } from '/work/main/packages/placement-query/src/model/store.ts';
import { generateInventory } from '/work/main/packages/placement-query/test/support/generate.ts';

const nodes = Number(process.argv[2] ?? 10000);
const gen = generateInventory(20261123 + nodes, {
  computeNodes: nodes,
  numaPerNode: 2,
  sharingProviders: 5 + Math.floor(nodes / 20000),
  aggregates: 50,
  customTraits: 30,
  rich: false,
  usageRate: 0.2,
});
const r = resolveInventory(gen.file, createProviderStore());
if (!r.ok) throw new Error();
const store = createProviderStore();
applyInventory(store, r.inventory);
const h = createPlacementHandler({ store });
const paths = [
  `/allocation_candidates?resources=VCPU:1,MEMORY_MB:512&member_of=in:${gen.aggregates[0]},${gen.aggregates[1]}&required=${gen.customTraits[1]}`,
  '/allocation_candidates?resources=VCPU:1,MEMORY_MB:512,DISK_GB:10&limit=1000',
];
const which = Number(process.argv[3] ?? 0);
const path = paths[which] as string;
for (let i = 0; i < 1500; i++) {
  const t0 = performance.now();
  const res = await h(
    new Request(`http://b${path}`, { headers: { 'openstack-api-version': 'placement 1.39' } }),
  );
  const t = await res.text();
  if (i % 300 === 0) console.log(i, (performance.now() - t0).toFixed(2), t.length);
}
