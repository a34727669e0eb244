import { describeCheckerContract } from '../../../test-support/checker-contract.js';
import { inventoryChecker } from '../src/checker.js';

describeCheckerContract({
  checker: inventoryChecker,
  invalid: [
    { path: 'negative.yaml', text: 'providers:\n  - name: cn1\n    inventories:\n      VCPU: {total: -1}\n' },
  ],
});
