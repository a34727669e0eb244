import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type CliIO, createColors, runCli } from '@stackspec/core/cli';
import { AllocationCandidatesExplanationSchema } from '@stackspec/placement-query';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Cloud, loadCloud } from './cloud.js';
import { formatScheduleText } from './commands/schedule.js';
import { runStackspec } from './program.js';
import { type ScheduleInput, schedule } from './schedule.js';

let cloud: Cloud;
let scratch: string;
beforeAll(async () => {
  cloud = await loadCloud(['cloud'], join(__dirname, 'fixtures'));
  scratch = mkdtempSync(join(tmpdir(), 'stackspec-cloud-'));
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function run(flavor: string, extra: Partial<ScheduleInput> = {}) {
  const f = cloud.flavors.find((x) => x.name === flavor);
  if (!f || !cloud.inventory) throw new Error('fixture cloud incomplete');
  return schedule({
    flavor: f,
    store: cloud.inventory.store,
    templates: cloud.templates,
    driverSteps: cloud.driverSteps?.steps ?? [],
    ...extra,
  });
}

describe('loadCloud', () => {
  it('reads flavors, the inventory, deploy templates and driver steps', () => {
    expect(cloud.flavors.map((f) => f.name)).toEqual([
      'bm.mirror',
      'bm.gpu',
      'bm.broken-plan',
      'bm.typo',
      'vm.small',
    ]);
    expect(cloud.flavors[0]).toMatchObject({ file: 'cloud/cloud.yaml', path: '/flavors/0' });
    expect(cloud.inventory?.file).toBe('cloud/inventory.yaml');
    expect(cloud.templates.map((t) => t.name)).toEqual(['CUSTOM_RAID_MIRROR', 'CUSTOM_FIRMWARE']);
    expect(cloud.driverSteps?.steps).toHaveLength(2);
    expect(cloud.diagnostics).toEqual([]);
  });

  it('reports invalid files instead of throwing, and lists the ones it left out', async () => {
    const broken = await loadCloud(['bad'], join(__dirname, 'fixtures'));
    expect(broken.diagnostics.length).toBeGreaterThan(0);
    expect(broken.diagnostics.some((d) => d.code === 'yaml/syntax')).toBe(true);
    expect(broken.rejected).toContainEqual({ file: 'bad/inventory.yaml', kind: 'placement-inventory' });
    expect(broken.inventory).toBeUndefined();
  });

  it('uses the first inventory and driver steps file by path and warns about the others', async () => {
    const dir = join(scratch, 'several');
    cpSync(join(__dirname, 'fixtures/cloud'), dir, { recursive: true });
    cpSync(join(dir, 'inventory.yaml'), join(dir, 'z-inventory.yaml'));
    cpSync(join(dir, 'driver-steps.yaml'), join(dir, 'z-steps.yaml'));
    const r = await loadCloud(['several'], scratch);
    expect(r.inventory?.file).toBe('several/inventory.yaml');
    expect(r.driverSteps?.file).toBe('several/driver-steps.yaml');
    expect(r.diagnostics).toEqual([
      expect.objectContaining({
        code: 'stackspec/cloud/several-inventories',
        severity: 'warning',
        file: 'several/z-inventory.yaml',
        message: 'several/inventory.yaml is the Placement inventory used; this one is left out.',
      }),
      expect.objectContaining({
        code: 'stackspec/cloud/several-driver-steps',
        severity: 'warning',
        file: 'several/z-steps.yaml',
      }),
    ]);
  });

  it('takes an inventory named explicitly over those among the paths, or alone', async () => {
    const explicit = await loadCloud(['cloud'], join(__dirname, 'fixtures'), {
      inventory: 'good/inventory.yaml',
    });
    expect(explicit.inventory?.file).toBe('good/inventory.yaml');
    expect(explicit.diagnostics).toEqual([]);
    expect(explicit.flavors).toHaveLength(5);
    const alone = await loadCloud([], join(__dirname, 'fixtures'), { inventory: 'cloud/inventory.yaml' });
    expect(alone).toMatchObject({ flavors: [], templates: [], inventory: { file: 'cloud/inventory.yaml' } });
  });

  it('says why an explicit inventory cannot be used', async () => {
    const fixtures = join(__dirname, 'fixtures');
    const missing = await loadCloud([], fixtures, { inventory: 'nope.yaml' });
    expect(missing.diagnostics).toEqual([
      expect.objectContaining({ code: 'fs/not-found', severity: 'error' }),
    ]);
    expect(missing.rejected).toEqual([{ file: 'nope.yaml', kind: 'placement-inventory' }]);
    // Named explicitly, a file is read as an inventory whatever it looks like.
    const notOne = await loadCloud([], fixtures, { inventory: 'good/notes.yaml' });
    expect(notOne.rejected).toEqual([{ file: 'good/notes.yaml', kind: 'placement-inventory' }]);
    expect(notOne.diagnostics[0]).toMatchObject({ file: 'good/notes.yaml', severity: 'error' });
    const broken = await loadCloud([], fixtures, { inventory: 'bad/broken.yaml' });
    expect(broken.diagnostics[0]).toMatchObject({ code: 'yaml/syntax', file: 'bad/broken.yaml' });
    expect(broken.rejected).toHaveLength(1);
  });

  it('reports a driver steps file of the wrong shape at its line', async () => {
    mkdirSync(join(scratch, 'steps'), { recursive: true });
    writeFileSync(
      join(scratch, 'steps/driver-steps.yaml'),
      'driver_steps:\n  - { interface: deploy, step: deploy, priority: high }\n',
    );
    const r = await loadCloud(['steps'], scratch);
    expect(r.driverSteps).toBeUndefined();
    expect(r.rejected).toEqual([{ file: 'steps/driver-steps.yaml', kind: 'driver-steps' }]);
    expect(r.diagnostics).toEqual([
      expect.objectContaining({
        file: 'steps/driver-steps.yaml',
        path: '/driver_steps/0/priority',
        line: 2,
        severity: 'error',
      }),
    ]);
  });

  it('never throws, whatever the files hold', async () => {
    const dir = join(scratch, 'fuzz');
    const text = fc.oneof(
      fc.string({ maxLength: 200 }),
      fc.json().map((j) => j),
      fc.constantFrom(
        'providers: [{name: x, inventories: {VCPU: -1}}]',
        'driver_steps: 3',
        'flavors: {}',
        'name: X\nsteps: [{}]',
        '- name: a\n  extra_specs: []',
        'deploy_templates: [{name: CUSTOM_A, steps: 1}]',
        '&a [*a]',
      ),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(text, { minLength: 1, maxLength: 4 }), async (texts) => {
        rmSync(dir, { recursive: true, force: true });
        mkdirSync(dir);
        for (const [i, t] of texts.entries()) writeFileSync(join(dir, `f${i}.yaml`), t);
        const r = await loadCloud(['fuzz'], scratch);
        expect(Array.isArray(r.diagnostics)).toBe(true);
        for (const d of r.diagnostics) expect(d.code).toMatch(/^[a-z-]+\//);
      }),
      { numRuns: 60 },
    );
  });
});

describe('schedule', () => {
  it('walks a flavor to the deploy steps of the first candidate by name', () => {
    const r = run('bm.mirror');
    expect(r).toMatchObject({ ok: true, stage: 'done' });
    expect(r.query).toBe('resources=CUSTOM_BAREMETAL:1&required=CUSTOM_RAID_MIRROR');
    expect(r.candidates.map((c) => c.name)).toEqual(['node-a', 'node-b']);
    expect(r.node?.name).toBe('node-a');
    expect(r.instanceTraits).toEqual(['CUSTOM_RAID_MIRROR']);
    expect(r.plan?.matchedTemplates).toEqual(['CUSTOM_RAID_MIRROR']);
    expect(r.plan?.steps.map((s) => `${s.interface}.${s.step}:${s.priority}`)).toEqual([
      'deploy.deploy:100',
      'raid.create_configuration:10',
    ]);
    expect(r.plan?.steps[1]?.origin).toEqual({ kind: 'template', template: 'CUSTOM_RAID_MIRROR' });
  });

  it('plans no deploy steps for a virtual machine flavor', () => {
    const r = run('vm.small');
    expect(r).toMatchObject({ ok: true, stage: 'done', bareMetal: false, node: { name: 'hv-1' } });
    expect(r.plan).toBeUndefined();
    expect(run('bm.mirror').bareMetal).toBe(true);
  });

  it('honours an explicit node', () => {
    expect(run('bm.mirror', { node: 'node-b' }).node?.name).toBe('node-b');
    const missing = run('bm.mirror', { node: 'node-z' });
    expect(missing).toMatchObject({ ok: false, stage: 'node' });
  });

  it('stops at invalid extra specs, with located diagnostics', () => {
    const r = run('bm.typo');
    expect(r).toMatchObject({ ok: false, stage: 'extra-specs' });
    expect(r.extraSpecs[0]).toMatchObject({
      code: 'extra-specs/invalid-value',
      path: '/flavors/3/extra_specs/trait:CUSTOM_RAID_MIRROR',
      file: 'cloud/cloud.yaml',
      line: 17,
      column: 33,
      hint: 'Did you mean required?',
    });
  });

  it("keeps flavors off an isolated aggregate unless they require its trait (Nova's isolated aggregate filtering)", () => {
    const agg = {
      uuid: '6f0a7e2c-5d1b-4c8a-9b0e-000000000001',
      metadata: { 'trait:CUSTOM_RAID_MIRROR': 'required' },
    };
    // No provider is in the aggregate here: the request is what changes.
    const plain = run('vm.small', { aggregates: [agg], isolateAggregates: true });
    expect(plain.query).toContain(`member_of=!${agg.uuid}`);
    expect(run('vm.small', { aggregates: [agg] }).query).not.toContain('member_of');
    expect(run('bm.mirror', { aggregates: [agg], isolateAggregates: true }).query).not.toContain('member_of');
  });

  it("shows each node's allocation whose providers come first by name, whatever order Placement lists them in", async () => {
    const dir = join(scratch, 'numa');
    mkdirSync(dir, { recursive: true });
    // numa1 is created first, so an engine in creation order lists its allocation first.
    writeFileSync(
      join(dir, 'inventory.yaml'),
      'providers:\n  - name: hv\n    children:\n      - { name: hv-numa1, inventories: { VCPU: 4, MEMORY_MB: 4096 } }\n      - { name: hv-numa0, inventories: { VCPU: 4, MEMORY_MB: 4096 } }\n',
    );
    writeFileSync(join(dir, 'flavors.yaml'), 'name: tiny\nvcpus: 1\nram: 512\nextra_specs: {}\n');
    const numa = await loadCloud(['numa'], scratch);
    const flavor = numa.flavors[0];
    if (!flavor || !numa.inventory) throw new Error('scratch cloud incomplete');
    const r = schedule({ flavor, store: numa.inventory.store, templates: [], driverSteps: [] });
    expect(r.candidates).toEqual([
      expect.objectContaining({ name: 'hv', allocations: { 'hv-numa0': { VCPU: 1, MEMORY_MB: 512 } } }),
    ]);
  });

  it('stops when no node has the required traits', () => {
    expect(run('bm.gpu')).toMatchObject({ ok: false, stage: 'candidates', candidates: [] });
  });

  it('explains why no node fits: the constraint that left none and the providers it turned away', () => {
    const e = run('bm.gpu').explanation;
    expect(e?.emptiedBy).toEqual({ group: '', stage: 'required-traits', label: 'required CUSTOM_GPU' });
    expect(e?.groups[0]?.stages.map((s) => `${s.label} ${s.kept}/${s.before}`)).toEqual([
      'has CUSTOM_BAREMETAL 2/3',
      'room for CUSTOM_BAREMETAL:1 2/2',
      'required CUSTOM_GPU 0/2',
    ]);
    expect(e?.groups[0]?.stages[2]?.examples.map((x) => `${x.name}: ${x.reason}`)).toEqual([
      'node-b: lacks trait CUSTOM_GPU',
      'node-a: lacks trait CUSTOM_GPU',
    ]);
    expect(e?.candidates).toBe(0);
  });

  it('explains a walk that finds nodes only when asked, with the counts the engine ends with', () => {
    expect(run('bm.mirror').explanation).toBeUndefined();
    const e = run('bm.mirror', { explain: true }).explanation;
    expect(e).toMatchObject({ candidates: 2, returned: 2 });
    expect(e?.emptiedBy).toBeUndefined();
  });

  it('names aggregates in the explanation as the inventory does', () => {
    const agg = { uuid: '6f0a7e2c-5d1b-4c8a-9b0e-000000000001', name: 'gpu-pool', metadata: {} };
    const r = run('vm.small', { aggregates: [agg], requiredMemberPrefix: 'x', explain: true });
    expect(r.explanation?.query).toBe(r.query);
    const forbidden = run('vm.small', {
      aggregates: [{ ...agg, metadata: { 'trait:CUSTOM_GPU': 'required' } }],
      isolateAggregates: true,
      explain: true,
    });
    expect(forbidden.explanation?.groups[0]?.stages.at(-1)?.label).toBe('not in gpu-pool');
  });

  it("stops at the candidates with the engine's refusal when the search is too large, rather than throwing", () => {
    // Two request groups make the engine combine providers, which is what its budget counts.
    const small = cloud.flavors.find((x) => x.name === 'vm.small');
    if (!small || !cloud.inventory) throw new Error('fixture cloud incomplete');
    const specs = { 'resources1:VCPU': '1', 'resources2:MEMORY_MB': '256' };
    const granular = { ...small, name: 'vm.granular', extraSpecs: { ...specs, group_policy: 'none' } };
    const input = { store: cloud.inventory.store, templates: cloud.templates, driverSteps: [] };
    // Without group_policy, Placement refuses the request itself: the walk stops there, saying why.
    const refused = schedule({ ...input, flavor: { ...granular, extraSpecs: specs } });
    expect(refused).toMatchObject({ ok: false, stage: 'request', candidates: [] });
    expect(refused.request).toBeUndefined();
    expect(refused.requestDiagnostics.map((d) => `${d.severity} ${d.code}`)).toEqual([
      'warning placement-query/flavor/missing-group-policy',
      expect.stringMatching(/^error placement-query\//),
    ]);
    expect(schedule({ ...input, flavor: granular }).candidates.map((c) => c.name)).toEqual(['hv-1']);
    const r = schedule({ ...input, flavor: granular, maxCombinations: 0, explain: true });
    expect(r).toMatchObject({ ok: false, stage: 'candidates', candidates: [] });
    expect(r.candidateDiagnostics).toEqual([
      expect.objectContaining({ code: 'placement-query/too-many-combinations', severity: 'error' }),
    ]);
    expect(r.explanation).toBeUndefined();
    const out = formatScheduleText(r, 'vm.granular', createColors({ force: false })).split('\n');
    expect(out).toContain('✖ the Placement engine gave up on this request');
    expect(out.some((l) => l.includes('placement-query/too-many-combinations'))).toBe(true);
    expect(run('bm.mirror').candidateDiagnostics).toEqual([]);
  });

  it("stops with Ironic's message when a template names a step the driver lacks", () => {
    const r = run('bm.broken-plan');
    expect(r).toMatchObject({ ok: false, stage: 'deploy-steps', node: { name: 'node-b' } });
    expect(r.planError?.reason).toContain('CUSTOM_FIRMWARE');
    expect(r.planError?.reason).toContain('node does not support this deploy step');
  });
});

describe('formatScheduleText', () => {
  const plain = createColors({ force: false });
  const text = (flavor: string, extra: Partial<ScheduleInput> = {}) =>
    formatScheduleText(run(flavor, extra), flavor, plain);

  it('prints every stage of a bare-metal walk, the chosen node marked', () => {
    const out = text('bm.mirror');
    expect(out.split('\n')).toEqual([
      '1. Flavor bm.mirror: extra specs',
      '✔ extra specs are valid',
      '',
      '2. Placement request',
      'GET /allocation_candidates?resources=CUSTOM_BAREMETAL:1&required=CUSTOM_RAID_MIRROR',
      '',
      '3. Allocation candidates',
      '  → node-a  node-a: CUSTOM_BAREMETAL=1',
      '    node-b  node-b: CUSTOM_BAREMETAL=1',
      '',
      `4. Node node-a (${run('bm.mirror').node?.uuid})`,
      '  instance traits: CUSTOM_RAID_MIRROR',
      '  node traits:     CUSTOM_RAID_MIRROR',
      '',
      '5. Deploy steps',
      '  matching deploy templates: CUSTOM_RAID_MIRROR',
      '   1. deploy.deploy                    priority 100  (driver)',
      expect.stringMatching(
        /^ {3}2\. raid\.create_configuration +priority {2}10 {2}\(template CUSTOM_RAID_MIRROR\) {2}\{"logical_disks"/,
      ),
    ]);
  });

  it('stops the text where the walk stopped, saying why', () => {
    expect(text('bm.typo')).toMatch(/✖ 1 invalid extra spec\(s\)\ncloud\/cloud\.yaml:17:33 {2}error/);
    expect(text('bm.typo')).not.toContain('2. Placement request');
    expect(text('bm.gpu').split('\n').slice(6)).toEqual([
      '3. Allocation candidates',
      '✖ no compute node can host this flavor: required CUSTOM_GPU (unsuffixed group) kept none',
      '',
      '  unsuffixed group (one provider)',
      '    has CUSTOM_BAREMETAL         2/3 providers',
      '    room for CUSTOM_BAREMETAL:1  2/2 providers',
      '    required CUSTOM_GPU          0/2 providers  ✖',
      '        node-b: lacks trait CUSTOM_GPU',
      '        node-a: lacks trait CUSTOM_GPU',
    ]);
    expect(text('bm.mirror', { node: 'node-z' })).toMatch(
      /✖ the requested node is not among the candidates$/,
    );
    expect(text('bm.broken-plan')).toMatch(/5\. Deploy steps\n✖ .*node does not support this deploy step/);
    expect(text('vm.small')).toMatch(/5\. Deploy steps\n {2}not a bare-metal flavor/);
  });

  it('adds the explanation under the candidates with --explain', () => {
    const out = text('bm.mirror', { explain: true }).split('\n');
    const at = out.indexOf('    node-b  node-b: CUSTOM_BAREMETAL=1');
    expect(out.slice(at + 1, at + 6)).toEqual([
      '',
      '  unsuffixed group (one provider)',
      '    has CUSTOM_BAREMETAL         2/3 providers',
      '    room for CUSTOM_BAREMETAL:1  2/2 providers',
      '    required CUSTOM_RAID_MIRROR  2/2 providers',
    ]);
  });

  it('colours only when asked', () => {
    expect(formatScheduleText(run('bm.mirror'), 'bm.mirror', createColors({ force: true }))).toContain(
      '\u001b[',
    );
  });
});

describe('stackspec schedule, explained', () => {
  async function cli(args: string[]) {
    let out = '';
    let err = '';
    const io: CliIO = {
      stdout: { write: (t: string) => (out += t) },
      stderr: { write: (t: string) => (err += t) },
      env: { NO_COLOR: '1' },
      cwd: join(__dirname, 'fixtures'),
    };
    const code = await runCli(() => runStackspec(args, io), io);
    return { code, out, err };
  }

  it('names the constraint and the providers that ran out, and exits 1, when nothing fits', async () => {
    const r = await cli(['schedule', '--flavor', 'bm.gpu', 'cloud']);
    expect(r.code).toBe(1);
    expect(r.out).toContain(
      '✖ no compute node can host this flavor: required CUSTOM_GPU (unsuffixed group) kept none',
    );
    expect(r.out).toContain('        node-b: lacks trait CUSTOM_GPU');
  });

  it('writes the explanation into the JSON result, always when nothing fits and on --explain', async () => {
    const none = JSON.parse((await cli(['schedule', '--flavor', 'bm.gpu', 'cloud', '--format', 'json'])).out);
    expect(AllocationCandidatesExplanationSchema.parse(none.explanation).emptiedBy).toMatchObject({
      stage: 'required-traits',
    });
    const fits = JSON.parse(
      (await cli(['schedule', '--flavor', 'bm.mirror', 'cloud', '--format', 'json'])).out,
    );
    expect(fits.explanation).toBeUndefined();
    const asked = await cli(['schedule', '--flavor', 'bm.mirror', 'cloud', '--format', 'json', '--explain']);
    expect(asked.code).toBe(0);
    expect(JSON.parse(asked.out).explanation).toMatchObject({ candidates: 2, returned: 2 });
  });
});
