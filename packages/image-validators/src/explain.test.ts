import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { explainImageSpec, formatExplainedSpec } from './explain.js';
import { loadImageSpec } from './load.js';
import { defineValidator } from './validator-definition.js';

const SPEC = [
  'arguments:',
  '  java_distro:',
  '    description: Which Java to install.',
  '    default: openjdk',
  '    choices: [openjdk, oracle-java]',
  '  token: {required: true}',
  '  scala: {default: 1}',
  'validators:',
  '  - os_case:',
  '      - redhat: [{package: [java-1.8.0-openjdk, {lzo: {version: "2.0"}}]}]',
  '      - ubuntu: []',
  '  - argument_case:',
  '      argument_name: scala',
  '      cases:',
  '        1: [{argument_set: {argument_name: mode, value: fast}}]',
  '  - any:',
  '      - script: {setup: {inline: "true", env_vars: [java_distro], output: RESULT}}',
  '      - copy_script: common/resources/utils.sh',
  '  - marker: here',
  '',
].join('\n');

function load() {
  const dir = mkdtempSync(join(tmpdir(), 'siv-explain-'));
  mkdirSync(join(dir, 'common/resources'), { recursive: true });
  writeFileSync(join(dir, 'common/resources/utils.sh'), 'echo utils\n');
  const marker = defineValidator({
    load: (v) => String(v),
    validate: async () => {},
    describe: (c) => `marks ${c}`,
  });
  return loadImageSpec(SPEC, { resourceRoots: [dir], validatorMap: { marker } });
}

describe('explainImageSpec', () => {
  it('describes arguments and the whole tree as text', async () => {
    await expect(formatExplainedSpec(explainImageSpec(load()))).toMatchFileSnapshot(
      'fixtures/explain.snap.txt',
    );
  });

  it('describes the same as JSON', async () => {
    const explained = explainImageSpec(load());
    expect(explained.count).toBe(8);
    expect(explained.topLevelCount).toBe(4);
    await expect(`${JSON.stringify(explained, null, 2)}\n`).toMatchFileSnapshot('fixtures/explain.snap.json');
  });

  it('says so when there is nothing to explain', () => {
    expect(formatExplainedSpec(explainImageSpec(loadImageSpec('validators: []\n')))).toBe(
      "Arguments: none\nValidators (0, run in order as one 'all'):",
    );
  });

  it('counts top-level validators first and adds the nested total when they differ', () => {
    const flat = formatExplainedSpec(
      explainImageSpec(loadImageSpec('validators: [{package: a}, {package: b}]\n')),
    );
    expect(flat).toContain("Validators (2, run in order as one 'all'):");
    const nested = formatExplainedSpec(explainImageSpec(load()));
    expect(nested).toContain("Validators (4 top-level, 8 in all, run in order as one 'all'):");
  });
});
