import { defineExtraSpec, type ExtraSpecDefinition, type ExtraSpecInput } from '../define.js';

const SHARE_LEVELS = ['custom', 'high', 'normal', 'low'];

const VMWARE_RESOURCES = [
  ['cpu', 'CPU', 'MHz'],
  ['memory', 'memory', 'MB'],
  ['disk_io', 'disk I/O', 'I/O operations per second'],
  ['vif', 'network', 'Mbps'],
] as const;

function vmwareQuota(key: string, what: string, unit: string): ExtraSpecDefinition[] {
  return [
    defineExtraSpec({
      name: `quota:${key}_limit`,
      description:
        `Hard cap on ${what} for the instance, in ${unit}, even when the host has spare capacity; ` +
        'keeps performance predictable. ``0`` means no cap.',
      value: { type: 'int', min: 0 },
      status: { added: 'ussuri' },
      history: [{ until: 'wallaby', value: { type: 'int' }, change: 'Xena refused negative values.' }],
      virtDrivers: ['vmware'],
    }),
    defineExtraSpec({
      name: `quota:${key}_reservation`,
      description: `Amount of ${what} (in ${unit}) guaranteed to the instance.`,
      value: { type: 'int' },
      status: { added: 'ussuri' },
      virtDrivers: ['vmware'],
    }),
    defineExtraSpec({
      name: `quota:${key}_shares_level`,
      description:
        `Share level for ${what} when instances compete for it. With \`\`custom\`\`, ` +
        `\`\`quota:${key}_shares_share\`\` gives the number of shares.`,
      value: { type: 'str', enum: SHARE_LEVELS },
      status: { added: 'ussuri' },
      history: [
        {
          until: 'wallaby',
          value: { type: 'str' },
          change: 'Xena limited the value to custom, high, normal and low.',
        },
      ],
      virtDrivers: ['vmware'],
    }),
    defineExtraSpec({
      name: `quota:${key}_shares_share`,
      description:
        `Number of ${what} shares when \`\`quota:${key}_shares_level\`\` is \`\`custom\`\` ` +
        '(ignored otherwise). Shares are relative to those of other instances and have no unit.',
      value: { type: 'int', min: 0 },
      status: { added: 'ussuri' },
      history: [{ until: 'wallaby', value: { type: 'int' }, change: 'Xena refused negative values.' }],
      virtDrivers: ['vmware'],
      dependencies: [{ key: `quota:${key}_shares_level`, value: 'custom' }],
    }),
  ];
}

// Every libvirt quota is libvirt-only and validated since Ussuri, the catalog's first series.
function libvirtQuota(spec: Omit<ExtraSpecInput, 'status' | 'virtDrivers'>): ExtraSpecDefinition {
  return defineExtraSpec({ ...spec, status: { added: 'ussuri' }, virtDrivers: ['libvirt'] });
}

/** `quota:` — resource limits for libvirt (cgroups, I/O and network tuning) and VMware. */
export const QUOTA_SPECS: readonly ExtraSpecDefinition[] = [
  ...VMWARE_RESOURCES.flatMap(([key, what, unit]) => vmwareQuota(key, what, unit)),
  libvirtQuota({
    name: 'quota:cpu_shares',
    description:
      'Relative CPU weight of the guest against other guests on the host: a guest with 2048 ' +
      'gets twice the CPU time of one with 1024 under contention. Unset keeps the host default.',
    value: { type: 'int', min: 0 },
  }),
  libvirtQuota({
    name: 'quota:cpu_period',
    description:
      'Length in microseconds of the window in which ``quota:cpu_quota`` is enforced ' +
      '(1000 to 1000000 is meaningful; 0 means unset).',
    value: { type: 'int', min: 0 },
  }),
  libvirtQuota({
    name: 'quota:cpu_quota',
    description:
      'CPU time in microseconds each vCPU may use per ``quota:cpu_period``; together they cap ' +
      'the guest at a fraction of a host CPU. A negative value means no cap.',
    value: { type: 'int' },
    history: [
      { until: 'wallaby', value: { type: 'int', min: 0 }, change: 'Xena allowed negative values (no cap).' },
    ],
    dependencies: [{ key: 'quota:cpu_period' }],
  }),
  ...(['read', 'write', 'total'] as const).flatMap((stat) =>
    (['bytes', 'iops'] as const).map((metric) =>
      libvirtQuota({
        name: `quota:disk_${stat}_${metric}_sec`,
        description: `Throttle on disk ${stat === 'total' ? 'reads and writes together' : `${stat}s`}, in ${metric === 'bytes' ? 'bytes' : 'I/O operations'} per second.`,
        value: { type: 'int', min: 0 },
      }),
    ),
  ),
  ...(['inbound', 'outbound'] as const).flatMap((direction) =>
    (['average', 'peak', 'burst'] as const).map((metric) =>
      libvirtQuota({
        name: `quota:vif_${direction}_${metric}`,
        description:
          metric === 'burst'
            ? `Largest burst of ${direction} network traffic, in KiB, allowed at peak rate.`
            : `${metric === 'average' ? 'Average' : 'Peak'} ${direction} network bandwidth of each interface, in KiB/s.`,
        value: { type: 'int', min: 0 },
      }),
    ),
  ),
];
