import { isStackspecError, type StackspecError } from '@stackspec/core';
import { describe, expect, it } from 'vitest';
import {
  type DriverStep,
  explainDeploySteps,
  type PlanTemplate,
  planDeploySteps,
  validateNodeDeploySteps,
} from './plan.js';
import { ironicProfile } from './profile.js';

// The made-up driver of the reference notes (§9).
const driverSteps: DriverStep[] = [
  { interface: 'deploy', step: 'deploy', priority: 100 },
  { interface: 'deploy', step: 'write_image', priority: 80 },
  { interface: 'power', step: 'sync_state', priority: 60 },
  { interface: 'deploy', step: 'tune_disk', priority: 60 },
  { interface: 'management', step: 'flash_nic', priority: 60 },
  { interface: 'deploy', step: 'clean_cache', priority: 0 },
  {
    interface: 'bios',
    step: 'apply_configuration',
    priority: 0,
    argsinfo: { settings: { description: 'BIOS settings', required: true } },
  },
  {
    interface: 'raid',
    step: 'create_configuration',
    priority: 0,
    argsinfo: { create_root_volume: { description: 'root', required: false } },
  },
];

const ids = (steps: { interface: string; step: string; priority: number }[]) =>
  steps.map((s) => `${s.interface}.${s.step} ${s.priority}`);

function thrown(fn: () => unknown): StackspecError {
  try {
    fn();
  } catch (e) {
    if (isStackspecError(e)) return e;
    throw e;
  }
  throw new Error('expected an error');
}

/** Plans a node's deploy from the made-up driver's steps and `templates`, with `traits` as its instance traits. */
const planWith = (templates: PlanTemplate[], ...traits: string[]) =>
  planDeploySteps({ driverSteps, templates, instanceTraits: traits });

/** The error that {@link planWith} throws. */
const planError = (templates: PlanTemplate[], ...traits: string[]) =>
  thrown(() => planWith(templates, ...traits));

const FAST: PlanTemplate = {
  name: 'CUSTOM_FAST',
  steps: [
    {
      interface: 'bios',
      step: 'apply_configuration',
      args: { settings: [{ name: 'a', value: 'b' }] },
      priority: 150,
    },
    { interface: 'deploy', step: 'write_image', args: {}, priority: 0 },
  ],
};

describe('planDeploySteps', () => {
  it('runs the enabled driver steps by priority, then interface rank, when no template matches', () => {
    const plan = planWith([FAST]);
    expect(ids(plan)).toEqual([
      'deploy.deploy 100',
      'deploy.write_image 80',
      'power.sync_state 60',
      'management.flash_nic 60',
      'deploy.tune_disk 60',
    ]);
    expect(plan[0]).toEqual({ interface: 'deploy', step: 'deploy', priority: 100, args: {} });
  });

  it('enables a disabled step and disables another through a matching template', () => {
    const plan = planWith([FAST], 'CUSTOM_FAST');
    expect(ids(plan)).toEqual([
      'bios.apply_configuration 150',
      'deploy.deploy 100',
      'power.sync_state 60',
      'management.flash_nic 60',
      'deploy.tune_disk 60',
    ]);
    expect(plan[0]?.args).toEqual({ settings: [{ name: 'a', value: 'b' }] });
  });

  it('puts driver steps before template steps on a full tie', () => {
    const cache = {
      name: 'CUSTOM_CACHE',
      steps: [{ interface: 'deploy', step: 'clean_cache', args: {}, priority: 60 }],
    };
    expect(ids(planWith([cache], 'CUSTOM_CACHE')).slice(-3)).toEqual([
      'management.flash_nic 60',
      'deploy.tune_disk 60',
      'deploy.clean_cache 60',
    ]);
    const both = {
      name: 'CUSTOM_CACHE',
      steps: [
        { interface: 'deploy', step: 'clean_cache', args: {}, priority: 60 },
        { interface: 'deploy', step: 'tune_disk', args: {}, priority: 60 },
      ],
    };
    expect(ids(planWith([both], 'CUSTOM_CACHE')).slice(-2)).toEqual([
      'deploy.clean_cache 60',
      'deploy.tune_disk 60',
    ]);
  });

  it('orders driver steps canonically whatever order they are given in', () => {
    const shuffled = [...driverSteps].reverse();
    expect(planDeploySteps({ driverSteps: shuffled, templates: [] })).toEqual(
      planDeploySteps({ driverSteps, templates: [] }),
    );
  });

  it('requires the required arguments of an enabled step, but not of a disabled one', () => {
    const noArgs = {
      name: 'CUSTOM_FAST',
      steps: [{ interface: 'bios', step: 'apply_configuration', args: {}, priority: 150 }],
    };
    const e = planError([noArgs], 'CUSTOM_FAST');
    expect(e.status).toBe(400);
    expect(e.message).toBe(
      "Validation of deploy steps from deploy templates matching this node's instance traits failed. Matching deploy templates: CUSTOM_FAST. Errors: deploy step {'interface': 'bios', 'step': 'apply_configuration', 'args': {}, 'priority': 150} is missing these required arguments: settings (BIOS settings)",
    );
    expect(e.diagnostics[0]).toMatchObject({
      code: 'deploy-templates/missing-arguments',
      path: '/templates/0/steps/0/args',
    });
    expect(e.diagnostics[0]?.message).toContain('template CUSTOM_FAST');
    const disabled = { name: 'CUSTOM_FAST', steps: [{ ...noArgs.steps[0], priority: 0 }] } as PlanTemplate;
    expect(ids(planWith([disabled], 'CUSTOM_FAST'))).toHaveLength(5);
  });

  it('only lets the core deploy step be disabled', () => {
    const up = {
      name: 'CUSTOM_X',
      steps: [{ interface: 'deploy', step: 'deploy', args: {}, priority: 120 }],
    };
    const e = planError([up], 'CUSTOM_X');
    expect(e.message).toContain(
      'deploy step deploy on interface deploy is a core step and cannot be overridden by user steps. It may be disabled by setting the priority to 0',
    );
    expect(e.diagnostics[0]).toMatchObject({
      code: 'deploy-templates/core-step',
      path: '/templates/0/steps/0/priority',
    });
    const off = { name: 'CUSTOM_X', steps: [{ interface: 'deploy', step: 'deploy', args: {}, priority: 0 }] };
    expect(ids(planWith([off], 'CUSTOM_X'))).not.toContain('deploy.deploy 100');
  });

  it('rejects the same step from two matching templates, even when one disables it', () => {
    const a = {
      name: 'CUSTOM_A',
      steps: [{ interface: 'raid', step: 'create_configuration', args: {}, priority: 10 }],
    };
    const b = {
      name: 'CUSTOM_B',
      steps: [{ interface: 'raid', step: 'create_configuration', args: {}, priority: 0 }],
    };
    const e = planError([a, b], 'CUSTOM_B', 'CUSTOM_A');
    expect(e.message).toBe(
      "Validation of deploy steps from deploy templates matching this node's instance traits failed. Matching deploy templates: CUSTOM_A,CUSTOM_B. Errors: deploy steps from all deploy templates matching this node's instance traits cannot have the same interface and step. Duplicate deploy steps for raid.create_configuration",
    );
    expect(e.diagnostics[0]).toMatchObject({
      code: 'deploy-templates/duplicate-step',
      path: '/templates/1/steps/0',
    });
    expect(e.diagnostics[0]?.message).toContain('template CUSTOM_A and template CUSTOM_B');
  });

  it('lets user steps win over template steps without an error', () => {
    const plan = planDeploySteps({
      driverSteps,
      templates: [FAST],
      instanceTraits: ['CUSTOM_FAST'],
      userSteps: [{ interface: 'bios', step: 'apply_configuration', args: { settings: [] }, priority: 300 }],
    });
    expect(ids(plan)).toEqual([
      'bios.apply_configuration 300',
      'deploy.deploy 100',
      'power.sync_state 60',
      'management.flash_nic 60',
      'deploy.tune_disk 60',
    ]);
  });

  it('collects every error, joined with semicolons', () => {
    const bad = {
      name: 'CUSTOM_BAD',
      steps: [
        { interface: 'raid', step: 'nope', args: {}, priority: 5 },
        { interface: 'raid', step: 'create_configuration', args: { colour: 1 }, priority: 5 },
      ],
    };
    const e = planError([bad], 'CUSTOM_BAD');
    expect(e.message).toContain(
      "Errors: node does not support this deploy step: {'interface': 'raid', 'step': 'nope', 'args': {}, 'priority': 5}; deploy step {'interface': 'raid', 'step': 'create_configuration', 'args': {'colour': 1}, 'priority': 5} has these unexpected arguments: colour",
    );
    expect(e.diagnostics.map((d) => d.code)).toEqual([
      'deploy-templates/unsupported-step',
      'deploy-templates/unexpected-arguments',
    ]);
  });

  it('drops unknown steps with skipMissing and reports them', () => {
    const t = { name: 'CUSTOM_T', steps: [{ interface: 'deploy', step: 'in_band', args: {}, priority: 70 }] };
    const r = explainDeploySteps({
      driverSteps,
      templates: [t],
      instanceTraits: ['CUSTOM_T'],
      skipMissing: true,
    });
    expect(r.skipped).toEqual([
      { interface: 'deploy', step: 'in_band', origin: { kind: 'template', template: 'CUSTOM_T' } },
    ]);
    expect(r.matchedTemplates).toEqual(['CUSTOM_T']);
    expect(r.steps.every((s) => s.origin.kind === 'driver')).toBe(true);
  });

  it('checks the instance traits', () => {
    expect(
      thrown(() =>
        planDeploySteps({ driverSteps, templates: [], instanceTraits: 'CUSTOM_A', nodeUuid: 'n1' }),
      ).message,
    ).toBe('Error parsing traits from Node n1 instance_info field. A list of strings is expected.');
    expect(
      thrown(() =>
        planDeploySteps({
          driverSteps,
          templates: [],
          instanceTraits: ['CUSTOM_A', 'CUSTOM_B'],
          nodeTraits: ['CUSTOM_A'],
          nodeUuid: 'n1',
        }),
      ).message,
    ).toBe(
      'Cannot specify instance traits that are not also set on the node. Node n1 is missing traits CUSTOM_B',
    );
  });

  it('removes disallowed steps and fails when nothing is left', () => {
    const plan = planDeploySteps({ driverSteps, templates: [], disallowedSteps: ['deploy.write_image'] });
    expect(ids(plan)).not.toContain('deploy.write_image 80');
    const e = thrown(() =>
      planDeploySteps({
        driverSteps: [{ interface: 'deploy', step: 'deploy', priority: 100 }],
        templates: [],
        disallowedSteps: ['deploy.deploy'],
        nodeUuid: 'n1',
      }),
    );
    expect(e.message).toBe('no steps returned for node n1');
  });

  it('rejects a driver step on an interface without deploy steps', () => {
    const e = thrown(() =>
      planDeploySteps({ driverSteps: [{ interface: 'boot', step: 'x', priority: 1 }], templates: [] }),
    );
    expect(e.diagnostics[0]).toMatchObject({
      code: 'deploy-templates/invalid-driver-step',
      path: '/driverSteps/0/interface',
    });
  });

  it('ranks vendor and firmware steps in the newest release', () => {
    const steps: DriverStep[] = [
      { interface: 'firmware', step: 'update', priority: 10 },
      { interface: 'vendor', step: 'v', priority: 10 },
      { interface: 'power', step: 'p', priority: 10 },
    ];
    expect(ids(planDeploySteps({ driverSteps: steps, templates: [] }))).toEqual([
      'vendor.v 10',
      'power.p 10',
      'firmware.update 10',
    ]);
    expect(() =>
      planDeploySteps({ driverSteps: steps, templates: [], profile: ironicProfile('21.4') }),
    ).toThrow(/not a deploy interface/);
  });
});

describe('the spec’s two flavors', () => {
  // A driver that can configure BIOS and RAID; the operator's templates from the spec.
  const driver: DriverStep[] = [
    { interface: 'deploy', step: 'deploy', priority: 100 },
    {
      interface: 'bios',
      step: 'apply_configuration',
      priority: 0,
      argsinfo: { settings: { required: true } },
    },
    {
      interface: 'raid',
      step: 'create_configuration',
      priority: 0,
      argsinfo: { logical_disks: { required: true }, delete_configuration: { required: false } },
    },
  ];
  const raid = (level: string) => ({
    interface: 'raid',
    step: 'create_configuration',
    args: {
      logical_disks: [{ size_gb: 'MAX', raid_level: level, is_root_volume: true }],
      delete_configuration: true,
    },
    priority: 10,
  });
  const vmx = (on: boolean) => ({
    interface: 'bios',
    step: 'apply_configuration',
    args: { settings: [{ name: 'ProcVirtualization', value: on ? 'Enabled' : 'Disabled' }] },
    priority: 150,
  });
  const templates: PlanTemplate[] = [
    { name: 'CUSTOM_BM_CONFIG_RAID_DISK_MIRROR', steps: [raid('1')] },
    { name: 'CUSTOM_BM_CONFIG_RAID_DISK_STRIPE', steps: [raid('0')] },
    { name: 'CUSTOM_BM_CONFIG_BIOS_VMX_ON', steps: [vmx(true)] },
    { name: 'CUSTOM_BM_CONFIG_BIOS_VMX_OFF', steps: [vmx(false)] },
  ];
  const nodeTraits = [
    'CUSTOM_BM_CONFIG_BIOS_VMX_ON',
    'CUSTOM_BM_CONFIG_BIOS_VMX_OFF',
    'CUSTOM_OTHER_TRAIT_I_AM_USUALLY_IGNORED',
    'CUSTOM_BM_CONFIG_RAID_DISK_MIRROR',
    'CUSTOM_BM_CONFIG_RAID_DISK_STRIPE',
    'CUSTOM_CLASS_A',
  ];

  it('FlavorVMXMirror turns VMX on and builds a RAID 1 root volume', () => {
    const plan = planDeploySteps({
      driverSteps: driver,
      templates,
      nodeTraits,
      instanceTraits: ['CUSTOM_CLASS_A', 'CUSTOM_BM_CONFIG_BIOS_VMX_ON', 'CUSTOM_BM_CONFIG_RAID_DISK_MIRROR'],
    });
    expect(plan).toEqual([
      vmx(true),
      { interface: 'deploy', step: 'deploy', priority: 100, args: {} },
      raid('1'),
    ]);
  });

  it('FlavorNoVMXStripe turns VMX off and builds a RAID 0 root volume', () => {
    const plan = planDeploySteps({
      driverSteps: driver,
      templates,
      nodeTraits,
      instanceTraits: [
        'CUSTOM_CLASS_A',
        'CUSTOM_BM_CONFIG_BIOS_VMX_OFF',
        'CUSTOM_BM_CONFIG_RAID_DISK_STRIPE',
      ],
    });
    expect(plan).toEqual([
      vmx(false),
      { interface: 'deploy', step: 'deploy', priority: 100, args: {} },
      raid('0'),
    ]);
  });

  it('fails node validation when a driver lacks the RAID step of an enabled template', () => {
    const e = thrown(() =>
      planDeploySteps({
        driverSteps: driver.filter((d) => d.interface !== 'raid'),
        templates,
        instanceTraits: ['CUSTOM_BM_CONFIG_RAID_DISK_MIRROR'],
      }),
    );
    expect(e.message).toMatch(
      /^Validation of deploy steps from deploy templates .* Matching deploy templates: CUSTOM_BM_CONFIG_RAID_DISK_MIRROR\. Errors: node does not support this deploy step/,
    );
    expect(e.diagnostics[0]?.path).toBe('/templates/0/steps/0');
  });
});

describe('validateNodeDeploySteps', () => {
  it('returns the plan when every enabled template is supported', () => {
    const r = validateNodeDeploySteps({ driverSteps, templates: [FAST], instanceTraits: ['CUSTOM_FAST'] });
    expect(r.ok).toBe(true);
    expect(r.reason).toBeNull();
    expect(r.steps?.[0]?.step).toBe('apply_configuration');
  });

  it('returns Ironic’s reason and located diagnostics instead of throwing', () => {
    const t = { name: 'CUSTOM_T', steps: [{ interface: 'raid', step: 'missing', args: {}, priority: 5 }] };
    const r = validateNodeDeploySteps({ driverSteps, templates: [t], instanceTraits: ['CUSTOM_T'] });
    expect(r.ok).toBe(false);
    expect(r.reason).toMatch(/^Validation of deploy steps from deploy templates/);
    expect(r.diagnostics[0]).toMatchObject({
      code: 'deploy-templates/unsupported-step',
      path: '/templates/0/steps/0',
    });
    expect(
      validateNodeDeploySteps({
        driverSteps,
        templates: [t],
        instanceTraits: ['CUSTOM_T'],
        skipMissing: true,
      }).ok,
    ).toBe(true);
  });
});

describe('the plan input', () => {
  const plan = (options: unknown) => planDeploySteps(options as Parameters<typeof planDeploySteps>[0]);

  it.each([
    ['driverSteps is null', { driverSteps: null, templates: [] }, '/driverSteps', 'invalid-type'],
    ['a driver step is null', { driverSteps: [null], templates: [] }, '/driverSteps/0', 'invalid-type'],
    [
      'a driver priority is a word',
      { driverSteps: [{ interface: 'deploy', step: 'deploy', priority: 'high' }], templates: [] },
      '/driverSteps/0/priority',
      'invalid-type',
    ],
    [
      'a driver priority is NaN',
      { driverSteps: [{ interface: 'deploy', step: 'deploy', priority: Number.NaN }], templates: [] },
      '/driverSteps/0/priority',
      'invalid-type',
    ],
    ['templates is missing', { driverSteps }, '', 'missing-key'],
    [
      'template steps are null',
      { driverSteps, templates: [FAST, { name: 'CUSTOM_X', steps: null }] },
      '/templates/1/steps',
      'invalid-type',
    ],
    [
      'a template priority is negative',
      { driverSteps, templates: [{ name: 'CUSTOM_X', steps: [{ ...FAST.steps[0], priority: -3 }] }] },
      '/templates/0/steps/0/priority',
      'too-small',
    ],
    [
      'a user step has args that are not a mapping',
      { driverSteps, templates: [], userSteps: [{ interface: 'bios', step: 'x', priority: 1, args: [1] }] },
      '/userSteps/0/args',
      'invalid-type',
    ],
    ['the options are not an object', 'plan', '', 'invalid-type'],
  ])('rejects input where %s, naming the path', (_label, options, path, code) => {
    const e = thrown(() => plan(options));
    expect(e.code).toBe('deploy-templates/invalid-plan-input');
    expect(e.status).toBe(400);
    expect(e.diagnostics[0]).toMatchObject({ path, code: `deploy-templates/${code}` });
    expect(e.message).toMatch(/^The plan input is not valid at /);
  });

  it('says what a priority may be', () => {
    const e = thrown(() =>
      plan({ driverSteps: [{ interface: 'deploy', step: 'deploy', priority: 'high' }], templates: [] }),
    );
    expect(e.message).toBe(
      "The plan input is not valid at /driverSteps/0/priority: 'priority' must be an integer of 0 or more, or a string of digits, but it is 'high'.",
    );
  });

  it('reads digit-string priorities as integers in driver, template and user steps', () => {
    const steps = planDeploySteps({
      driverSteps: [
        { interface: 'deploy', step: 'deploy', priority: '100' },
        { interface: 'raid', step: 'create_configuration', priority: '0' },
        { interface: 'bios', step: 'apply_configuration', priority: 0 },
      ],
      templates: [
        { name: 'CUSTOM_R', steps: [{ interface: 'raid', step: 'create_configuration', priority: '50' }] },
      ],
      userSteps: [{ interface: 'bios', step: 'apply_configuration', args: null, priority: '7' }],
      instanceTraits: ['CUSTOM_R'],
    });
    expect(steps.map((s) => [s.step, s.priority])).toEqual([
      ['deploy', 100],
      ['create_configuration', 50],
      ['apply_configuration', 7],
    ]);
    expect(steps.every((s) => typeof s.priority === 'number')).toBe(true);
  });
});

describe('newest-only rules', () => {
  const withFlowSteps = {
    driverSteps,
    templates: [
      {
        name: 'CUSTOM_FLOW',
        steps: [
          { interface: 'power', step: 'reboot', args: {}, priority: 70 },
          { interface: 'deploy', step: 'hold', args: {}, priority: 65 },
        ],
      },
    ],
    instanceTraits: ['CUSTOM_FLOW'],
    userSteps: [
      {
        interface: 'management',
        step: 'update_firmware',
        args: {},
        priority: 90,
        execute_on_child_nodes: true,
      },
    ],
  };

  it('leaves out the reserved flow steps and steps for child nodes in the newest release', () => {
    expect(ids(planDeploySteps(withFlowSteps))).toEqual(ids(planDeploySteps({ driverSteps, templates: [] })));
  });

  it('validates them like any other step for Ironic 21.4', () => {
    const e = thrown(() => planDeploySteps({ ...withFlowSteps, profile: ironicProfile('21.4') }));
    expect(e.message).toContain(
      "node does not support this deploy step: {'interface': 'power', 'step': 'reboot'",
    );
    expect(e.diagnostics.map((d) => d.path)).toEqual(['/templates/0/steps/0', '/templates/0/steps/1']);
  });
});
