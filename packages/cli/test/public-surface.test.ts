// The runtime names every published entry point exports, kept in a reviewed
// file: an index that re-exports a module whole (`export * from`) cannot
// widen a package's public surface without this file changing with it.
// Type-only exports have no runtime name; typedoc's run in CI covers those.
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';

const require = createRequire(import.meta.url);
const packagesDir = join(dirname(require.resolve('@stackspec/core/package.json')), '..');
const PACKAGES = [
  'core',
  'extra-spec-validators',
  'placement-query',
  'deploy-templates',
  'image-validators',
  'heat-capabilities',
  'cli',
];

async function surface(): Promise<string> {
  const out: string[] = [];
  for (const dir of PACKAGES) {
    const manifest = require(join(packagesDir, dir, 'package.json')) as {
      name: string;
      exports: Record<string, { '@stackspec/source'?: string }>;
    };
    for (const [entry, targets] of Object.entries(manifest.exports)) {
      const source = typeof targets === 'object' ? targets['@stackspec/source'] : undefined;
      if (!source) continue;
      const mod = (await import(join(packagesDir, dir, source))) as Record<string, unknown>;
      out.push(`## ${manifest.name}${entry === '.' ? '' : entry.slice(1)}`, '');
      for (const name of Object.keys(mod).sort()) out.push(`- ${name}: ${typeof mod[name]}`);
      out.push('');
    }
  }
  return out.join('\n');
}

describe('the public surface', () => {
  it('is what the reviewed list says, entry point by entry point', async () => {
    await expect(await surface()).toMatchFileSnapshot('./public-surface.md');
  });
});
