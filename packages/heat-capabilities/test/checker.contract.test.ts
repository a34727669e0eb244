import { describeCheckerContract } from '../../../test-support/checker-contract.js';
import { heatEnvironmentChecker, heatTemplateChecker } from '../src/checker.js';

describeCheckerContract({
  checker: heatTemplateChecker,
  invalid: [
    { path: 'version.yaml', text: 'heat_template_version: 1999-01-01\nresources: {}\n' },
    { path: 'section.yaml', text: 'heat_template_version: 2021-04-16\nresorces: {}\n' },
  ],
});

describeCheckerContract({
  checker: heatEnvironmentChecker,
  fixtures: [{ path: 'envs/requires.yaml', text: 'requires:\n  deployment: puppet\n' }],
  invalid: [
    { path: 'envs/gone.yaml', text: 'resource_registry:\n  OS::X::Gone: gone.yaml\n' },
    { path: 'envs/hook.yaml', text: 'resource_registry:\n  resources:\n    s:\n      hooks: pre-wait\n' },
  ],
  referring: {
    path: 'envs/env.yaml',
    text: 'resource_registry:\n  OS::X::Nested: nested/x.yaml\n',
    reference: 'nested/x.yaml',
    content: 'heat_template_version: 2021-04-16\nresources: {}\n',
  },
});
