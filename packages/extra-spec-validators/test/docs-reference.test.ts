// The extra spec reference committed under docs/reference must be what
// scripts/gen-extra-spec-reference.ts writes today: a catalog or renderer
// change without a regenerated reference fails here.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  REFERENCE_COMMAND,
  renderReference,
  staleReferenceFiles,
  writeReference,
} from '../../../scripts/gen-extra-spec-reference.js';
import { builtinRegistry, LATEST_RELEASE, renderMarkdown, renderRst } from '../src/index.js';

const scratch: string[] = [];
afterEach(async () => {
  for (const dir of scratch.splice(0)) await rm(dir, { recursive: true, force: true });
});

async function tempRoot(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'stackspec-reference-'));
  scratch.push(dir);
  return dir;
}

describe('the committed extra spec reference', () => {
  it('matches what the script generates (Markdown and reStructuredText)', async () => {
    const stale = await staleReferenceFiles();
    const report = stale
      .map((s) => `${s.path}: ${s.line === undefined ? 'missing' : `differs from line ${s.line}`}`)
      .join('; ');
    expect(stale, `The extra spec reference is stale (${report}). Run: ${REFERENCE_COMMAND}`).toEqual([]);
  });
});

describe('renderReference', () => {
  it('renders the newest release with both renderers, under a header naming the command', () => {
    const registry = builtinRegistry(LATEST_RELEASE);
    const [md, rst] = renderReference();
    expect(md?.path).toBe('docs/reference/extra-specs.md');
    expect(rst?.path).toBe('docs/reference/extra-specs.rst');

    expect(md?.text.startsWith('<!--\n')).toBe(true);
    expect(md?.text).toContain(REFERENCE_COMMAND);
    expect(md?.text).toContain(`for the newest release it knows,\n${LATEST_RELEASE.name} (`);
    // The body is the renderer's output; only its one-line "generated" note is replaced.
    const mdBody = renderMarkdown(registry).split('\n').slice(2).join('\n');
    expect(md?.text.endsWith(mdBody)).toBe(true);
    expect(md?.text.match(/<a id="extra-spec-/g)).toHaveLength(registry.size);

    expect(rst?.text.startsWith('..\n   Generated from')).toBe(true);
    expect(rst?.text).toContain(`   ${REFERENCE_COMMAND}`);
    const rstBody = renderRst(registry).split('\n').slice(2).join('\n');
    expect(rst?.text.endsWith(rstBody)).toBe(true);
    expect(rst?.text.match(/\.\. _extra-spec-[^:\n]+:$/gm)).toHaveLength(registry.size);
  });

  it('keeps a single generated note at the top of each file', () => {
    for (const file of renderReference()) {
      expect(file.text.match(/generated/gi), file.path).toHaveLength(1);
    }
  });
});

describe('staleReferenceFiles', () => {
  it('reports nothing for files just written', async () => {
    const root = await tempRoot();
    expect(await writeReference(root)).toEqual([
      'docs/reference/extra-specs.md',
      'docs/reference/extra-specs.rst',
    ]);
    expect(await staleReferenceFiles(root)).toEqual([]);
  });

  it('points at the first changed line and at a missing file', async () => {
    const root = await tempRoot();
    await writeReference(root);
    const md = join(root, 'docs/reference/extra-specs.md');
    const lines = (await readFile(md, 'utf8')).split('\n');
    lines[40] = `${lines[40]} (edited by hand)`;
    await writeFile(md, lines.join('\n'));
    await rm(join(root, 'docs/reference/extra-specs.rst'));

    expect(await staleReferenceFiles(root)).toEqual([
      { path: 'docs/reference/extra-specs.md', line: 41 },
      { path: 'docs/reference/extra-specs.rst', line: undefined },
    ]);
  });

  it('notices a file that only gained a trailing line', async () => {
    const root = await tempRoot();
    await writeReference(root);
    const rst = join(root, 'docs/reference/extra-specs.rst');
    const text = await readFile(rst, 'utf8');
    await writeFile(rst, `${text}\nextra\n`);
    const [stale] = await staleReferenceFiles(root);
    expect(stale?.path).toBe('docs/reference/extra-specs.rst');
    expect(stale?.line).toBe(text.split('\n').length + 1);
  });
});
