import { isStackspecError } from '@stackspec/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseEnvironment, validateEnvironment } from './environment.js';
import { MAX_ENVIRONMENT_BYTES } from './load.js';

function errorsOf(text: string, options = {}) {
  return validateEnvironment(text, { filename: 'envs/e.yaml', ...options }).diagnostics.filter(
    (d) => d.severity === 'error',
  );
}

describe('validateEnvironment', () => {
  it('accepts every Heat section and requires', () => {
    const env = parseEnvironment(
      [
        'parameters: {A: 1}',
        'parameter_defaults: {B: 2}',
        'resource_registry: {}',
        'encrypted_param_names: [A]',
        'event_sinks: [{type: zaqar-queue, target: q}]',
        'parameter_merge_strategies: {default: merge}',
        'requires: {deployment: puppet, ha: yes, replicas: 2}',
        '',
      ].join('\n'),
    );
    expect(env.requires).toEqual({ deployment: 'puppet', ha: 'true', replicas: '2' });
  });

  it('keeps a float requirement a float (1.0 is not 1)', () => {
    const env = parseEnvironment('requires:\n  api: 1.0\n  n: 1\n  q: "1.0"\n  r: 0.50\n');
    expect(env.requires).toEqual({ api: '1.0', n: '1', q: '1.0', r: '0.5' });
  });

  it.each(['', '# only a comment\n', '---\n', '~\n'])('reads %j as an empty environment', (text) => {
    const r = validateEnvironment(text);
    expect(r.ok).toBe(true);
    expect(r.environment?.value).toEqual({});
  });

  it('rejects a list document with Heat message', () => {
    expect(errorsOf('- a\n')[0]).toMatchObject({
      code: 'heat/environment/not-a-mapping',
      message: 'The environment is not a valid YAML mapping data type.',
    });
  });

  it('rejects an old flat parameter file as a wrong section and points at the key', () => {
    const [d] = errorsOf('# flat\nKeyName: x\n');
    expect(d).toMatchObject({
      code: 'heat/environment/wrong-section',
      message: 'environment has wrong section "KeyName"',
      line: 2,
      column: 1,
    });
  });

  it('suggests the section a typo meant', () => {
    expect(errorsOf('parameter_default: {}\n')[0]?.hint).toBe('did you mean parameter_defaults?');
  });

  it('rejects a null section the way the Heat server does', () => {
    const [d] = errorsOf('parameter_defaults:\n# NtpServer: x\n');
    expect(d).toMatchObject({
      code: 'heat/environment/empty-section',
      message: 'environment has empty section "parameter_defaults"',
      line: 1,
    });
  });

  it('accepts a null section with a warning when asked to follow heatclient', () => {
    const r = validateEnvironment('parameter_defaults:\nresource_registry: {OS::A: a.yaml}\n', {
      acceptNullSections: true,
    });
    expect(r.ok).toBe(true);
    expect(r.diagnostics[0]).toMatchObject({ code: 'heat/environment/empty-section', severity: 'warning' });
    expect(r.environment?.registry).toHaveLength(1);
  });

  it('rejects requires and candidate lists as Heat does when extensions are off', () => {
    expect(errorsOf('requires: {a: b}\n', { allowExtensions: false })[0]?.message).toBe(
      'environment has wrong section "requires"',
    );
    expect(errorsOf('resource_registry: {OS::X: [a.yaml]}\n', { allowExtensions: false })[0]?.code).toBe(
      'heat/registry/list-not-supported',
    );
  });

  it('classifies every kind of registry entry and resolves template paths', () => {
    const env = parseEnvironment(
      [
        'resource_registry:',
        '  OS::A: ../a.yaml',
        '  OS::B: OS::Heat::None',
        '  OS::C::*: OS::D::*',
        '  OS::E: ~',
        '  OS::F: [puppet/f.yaml, /usr/share/tht/docker/f.yaml, OS::Heat::None]',
        '  my.template: ignored',
        '  OS::TripleO::Tasks::*PreConfig: OS::Heat::None',
        '  resources:',
        '    server:',
        '      OS::G: g.yaml',
        '      hooks: [pre-create, post-update]',
        '      restricted_actions: replace',
        '',
      ].join('\n'),
      { filename: 'tht/environments/e.yaml', pathMap: { '/usr/share/tht/': 'tht/' } },
    );
    const byType = Object.fromEntries(env.registry.map((e) => [e.path.join('/'), e]));
    expect(byType['OS::A']).toMatchObject({ kind: 'template', target: '../a.yaml', resolved: 'tht/a.yaml' });
    expect(byType['OS::B']).toMatchObject({ kind: 'type', target: 'OS::Heat::None' });
    expect(byType['OS::C::*']).toMatchObject({ kind: 'wildcard', target: 'OS::D::*' });
    expect(byType['OS::E']).toMatchObject({ kind: 'remove' });
    expect(byType['OS::F']?.candidates).toEqual([
      { value: 'puppet/f.yaml', kind: 'template', resolved: 'tht/environments/puppet/f.yaml' },
      { value: '/usr/share/tht/docker/f.yaml', kind: 'template', resolved: 'tht/docker/f.yaml' },
      { value: 'OS::Heat::None', kind: 'type' },
    ]);
    expect(byType['my.template']).toMatchObject({
      kind: 'template',
      resolved: 'tht/environments/my.template',
    });
    expect(byType['OS::TripleO::Tasks::*PreConfig']?.kind).toBe('type');
    expect(byType['resources/server/OS::G']).toMatchObject({
      kind: 'template',
      resolved: 'tht/environments/g.yaml',
    });
    expect(byType['resources/server/hooks']?.kind).toBe('hooks');
    expect(byType['resources/server/restricted_actions']?.kind).toBe('restricted-actions');
  });

  it('resolves against base_url as heatclient does', () => {
    const env = parseEnvironment(
      'resource_registry:\n  base_url: http://example.com/tht/\n  OS::A: a.yaml\n',
    );
    expect(env.registry.find((e) => e.type === 'OS::A')?.resolved).toBe('http://example.com/tht/a.yaml');
  });

  it('validates hooks wherever they appear, with Heat message', () => {
    const [d] = errorsOf('resource_registry:\n  resources:\n    s:\n      hooks: [pre-create, pre-craete]\n');
    expect(d).toMatchObject({
      code: 'heat/registry/invalid-hook',
      message:
        "Invalid hook type \"['pre-create', 'pre-craete']\" for resource breakpoint, acceptable hook types are: ('pre-create', 'pre-update', 'pre-delete', 'post-create', 'post-update', 'post-delete')",
      line: 4,
      hint: 'did you mean pre-create?',
    });
    expect(errorsOf('resource_registry:\n  hooks: 1\n')[0]?.code).toBe('heat/registry/invalid-hook');
    expect(errorsOf('resource_registry:\n  resources: {s: {restricted_actions: [delete]}}\n')[0]?.code).toBe(
      'heat/registry/invalid-restricted-action',
    );
  });

  it('rejects a registry value Heat would take for a Python class', () => {
    const [d] = errorsOf('resource_registry:\n  OS::A: 5\n');
    expect(d).toMatchObject({ code: 'heat/registry/invalid-value', line: 2 });
  });

  it('rejects empty and malformed candidate lists', () => {
    expect(errorsOf('resource_registry:\n  OS::A: []\n')[0]?.code).toBe('heat/registry/no-candidates');
    expect(errorsOf('resource_registry:\n  OS::A: [a.yaml, {b: c}]\n')[0]).toMatchObject({
      code: 'heat/registry/invalid-candidate',
      path: '/resource_registry/OS::A/1',
    });
    expect(errorsOf('resource_registry:\n  resources: {s: {OS::A: [a.yaml]}}\n')[0]?.code).toBe(
      'heat/registry/nested-candidates',
    );
  });

  it('reads an environment of exactly MAX_ENVIRONMENT_BYTES and refuses one byte more, where it passes', () => {
    const tail = 'parameter_defaults: {a: 1}\n';
    const fill = (bytes: number) => `#${'x'.repeat(bytes - tail.length - 2)}\n${tail}`;
    expect(validateEnvironment(fill(MAX_ENVIRONMENT_BYTES)).ok).toBe(true);
    const over = validateEnvironment(fill(MAX_ENVIRONMENT_BYTES + 1), { filename: 'big.yaml' });
    expect(over.ok).toBe(false);
    expect(over.diagnostics).toEqual([
      expect.objectContaining({ code: 'yaml/too-large', file: 'big.yaml', line: 2, column: 27 }),
    ]);
  });

  it('rejects a candidate list on a wildcard, which Heat would read as one literal type once resolved', () => {
    expect(errorsOf('resource_registry:\n  OS::Foo::*: [a.yaml, b.yaml]\n')[0]).toMatchObject({
      code: 'heat/registry/wildcard-candidates',
      path: '/resource_registry/OS::Foo::*',
      line: 2,
      column: 3,
    });
    expect(validateEnvironment('resource_registry:\n  OS::Foo::*: OS::Bar::*\n').ok).toBe(true);
  });

  it('warns about a value Heat reads as a type name although it looks like a file', () => {
    const r = validateEnvironment('resource_registry:\n  OS::A: a.yml\n');
    expect(r.ok).toBe(true);
    expect(r.diagnostics[0]).toMatchObject({
      code: 'heat/registry/not-a-template-name',
      severity: 'warning',
    });
  });

  it('rejects sections of the wrong shape', () => {
    expect(errorsOf('parameter_defaults: [a]\n')[0]?.code).toBe('heat/environment/section-not-mapping');
    expect(errorsOf('encrypted_param_names: a\n')[0]?.code).toBe('heat/environment/section-not-list');
    expect(errorsOf('event_sinks: [{type: kafka}]\n')[0]?.code).toBe('heat/environment/invalid-event-sink');
    expect(errorsOf('requires: [a]\n')[0]?.code).toBe('heat/environment/section-not-mapping');
    expect(errorsOf('requires: {a: [b, c]}\n')[0]).toMatchObject({
      code: 'heat/environment/invalid-requirement',
      path: '/requires/a',
    });
  });

  it('warns about an unknown merge strategy and suggests one', () => {
    const r = validateEnvironment('parameter_merge_strategies: {A: merg}\n');
    expect(r.ok).toBe(true);
    expect(r.diagnostics[0]).toMatchObject({
      code: 'heat/environment/unknown-merge-strategy',
      hint: 'did you mean merge?',
    });
  });

  it('throws a ValidationError from parseEnvironment', () => {
    try {
      parseEnvironment('nope: 1\n', { filename: 'x.yaml' });
      expect.unreachable();
    } catch (e) {
      expect(isStackspecError(e) && e.code).toBe('heat/environment/wrong-section');
    }
  });

  it('never throws on arbitrary text or data', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), (text) => {
        expect(typeof validateEnvironment(`resource_registry:\n${text}`).ok).toBe('boolean');
      }),
      { numRuns: 300 },
    );
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 4 }), (value) => {
        const r = validateEnvironment(JSON.stringify({ resource_registry: value, requires: value }));
        expect(typeof r.ok).toBe('boolean');
      }),
      { numRuns: 300 },
    );
  });
});
