import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { isErrorKind, isStackspecError, PyFloat } from '@stackspec/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { makeFifo, makeSparseFile } from '../../../test-support/hostile-files.js';
import { loadImageSpec, validateImageSpec } from './load.js';
import type { ScriptNode } from './spec.js';
import { defineValidator } from './validator-definition.js';

function root(files: Record<string, string> = {}): string {
  const dir = mkdtempSync(join(tmpdir(), 'siv-load-'));
  for (const [p, text] of Object.entries(files)) {
    mkdirSync(join(dir, p, '..'), { recursive: true });
    writeFileSync(join(dir, p), text);
  }
  return dir;
}

function errors(text: string, options: Parameters<typeof validateImageSpec>[1] = {}) {
  const r = validateImageSpec(text, { filename: 'image.yaml', ...options });
  expect(r.ok).toBe(false);
  return r.diagnostics.filter((d) => d.severity === 'error');
}

describe('loadImageSpec', () => {
  it('loads the example from the blueprint with every validator type located', () => {
    const dir = root({ 'java/setup-java-home': '#!/bin/bash\necho hi\n' });
    const spec = loadImageSpec(
      [
        'validators:',
        '  - os_case:',
        '      - redhat:',
        '          - package: nfs-utils',
        '      - debian:',
        '          - package: nfs-common',
        '  - any:',
        '      - package: java-1.8.0-openjdk-devel',
        '      - package: java-1.7.0-openjdk-devel',
        '  - script: java/setup-java-home',
        '  - package:',
        '      - hadoop',
        '      - lzo:',
        '          version: "2.0"',
        '',
      ].join('\n'),
      { resourceRoots: [dir], filename: 'blueprint.yaml' },
    );
    expect(spec.validators.map((v) => v.kind)).toEqual(['os_case', 'any', 'script', 'package']);
    const [osCase, any, script, pkg] = spec.validators;
    expect(osCase).toMatchObject({ path: '/validators/0', line: 2, column: 5, file: 'blueprint.yaml' });
    expect(osCase?.kind === 'os_case' && osCase.cases.map((c) => [c.key, c.line])).toEqual([
      ['redhat', 3],
      ['debian', 5],
    ]);
    expect(any?.kind === 'any' && any.validators.length).toBe(2);
    expect(script).toMatchObject({
      kind: 'script',
      name: 'java/setup-java-home',
      body: '#!/bin/bash\necho hi\n',
      file: 'blueprint.yaml',
      line: 10,
      scriptPath: join(dir, 'java/setup-java-home'),
    });
    expect(pkg).toMatchObject({ packages: [{ name: 'hadoop' }, { name: 'lzo', version: '2.0' }], line: 11 });
  });

  it('reads a spec from a path or URL and uses its folder as the resource root by default', () => {
    const dir = root({ 'image.yaml': 'validators:\n  - script: common/a\n', 'common/a': 'true\n' });
    const a = loadImageSpec(join(dir, 'image.yaml'));
    expect(a.file).toBe(join(dir, 'image.yaml'));
    expect(a.resourceRoots).toEqual([dir]);
    expect((a.validators[0] as ScriptNode).body).toBe('true\n');
    const b = loadImageSpec(pathToFileURL(join(dir, 'image.yaml')));
    expect(b.validators).toHaveLength(1);
  });

  it('reports an unreadable spec file as a located spec error', () => {
    const r = validateImageSpec('/nonexistent/dir/image.yaml');
    expect(r.ok).toBe(false);
    expect(r.diagnostics[0]).toMatchObject({
      code: 'image/spec/unreadable',
      file: '/nonexistent/dir/image.yaml',
    });
  });

  it('reads a one-line input without a colon as a path, so a missing file or a folder says so', () => {
    const dir = root({ 'image.yaml': 'validators: []\n' });
    for (const input of ['/nonexistent/image', dir, 'relative/spec']) {
      const r = validateImageSpec(input);
      expect(r.ok, input).toBe(false);
      expect(r.diagnostics[0]).toMatchObject({ code: 'image/spec/unreadable', file: input, path: '' });
      expect(r.diagnostics[0]?.message).toMatch(
        /^The spec file could not be read: it (does not exist|is a directory, not a regular file)\.$/,
      );
    }
    expect(validateImageSpec('/dev/zero').diagnostics[0]?.message).toBe(
      'The spec file could not be read: it is a device, not a regular file.',
    );
    // Text is still text: a one-line flow mapping, and YAML that is not a mapping.
    expect(validateImageSpec('{validators: []}').ok).toBe(true);
    expect(validateImageSpec('- a\n').diagnostics[0]?.code).toBe('image/spec/not-a-mapping');
    expect(validateImageSpec('').diagnostics[0]?.code).toBe('image/spec/not-a-mapping');
    // With `filename` the input is that file's text, however short.
    expect(validateImageSpec('just words', { filename: 'image.yaml' }).diagnostics[0]).toMatchObject({
      code: 'image/spec/not-a-mapping',
      file: 'image.yaml',
    });
  });

  it('throws a SpecError whose message names the file and line', () => {
    try {
      loadImageSpec('validators:\n  - packge: wget\n', { filename: 'x.yaml' });
      expect.unreachable();
    } catch (e) {
      expect(isErrorKind(e, 'spec')).toBe(true);
      if (!isStackspecError(e)) throw e;
      expect(e.code).toBe('image/spec/unknown-validator');
      expect(e.message).toMatch(/^x\.yaml:2:5: The validator type 'packge' is not known\./);
      expect(e.diagnostics[0]?.hint).toBe('Did you mean package?');
    }
  });

  it('collects every problem of a spec instead of stopping at the first', () => {
    const list = errors(
      [
        'arguments:',
        '  distro: {default: x}',
        '  flavour: {description: no default}',
        'validators:',
        '  - package: 8',
        '  - {package: a, script: b}',
        '  - argument_set: {argument_name: x, valu: y}',
        '',
      ].join('\n'),
    );
    expect(list.map((d) => [d.code, d.line])).toEqual([
      ['image/spec/reserved-argument', 2],
      ['image/spec/missing-default', 3],
      ['image/spec/invalid-type', 5],
      ['image/spec/not-single-key', 6],
      ['image/spec/unknown-key', 7],
      ['image/spec/missing-key', 7],
    ]);
  });

  it('rejects YAML syntax errors with their line', () => {
    const [d] = errors('validators:\n  - package: [a, b\n');
    expect(d?.code).toMatch(/^yaml\//);
    expect(d?.line).toBeGreaterThanOrEqual(2);
  });

  it('requires a mapping with validators and says what was expected', () => {
    expect(errors('- package: a\n')[0]).toMatchObject({ code: 'image/spec/not-a-mapping' });
    expect(errors('validator:\n  - package: a\n')[0]).toMatchObject({
      code: 'image/spec/missing-key',
      hint: 'Did you mean validator?',
    });
    expect(errors('validators: {package: a}\n')[0]).toMatchObject({
      code: 'image/spec/invalid-type',
      line: 1,
    });
  });

  it('warns about unknown top-level keys and duplicate keys but still loads', () => {
    const r = validateImageSpec('validators: []\nvalidators: []\nextra: 1\n');
    expect(r.ok).toBe(true);
    expect(r.diagnostics.map((d) => [d.code, d.severity])).toEqual([
      ['yaml/duplicate-key', 'warning'],
      ['image/spec/unknown-top-level-key', 'warning'],
    ]);
  });

  describe('package', () => {
    it('accepts a name, a pinned mapping and a list of both', () => {
      const spec = loadImageSpec(
        'validators:\n  - package: wget\n  - package: {lzo: {version: "2.0", note: ignored}}\n  - package: [a, {b: {}}]\n',
      );
      expect(spec.validators.map((v) => v.kind === 'package' && v.packages)).toEqual([
        [{ name: 'wget' }],
        [{ name: 'lzo', version: '2.0' }],
        [{ name: 'a' }, { name: 'b' }],
      ]);
    });

    it('rejects an unquoted version and points at it', () => {
      const [d] = errors('validators:\n  - package:\n      lzo:\n        version: 8\n');
      expect(d).toMatchObject({
        code: 'image/spec/invalid-type',
        path: '/validators/0/package/lzo/version',
        line: 4,
      });
      expect(d?.hint).toMatch(/Quote versions/);
    });

    it('rejects empty names, empty lists and names that look like options', () => {
      expect(errors('validators:\n  - package: ""\n')[0]?.code).toBe('image/spec/empty-value');
      expect(errors('validators:\n  - package: []\n')[0]?.code).toBe('image/spec/empty-package-list');
      expect(errors('validators:\n  - package: [-oDebug=1]\n')[0]?.code).toBe('image/spec/bad-package-name');
      expect(errors('validators:\n  - package: {a: null}\n')[0]?.code).toBe('image/spec/invalid-type');
      expect(errors('validators:\n  - package: {a: {}, b: {}}\n')[0]?.code).toBe('image/spec/invalid-type');
    });
  });

  describe('script and copy_script', () => {
    it('takes env_vars, output and inline bodies', () => {
      const dir = root({ 'x/find': 'echo /usr\n' });
      const spec = loadImageSpec(
        [
          'validators:',
          '  - script:',
          '      x/find:',
          '        output: JRE_HOME',
          '        env_vars: [JAVA, other_1]',
          '        arguments: ignored',
          '  - script: {apt_update: {inline: apt-get update}}',
          '',
        ].join('\n'),
        { resourceRoots: [dir] },
      );
      expect(spec.validators[0]).toMatchObject({
        envVars: ['JAVA', 'other_1'],
        output: 'JRE_HOME',
        inline: false,
      });
      expect(spec.validators[1]).toMatchObject({ name: 'apt_update', inline: true, body: 'apt-get update' });
    });

    it('uses the first root holding a non-empty file', () => {
      const a = root({ 's/x': '' });
      const b = root({ 's/x': 'from b\n' });
      const spec = loadImageSpec('validators:\n  - script: s/x\n', { resourceRoots: [a, b] });
      expect(spec.validators[0]).toMatchObject({ body: 'from b\n', scriptPath: join(b, 's/x') });
    });

    it('resolves relative roots against baseDir', () => {
      const dir = root({ 'res/s': 'ok\n' });
      const spec = loadImageSpec('validators:\n  - script: s\n', { resourceRoots: ['res'], baseDir: dir });
      expect(spec.validators[0]).toMatchObject({ body: 'ok\n' });
    });

    it('reports a missing script at its line with the roots searched', () => {
      const dir = root();
      const [d] = errors('validators:\n  - package: a\n  - script: no/such\n', { resourceRoots: [dir] });
      expect(d).toMatchObject({ code: 'image/spec/script-not-found', line: 3, path: '/validators/1/script' });
      expect(d?.hint).toContain(dir);
    });

    it('says why a script that is there cannot be used: a FIFO, a device, a folder, too large', () => {
      const dir = root();
      makeFifo(join(dir, 'pipe'));
      mkdirSync(join(dir, 'folder'));
      makeSparseFile(join(dir, 'huge'), 2 ** 30);
      const o = { resourceRoots: [dir] };
      const first = (script: string, options = o) =>
        errors(`validators:\n  - package: a\n  - script: ${script}\n`, options)[0];
      expect(first('pipe')).toMatchObject({
        code: 'image/spec/resource-unreadable',
        line: 3,
        path: '/validators/1/script',
        message: `The resource 'pipe' cannot be read: it is a named pipe (FIFO), not a regular file (${join(dir, 'pipe')}).`,
      });
      expect(first('folder')?.message).toContain('it is a directory, not a regular file');
      expect(first('zero', { resourceRoots: ['/dev'] })?.message).toBe(
        "The resource 'zero' cannot be read: it is a device, not a regular file (/dev/zero).",
      );
      expect(first('huge')).toMatchObject({
        code: 'image/spec/resource-too-large',
        message: `The resource 'huge' is ${2 ** 30} bytes, more than the limit of 16777216 bytes.`,
      });
      // A link to /dev/zero leaves the roots: that is what is reported, and nothing is opened.
      symlinkSync('/dev/zero', join(dir, 'zero'));
      expect(first('zero')?.code).toBe('image/spec/path-escapes-roots');
      // As in Sahara, a later root that holds the file is used.
      const other = root({ pipe: 'echo ok\n' });
      const spec = loadImageSpec('validators:\n  - script: pipe\n', { resourceRoots: [dir, other] });
      expect(spec.validators[0]).toMatchObject({ body: 'echo ok\n', scriptPath: join(other, 'pipe') });
    });

    it('refuses a spec file that is a FIFO or too large without waiting on it or reading it', () => {
      const dir = root();
      makeFifo(join(dir, 'image.yaml'));
      expect(validateImageSpec(join(dir, 'image.yaml')).diagnostics).toEqual([
        expect.objectContaining({
          code: 'image/spec/unreadable',
          file: join(dir, 'image.yaml'),
          message: 'The spec file could not be read: it is a named pipe (FIFO), not a regular file.',
        }),
      ]);
      makeSparseFile(join(dir, 'huge.yaml'), 2 ** 30);
      expect(validateImageSpec(join(dir, 'huge.yaml')).diagnostics[0]?.message).toBe(
        `The spec file could not be read: it holds ${2 ** 30} bytes, more than the limit of 16777216 bytes.`,
      );
    });

    it('never reads outside the resource roots', () => {
      const outside = root({ secret: 'top secret\n' });
      const dir = root();
      symlinkSync(join(outside, 'secret'), join(dir, 'link'));
      for (const path of ['../secret', '/etc/passwd', 'a/../../secret', 'link']) {
        const [d] = errors(`validators:\n  - script: ${JSON.stringify(path)}\n`, { resourceRoots: [dir] });
        expect(d?.code, path).toBe('image/spec/path-escapes-roots');
      }
    });

    it('validates env_vars, output and inline types', () => {
      const dir = root({ s: 'x\n' });
      const o = { resourceRoots: [dir] };
      expect(errors('validators:\n  - script: {s: {env_vars: JAVA}}\n', o)[0]?.code).toBe(
        'image/spec/invalid-type',
      );
      expect(errors('validators:\n  - script: {s: {env_vars: [1]}}\n', o)[0]?.code).toBe(
        'image/spec/invalid-type',
      );
      expect(errors('validators:\n  - script: {s: {env_vars: ["a;rm"]}}\n', o)[0]?.code).toBe(
        'image/spec/bad-variable-name',
      );
      expect(errors('validators:\n  - script: {s: {output: ""}}\n', o)[0]?.code).toBe(
        'image/spec/invalid-type',
      );
      expect(errors('validators:\n  - script: {s: null}\n', o)[0]?.code).toBe('image/spec/invalid-type');
      expect(errors('validators:\n  - script: [s]\n', o)[0]?.code).toBe('image/spec/invalid-type');
    });

    it('copies to /tmp under the third path segment and rejects shorter paths', () => {
      const dir = root({ 'common/resources/package_utils.sh': 'utils\n', 'a/b': 'x\n' });
      const spec = loadImageSpec('validators:\n  - copy_script: common/resources/package_utils.sh\n', {
        resourceRoots: [dir],
      });
      expect(spec.validators[0]).toMatchObject({
        kind: 'copy_script',
        target: '/tmp/package_utils.sh',
        body: 'utils\n',
      });
      const [d] = errors('validators:\n  - copy_script: a/b\n', { resourceRoots: [dir] });
      expect(d).toMatchObject({ code: 'image/spec/copy-script-path', line: 2 });
    });
  });

  describe('os_case, argument_case and argument_set', () => {
    it('keeps branch keys with their YAML types', () => {
      const spec = loadImageSpec(
        [
          'validators:',
          '  - argument_case:',
          '      argument_name: v',
          '      cases:',
          '        1: []',
          '        "2": []',
          '        3.0: []',
          '        yes: []',
          '        5.13.0: []',
          '',
        ].join('\n'),
      );
      const node = spec.validators[0];
      if (node?.kind !== 'argument_case') throw new Error('expected argument_case');
      expect(node.cases.map((c) => c.key)).toEqual([1, '2', new PyFloat(3), true, '5.13.0']);
      expect(node.cases.map((c) => c.line)).toEqual([5, 6, 7, 8, 9]);
    });

    it('rejects malformed os_case branches', () => {
      expect(errors('validators:\n  - os_case: {ubuntu: []}\n')[0]?.code).toBe('image/spec/invalid-type');
      expect(errors('validators:\n  - os_case: [{ubuntu: [], centos: []}]\n')[0]?.code).toBe(
        'image/spec/not-single-key',
      );
      expect(errors('validators:\n  - os_case: [{ubuntu: {package: a}}]\n')[0]?.code).toBe(
        'image/spec/invalid-type',
      );
    });

    it('requires exactly argument_name and cases, with at least one case', () => {
      const [d] = errors('validators:\n  - argument_case: {argument_name: a, case: {x: []}}\n');
      expect(d).toMatchObject({ code: 'image/spec/unknown-key', hint: 'Did you mean cases?' });
      expect(errors('validators:\n  - argument_case: {argument_name: a, cases: {}}\n')[0]?.code).toBe(
        'image/spec/empty-value',
      );
      expect(errors('validators:\n  - argument_case: {argument_name: 1, cases: {a: []}}\n')[0]?.code).toBe(
        'image/spec/invalid-type',
      );
      expect(errors('validators:\n  - argument_case: []\n')[0]?.code).toBe('image/spec/invalid-type');
    });

    it('reads argument_set and rejects empty values', () => {
      const spec = loadImageSpec('validators:\n  - argument_set: {argument_name: a, value: b}\n');
      expect(spec.validators[0]).toMatchObject({ kind: 'argument_set', argumentName: 'a', value: 'b' });
      expect(errors('validators:\n  - argument_set: {argument_name: a, value: ""}\n')[0]?.code).toBe(
        'image/spec/invalid-type',
      );
      expect(errors('validators:\n  - argument_set: x\n')[0]?.code).toBe('image/spec/invalid-type');
    });
  });

  describe('arguments', () => {
    it('keeps YAML order, types and unknown keys such as hidden', () => {
      const spec = loadImageSpec(
        [
          'arguments:',
          '  java_distro: {default: openjdk, choices: [openjdk, oracle-java], description: Java}',
          '  scala_version: {default: 1, hidden: True, required: False}',
          '  ratio: {default: 2.0}',
          '  token: {required: true}',
          'validators: []',
          '',
        ].join('\n'),
      );
      expect(spec.arguments.map((a) => [a.name, a.default, a.required])).toEqual(
        [
          ['java_distro', 'openjdk', false],
          ['scala_version', 1, false],
          ['ratio', new PyFloat(2)],
          ['token', undefined, true],
        ].map(([n, d, r]) => [n, d, r ?? false]),
      );
      expect(spec.arguments[1]?.extra).toEqual({ hidden: true });
      expect(spec.arguments[0]).toMatchObject({
        description: 'Java',
        choices: ['openjdk', 'oracle-java'],
        line: 2,
      });
    });

    it('applies the default and choices rules', () => {
      expect(errors('arguments:\n  a: {default: ""}\nvalidators: []\n')[0]).toMatchObject({
        code: 'image/spec/missing-default',
        message: 'Argument a is not required and must specify a default value.',
      });
      expect(errors('arguments:\n  a: {default: 0}\nvalidators: []\n')[0]?.code).toBe(
        'image/spec/missing-default',
      );
      expect(errors('arguments:\n  a: {default: x, choices: [y, z]}\nvalidators: []\n')[0]).toMatchObject({
        code: 'image/spec/default-not-in-choices',
        line: 2,
      });
      expect(errors('arguments:\n  test_only: {default: x}\nvalidators: []\n')[0]?.message).toMatch(
        /reserved/,
      );
      expect(errors('arguments:\n  a: {default: x, choices: x}\nvalidators: []\n')[0]?.code).toBe(
        'image/spec/invalid-type',
      );
      expect(errors('arguments: [a]\nvalidators: []\n')[0]?.code).toBe('image/spec/invalid-type');
      expect(errors('arguments:\n  a: text\nvalidators: []\n')[0]?.code).toBe('image/spec/invalid-type');
    });
  });

  describe('custom validators', () => {
    const fileExists = defineValidator({
      load(value, ctx) {
        if (typeof value !== 'string')
          ctx.error('file_exists needs a path.', { hint: 'file_exists: /etc/hosts' });
        return String(value);
      },
      async validate() {},
      describe: (path) => path,
    });

    it('loads custom types and lets them replace built-ins', () => {
      const spec = loadImageSpec('validators:\n  - file_exists: /etc/hosts\n  - package: custom\n', {
        validatorMap: { file_exists: fileExists, package: fileExists },
      });
      expect(spec.validators.map((v) => [v.kind, v.type, v.kind === 'custom' && v.config])).toEqual([
        ['custom', 'file_exists', '/etc/hosts'],
        ['custom', 'package', 'custom'],
      ]);
    });

    it('reports custom load errors at their place and wraps crashes', () => {
      const [d] = errors('validators:\n  - file_exists: [1]\n', {
        validatorMap: { file_exists: fileExists },
      });
      expect(d).toMatchObject({
        code: 'image/spec/invalid-custom',
        line: 2,
        hint: 'file_exists: /etc/hosts',
      });
      const crashing = defineValidator({
        load: () => {
          throw new TypeError('boom');
        },
        validate: async () => {},
      });
      const [c] = errors('validators:\n  - crash: 1\n', { validatorMap: { crash: crashing } });
      expect(c?.message).toContain('boom');
    });

    it('loads nested validator lists and resources through the context', () => {
      const dir = root({ 'r/x': 'data\n' });
      const wrap = defineValidator({
        load: (value, ctx) => ({
          kids: ctx.loadValidators((value as { do: unknown }).do, ['do']),
          data: ctx.readResource('r/x')?.content,
          escaped: ctx.readResource('../etc/passwd'),
        }),
        validate: async () => {},
        children: (c) => c.kids,
      });
      const r = validateImageSpec('validators:\n  - wrap: {do: [{package: a}]}\n', {
        validatorMap: { wrap },
        resourceRoots: [dir],
      });
      expect(r.diagnostics.map((d) => d.code)).toEqual(['image/spec/path-escapes-roots']);
      const ok = loadImageSpec('validators:\n  - wrap: {do: [{package: a}]}\n', {
        validatorMap: {
          wrap: {
            ...wrap,
            load: (v, ctx) => ({
              kids: ctx.loadValidators((v as { do: unknown }).do, ['do']),
              data: ctx.readResource('r/x')?.content,
              escaped: undefined,
            }),
          },
        },
        resourceRoots: [dir],
      });
      expect(ok.validators[0]).toMatchObject({
        config: { data: 'data\n', kids: [{ kind: 'package', path: '/validators/0/wrap/do/0' }] },
      });
    });
  });

  it('never throws anything but our errors, whatever the input', () => {
    const yamlish = fc.oneof(
      fc.string(),
      fc
        .jsonValue({ maxDepth: 4 })
        .map((v) => JSON.stringify({ validators: v, arguments: typeof v === 'object' ? v : undefined })),
      fc
        .array(
          fc.constantFrom(
            'package',
            'script',
            'any',
            'all',
            'os_case',
            'argument_case',
            'argument_set',
            'copy_script',
          ),
        )
        .chain((types) =>
          fc.tuple(
            fc.constant(types),
            fc.array(fc.jsonValue({ maxDepth: 3 }), { minLength: types.length, maxLength: types.length }),
          ),
        )
        .map(([types, values]) => JSON.stringify({ validators: types.map((t, i) => ({ [t]: values[i] })) })),
    );
    fc.assert(
      fc.property(yamlish, (text) => {
        try {
          loadImageSpec(text, { resourceRoots: [tmpdir()] });
        } catch (e) {
          expect(isStackspecError(e)).toBe(true);
        }
      }),
      { numRuns: 300 },
    );
  });
});
