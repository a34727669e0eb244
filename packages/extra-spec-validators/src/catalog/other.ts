import { defineExtraSpec, type ExtraSpecDefinition } from '../define.js';
import { libvirtSpec, specFamily } from './family.js';

const FILTER_OPERATORS =
  'The value is a filter expression: a plain value, or an operator followed by a value — ' +
  '``=`` (at least, numerically), ``==``, ``!=``, ``>=``, ``<=`` (numeric), ``s==``, ``s!=``, ' +
  '``s>=``, ``s>``, ``s<=``, ``s<`` (string comparison), ``<in>`` (substring), ``<all-in>`` ' +
  '(every listed item present) or ``<or>`` (any of several values), e.g. ``>= 4`` or ' +
  '``<or> fast <or> faster``. Nova stores the expression without checking its syntax.';

/** `accel:` — Cyborg accelerators. */
export const ACCEL_SPECS: readonly ExtraSpecDefinition[] = [
  defineExtraSpec({
    name: 'accel:device_profile',
    description:
      'Name of a Cyborg device profile describing the accelerators (FPGAs, GPUs…) to attach; ' +
      'think of it as a flavor for devices.',
    value: { type: 'str', description: 'A device profile name.' },
    status: { added: 'ussuri' },
  }),
];

/** `aggregate_instance_extra_specs:` — the AggregateInstanceExtraSpecsFilter. */
export const AGGREGATE_SPECS: readonly ExtraSpecDefinition[] = [
  defineExtraSpec({
    name: 'aggregate_instance_extra_specs:{key}',
    description:
      'Only hosts in a host aggregate whose metadata ``{key}`` satisfies the value are eligible ' +
      '(AggregateInstanceExtraSpecsFilter). ' +
      FILTER_OPERATORS,
    parameters: [{ name: 'key', pattern: '.+', description: 'The aggregate metadata key to compare.' }],
    value: { type: 'str', description: 'A filter expression.' },
    status: { added: 'ussuri' },
  }),
];

/** `hw_rng:` — the virtio random number generator. */
export const HW_RNG_SPECS: readonly ExtraSpecDefinition[] = [
  libvirtSpec({
    name: 'hw_rng:allowed',
    description:
      'Whether images may configure a virtio random number generator (``hw_rng_model``). ' +
      'Since Ussuri the device is on by default and ``false`` here takes it away.',
    value: { type: 'bool' },
    status: { added: 'ussuri' },
  }),
  libvirtSpec({
    name: 'hw_rng:rate_bytes',
    description: 'Bytes of host entropy the guest may read per period (see ``hw_rng:rate_period``).',
    value: { type: 'int', min: 0 },
    status: { added: 'ussuri' },
    dependencies: [{ key: 'hw_rng:rate_period' }],
  }),
  libvirtSpec({
    name: 'hw_rng:rate_period',
    description: 'Length in milliseconds of the period over which ``hw_rng:rate_bytes`` is counted.',
    value: { type: 'int', min: 0 },
    status: { added: 'ussuri' },
  }),
];

/** `hw_video:` — the emulated graphics card. */
export const HW_VIDEO_SPECS: readonly ExtraSpecDefinition[] = [
  libvirtSpec({
    name: 'hw_video:ram_max_mb',
    description:
      'Most video memory (MiB) an image may ask for with ``hw_video_ram``. Does not apply to ' + 'vGPUs.',
    value: { type: 'int', min: 0 },
    status: { added: 'ussuri' },
  }),
];

/** Keys without a namespace. */
export const NULL_SPECS: readonly ExtraSpecDefinition[] = [
  libvirtSpec({
    name: 'hide_hypervisor_id',
    description:
      'Old spelling of ``hw:hide_hypervisor_id``. Being un-namespaced, it also confuses the ' +
      'AggregateInstanceExtraSpecsFilter, which reads such keys as aggregate metadata.',
    value: { type: 'bool', description: 'Whether to hide the hypervisor signature.' },
    status: { added: 'ussuri' },
    deprecated: {
      since: 'victoria',
      reason: 'Replaced by the namespaced hw:hide_hypervisor_id.',
      replacement: 'hw:hide_hypervisor_id',
    },
    imageProperty: 'img_hide_hypervisor_id',
  }),
  defineExtraSpec({
    name: 'group_policy',
    description:
      'With granular resource requests (numbered ``resourcesN:`` / ``traitN:`` groups): ' +
      '``isolate`` makes each group come from a different resource provider, ``none`` lets ' +
      'groups share one. Required as soon as more than one numbered group is used.',
    value: { type: 'str', enum: ['isolate', 'none'] },
    status: { added: 'ussuri' },
  }),
];

// The Hyper-V keys arrived with the catalog (Ussuri) and went with the driver in Caracal.
const hypervSpec = specFamily({
  status: { added: 'ussuri', removed: { release: 'caracal', reason: 'The Hyper-V driver was removed.' } },
  virtDrivers: ['hyperv'],
});

/** `os:` — guest operating system integration. */
export const OS_SPECS: readonly ExtraSpecDefinition[] = [
  defineExtraSpec({
    name: 'os:secure_boot',
    description:
      'Turns on UEFI Secure Boot, so the firmware only starts signed boot loaders. Needs UEFI ' +
      'firmware in the guest (``hw_firmware_type=uefi`` on the image).',
    value: { type: 'str', enum: ['disabled', 'required'], description: 'Whether Secure Boot is required.' },
    status: { added: 'ussuri' },
    virtDrivers: ['libvirt', 'hyperv'],
    imageProperty: 'os_secure_boot',
    imageValue: {
      type: 'str',
      enum: ['required', 'disabled', 'optional'],
      description: 'Images may also say optional: use Secure Boot where the host supports it.',
    },
  }),
  hypervSpec({
    name: 'os:resolution',
    description: 'Screen resolution of the guest console.',
    value: {
      type: 'str',
      enum: ['1024x768', '1280x1024', '1600x1200', '1920x1200', '2560x1600', '3840x2160'],
      description: 'A resolution.',
    },
  }),
  hypervSpec({
    name: 'os:monitors',
    description: 'Number of monitors the guest console offers.',
    value: { type: 'int', min: 1, max: 8, description: 'Number of monitors.' },
  }),
  hypervSpec({
    name: 'os:vram',
    description: 'Video memory in MiB; one of a fixed list of sizes, written as text.',
    value: { type: 'str', enum: ['64', '128', '256', '512', '1024'], description: 'Video memory in MiB.' },
  }),
];

/** `pci_passthrough:` — PCI device assignment. */
export const PCI_SPECS: readonly ExtraSpecDefinition[] = [
  libvirtSpec({
    name: 'pci_passthrough:alias',
    description:
      'PCI devices to pass through, as ``alias:count`` pairs separated by commas (e.g. ' +
      '``a1:2,a2:1``); each alias names a device class in the ``[pci] alias`` option of ' +
      '``nova.conf``.',
    value: { type: 'str', pattern: '[^:]+:\\d+(?:\\s*,\\s*[^:]+:\\d+)*', description: 'alias:count pairs.' },
    status: { added: 'ussuri' },
  }),
];

/** `vmware:` — the VMware vCenter driver. */
export const VMWARE_SPECS: readonly ExtraSpecDefinition[] = [
  defineExtraSpec({
    name: 'vmware:hw_version',
    description:
      'Virtual hardware version for new guests (e.g. ``vmx-13``). Useful when hosts run ' +
      'different ESXi versions, to keep instances on hosts that support the version.',
    value: { type: 'str' },
    status: { added: 'ussuri' },
    virtDrivers: ['vmware'],
  }),
  defineExtraSpec({
    name: 'vmware:storage_policy',
    description:
      'vCenter storage policy for the disks of new instances. Ignored unless storage ' +
      'policy-based management (SPBM) is enabled.',
    value: { type: 'str' },
    status: { added: 'ussuri' },
    virtDrivers: ['vmware'],
  }),
];

// Every PowerVM key arrived with the catalog (Ussuri) and went with the driver in Zed.
const powervmSpec = specFamily({
  status: { added: 'ussuri', removed: { release: 'zed', reason: 'The PowerVM driver was removed.' } },
  virtDrivers: ['powervm'],
});
const procUnits = {
  type: 'str',
  pattern: '\\d+\\.\\d+',
  description: 'Processing units as a decimal number such as 0.5.',
} as const;

/** `powervm:` — the PowerVM driver (Ussuri to Yoga). */
export const POWERVM_SPECS: readonly ExtraSpecDefinition[] = [
  ['min_mem', 'Smallest memory (MiB) the partition may shrink to; at least 256.'],
  ['max_mem', 'Largest memory (MiB) the partition may grow to; at least 256.'],
]
  .map(([key, text]) =>
    powervmSpec({
      name: `powervm:${key}`,
      description: `${text} Should be a multiple of the host's logical memory block size.`,
      value: { type: 'int', min: 256, description: 'Memory in MiB.' },
    }),
  )
  .concat(
    [
      ['min_vcpu', 'Fewest virtual processors the partition may run with.'],
      ['max_vcpu', 'Most virtual processors the partition may grow to.'],
    ].map(([key, text]) =>
      powervmSpec({
        name: `powervm:${key}`,
        description: text as string,
        value: { type: 'int', min: 1 },
      }),
    ),
    [
      ['proc_units', 'Processing units the partition is entitled to (shared processors).'],
      ['min_proc_units', 'Fewest processing units the partition may shrink to.'],
      ['max_proc_units', 'Most processing units the partition may grow to.'],
    ].map(([key, text]) =>
      powervmSpec({
        name: `powervm:${key}`,
        description: `${text} Older firmware needs multiples of 0.1, newer of 0.05.`,
        value: procUnits,
      }),
    ),
    [
      powervmSpec({
        name: 'powervm:dedicated_proc',
        description: 'Gives the partition whole dedicated processors instead of shared processing units.',
        value: { type: 'bool' },
      }),
      powervmSpec({
        name: 'powervm:shared_weight',
        description: 'Weight (0–255) an uncapped shared partition gets when competing for spare cycles.',
        value: { type: 'int', min: 0, max: 255 },
      }),
      powervmSpec({
        name: 'powervm:availability_priority',
        description: 'Priority (0–255) of the partition when the host must free processors after a failure.',
        value: { type: 'int', min: 0, max: 255 },
      }),
      powervmSpec({
        name: 'powervm:uncapped',
        description: 'Lets a shared partition use more than its entitlement when the pool has idle capacity.',
        value: { type: 'bool' },
      }),
      powervmSpec({
        name: 'powervm:dedicated_sharing_mode',
        description: 'Whether, and when, idle dedicated processors are lent to shared partitions.',
        value: {
          type: 'str',
          enum: ['share_idle_procs', 'keep_idle_procs', 'share_idle_procs_active', 'share_idle_procs_always'],
        },
      }),
      powervmSpec({
        name: 'powervm:processor_compatibility',
        description: 'Processor compatibility mode, which decides the hosts the partition can migrate to.',
        value: {
          type: 'str',
          enum: ['default', 'POWER6', 'POWER6+', 'POWER6_Enhanced', 'POWER6+_Enhanced', 'POWER7', 'POWER8'],
        },
      }),
      powervmSpec({
        name: 'powervm:shared_proc_pool_name',
        description: 'Shared processor pool to run the partition in (names have at most 14 characters).',
        value: { type: 'str' },
      }),
      powervmSpec({
        name: 'powervm:srr_capability',
        description: 'Allows the partition to be restarted on another host when its host fails.',
        value: { type: 'bool' },
      }),
    ],
  );
