import { isStackspecError } from '@stackspec/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { stripCapabilities } from './strip.js';
import { validateTemplate } from './template.js';

describe('stripCapabilities', () => {
  it('removes a block section and keeps every other line and comment', () => {
    const text = [
      '# header',
      'heat_template_version: 2015-10-15',
      'capabilities:',
      '  deployment: puppet',
      '  resource_type:',
      '    - OS::TripleO::Controller',
      '# about resources',
      'resources: {}',
      '',
    ].join('\n');
    const r = stripCapabilities(text);
    expect(r).toMatchObject({ removed: true, method: 'text' });
    expect(r.text).toBe('# header\nheat_template_version: 2015-10-15\n# about resources\nresources: {}\n');
    expect(validateTemplate(r.text, { allowCapabilities: false }).ok).toBe(true);
  });

  it('removes a flow section and a section at the end without a final newline', () => {
    expect(
      stripCapabilities('heat_template_version: wallaby\ncapabilities: {a: b}\nresources: {}\n').text,
    ).toBe('heat_template_version: wallaby\nresources: {}\n');
    expect(stripCapabilities('heat_template_version: wallaby\ncapabilities:\n  a: b').text).toBe(
      'heat_template_version: wallaby\n',
    );
    expect(stripCapabilities('heat_template_version: wallaby\ncapabilities:\nresources: {}\n').text).toBe(
      'heat_template_version: wallaby\nresources: {}\n',
    );
  });

  it('leaves a template without the section untouched', () => {
    const text = 'heat_template_version: wallaby\n';
    expect(stripCapabilities(text)).toEqual({ text, removed: false, method: 'unchanged' });
  });

  it('rewrites JSON templates', () => {
    const r = stripCapabilities('{"heat_template_version": "wallaby", "capabilities": {"a": "b"}}');
    expect(JSON.parse(r.text)).toEqual({ heat_template_version: 'wallaby' });
    expect(r.method).toBe('reserialized');
  });

  it('writes the template anew when the section shares its line with other content', () => {
    const r = stripCapabilities(
      '{heat_template_version: wallaby, capabilities: {a: b}, description: "2015-10-15"}\n',
    );
    expect(r.method).toBe('reserialized');
    const back = validateTemplate(r.text, { allowCapabilities: false });
    expect(back.ok && back.template.value).toEqual({
      heat_template_version: 'wallaby',
      description: '2015-10-15',
    });
  });

  it('throws a ValidationError for a template that is not valid', () => {
    try {
      stripCapabilities('nope: 1\n');
      expect.unreachable();
    } catch (e) {
      expect(isStackspecError(e) && e.code).toBe('heat/template/no-version');
    }
  });

  it('always yields the same data minus the section', () => {
    const scalar = fc.oneof(
      fc.string({ maxLength: 8 }),
      fc.integer(),
      fc.boolean(),
      fc.constant('yes'),
      fc.constant('2015-10-15'),
    );
    fc.assert(
      fc.property(
        fc.dictionary(fc.stringMatching(/^[a-z]{1,6}$/), scalar),
        fc.dictionary(fc.stringMatching(/^[a-z]{1,6}$/), scalar),
        (caps, desc) => {
          const text = `heat_template_version: wallaby\ncapabilities: ${JSON.stringify(caps)}\ndescription: ${JSON.stringify(JSON.stringify(desc))}\n`;
          const r = stripCapabilities(text);
          const back = validateTemplate(r.text, { allowCapabilities: false });
          expect(back.ok).toBe(true);
          expect(back.ok && back.template.value).toEqual({
            heat_template_version: 'wallaby',
            description: JSON.stringify(desc),
          });
        },
      ),
      { numRuns: 100 },
    );
  });
});
