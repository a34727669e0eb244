import { createMemoryPlacementStore } from '../src/store/memory-store.js';
import { describePlacementStoreContract } from './placement-store.contract.js';

describePlacementStoreContract('memory', async () => ({
  server: async () => createMemoryPlacementStore(),
  shared: false,
  durable: false,
  drop: async () => {},
}));
