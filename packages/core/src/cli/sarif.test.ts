import { describe, expect, it } from 'vitest';
import { createDiagnostic } from '../diagnostic.js';
import { ERROR_CODES_URL, errorCodeAnchor, errorCodeHelpUri } from './error-codes.js';
import { toSarifLog } from './sarif.js';

type Log = {
  runs: {
    tool: { driver: { name: string; rules: Record<string, unknown>[] } };
    results: { ruleId: string; ruleIndex: number; level: string; message: { text: string } }[];
  }[];
};

describe('toSarifLog', () => {
  const diagnostics = [
    createDiagnostic({ code: 'heat/template/no-version', message: 'No version.', file: 't.yaml', line: 1 }),
    createDiagnostic({ code: 'a/b', severity: 'info', message: 'Note.', hint: 'Do this.' }),
  ];

  it('gives every rule a helpUri into the error code page', () => {
    const log = toSarifLog(diagnostics, { tool: { name: 'x', version: '1.0.0' } }) as unknown as Log;
    const rules = log.runs[0]?.tool.driver.rules ?? [];
    expect(rules.map((r) => r.helpUri)).toEqual([
      `${ERROR_CODES_URL}#a_b`,
      `${ERROR_CODES_URL}#heat_template_no-version`,
    ]);
    expect(rules[1]).toMatchObject({ id: 'heat/template/no-version', name: 'heatTemplateNoVersion' });
    expect(log.runs[0]?.results.map((r) => [r.ruleId, r.ruleIndex, r.level, r.message.text])).toEqual([
      ['heat/template/no-version', 1, 'error', 'No version.'],
      ['a/b', 0, 'note', 'Note. Do this.'],
    ]);
  });

  it('takes rule texts and help links from the caller', () => {
    const log = toSarifLog(diagnostics, {
      tool: { name: 'x', version: '1' },
      describeRule: (code) => ({ title: `T ${code}`, description: 'D.' }),
      helpUri: (code) => `https://example.org/${code}`,
    }) as unknown as Log;
    expect(log.runs[0]?.tool.driver.rules[0]).toMatchObject({
      shortDescription: { text: 'T a/b' },
      fullDescription: { text: 'D.' },
      helpUri: 'https://example.org/a/b',
    });
  });
});

describe('error code links', () => {
  it('turn a code into a stable anchor of its own', () => {
    expect(errorCodeAnchor('extra-specs/unknown-key')).toBe('extra-specs_unknown-key');
    expect(errorCodeAnchor('heat/merge/null-ignored')).toBe('heat_merge_null-ignored');
    // Two codes that differ only in where the slash is keep apart.
    expect(errorCodeAnchor('heat/template-too-large')).not.toBe(errorCodeAnchor('heat/template/too-large'));
    expect(errorCodeHelpUri('yaml/syntax')).toBe(
      'https://github.com/stackspec/stackspec/blob/main/docs/reference/error-codes.md#yaml_syntax',
    );
  });
});
