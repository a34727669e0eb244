import { createMemoryResourceReader, type ResourceReader, validateDocument } from '@stackspec/core';
import { describe, expect, it } from 'vitest';
import { type HeatEnvironmentCheckOptions, heatEnvironmentChecker, heatTemplateChecker } from './checker.js';
import { MAX_TEMPLATE_SIZE } from './load.js';

const input = (text: string, path = 'envs/env.yaml') => {
  const parsed = validateDocument(text, { filename: path });
  if (!parsed.ok) throw new Error('test input must parse');
  return { path, text, document: parsed.document };
};

// The environment's folder, as the checker's reader sees it: `..` climbs out of `envs/`.
const TREE = {
  'puppet/controller.yaml': 'heat_template_version: 2015-10-15\ncapabilities:\n  deployment: puppet\n',
  'docker/controller.yaml': 'heat_template_version: 2015-10-15\ncapabilities:\n  deployment: docker\n',
  'tht/deployment/x.yaml': 'heat_template_version: 2015-10-15\n',
};
const readerOver = (files: Record<string, string>): ResourceReader =>
  createMemoryResourceReader(files, { roots: ['envs'], confine: false });

const check = (text: string, options?: HeatEnvironmentCheckOptions, files: Record<string, string> = TREE) =>
  heatEnvironmentChecker.check(input(text), { reader: readerOver(files), options });

describe('heatEnvironmentChecker', () => {
  it("recognises sections, and claims a file whose keys are close to sections so that Heat's check names them", () => {
    expect(heatEnvironmentChecker.recognise(input('parameter_defaults: {}\nrequires: {a: b}\n'))).toEqual({
      confidence: 0.4,
    });
    expect(heatEnvironmentChecker.recognise(input('resource_registy: {}\n'))).toEqual({
      confidence: 0.1,
      misspelt: { key: 'resource_registy', expected: 'resource_registry', checkAnyway: true },
    });
    expect(heatEnvironmentChecker.recognise(input('parameters: {}\njobs: {}\n'))).toBeUndefined();
    expect(heatEnvironmentChecker.recognise(input('{}\n'))).toBeUndefined();
  });

  it('reports registry templates that are missing or too large, through the reader, at their keys', async () => {
    const big = 'x'.repeat(MAX_TEMPLATE_SIZE * 4 + 1);
    const found = await check(
      'resource_registry:\n  OS::Ok: ../puppet/controller.yaml\n  OS::Gone: gone.yaml\n  OS::Big: big.yaml\n  OS::Web: https://example.com/x.yaml\n',
      {},
      { ...TREE, 'envs/big.yaml': big },
    );
    expect(found.map((d) => [d.code, d.severity, d.line, d.message])).toEqual([
      ['heat/template-not-found', 'warning', 3, "'OS::Gone' maps to gone.yaml, which does not exist."],
      [
        'heat/template-too-large',
        'warning',
        4,
        `'OS::Big' maps to big.yaml, which is not read: it holds ${MAX_TEMPLATE_SIZE * 4 + 1} bytes, more than the limit of ${MAX_TEMPLATE_SIZE * 4} bytes.`,
      ],
    ]);
    expect(await check('resource_registry:\n  OS::Gone: gone.yaml\n', { checkPaths: false })).toEqual([]);
  });

  it('reads absolute paths where pathMap sends them, relative to the environment', async () => {
    const text =
      'resource_registry:\n  OS::X: /usr/share/openstack-tripleo-heat-templates/deployment/x.yaml\n';
    expect((await check(text)).map((d) => d.code)).toEqual(['heat/template-not-found']);
    expect(
      await check(text, { pathMap: { '/usr/share/openstack-tripleo-heat-templates/': '../tht/' } }),
    ).toEqual([]);
  });

  it('resolves candidate lists through the reader and names a missing candidate relative to the environment', async () => {
    const ok = await check(
      'requires: {deployment: puppet}\nresource_registry:\n  OS::C: [../puppet/controller.yaml, ../docker/controller.yaml]\n',
    );
    expect(ok).toEqual([]);
    const missing = await check(
      'requires: {deployment: puppet}\nresource_registry:\n  OS::C: [../puppet/controller.yaml, ../gone/controller.yaml]\n',
    );
    expect(missing).toContainEqual(
      expect.objectContaining({
        code: 'heat/resolve/candidate-missing',
        message: expect.stringContaining('../gone/controller.yaml'),
      }),
    );
  });
});

describe('heatTemplateChecker', () => {
  it('recognises heat_template_version, and reports a misspelling of it as one', () => {
    expect(heatTemplateChecker.recognise(input('heat_template_version: 2021-04-16\n'))).toEqual({
      confidence: 0.8,
    });
    expect(heatTemplateChecker.recognise(input('heat_template_verison: 2021-04-16\n'))?.misspelt).toEqual({
      key: 'heat_template_verison',
      expected: 'heat_template_version',
    });
    expect(heatTemplateChecker.recognise(input('- heat_template_version\n'))).toBeUndefined();
  });
});
