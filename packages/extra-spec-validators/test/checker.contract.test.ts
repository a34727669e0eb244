import { describeCheckerContract } from '../../../test-support/checker-contract.js';
import { flavorChecker } from '../src/checker.js';

describeCheckerContract({
  checker: flavorChecker,
  fixtures: [
    {
      path: 'list.yaml',
      text: '- name: a\n  extra_specs: {}\n- name: b\n  extra_specs: {hw:mem_page_size: large}\n',
    },
    {
      path: 'show.json',
      text: '{"name": "m1", "vcpus": 1, "ram": 512, "properties": "hw:cpu_policy=\'dedicated\'"}\n',
    },
  ],
  invalid: [
    { path: 'typo.yaml', text: 'name: m1\nextra_specs:\n  hw:cpu_polcy: dedicated\n' },
    {
      path: 'value.yaml',
      text: 'flavors:\n  - name: m1\n    extra_specs:\n      hw:cpu_policy: sometimes\n',
    },
  ],
  options: { mode: 'strict' },
});
