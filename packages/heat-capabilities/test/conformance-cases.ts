// Documents fed to both Heat and this package by the conformance suite: the
// real tree, hand-written cases for every rule the reference lists, and
// documents generated from a fixed seed (structured ones serialised as YAML
// or JSON, and the tree's files with characters inserted).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import fg from 'fast-glob';
import { stringify } from 'yaml';

export interface ConformanceCase {
  name: string;
  kind: 'template' | 'environment';
  text: string;
}

const T = (name: string, text: string): ConformanceCase => ({ name, kind: 'template', text });
const E = (name: string, text: string): ConformanceCase => ({ name, kind: 'environment', text });

/** Hand-written cases, one per behaviour the reference describes. */
export function handCases(): ConformanceCase[] {
  const versions = [
    '2013-05-23',
    '2014-10-16',
    '2015-04-30',
    '2015-10-15',
    '2016-04-08',
    '2016-10-14',
    '2017-02-24',
    '2017-09-01',
    '2018-03-02',
    '2018-08-31',
    '2021-04-16',
    'newton',
    'ocata',
    'pike',
    'queens',
    'rocky',
    'wallaby',
  ];
  const cases: ConformanceCase[] = [];
  for (const v of versions) {
    cases.push(T(`version ${v}`, `heat_template_version: ${v}\n`));
    cases.push(T(`version ${v} quoted`, `heat_template_version: "${v}"\n`));
    cases.push(T(`version ${v} with conditions`, `heat_template_version: ${v}\nconditions: {}\n`));
    cases.push(
      T(
        `version ${v} resource condition`,
        `heat_template_version: ${v}\nresources:\n  a: {type: OS::Heat::None, condition: c}\n`,
      ),
    );
    cases.push(
      T(
        `version ${v} resource external_id`,
        `heat_template_version: ${v}\nresources:\n  a: {type: OS::Heat::None, external_id: x}\n`,
      ),
    );
    cases.push(
      T(
        `version ${v} resource value`,
        `heat_template_version: ${v}\nresources:\n  a: {type: OS::Heat::None, value: x}\n`,
      ),
    );
  }
  cases.push(
    T('cfn aws', 'AWSTemplateFormatVersion: 2010-09-09\nResources: {A: {Type: X}}\nConditions: {}\n'),
    T('cfn heat', 'HeatTemplateFormatVersion: 2012-12-12\nResources: {A: {Type: X}}\n'),
    T('cfn heat conditions', 'HeatTemplateFormatVersion: 2012-12-12\nConditions: {}\n'),
    T('cfn empty resource', 'HeatTemplateFormatVersion: 2012-12-12\nResources: {A: {}}\n'),
    T('cfn string resource', 'HeatTemplateFormatVersion: 2012-12-12\nResources: {A: text}\n'),
    T('cfn empty type', 'AWSTemplateFormatVersion: 2010-09-09\nResources: {A: {Type: ""}}\n'),
    T('cfn lower-case section', 'HeatTemplateFormatVersion: 2012-12-12\nresources: {}\n'),
    T('hot upper-case section', 'heat_template_version: wallaby\nResources: {}\n'),
    T('unknown date', 'heat_template_version: 2099-01-01\n'),
    T('unpadded date', 'heat_template_version: 2013-5-23\n'),
    T('date with time', 'heat_template_version: 2013-05-23 12:00:00\n'),
    T('capitalised alias', 'heat_template_version: Wallaby\n'),
    T('integer version', 'heat_template_version: 2013\n'),
    T('null version', 'heat_template_version:\n'),
    T('list version', 'heat_template_version: [wallaby]\n'),
    T('ambiguous versions', 'heat_template_version: wallaby\nHeatTemplateFormatVersion: 2012-12-12\n'),
    T('version plus non-text version', 'heat_template_version: wallaby\nAWSTemplateFormatVersion: 1\n'),
    T('aws unknown', 'AWSTemplateFormatVersion: 2010-09-10\n'),
    T('no version', 'description: x\n'),
    T('empty text', ''),
    T('comments only', '# nothing\n'),
    T('document marker only', '---\n'),
    T('tilde', '~\n'),
    T('list', '- a\n'),
    T('scalar', 'text\n'),
    T('json null', 'null'),
    T('json list', '[1, 2]'),
    T('json template', '{"heat_template_version": "2015-10-15", "resources": {}}'),
    T('json trailing comma', '{"heat_template_version": "2015-10-15",}'),
    T('flow mapping', '{heat_template_version: 2015-10-15}'),
    T('json duplicate key', '{"heat_template_version": "2099-01-01", "heat_template_version": "wallaby"}'),
    T('yaml duplicate key', 'heat_template_version: 2099-01-01\nheat_template_version: wallaby\n'),
    T('capabilities section', 'heat_template_version: wallaby\ncapabilities:\n  deployment: puppet\n'),
    T('undefined section', 'heat_template_version: wallaby\n__undefined__: 1\n'),
    T('unknown section', 'heat_template_version: wallaby\nfoo: 1\n'),
    T('boolean key section', 'heat_template_version: wallaby\nyes: 1\n'),
    T('resources list', 'heat_template_version: wallaby\nresources: [a]\n'),
    T('resources empty list', 'heat_template_version: wallaby\nresources: []\n'),
    T('resources null', 'heat_template_version: wallaby\nresources:\n'),
    T('resources string', 'heat_template_version: wallaby\nresources: abc\n'),
    T('resource null', 'heat_template_version: wallaby\nresources:\n  a:\n'),
    T('resource string', 'heat_template_version: wallaby\nresources:\n  a: text\n'),
    T('resource list', 'heat_template_version: wallaby\nresources:\n  a: [1]\n'),
    T('resource number', 'heat_template_version: wallaby\nresources:\n  a: 5\n'),
    T('resource without type', 'heat_template_version: wallaby\nresources:\n  a: {properties: {}}\n'),
    T('resource empty type', 'heat_template_version: wallaby\nresources:\n  a: {type: ""}\n'),
    T('resource null type', 'heat_template_version: wallaby\nresources:\n  a: {type: null}\n'),
    T('resource bad keyword', 'heat_template_version: wallaby\nresources:\n  a: {type: X, propertys: {}}\n'),
    T('outputs anything', 'heat_template_version: wallaby\noutputs: 5\n'),
    T('parameters anything', 'heat_template_version: wallaby\nparameters: [1]\n'),
    T(
      'yes booleans',
      'heat_template_version: wallaby\ndescription: {a: yes, b: on, c: 017, d: 0x1F, e: 1_000, f: 12:30}\n',
    ),
    T(
      'anchors and aliases',
      'heat_template_version: wallaby\nparameters: &p {a: {type: string}}\noutputs: {x: {value: *p}}\n',
    ),
    T('merge key', 'heat_template_version: wallaby\ndescription:\n  <<: {a: 1}\n  b: 2\n'),
    T('python tag', 'heat_template_version: wallaby\ndescription: !!python/object:os.system x\n'),
    T('local tag', 'heat_template_version: wallaby\ndescription: !Ref x\n'),
    T('two documents', 'heat_template_version: wallaby\n---\na: 1\n'),
    T('sequence key', 'heat_template_version: wallaby\n[a]: 1\n'),
    T('bom', '\ufeffheat_template_version: wallaby\n'),
    T('crlf', 'heat_template_version: wallaby\r\nresources: {}\r\n'),
    T('tab indentation', 'heat_template_version: wallaby\nresources:\n\ta: 1\n'),
    T('unclosed flow', 'heat_template_version: wallaby\nresources: {a: 1\n'),
    T('mapping value in plain scalar', 'heat_template_version: wallaby\ndescription: a: b\n'),
    T('oversize', `heat_template_version: wallaby\ndescription: "${'x'.repeat(524300)}"\n`),
    T('oversize broken', `heat_template_version: wallaby\ndescription: [${'x'.repeat(524300)}\n`),
    T('exactly at the limit', `heat_template_version: wallaby\ndescription: ${'x'.repeat(524288 - 44)}\n`),
    E(
      'all sections',
      'parameters: {}\nparameter_defaults: {}\nresource_registry: {}\nencrypted_param_names: []\nevent_sinks: []\nparameter_merge_strategies: {}\n',
    ),
    E('empty', ''),
    E('comments only', '# c\n'),
    E('json null', 'null'),
    E('list', '- a\n'),
    E('flat parameters', 'KeyName: x\n'),
    E('requires', 'requires: {deployment: puppet}\n'),
    E('null section', 'parameter_defaults:\n'),
    E('null registry', 'resource_registry:\n'),
    E('empty mapping section', 'parameter_defaults: {}\n'),
    E('registry list', 'resource_registry: []\n'),
    E('registry template', 'resource_registry:\n  OS::A: a.yaml\n  OS::B: b.template\n'),
    E('registry alias', 'resource_registry:\n  OS::A: OS::Heat::None\n'),
    E('registry yml', 'resource_registry:\n  OS::A: a.yml\n'),
    E(
      'registry wildcard',
      'resource_registry:\n  OS::A::*: OS::B::*\n  OS::TripleO::Tasks::*PreConfig: OS::Heat::None\n',
    ),
    E('registry null', 'resource_registry:\n  OS::A: null\n  OS::B::*: ~\n'),
    E('registry key template', 'resource_registry:\n  a.yaml: whatever\n'),
    E('registry candidate list', 'resource_registry:\n  OS::A: [a.yaml, b.yaml]\n'),
    E('registry number', 'resource_registry:\n  OS::A: 5\n'),
    E('registry boolean', 'resource_registry:\n  OS::A: yes\n'),
    E('registry nested mapping', 'resource_registry:\n  OS::A: {b: c.yaml}\n'),
    E(
      'hooks valid',
      'resource_registry:\n  resources:\n    s: {hooks: [pre-create, post-delete]}\n    "*_server": {hooks: pre-update}\n',
    ),
    E('hooks invalid', 'resource_registry:\n  resources:\n    s: {hooks: pre-craete}\n'),
    E('hooks invalid in list', 'resource_registry:\n  resources:\n    s: {hooks: [pre-create, bad]}\n'),
    E('hooks number', 'resource_registry:\n  resources:\n    s: {hooks: 1}\n'),
    E('hooks mapping', 'resource_registry:\n  resources:\n    s: {hooks: {a: b}}\n'),
    E('hooks at the top', 'resource_registry:\n  hooks: pre-create\n'),
    E('hooks null', 'resource_registry:\n  resources:\n    s: {hooks: null}\n'),
    // Values in messages are printed with Python's str()/repr(): escapes, quotes, None/True.
    E('hooks with a tab', 'resource_registry:\n  resources:\n    s: {hooks: [pre-create, "a\\tb"]}\n'),
    E('hooks with a quote', 'resource_registry:\n  resources:\n    s: {hooks: ["it\'s", \'say "x"\']}\n'),
    E('hooks invisible', 'resource_registry:\n  resources:\n    s: {hooks: ["\\u200b", "\\x7f"]}\n'),
    E('hooks nested', 'resource_registry:\n  resources:\n    s: {hooks: [{a: [yes, ~, 1.5]}]}\n'),
    E(
      'restricted actions mapping',
      'resource_registry:\n  resources:\n    s: {restricted_actions: {x: "\\u00e9"}}\n',
    ),
    E(
      'restricted actions',
      'resource_registry:\n  resources:\n    s: {restricted_actions: [update, replace]}\n',
    ),
    E(
      'restricted actions invalid',
      'resource_registry:\n  resources:\n    s: {restricted_actions: delete}\n',
    ),
    E(
      'nested resources',
      'resource_registry:\n  resources:\n    "*NodesPostDeployment":\n      "*Deployment_Step*":\n        hooks: [pre-create, pre-update]\n',
    ),
    E('event sink', 'event_sinks:\n  - type: zaqar-queue\n    target: q\n'),
    E('event sink unknown', 'event_sinks:\n  - type: kafka\n'),
    E('encrypted names', 'encrypted_param_names: [a, b]\n'),
    E('merge strategies', 'parameter_merge_strategies: {default: merge, A: deep_merge}\n'),
    E('yaml error', 'resource_registry: {a: 1\n'),
    E('duplicate sections', 'parameter_defaults: {A: 1}\nparameter_defaults: {A: 2}\n'),
    E('yes key', 'yes: 1\n'),
  );
  return cases;
}

/** Every YAML file of a tree, each fed as what it looks like (and both ways when it is neither). */
export function corpusCases(root: string, classify: (text: string) => string): ConformanceCase[] {
  const out: ConformanceCase[] = [];
  for (const f of fg.sync('**/*.yaml', { cwd: root }).sort()) {
    if (f.endsWith('.j2.yaml')) continue;
    const text = readFileSync(join(root, f), 'utf8');
    const kind = classify(text);
    if (kind === 'template' || kind === 'environment') out.push({ name: `corpus ${f}`, kind, text });
    else {
      out.push({ name: `corpus ${f} (as template)`, kind: 'template', text });
      out.push({ name: `corpus ${f} (as environment)`, kind: 'environment', text });
    }
  }
  return out;
}

const SEED = 20260418;

/** Structured documents from a vocabulary of Heat's keys and values, serialised as YAML or JSON. */
export function structuredCases(count: number): ConformanceCase[] {
  const scalar = fc.oneof(
    fc.constantFrom(
      'wallaby',
      '2015-10-15',
      '2013-5-23',
      'OS::Heat::None',
      'a.yaml',
      'b.template',
      'x.yml',
      'pre-create',
      'update',
    ),
    fc.constantFrom('yes', 'no', '', 'null', 'on', '017', '1e3'),
    fc.integer({ min: -3, max: 3 }),
    fc.boolean(),
    fc.constant(null),
  );
  const key = fc.constantFrom(
    'heat_template_version',
    'HeatTemplateFormatVersion',
    'description',
    'parameters',
    'resources',
    'outputs',
    'conditions',
    'capabilities',
    'Resources',
    'resource_registry',
    'parameter_defaults',
    'event_sinks',
    'encrypted_param_names',
    'requires',
    'hooks',
    'restricted_actions',
    'type',
    'properties',
    'condition',
    'OS::A',
    'OS::B::*',
    'x',
  );
  const value = fc.letrec((tie) => ({
    node: fc.oneof({ depthSize: 'small', withCrossShrink: true }, scalar, tie('list'), tie('map')),
    list: fc.array(tie('node'), { maxLength: 3 }),
    map: fc.dictionary(key, tie('node'), { maxKeys: 4 }),
  })).node;
  const doc = fc.tuple(
    fc.constantFrom<'template' | 'environment'>('template', 'environment'),
    fc.dictionary(key, value, { minKeys: 1, maxKeys: 4 }),
    fc.constantFrom<'yaml' | 'json'>('yaml', 'yaml', 'json'),
  );
  return fc.sample(doc, { seed: SEED, numRuns: count }).map(([kind, body, syntax], i) => {
    const withVersion =
      kind === 'template' && i % 3 !== 0 ? { heat_template_version: 'wallaby', ...body } : body;
    const text = syntax === 'json' ? JSON.stringify(withVersion) : stringify(withVersion, { version: '1.1' });
    return { name: `structured ${i} (${syntax})`, kind, text };
  });
}

/**
 * Quotes, brackets, a comment sign, indicators and white space: inserted
 * anywhere, each can change how YAML reads the rest of a line or document.
 */
export const YAML_SYNTAX_PIECES = ['"', "'", '[', ']', '{', '}', '#', ': ', '- ', '|', '>', '\t', ' ', '\n'];

/** Files of the tree with one character sequence inserted at a seeded position. */
export function mutatedCases(sources: readonly ConformanceCase[], count: number): ConformanceCase[] {
  const pieces = [...YAML_SYNTAX_PIECES, '&a ', '*a', '!x ', '---\n', '? ', ','];
  if (!sources.length) return [];
  const gen = fc.tuple(fc.nat({ max: sources.length - 1 }), fc.nat(), fc.nat({ max: pieces.length - 1 }));
  return fc.sample(gen, { seed: SEED + 1, numRuns: count }).map(([s, at, p], i) => {
    const src = sources[s] as ConformanceCase;
    const pos = src.text.length ? at % src.text.length : 0;
    return {
      name: `mutated ${i} (${src.name} at ${pos} with ${JSON.stringify(pieces[p])})`,
      kind: src.kind,
      text: src.text.slice(0, pos) + (pieces[p] as string) + src.text.slice(pos),
    };
  });
}
