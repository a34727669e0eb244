import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { type Cloud, loadCloud } from './cloud.js';
import { schedule } from './schedule.js';

let cloud: Cloud;
beforeAll(async () => {
  cloud = await loadCloud(['cloud'], join(__dirname, 'fixtures'));
});

function run(flavor: string, extra: { node?: string } = {}) {
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

  it('reports invalid files instead of throwing', async () => {
    const broken = await loadCloud(['bad'], join(__dirname, 'fixtures'));
    expect(broken.diagnostics.length).toBeGreaterThan(0);
    expect(broken.diagnostics.some((d) => d.code === 'yaml/syntax')).toBe(true);
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

  it('stops when no node has the required traits', () => {
    expect(run('bm.gpu')).toMatchObject({ ok: false, stage: 'candidates', candidates: [] });
  });

  it("stops with Ironic's message when a template names a step the driver lacks", () => {
    const r = run('bm.broken-plan');
    expect(r).toMatchObject({ ok: false, stage: 'deploy-steps', node: { name: 'node-b' } });
    expect(r.planError?.reason).toContain('CUSTOM_FIRMWARE');
    expect(r.planError?.reason).toContain('node does not support this deploy step');
  });
});
