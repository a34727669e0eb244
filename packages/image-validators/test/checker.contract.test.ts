import { describeCheckerContract } from '../../../test-support/checker-contract.js';
import { imageSpecChecker } from '../src/checker.js';

describeCheckerContract({
  checker: imageSpecChecker,
  fixtures: [
    {
      path: 'plugin/image.yaml',
      text: 'arguments:\n  java:\n    default: openjdk\nvalidators:\n  - os_case:\n      - ubuntu: [{package: openjdk-8-jdk}]\n',
    },
  ],
  invalid: [
    { path: 'image/version.yaml', text: 'validators:\n  - package: {wget: {version: 2}}\n' },
    { path: 'image/unknown.yaml', text: 'validators:\n  - pakage: wget\n' },
  ],
  referring: {
    path: 'image/scripts.yaml',
    text: 'validators:\n  - script: common/setup.sh\n',
    reference: 'common/setup.sh',
    content: '#!/bin/sh\ntrue\n',
  },
});
