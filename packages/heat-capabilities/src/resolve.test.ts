import { describe, expect, it } from 'vitest';
import { parseEnvironment, validateEnvironment } from './environment.js';
import { resolveEnvironment } from './resolve.js';

const TREE: Record<string, string> = {
  'tht/puppet/controller.yaml': 'heat_template_version: 2015-10-15\ncapabilities:\n  deployment: puppet\n',
  'tht/docker/controller.yaml':
    'heat_template_version: 2015-10-15\ncapabilities:\n  deployment: docker\n  resource_type: OS::TripleO::Controller\n',
  'tht/ansible/controller.yaml':
    'heat_template_version: 2015-10-15\ncapabilities: {deployment: [puppet, ansible]}\n',
  'tht/plain.yaml': 'heat_template_version: 2015-10-15\n',
  'tht/broken.yaml': 'heat_template_version: 2099-01-01\n',
  'tht/v1.yaml': 'heat_template_version: 2015-10-15\ncapabilities: {api: 1}\n',
  'tht/v1.0.yaml': 'heat_template_version: 2015-10-15\ncapabilities: {api: 1.0}\n',
};
const readTemplate = (p: string) => TREE[p];
const env = (text: string, filename = 'tht/environments/env.yaml') => parseEnvironment(text, { filename });

describe('resolveEnvironment', () => {
  it('picks the one candidate whose capabilities satisfy requires (the spec example)', async () => {
    const r = await resolveEnvironment(
      [
        env(
          'requires:\n  deployment: puppet\nresource_registry:\n  OS::TripleO::Controller: [../puppet/controller.yaml, ../docker/controller.yaml]\n  OS::Other: ../plain.yaml\n',
        ),
      ],
      { readTemplate, root: 'tht' },
    );
    expect(r.ok).toBe(true);
    expect(r.choices).toEqual({ 'OS::TripleO::Controller': 'puppet/controller.yaml' });
    expect(r.environment).toEqual({
      resource_registry: { 'OS::TripleO::Controller': 'puppet/controller.yaml', 'OS::Other': 'plain.yaml' },
    });
    expect(r.candidates['OS::TripleO::Controller']?.map((c) => c.status)).toEqual(['match', 'ruled-out']);
  });

  it('matches a float requirement only to the same float, as canonical text', async () => {
    const pick = async (requires: string) =>
      (
        await resolveEnvironment(
          [env(`requires: {api: ${requires}}\nresource_registry:\n  OS::V: [../v1.yaml, ../v1.0.yaml]\n`)],
          { readTemplate, root: 'tht' },
        )
      ).choices;
    expect(await pick('1.0')).toEqual({ 'OS::V': 'v1.0.yaml' });
    expect(await pick('"1.0"')).toEqual({ 'OS::V': 'v1.0.yaml' });
    expect(await pick('1')).toEqual({ 'OS::V': 'v1.yaml' });
    expect(await pick('"1"')).toEqual({ 'OS::V': 'v1.yaml' });
  });

  it('writes output paths relative to the output directory', async () => {
    const r = await resolveEnvironment(
      [
        env(
          'requires: {deployment: docker}\nresource_registry:\n  OS::C: [../puppet/controller.yaml, ../docker/controller.yaml]\n',
        ),
      ],
      { readTemplate, root: 'tht', outputDir: 'out' },
    );
    expect(r.environment).toEqual({ resource_registry: { 'OS::C': '../tht/docker/controller.yaml' } });
  });

  it('names every candidate and the first key that ruled it out when none matches', async () => {
    const r = await resolveEnvironment(
      [
        env(
          'requires:\n  deployment: chef\n  ha: yes\nresource_registry:\n  OS::C: [../puppet/controller.yaml, ../plain.yaml, OS::Heat::None]\n',
        ),
      ],
      { readTemplate, root: 'tht' },
    );
    expect(r.ok).toBe(false);
    expect(r.choices).toEqual({});
    expect(r.environment).toEqual({ resource_registry: {} });
    expect(r.diagnostics).toHaveLength(1);
    expect(r.diagnostics[0]).toMatchObject({
      code: 'heat/resolve/no-match',
      file: 'tht/environments/env.yaml',
      line: 5,
      path: '/resource_registry/OS::C',
    });
    expect(r.diagnostics[0]?.message).toBe(
      'No candidate for OS::C satisfies requires (deployment: chef, ha: true): puppet/controller.yaml offers deployment: puppet (requires chef); plain.yaml declares no capabilities (requires deployment: chef); OS::Heat::None is a type name and declares no capabilities (requires deployment: chef).',
    );
  });

  it('reports several matches with a key that would tell them apart', async () => {
    const r = await resolveEnvironment(
      [
        env(
          'requires: {deployment: puppet}\nresource_registry:\n  OS::C: [../puppet/controller.yaml, ../ansible/controller.yaml]\n',
        ),
      ],
      { readTemplate, root: 'tht' },
    );
    expect(r.diagnostics[0]).toMatchObject({ code: 'heat/resolve/several-match' });
    expect(r.diagnostics[0]?.message).toContain('2 candidates for OS::C satisfy requires');
    expect(r.diagnostics[0]?.hint).toContain("requirement on 'deployment'");
  });

  it('matches list-valued capabilities by membership and resource_type too', async () => {
    const r = await resolveEnvironment(
      [
        env(
          'requires: {deployment: ansible}\nresource_registry:\n  OS::C: [../puppet/controller.yaml, ../ansible/controller.yaml]\n',
        ),
        env(
          'requires: {resource_type: OS::TripleO::Controller}\nresource_registry:\n  OS::D: [../docker/controller.yaml, ../plain.yaml]\n',
          'tht/environments/two.yaml',
        ),
      ],
      { readTemplate, root: 'tht' },
    );
    // The second file's requires replace deployment? No: they merge key by key.
    expect(r.candidates['OS::C']?.map((c) => c.status)).toEqual(['ruled-out', 'ruled-out']);
    expect(r.candidates['OS::D']?.map((c) => c.status)).toEqual(['ruled-out', 'ruled-out']);
    expect(r.diagnostics.map((d) => d.code)).toEqual(['heat/resolve/no-match', 'heat/resolve/no-match']);
  });

  it('reports a missing or invalid candidate even when another one matches, sorted by type', async () => {
    const r = await resolveEnvironment(
      [
        env(
          'requires: {deployment: puppet}\nresource_registry:\n  OS::Z: [../puppet/controller.yaml, ../gone.yaml]\n  OS::A: [../puppet/controller.yaml, ../broken.yaml]\n',
        ),
      ],
      { readTemplate, root: 'tht' },
    );
    expect(r.ok).toBe(false);
    expect(r.diagnostics.map((d) => [d.code, d.path])).toEqual([
      ['heat/resolve/candidate-invalid', '/resource_registry/OS::A/1'],
      ['heat/resolve/candidate-missing', '/resource_registry/OS::Z/1'],
    ]);
    expect(r.diagnostics[0]?.message).toContain(
      'broken.yaml of OS::A is not a valid template: line 1: The template version is invalid',
    );
    expect(r.choices).toEqual({});
  });

  it('treats a reader that throws as a missing file', async () => {
    const r = await resolveEnvironment([env('resource_registry:\n  OS::A: [x.yaml]\n')], {
      readTemplate: () => {
        throw new Error('EACCES: permission denied');
      },
    });
    expect(r.diagnostics[0]?.message).toContain('EACCES: permission denied');
  });

  it('drops a list that a later null wildcard removes, and keeps the output loadable', async () => {
    const r = await resolveEnvironment(
      [env('resource_registry:\n  OS::X::A: [../plain.yaml]\n  OS::X::*: null\n  OS::Y: ../plain.yaml\n')],
      { readTemplate, root: 'tht' },
    );
    expect(r.choices).toEqual({});
    expect(r.environment).toEqual({ resource_registry: { 'OS::X::*': null, 'OS::Y': 'plain.yaml' } });
  });

  it('chooses the only candidate when nothing is required', async () => {
    const r = await resolveEnvironment([env('resource_registry:\n  OS::A: [../plain.yaml]\n')], {
      readTemplate,
      root: 'tht',
    });
    expect(r.choices).toEqual({ 'OS::A': 'plain.yaml' });
  });

  it('gives an environment Heat accepts (no requires, no lists)', async () => {
    const r = await resolveEnvironment(
      [
        env(
          'requires: {deployment: docker}\nparameter_defaults: {A: 1}\nresource_registry:\n  OS::C: [../puppet/controller.yaml, ../docker/controller.yaml]\n  resources:\n    s: {hooks: pre-create}\n',
        ),
      ],
      { readTemplate, root: 'tht' },
    );
    const text = JSON.stringify(r.environment);
    const back = validateEnvironment(text, { allowExtensions: false });
    expect(back.ok).toBe(true);
    expect(r.environment).toEqual({
      parameter_defaults: { A: 1 },
      resource_registry: { 'OS::C': 'docker/controller.yaml', resources: { s: { hooks: 'pre-create' } } },
    });
  });
});
