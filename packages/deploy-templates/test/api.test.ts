import { describeApiContract } from './api.contract.js';
import { testStores } from './support/stores.js';

for (const stores of await testStores()) describeApiContract(stores);
