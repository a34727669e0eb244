import { describe, expect, it } from 'vitest';
import { isTemplateName, parseEnvironment } from './environment.js';
import { effectiveEntries, lookupResourceType } from './registry.js';

const registry = (text: string) => parseEnvironment(text, { filename: 'tht/environments/e.yaml' }).registry;

describe('lookupResourceType', () => {
  it('follows a template mapping and reports the resolved path', () => {
    const r = lookupResourceType(registry('resource_registry:\n  OS::A: ../a.yaml\n'), 'OS::A');
    expect(r.implementation).toEqual({
      kind: 'template',
      target: '../a.yaml',
      resolved: 'tht/a.yaml',
      via: ['OS::A'],
    });
  });

  it('follows aliases and rewrites the tail through a wildcard', () => {
    const r = lookupResourceType(
      registry('resource_registry:\n  OS::Networking::*: OS::Neutron::*\n  OS::X: OS::Networking::Port\n'),
      'OS::X',
    );
    expect(r.implementation).toEqual({
      kind: 'type',
      type: 'OS::Neutron::Port',
      via: ['OS::X', 'OS::Networking::Port', 'OS::Networking::*', 'OS::Neutron::Port'],
    });
  });

  it('lets a matching wildcard shadow the exact key, as Heat orders them', () => {
    const r = lookupResourceType(
      registry(
        'resource_registry:\n  OS::TripleO::*: OS::Heat::None\n  OS::TripleO::Services::Foo: foo.yaml\n',
      ),
      'OS::TripleO::Services::Foo',
    );
    expect(r.implementation).toMatchObject({ kind: 'type', type: 'OS::Heat::None' });
  });

  it('tries the next candidate when a target is unknown', () => {
    const r = lookupResourceType(
      registry('resource_registry:\n  OS::A::*: OS::Missing::*\n  OS::A::B: x.yaml\n'),
      'OS::A::B',
      {
        knownTypes: new Set(['OS::Heat::None']),
      },
    );
    expect(r.implementation).toMatchObject({ kind: 'template', target: 'x.yaml' });
  });

  it('prefers a per-resource override for that resource only', () => {
    const reg = registry(
      'resource_registry:\n  OS::A: a.yaml\n  resources:\n    special:\n      OS::A: special.yaml\n',
    );
    expect(lookupResourceType(reg, 'OS::A', { resourceName: 'special' }).implementation).toMatchObject({
      target: 'special.yaml',
    });
    expect(lookupResourceType(reg, 'OS::A', { resourceName: 'other' }).implementation).toMatchObject({
      target: 'a.yaml',
    });
  });

  it('treats a template name as its own template and a literal *PreConfig key as a plain type', () => {
    expect(lookupResourceType([], 'nested.yaml').implementation).toMatchObject({
      kind: 'template',
      target: 'nested.yaml',
    });
    const reg = registry('resource_registry:\n  OS::TripleO::Tasks::*PreConfig: OS::Heat::None\n');
    expect(lookupResourceType(reg, 'OS::TripleO::Tasks::ControllerPreConfig').implementation).toMatchObject({
      kind: 'type',
      type: 'OS::TripleO::Tasks::ControllerPreConfig',
    });
  });

  it('reaches a candidate list', () => {
    const r = lookupResourceType(
      registry('resource_registry:\n  OS::A: OS::B\n  OS::B: [b1.yaml, b2.yaml]\n'),
      'OS::A',
    );
    expect(r.implementation).toMatchObject({ kind: 'candidates', via: ['OS::A', 'OS::B'] });
  });

  it('reports an alias cycle instead of recursing forever', () => {
    const r = lookupResourceType(registry('resource_registry:\n  OS::A: OS::B\n  OS::B: OS::A\n'), 'OS::A');
    expect(r.ok).toBe(false);
    expect(r.diagnostics[0]).toMatchObject({ code: 'heat/registry/alias-cycle' });
    expect(r.diagnostics[0]?.message).toContain('OS::A → OS::B → OS::A');
  });

  it('reports a wildcard that rewrites a type without end', () => {
    const r = lookupResourceType(registry('resource_registry:\n  OS::*: OS::A::*\n'), 'OS::X');
    expect(r.diagnostics[0]?.code).toBe('heat/registry/alias-cycle');
    expect(r.diagnostics[0]?.message).toContain('without end (OS::X → OS::* → OS::A::X');
  });

  it('reports an unknown type with Heat message when known types are given', () => {
    const r = lookupResourceType(registry('resource_registry:\n  OS::A: OS::Nope\n'), 'OS::A', {
      knownTypes: () => false,
    });
    expect(r.diagnostics[0]).toMatchObject({
      code: 'heat/registry/type-not-found',
      message: 'The Resource Type (OS::A) could not be found.',
    });
  });

  it('lets a null wildcard remove the entries loaded before it, in document order', () => {
    const before = registry('resource_registry:\n  OS::A::B: b.yaml\n  OS::A::*: null\n  OS::A::C: c.yaml\n');
    expect(lookupResourceType(before, 'OS::A::B').implementation).toEqual({
      kind: 'type',
      type: 'OS::A::B',
      via: ['OS::A::B'],
    });
    expect(lookupResourceType(before, 'OS::A::C').implementation).toMatchObject({
      kind: 'template',
      target: 'c.yaml',
    });
    expect(
      lookupResourceType(registry('resource_registry:\n  OS::A: null\n'), 'OS::A').implementation,
    ).toEqual({
      kind: 'type',
      type: 'OS::A',
      via: ['OS::A'],
    });
  });
});

describe('effectiveEntries', () => {
  it('drops null entries and what they remove, keeping hooks and later entries', () => {
    const reg = registry(
      'resource_registry:\n  OS::A: a.yaml\n  OS::B::X: x.yaml\n  OS::A: null\n  OS::B::*: null\n  OS::B::Y: y.yaml\n  resources:\n    s: {OS::B::Z: z.yaml, hooks: pre-create}\n',
    );
    expect(effectiveEntries(reg).map((e) => e.path.join('/'))).toEqual([
      'OS::B::Y',
      'resources/s/OS::B::Z',
      'resources/s/hooks',
    ]);
  });
});

describe('isTemplateName', () => {
  it('knows only the two suffixes Heat knows', () => {
    expect(['a.yaml', 'b.template', 'c.yml', 'd.json', 'OS::E'].map(isTemplateName)).toEqual([
      true,
      true,
      false,
      false,
      false,
    ]);
  });
});
