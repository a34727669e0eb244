// The benchmark's server: builds the same generated cloud as the benchmark
// and serves it the way `stackspec-placement serve` does (core's startServer
// around createPlacementHandler), in a process of its own. Prints
// "LISTENING <url>" on stdout; stops on SIGTERM.
//
// Usage: node [loader] serve-cloud.ts <library entry> <inventory shape as JSON> <seed>
import { startServer } from '@stackspec/core/node';
import { generateInventory, type InventoryShape } from '../../test/support/generate.js';

const [entry, shapeJson, seedText] = process.argv.slice(2) as [string, string, string];
const lib = (await import(entry)) as typeof import('../../src/index.js');

// Built in a function so that the generator's data and the resolved
// inventory can be collected once the store holds the cloud, as they are
// after `stackspec-placement serve` has loaded an inventory file.
function loadStore() {
  const gen = generateInventory(Number(seedText), JSON.parse(shapeJson) as InventoryShape);
  const store = lib.createProviderStore();
  const resolved = lib.resolveInventory(gen.file, store);
  if (!resolved.ok) throw new Error(JSON.stringify(resolved.diagnostics.slice(0, 3)));
  lib.applyInventory(store, resolved.inventory);
  return store;
}
const store = loadStore();
const server = await startServer(lib.createPlacementHandler({ store }), { port: 0 });
process.stdout.write(`LISTENING ${server.url}\n`);
process.once('SIGTERM', () => void server.close().then(() => process.exit(0)));
