import { describeCheckerContract } from '../../../test-support/checker-contract.js';
import { deployTemplateChecker } from '../src/checker.js';

describeCheckerContract({
  checker: deployTemplateChecker,
  fixtures: [
    {
      path: 'all.yaml',
      text: 'deploy_templates:\n  - name: CUSTOM_A\n    steps:\n      - {interface: bios, step: apply_configuration, args: {settings: []}, priority: 150}\n',
    },
  ],
  invalid: [
    { path: 'empty.yaml', text: 'name: CUSTOM_X\nsteps: []\n' },
    {
      path: 'list.yaml',
      text: '- name: CUSTOM_A\n  steps:\n    - {interface: raid, step: delete_configuration, args: {}, priority: -1}\n',
    },
  ],
});
