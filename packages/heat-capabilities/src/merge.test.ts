import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseEnvironment, validateEnvironment } from './environment.js';
import { mergeEnvironments } from './merge.js';

const env = (text: string, filename: string) => parseEnvironment(text, { filename });

describe('mergeEnvironments (server rules)', () => {
  it('lets the later file win key by key and resolves each path against its own file', () => {
    const r = mergeEnvironments([
      env('resource_registry:\n  OS::A: a.yaml\n  OS::B: b.yaml\n', 'tht/one/e1.yaml'),
      env('resource_registry:\n  OS::B: ../b2.yaml\n  OS::C: OS::Heat::None\n', 'tht/two/e2.yaml'),
    ]);
    expect(r.ok).toBe(true);
    expect(r.environment.value.resource_registry).toEqual({
      'OS::A': 'tht/one/a.yaml',
      'OS::B': 'tht/b2.yaml',
      'OS::C': 'OS::Heat::None',
    });
    expect(r.environment.registry.map((e) => [e.type, e.origin])).toEqual([
      ['OS::A', 0],
      ['OS::B', 1],
      ['OS::C', 1],
    ]);
  });

  it('ignores a later null and warns that it does not remove the entry', () => {
    const r = mergeEnvironments([
      env('resource_registry:\n  OS::A: a.yaml\n', 'e1.yaml'),
      env('resource_registry:\n  OS::A: null\n', 'e2.yaml'),
    ]);
    expect(r.environment.value.resource_registry).toEqual({ 'OS::A': 'a.yaml' });
    expect(r.diagnostics[0]).toMatchObject({ code: 'heat/merge/null-ignored', file: 'e2.yaml', line: 2 });
  });

  it('replaces an earlier resources block wholesale and warns that its hooks are lost', () => {
    const r = mergeEnvironments([
      env('resource_registry:\n  resources:\n    s1: {hooks: pre-create}\n', 'e1.yaml'),
      env('resource_registry:\n  resources:\n    s2: {hooks: pre-update}\n', 'e2.yaml'),
    ]);
    expect(r.environment.value.resource_registry).toEqual({ resources: { s2: { hooks: 'pre-update' } } });
    expect(r.diagnostics[0]?.code).toBe('heat/merge/resources-replaced');
  });

  it('merges requires key by key, the later file winning', () => {
    const r = mergeEnvironments([
      env('requires: {deployment: puppet, ha: yes}\n', 'e1.yaml'),
      env('requires: {deployment: docker}\n', 'e2.yaml'),
    ]);
    expect(r.environment.requires).toEqual({ deployment: 'docker', ha: 'true' });
    expect(r.environment.requiresOrigin).toEqual({ deployment: 1, ha: 0 });
  });

  it('combines parameters with merge strategies as Heat does', () => {
    const r = mergeEnvironments(
      [
        env(
          'parameter_defaults:\n  S: a\n  L: [1]\n  M: {x: 1}\n  C: "a,b"\nparameter_merge_strategies: {default: merge}\n',
          'e1.yaml',
        ),
        env(
          [
            'parameter_defaults:',
            '  S: b',
            '  L: [2]',
            '  M: {y: 2}',
            '  C: c',
            'parameter_merge_strategies:',
            '  default: merge',
            '',
          ].join('\n'),
          'e2.yaml',
        ),
      ],
      { parameterTypes: { S: 'string', L: 'comma_delimited_list', M: 'json', C: 'comma_delimited_list' } },
    );
    expect(r.ok).toBe(true);
    expect(r.environment.value.parameter_defaults).toEqual({
      S: 'ab',
      L: [1, 2],
      M: { x: 1, y: 2 },
      C: 'a,b,c',
    });
  });

  it('keeps the strategy an earlier file implied over a later default', () => {
    const r = mergeEnvironments([
      env('parameter_defaults: {S: a}\n', 'e1.yaml'),
      env('parameter_defaults: {S: b}\nparameter_merge_strategies: {default: merge}\n', 'e2.yaml'),
    ]);
    expect(r.environment.value.parameter_defaults).toEqual({ S: 'b' });
  });

  it('deep-merges nested maps with deep_merge', () => {
    const r = mergeEnvironments([
      env(
        'parameter_defaults:\n  M: {a: {x: 1, l: [1]}}\nparameter_merge_strategies: {M: deep_merge}\n',
        'e1.yaml',
      ),
      env(
        'parameter_defaults:\n  M: {a: {y: 2, l: [2]}}\nparameter_merge_strategies: {M: deep_merge}\n',
        'e2.yaml',
      ),
    ]);
    expect(r.environment.value.parameter_defaults).toEqual({ M: { a: { x: 1, y: 2, l: [1, 2] } } });
  });

  it('overwrites by default', () => {
    const r = mergeEnvironments([
      env('parameters: {A: 1}\n', 'e1.yaml'),
      env('parameters: {A: 2}\n', 'e2.yaml'),
    ]);
    expect(r.environment.value.parameters).toEqual({ A: 2 });
  });

  it('drops later values of undeclared parameters when templates declare parameters', () => {
    const r = mergeEnvironments(
      [
        env('parameter_defaults: {A: 1, Z: 1}\n', 'e1.yaml'),
        env('parameter_defaults: {A: 2, Z: 2}\n', 'e2.yaml'),
      ],
      { parameterTypes: { A: 'number' } },
    );
    expect(r.environment.value.parameter_defaults).toEqual({ A: 2, Z: 1 });
    expect(r.diagnostics[0]).toMatchObject({
      code: 'heat/merge/undeclared-parameter-dropped',
      path: '/parameter_defaults/Z',
    });
  });

  it('reports conflicting strategies with Heat message', () => {
    const r = mergeEnvironments([
      env('parameter_defaults: {S: a}\nparameter_merge_strategies: {S: merge}\n', 'e1.yaml'),
      env('parameter_defaults: {S: b}\nparameter_merge_strategies: {S: overwrite}\n', 'e2.yaml'),
    ]);
    expect(r.ok).toBe(false);
    expect(r.diagnostics[0]?.message).toBe(
      "Conflicting merge strategy 'overwrite' for parameter 'S' in file 'e2.yaml'.",
    );
  });

  it('refuses to merge numbers and booleans', () => {
    const n = mergeEnvironments([
      env('parameter_defaults: {N: 1}\nparameter_merge_strategies: {default: merge}\n', 'e1.yaml'),
      env('parameter_defaults: {N: 2}\n', 'e2.yaml'),
    ]);
    expect(n.diagnostics[0]).toMatchObject({
      code: 'heat/merge/invalid-parameter',
      message: 'Invalid parameter in environment .',
    });
    const b = mergeEnvironments(
      [
        env('parameter_defaults: {B: "true"}\nparameter_merge_strategies: {B: merge}\n', 'e1.yaml'),
        env('parameter_defaults: {B: "false"}\n', 'e2.yaml'),
      ],
      { parameterTypes: { B: 'boolean' } },
    );
    expect(b.diagnostics[0]?.message).toBe("Invalid merge strategy 'merge' for parameter 'B'.");
  });

  it('rejects a second event_sinks list', () => {
    const r = mergeEnvironments([
      env('event_sinks: [{type: zaqar-queue, target: a}]\n', 'e1.yaml'),
      env('event_sinks: [{type: zaqar-queue, target: b}]\n', 'e2.yaml'),
    ]);
    expect(r.diagnostics[0]).toMatchObject({ code: 'heat/merge/list-section-twice', file: 'e2.yaml' });
  });

  it('returns an empty environment for no files', () => {
    expect(mergeEnvironments([]).environment.value).toEqual({});
  });
});

describe('mergeEnvironments (client rules)', () => {
  it('merges resources blocks recursively and lets a later null remove a value', () => {
    const r = mergeEnvironments(
      [
        env('resource_registry:\n  OS::A: a.yaml\n  resources:\n    s1: {hooks: pre-create}\n', 'e1.yaml'),
        env('resource_registry:\n  OS::A: null\n  resources:\n    s2: {hooks: pre-update}\n', 'e2.yaml'),
      ],
      { strategy: 'client' },
    );
    expect(r.environment.value.resource_registry).toEqual({
      'OS::A': null,
      resources: { s1: { hooks: 'pre-create' }, s2: { hooks: 'pre-update' } },
    });
    expect(r.diagnostics).toEqual([]);
    expect(r.environment.registry.map((e) => e.path.join('/')).sort()).toEqual([
      'OS::A',
      'resources/s1/hooks',
      'resources/s2/hooks',
    ]);
  });

  it('replaces parameters without merge strategies', () => {
    const r = mergeEnvironments(
      [
        env('parameter_defaults: {S: a, M: {x: 1}}\n', 'e1.yaml'),
        env(
          'parameter_defaults: {S: b, M: {y: 2}}\nparameter_merge_strategies: {default: merge}\n',
          'e2.yaml',
        ),
      ],
      { strategy: 'client' },
    );
    expect(r.environment.value.parameter_defaults).toEqual({ S: 'b', M: { x: 1, y: 2 } });
  });
});

describe('mergeEnvironments on any input', () => {
  it('returns a result or our diagnostics, never a foreign exception, in both modes', () => {
    const value = fc.jsonValue({ maxDepth: 3 });
    const section = fc.constantFrom(
      'parameters',
      'parameter_defaults',
      'resource_registry',
      'parameter_merge_strategies',
      'event_sinks',
      'encrypted_param_names',
      'requires',
    );
    const doc = fc.dictionary(section, value, { maxKeys: 4 });
    fc.assert(
      fc.property(
        fc.array(doc, { maxLength: 4 }),
        fc.constantFrom<'server' | 'client'>('server', 'client'),
        (docs, strategy) => {
          const envs = docs
            .map((d, i) => validateEnvironment(JSON.stringify(d), { filename: `e${i}.yaml` }))
            .flatMap((r) => (r.ok ? [r.environment] : []));
          const r = mergeEnvironments(envs, { strategy });
          expect(typeof r.ok).toBe('boolean');
          for (const d of r.diagnostics) expect(d.code).toMatch(/^heat\/merge\//);
        },
      ),
      { numRuns: 300 },
    );
  });
});
