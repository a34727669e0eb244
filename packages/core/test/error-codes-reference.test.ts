// The error code page under docs/reference must be what
// scripts/gen-error-codes.ts writes today: a code added, removed or reworded
// in the sources without a regenerated page fails here, and so would a SARIF
// helpUri that points at no anchor.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  collectErrorCodes,
  ERROR_CODES_COMMAND,
  ERROR_CODES_PAGE,
  renderErrorCodes,
  staleErrorCodesPage,
} from '../../../scripts/gen-error-codes.js';
import { REPO_ROOT } from '../../../test-support/shared.js';
import { ERROR_CODES_URL, errorCodeAnchor, errorCodeHelpUri } from '../src/cli/error-codes.js';

const scratch = mkdtempSync(join(tmpdir(), 'stackspec-error-codes-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('the committed error code page', () => {
  it('matches what the script generates from the sources', () => {
    const line = staleErrorCodesPage();
    expect(
      line,
      `${ERROR_CODES_PAGE} is ${line === undefined ? 'missing' : `stale from line ${line}`}. Run: ${ERROR_CODES_COMMAND}`,
    ).toBeNull();
  });

  it('has the anchor every helpUri points at, for codes the commands report', () => {
    const page = readFileSync(join(REPO_ROOT, ERROR_CODES_PAGE), 'utf8');
    expect(ERROR_CODES_URL.endsWith(ERROR_CODES_PAGE)).toBe(true);
    for (const code of [
      'extra-specs/unknown-key',
      'heat/template/resource-without-type',
      'yaml/syntax',
      'fs/not-found',
      'stackspec/check/internal',
      'deploy-templates/invalid-name',
      'placement-query/inventory/unknown-trait',
      'image/spec/unknown-validator',
    ]) {
      const anchor = errorCodeHelpUri(code).split('#')[1];
      expect(page, code).toContain(`<a id="${anchor}"></a>\`${code}\``);
    }
  });

  it('gives each code one anchor, and no two codes the same one', () => {
    const ids = [
      ...readFileSync(join(REPO_ROOT, ERROR_CODES_PAGE), 'utf8').matchAll(/<a id="([^"]+)">/g),
    ].map((m) => m[1]);
    expect(new Set(ids).size).toBe(ids.length);
  });
});

describe('collectErrorCodes', () => {
  function repo(files: Record<string, string>): string {
    const root = mkdtempSync(join(scratch, 'repo-'));
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(join(root, path, '..'), { recursive: true });
      writeFileSync(join(root, path), text);
    }
    return root;
  }

  it('finds codes with the message reported beside them, and leaves tests, paths and media types out', () => {
    const root = repo({
      'packages/a/package.json': '{"name":"@x/a"}',
      'packages/a/src/a.ts': [
        // biome-ignore lint/suspicious/noTemplateCurlyInString: the source text of a fixture file, not a template.
        "const d = createDiagnostic({ code: 'thing/too-big', message: `The thing holds ${n} items; at most 3 fit.` });",
        "throw new UsageError('Give a name with --name.', { code: 'thing/no-name' });",
        "const type = 'application/json'; const dir = 'thing/x.yaml';",
        "const e = { code: 'thing/plain' };",
      ].join('\n'),
      'packages/a/src/a.test.ts': "expect(code).toBe('thing/only-in-a-test');",
    });
    expect(collectErrorCodes(root)).toEqual([
      { code: 'thing/no-name', packages: ['@x/a'], meaning: 'Give a name with --name.', fromSchema: false },
      { code: 'thing/plain', packages: ['@x/a'], meaning: 'Plain.', fromSchema: false },
      {
        code: 'thing/too-big',
        packages: ['@x/a'],
        meaning: 'The thing holds … items; at most 3 fit.',
        fromSchema: false,
      },
    ]);
  });

  it('expands the codes a helper builds from its argument', () => {
    const root = repo({
      'packages/a/package.json': '{"name":"@x/a"}',
      'packages/a/src/a.ts': [
        // biome-ignore lint/suspicious/noTemplateCurlyInString: the source text of a fixture file, not a template.
        'function fail(code: string, message: string) { return { code: `thing/${code}`, message }; }',
        "fail('bad-step', 'The step is not one the driver has.');",
        // biome-ignore lint/suspicious/noTemplateCurlyInString: the source text of a fixture file, not a template.
        "function invalid(what: 'flavor' | 'image') { return { code: `thing/invalid-${what}` }; }",
      ].join('\n'),
    });
    expect(collectErrorCodes(root).map((e) => [e.code, e.meaning])).toEqual([
      ['thing/bad-step', 'The step is not one the driver has.'],
      ['thing/invalid-flavor', 'Invalid flavor.'],
      ['thing/invalid-image', 'Invalid image.'],
    ]);
  });

  it('renders one table row with its anchor per code, under a heading per area', () => {
    const page = renderErrorCodes([
      { code: 'a/b', packages: ['@x/a'], meaning: 'Pipes | and <tags>.', fromSchema: true },
    ]);
    expect(page).toContain('## <a id="area-a"></a>`a`: a');
    expect(page).toContain(
      `| <a id="${errorCodeAnchor('a/b')}"></a>\`a/b\` | Pipes \\| and &lt;tags>. *schema* | \`@x/a\` |`,
    );
  });
});
