// The README is the package's reference for users: it must list every
// diagnostic code the sources can emit, and describe the modes as they behave.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { builtinRegistry, checkNovaExtraSpec, validateExtraSpecs } from '../src/index.js';
import { corpus } from './api-corpus.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const readme = readFileSync(join(root, 'README.md'), 'utf8');

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return e.name === 'fixtures' || e.name === '__snapshots__' ? [] : sources(path);
    return e.name.endsWith('.ts') && !e.name.endsWith('.test.ts') ? [path] : [];
  });
}

describe('the README', () => {
  it('lists every diagnostic code the package emits', () => {
    const codes = new Set<string>();
    for (const file of sources(join(root, 'src'))) {
      for (const m of readFileSync(file, 'utf8').matchAll(
        /'((?:extra-specs|registry|plugin|python)\/[a-z-]+)'/g,
      )) {
        codes.add(m[1] as string);
      }
    }
    expect(codes.size).toBeGreaterThan(15);
    const missing = [...codes].filter((c) => !readme.includes(`\`${c}\``));
    expect(missing).toEqual([]);
  });

  it('says what permissive mode warns about, as it does', () => {
    const r = validateExtraSpecs(
      { hide_hypervisor_id: 'true', 'hw:max_cpu_sockets': '2' },
      { mode: 'permissive', release: 'zed' },
    );
    expect(r.diagnostics.map((d) => [d.code, d.severity])).toEqual([
      ['extra-specs/deprecated-key', 'warning'],
      ['extra-specs/renamed-key', 'warning'],
    ]);
    const row = readme.split('\n').find((l) => l.startsWith('| `permissive` |')) ?? '';
    expect(row).toContain('warnings as `strict`');
    const deprecated = readme.split('\n').find((l) => l.startsWith('| `extra-specs/deprecated-key` |')) ?? '';
    expect(deprecated).toContain('`permissive`');
  });

  it('counts the API conformance requests as the suite sends them', () => {
    expect(readme).toContain(`; ${corpus().length} API requests (`);
  });

  it("quotes checkNovaExtraSpec's answers as it gives them", () => {
    const quoted = [...readme.matchAll(/^\/\/ "(Validation failed;[^"]*)"/gm)].map((m) => m[1]);
    expect(quoted).toEqual([
      checkNovaExtraSpec('os:monitors', ' +09', builtinRegistry('zed')),
      checkNovaExtraSpec('os:monitors', ' +09'),
    ]);
  });
});
