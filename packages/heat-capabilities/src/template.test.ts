import { isStackspecError } from '@stackspec/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseTemplate, validateTemplate } from './template.js';
import { TEMPLATE_VERSIONS } from './versions.js';

function errorsOf(text: string, options = {}) {
  const r = validateTemplate(text, { filename: 't.yaml', ...options });
  return r.diagnostics.filter((d) => d.severity === 'error');
}

describe('validateTemplate', () => {
  it.each(TEMPLATE_VERSIONS.map((v) => [v.key, v.value, v.format, v.date] as const))(
    'accepts %s: %s and keeps the version as text',
    (key, value, format, date) => {
      const r = validateTemplate(`${key}: ${value}\n`);
      expect(r.ok).toBe(true);
      expect(r.template?.version).toBe(value);
      expect(r.template?.format).toBe(format);
      expect(r.template?.versionDate).toBe(date);
    },
  );

  it('reads a JSON template through the strict JSON step', () => {
    const r = validateTemplate('{"heat_template_version": "2015-10-15", "resources": {}}');
    expect(r.ok).toBe(true);
    expect(r.template?.syntax).toBe('json');
  });

  it('falls through to YAML for a flow mapping that is not strict JSON', () => {
    const r = validateTemplate('{heat_template_version: 2015-10-15}');
    expect(r.ok).toBe(true);
    expect(r.template?.syntax).toBe('yaml');
    expect(r.template?.version).toBe('2015-10-15');
  });

  it('reads both capability styles and mixes them', () => {
    const t = parseTemplate(
      [
        'heat_template_version: 2015-10-15',
        'capabilities:',
        '  deployment: puppet',
        '  resource_type: [OS::TripleO::ControllerPostDeployment, OS::TripleO::ComputePostDeployment]',
        '  ha: yes',
        '  replicas: 2',
        '',
      ].join('\n'),
    );
    expect(t.capabilities).toEqual({
      deployment: ['puppet'],
      resource_type: ['OS::TripleO::ControllerPostDeployment', 'OS::TripleO::ComputePostDeployment'],
      ha: ['true'],
      replicas: ['2'],
    });
  });

  it('keeps a float capability a float in YAML and JSON, spelt as Python prints it', () => {
    expect(
      parseTemplate('heat_template_version: wallaby\ncapabilities:\n  api: 1.0\n  n: [2, 2.50, 1e3]\n')
        .capabilities,
    ).toEqual({ api: ['1.0'], n: ['2', '2.5', '1e3'] });
    expect(
      parseTemplate('{"heat_template_version": "wallaby", "capabilities": {"api": 1.0, "big": 1E16}}')
        .capabilities,
    ).toEqual({ api: ['1.0'], big: ['1e+16'] });
  });

  it('treats a null capabilities section as declaring nothing', () => {
    expect(parseTemplate('heat_template_version: wallaby\ncapabilities:\n').capabilities).toBeUndefined();
  });

  it('reports a capabilities value that is a mapping and points at its line', () => {
    const [d] = errorsOf('heat_template_version: wallaby\ncapabilities:\n  deployment:\n    tool: puppet\n');
    expect(d).toMatchObject({
      code: 'heat/capabilities/invalid-value',
      path: '/capabilities/deployment',
      line: 4,
    });
  });

  it('rejects the capabilities section as Heat does when extensions are off', () => {
    const [d] = errorsOf('heat_template_version: wallaby\ncapabilities:\n  a: b\n', {
      allowCapabilities: false,
    });
    expect(d).toMatchObject({
      code: 'heat/template/invalid-section',
      message: 'The template section is invalid: capabilities',
      line: 2,
    });
  });

  it('rejects capabilities in a CloudFormation template', () => {
    const [d] = errorsOf('HeatTemplateFormatVersion: 2012-12-12\ncapabilities: {a: b}\n');
    expect(d?.code).toBe('heat/template/invalid-section');
  });

  it('rejects oversize text before reading it, counting characters', () => {
    const big = `heat_template_version: wallaby\ndescription: "${'é'.repeat(600)}"\n`;
    const [d] = errorsOf(big, { maxTemplateSize: 500 });
    expect(d).toMatchObject({ code: 'heat/template/too-large' });
    expect(d?.message).toBe(`Template size (${big.length} bytes) exceeds maximum allowed size (500 bytes).`);
    // An astral character is one character for Heat.
    const astral = `heat_template_version: wallaby\ndescription: "${'😀'.repeat(10)}"\n`;
    expect(validateTemplate(astral, { maxTemplateSize: astral.length - 10 }).ok).toBe(true);
  });

  it('enforces the default limit of 524288 characters', () => {
    const text = `heat_template_version: wallaby\n#${'x'.repeat(524288)}\n`;
    expect(errorsOf(text)[0]?.code).toBe('heat/template/too-large');
  });

  it('reports a YAML syntax error with its line', () => {
    const [d] = errorsOf('heat_template_version: wallaby\nresources:\n  a: [1, 2\n');
    expect(d?.code).toMatch(/^yaml\//);
    expect(d?.line).toBeGreaterThanOrEqual(3);
    expect(d?.file).toBe('t.yaml');
  });

  it.each([
    ['- a\n', 'heat/template/not-a-mapping'],
    ['null', 'heat/template/not-a-mapping'],
    ['"text"', 'heat/template/not-a-mapping'],
    ['', 'heat/template/no-version'],
    ['description: x\n', 'heat/template/no-version'],
  ])('rejects %j with %s', (text, code) => {
    expect(errorsOf(text)[0]?.code).toBe(code);
  });

  it('reports a version that is not text as not provided', () => {
    const [d] = errorsOf('heat_template_version: 2013\n');
    expect(d).toMatchObject({
      code: 'heat/template/version-not-string',
      message: 'The template version is invalid: Template version was not provided',
      line: 1,
    });
  });

  it('lists every HOT version for an unknown one, in Heat order', () => {
    const [d] = errorsOf('heat_template_version: 2099-01-01\n');
    expect(d?.message).toBe(
      'The template version is invalid: "heat_template_version: 2099-01-01". "heat_template_version" should be one of: 2013-05-23, 2014-10-16, 2015-04-30, 2015-10-15, 2016-04-08, 2016-10-14, 2017-02-24, 2017-09-01, 2018-03-02, 2018-08-31, 2021-04-16, newton, ocata, pike, queens, rocky, wallaby',
    );
  });

  it('says "should be" when a key has one version and suggests a close spelling', () => {
    expect(errorsOf('HeatTemplateFormatVersion: 2012-12-13\n')[0]?.message).toContain(
      '"HeatTemplateFormatVersion" should be: 2012-12-12',
    );
    expect(errorsOf('heat_template_version: 2015-10-15x\n')[0]?.hint).toBeUndefined();
    expect(errorsOf('heat_template_version: Wallaby\n')[0]?.hint).toBe('did you mean wallaby?');
    expect(errorsOf('heat_template_version: 2013-5-23\n')[0]?.hint).toBe('did you mean 2013-05-23?');
  });

  it('reports two version keys as ambiguous', () => {
    const [d] = errorsOf('heat_template_version: wallaby\nAWSTemplateFormatVersion: 2010-09-09\n');
    expect(d?.message).toBe(
      'The template version is invalid: Ambiguous versions (heat_template_version, AWSTemplateFormatVersion)',
    );
  });

  it('rejects conditions before 2016-10-14 and accepts them after', () => {
    const [d] = errorsOf('heat_template_version: 2016-04-08\nconditions: {}\n');
    expect(d).toMatchObject({ code: 'heat/template/invalid-section', line: 2 });
    expect(d?.hint).toContain('2016-10-14');
    expect(errorsOf('heat_template_version: newton\nconditions: {}\n')).toEqual([]);
  });

  it('suggests the right case for a misspelt section', () => {
    const [d] = errorsOf('heat_template_version: wallaby\nResources: {}\n');
    expect(d?.hint).toBe('did you mean resources?');
  });

  it('prints a key YAML reads as a boolean the way Python does', () => {
    expect(errorsOf('heat_template_version: wallaby\nyes: 1\n')[0]?.message).toBe(
      'The template section is invalid: True',
    );
    expect(errorsOf('heat_template_version: wallaby\n"true": 1\n')[0]?.message).toBe(
      'The template section is invalid: true',
    );
  });

  it('accepts the internal __undefined__ section as Heat does', () => {
    expect(errorsOf('heat_template_version: wallaby\n__undefined__: 1\n')).toEqual([]);
  });

  it('checks HOT resources in sorted name order with Heat messages', () => {
    const diags = errorsOf(
      [
        'heat_template_version: wallaby',
        'resources:',
        '  b: {properties: {}}',
        '  a: {type: OS::Heat::None, propertys: {}}',
        '  c: text',
        '  d: {type: ""}',
        '  e:',
        '',
      ].join('\n'),
    );
    expect(diags.map((d) => d.message)).toEqual([
      '"propertys" is not a valid keyword inside a resource definition',
      'Each resource must contain a type key.',
      `"resources" must contain a map of resource maps. Found a [<class 'str'>] instead`,
      'Each resource must contain a type key.',
      'Each Resource must contain a Type key.',
    ]);
    expect(diags[0]).toMatchObject({ line: 4, hint: 'did you mean properties?' });
  });

  it('reports condition in an old version as the stack build would', () => {
    const text = 'heat_template_version: 2015-10-15\nresources:\n  a: {type: OS::Heat::None, condition: c}\n';
    expect(errorsOf(text)[0]?.message).toBe('Invalid keyword(s) inside a resource definition: condition');
    expect(errorsOf(text, { buildChecks: false })).toEqual([]);
    expect(errorsOf(text.replace('2015-10-15', 'queens'))).toEqual([]);
  });

  it('rejects a resources section that is a list', () => {
    expect(errorsOf('heat_template_version: wallaby\nresources: [a]\n')[0]?.code).toBe(
      'heat/template/resources-not-mapping',
    );
  });

  it('checks CloudFormation resources', () => {
    const diags = errorsOf(
      'AWSTemplateFormatVersion: 2010-09-09\nResources:\n  A: {Properties: {}}\n  B: x\n',
    );
    expect(diags.map((d) => d.message)).toEqual([
      'Each Resource must contain a Type key.',
      `Resources must contain Resource. Found a [<class 'str'>] instead`,
    ]);
  });

  it('keeps the last of two duplicate keys and warns', () => {
    const r = validateTemplate('heat_template_version: 2013-05-23\nheat_template_version: wallaby\n');
    expect(r.ok).toBe(true);
    expect(r.template?.version).toBe('wallaby');
    expect(r.diagnostics).toEqual([
      expect.objectContaining({ code: 'yaml/duplicate-key', severity: 'warning', line: 2 }),
    ]);
  });

  it('reads YAML 1.1 scalars as PyYAML does', () => {
    const t = parseTemplate(
      'heat_template_version: wallaby\ndescription: {a: yes, b: 017, c: 1e3, d: 2013-05-23}\n',
    );
    expect(t.value.description).toEqual({ a: true, b: 15, c: '1e3', d: '2013-05-23' });
  });

  it('throws a ValidationError carrying the diagnostics', () => {
    try {
      parseTemplate('heat_template_version: nope\n', { filename: 'x.yaml' });
      expect.unreachable();
    } catch (e) {
      expect(isStackspecError(e)).toBe(true);
      if (!isStackspecError(e)) return;
      expect(e.status).toBe(400);
      expect(e.code).toBe('heat/template/unknown-version');
      expect(e.diagnostics[0]?.file).toBe('x.yaml');
    }
  });

  it('never throws on arbitrary text', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), (text) => {
        const r = validateTemplate(`heat_template_version: wallaby\n${text}`);
        expect(typeof r.ok).toBe('boolean');
        if (!r.ok) expect(r.diagnostics.some((d) => d.severity === 'error')).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it('never throws on generated JSON documents', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 4 }), (value) => {
        const doc =
          value !== null && typeof value === 'object' && !Array.isArray(value)
            ? { heat_template_version: 'wallaby', ...value }
            : value;
        const r = validateTemplate(JSON.stringify(doc));
        expect(typeof r.ok).toBe('boolean');
      }),
      { numRuns: 300 },
    );
  });
});
