import { describe, expect, it } from 'vitest';
import type { CheckReport } from '../check.js';
import { checkText } from '../check.js';
import { defaultCheckers } from '../checkers.js';
import { defaultConfig } from '../config.js';
import { toSarif } from './sarif.js';

async function reportOf(text: string, file: string): Promise<CheckReport> {
  const checked = await checkText(text, file, { config: defaultConfig(), checkers: defaultCheckers() });
  return {
    files: [checked],
    walkDiagnostics: [
      {
        code: 'fs/not-found',
        severity: 'error',
        message: 'No such file or directory.',
        path: '',
        file: 'gone',
      },
    ],
    summary: { files: 1, checked: 1, skipped: 0, errors: 2, warnings: 0 },
  };
}

type Sarif = {
  runs: {
    columnKind: string;
    tool: { driver: { rules: Record<string, unknown>[] } };
    results: {
      ruleId: string;
      ruleIndex: number;
      locations?: { physicalLocation: { region?: { startColumn: number } } }[];
    }[];
  }[];
};

describe('toSarif', () => {
  it('counts columns in UTF-16 code units and says so', async () => {
    // `extra_specs: {"😀": a, ` is 22 code points but 23 UTF-16 units: the next key starts at unit 24 (code point 23).
    const report = await reportOf('name: m1\nextra_specs: {"😀": a, hw:cpu_polcy: dedicated}\n', 'f.yaml');
    const sarif = toSarif(report, { name: 'stackspec', version: '1.2.3' }) as unknown as Sarif;
    const run = sarif.runs[0];
    expect(run?.columnKind).toBe('utf16CodeUnits');
    const typo = run?.results.find((r) => JSON.stringify(r).includes('hw:cpu_polcy'));
    expect(typo?.locations?.[0]?.physicalLocation.region?.startColumn).toBe(24);
  });

  it('describes each rule by its area and the package that reports it', async () => {
    const sarif = toSarif(await reportOf('name: m\nextra_specs: {hw:cpu_polcy: x}\n', 'f.yaml'), {
      name: 'stackspec',
      version: '1.2.3',
      informationUri: 'https://example.org',
    }) as unknown as Sarif;
    const rules = sarif.runs[0]?.tool.driver.rules ?? [];
    expect(rules.map((r) => r.id)).toEqual(['extra-specs/unknown-key', 'fs/not-found']);
    expect(rules[0]).toMatchObject({
      name: 'extraSpecsUnknownKey',
      shortDescription: { text: 'Flavor extra specs: unknown key' },
      fullDescription: { text: expect.stringContaining('@stackspec/extra-spec-validators') },
      help: { text: expect.any(String) },
      defaultConfiguration: { level: 'error' },
      helpUri:
        'https://github.com/stackspec/stackspec/blob/main/docs/reference/error-codes.md#extra-specs_unknown-key',
    });
    expect(rules[1]?.helpUri).toMatch(/error-codes\.md#fs_not-found$/);
    expect(rules[1]).toMatchObject({ shortDescription: { text: 'Files and folders: not found' } });
    // A result without a file (a missing path named on the command line) has no location.
    const gone = sarif.runs[0]?.results.find((r) => r.ruleId === 'fs/not-found');
    expect(gone?.ruleIndex).toBe(1);
  });
});
