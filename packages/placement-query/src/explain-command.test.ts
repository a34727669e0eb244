import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '@stackspec/core/cli';
import { describe, expect, it } from 'vitest';
import { memoryIO } from '../../../test-support/cli.js';
import { runPlacementCli } from './cli.js';
import { PlacementExplanationSchema } from './engine/explain-schema.js';

const fixtures = new URL('./fixtures/', import.meta.url).pathname;
const A = '0000000a-0000-4000-8000-00000000000a';

async function run(argv: string[]) {
  const io = memoryIO({ cwd: fixtures });
  const code = await runCli(() => runPlacementCli(argv, io), io);
  return { code, out: io.out(), err: io.err() };
}

/** `explain -i spec-example.yaml ARGS`: the inventory of the spec's example. */
const explainExample = (...args: string[]) => run(['explain', '-i', 'spec-example.yaml', ...args]);

describe('stackspec-placement explain', () => {
  it('names the stage that kept no tree and the providers it turned away, as text', async () => {
    const r = await explainExample(`resources=VCPU:16,DISK_GB:10&member_of=!${A}`);
    expect(r.code).toBe(0);
    expect(r.out.split('\n').slice(0, 7)).toEqual([
      `GET /allocation_candidates?resources=VCPU:16,DISK_GB:10&member_of=!${A}`,
      '✖ No candidates: room for VCPU:16 (unsuffixed group) kept none.',
      '',
      'unsuffixed group (a tree with the sharing providers it may use)',
      '  has VCPU, DISK_GB (in the tree or shared)  2/4 trees',
      '  room for VCPU:16                           0/2 trees  ✖',
      '      cn1: numa1_1 VCPU 8 free of 8 (reserved 0, ratio 1.0), 16 asked; numa1_2 VCPU 8 free of 8 (reserved 0, ratio 1.0), 16 asked',
    ]);
    // Aggregates go by the inventory's names.
    expect(r.out).toContain('  not in aggA ');
  });

  it('prints the explanation as JSON with -f json', async () => {
    const r = await explainExample('resources=VCPU:1,DISK_GB:10', '-f', 'json');
    expect(r.code).toBe(0);
    const e = PlacementExplanationSchema.parse(JSON.parse(r.out));
    expect(e).toMatchObject({ endpoint: 'allocation_candidates', candidates: 4, returned: 4 });
    expect(e.endpoint === 'allocation_candidates' && e.emptiedBy).toBe(undefined);
  });

  it('explains a /resource_providers query given by its path, with as many examples as asked', async () => {
    const r = await explainExample(`/resource_providers?member_of=!${A}&resources=VCPU:9`, '--examples', '1');
    expect(r.code).toBe(0);
    expect(r.out).toContain('✖ No providers: room for VCPU:9 kept none.');
    expect(r.out).toContain(
      '      numa1_1: VCPU 8 free of 8 (reserved 0, ratio 1.0), 9 asked\n      … and 3 more',
    );
  });

  it("answers a malformed query with Placement's 400, its parameter, and exit 1", async () => {
    const r = await explainExample('resources=VCPU:0');
    expect(r.code).toBe(1);
    expect(r.err).toBe(
      'error: Requested resource VCPU requires amount >= 1. Got: 0. (HTTP 400, parameter resources)\n',
    );
    const unknown = await explainExample('resources=VCPU:1&required=CUSTOM_NOPE');
    expect(unknown.code).toBe(1);
    expect(unknown.err).toBe('error: No such trait(s): CUSTOM_NOPE. (HTTP 400, parameter required)\n');
  });

  it('reports an inventory file that does not exist at its name, and exits 2', async () => {
    const r = await run(['explain', '-i', 'nope.yaml', 'resources=VCPU:1']);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/^nope\.yaml {2}error {2}The file does not exist\. {2}\(fs\/not-found\)$/m);
    expect(r.out).toBe('');
  });

  it('points at the line of a broken inventory file, and exits 1 as query does', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'explain-command-'));
    try {
      const file = join(dir, 'cloud.yaml');
      writeFileSync(file, 'providers:\n  - name: a\n    name: b\n    inventories: {VCPU: 4}\n');
      const r = await run(['explain', '-i', file, 'resources=VCPU:1']);
      expect(r.code).toBe(1);
      expect(r.err.split('\n').slice(0, 2)).toEqual([
        `${file}:3:5  error  The key 'name' appears more than once in this mapping.  (yaml/duplicate-key)`,
        '    hint: It was first defined on line 2.',
      ]);
      expect(r.out).toBe('');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses a format it does not have', async () => {
    const r = await explainExample('resources=VCPU:1', '-f', 'table');
    expect(r.code).toBe(2);
    expect(r.err).toContain("argument 'table' is invalid");
  });
});
