import { describe, expect, it } from 'vitest';
import { createDryRunRemote } from '../src/adapters/dry-run.js';
import { loadImageSpec } from '../src/load.js';
import type { ValidatorNode } from '../src/spec.js';
import { validateImage } from '../src/validate.js';
import { corpusAvailable, corpusFiles, prepareCorpusSpec } from './support/corpus.js';

function count(nodes: readonly ValidatorNode[], into: Map<string, number>): number {
  let n = 0;
  for (const node of nodes) {
    n += 1;
    into.set(node.type, (into.get(node.type) ?? 0) + 1);
    if (node.kind === 'all' || node.kind === 'any') n += count(node.validators, into);
    if (node.kind === 'os_case' || node.kind === 'argument_case') {
      for (const c of node.cases) n += count(c.validators, into);
    }
  }
  return n;
}

describe.runIf(corpusAvailable())('the Sahara corpus', () => {
  it('has every spec the index lists', () => {
    expect(corpusFiles()).toHaveLength(41);
  });

  it('loads every spec and dry-runs it on a Debian-like and a Red Hat-like machine', async () => {
    const files = corpusFiles();
    const types = new Map<string, number>();
    let validators = 0;
    let runs = 0;
    for (const file of files) {
      const prepared = prepareCorpusSpec(file);
      const spec = loadImageSpec(prepared.spec);
      validators += count(spec.validators, types);
      for (const distro of ['ubuntu', 'centos']) {
        for (const reconcile of [false, true]) {
          for (const mode of ['batched', 'sahara'] as const) {
            // An empty machine where everything can be installed: check mode fails at the first
            // package, fix mode installs its way through.
            const remote = createDryRunRemote({ distro, machine: { installed: [] } });
            const report = await validateImage(spec, remote, { reconcile, mode });
            runs += 1;
            const hasPackages = spec.validators.length > 0;
            expect(report.ok, `${prepared.name} ${distro} ${mode} reconcile=${reconcile}`).toBe(
              reconcile || !hasPackages,
            );
            if (!reconcile && !report.ok) expect(report.failure?.code).toBe('image/command-failed');
          }
        }
      }
    }
    console.log(
      `corpus: ${files.length} specs, ${validators} validators (${[...types].map(([t, n]) => `${t} ${n}`).join(', ')}), ${runs} dry runs`,
    );
    expect(types.get('package')).toBe(628);
    expect(validators).toBe(1475);
  });
});
