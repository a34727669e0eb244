import type { ExtraSpecDefinition, ExtraSpecInput } from '../define.js';
import { libvirtSpec } from './family.js';

// Facts (names, value rules, releases) follow Nova's in-tree validators; the
// wording is ours. Entries are in Nova's registration order, with keys that
// replaced others placed right after them, so filtering by release gives the
// order each release registered them in.

/** Keys that only mean something when vCPUs are pinned. */
const PINNED = { key: 'hw:cpu_policy', value: 'dedicated' };

const CPU_MAP = '\\^?\\d+((-\\d+)?(,\\^?\\d+(-\\d+)?)?)*';

/** The parts of the guest CPU topology: what each counts, and how a count of it is described. */
const TOPOLOGY = [
  {
    part: 'sockets',
    per: '',
    description:
      'Number of CPU sockets in the guest CPU topology. Left unset, the driver picks a ' +
      'topology from the vCPU count.',
  },
  { part: 'cores', per: ' per socket', description: 'Number of cores per socket in the guest CPU topology.' },
  { part: 'threads', per: ' per core', description: 'Number of threads per core in the guest CPU topology.' },
] as const;
type TopologyPart = (typeof TOPOLOGY)[number];

/** The count of one part of the topology. */
const topologyCount = ({ part, per, description }: TopologyPart): ExtraSpecDefinition =>
  libvirtSpec({
    name: `hw:cpu_${part}`,
    description,
    value: { type: 'int', min: 1, description: `Number of ${part}${per}.` },
    status: { added: 'ussuri' },
    imageProperty: `hw_cpu_${part}`,
  });

/** The upper bound on one part of the topology: its misspelt first name, then the name that replaced it. */
const topologyMax = ({ part, per }: TopologyPart): ExtraSpecDefinition[] => [
  libvirtSpec({
    name: `hw:max_cpu_${part}`,
    description:
      `Misspelt upper bound on guest CPU ${part}${per} that images may ask for through ` +
      `\`\`hw_cpu_${part}\`\`. Nova accepted this name but the libvirt driver never read it; ` +
      `use \`\`hw:cpu_max_${part}\`\` instead.`,
    value: { type: 'int', min: 1, description: `Largest number of CPU ${part}${per}.` },
    status: {
      added: 'ussuri',
      renamed: {
        release: 'flamingo',
        to: `hw:cpu_max_${part}`,
        backported: ['30.3.0', '31.2.0'],
        reason: 'The validator named the key the driver does not read (Launchpad bug 2120862).',
      },
    },
    imageProperty: `hw_cpu_max_${part}`,
  }),
  libvirtSpec({
    name: `hw:cpu_max_${part}`,
    description:
      `Upper bound on the guest CPU ${part}${per} an image may request through ` +
      `\`\`hw_cpu_${part}\`\`; the driver picks a topology within this limit.`,
    value: { type: 'int', min: 1, description: `Largest number of CPU ${part}${per}.` },
    status: { added: 'flamingo', renamedFrom: `hw:max_cpu_${part}`, backported: ['30.3.0', '31.2.0'] },
    imageProperty: `hw_cpu_max_${part}`,
  }),
];

/** What guest NUMA node `{num}` gets (`hw:numa_cpus.{num}`, `hw:numa_mem.{num}`), for uneven splits. */
const numaNodeSpec = (
  what: 'cpus' | 'mem',
  description: string,
  value: ExtraSpecInput['value'],
): ExtraSpecDefinition =>
  libvirtSpec({
    name: `hw:numa_${what}.{num}`,
    description,
    parameters: [{ name: 'num', type: 'int', pattern: '\\d+', description: 'Guest NUMA node number.' }],
    value,
    status: { added: 'ussuri' },
    history: [
      {
        until: 'wallaby',
        name: `hw:numa_${what}.{id}`,
        parameters: [{ name: 'id', type: 'int', pattern: '\\d+' }],
        change: 'Xena renamed the placeholder from ``{id}`` to ``{num}``.',
      },
    ],
    dependencies: [{ key: 'hw:numa_nodes' }],
    imageProperty: `hw_numa_${what}.{num}`,
  });

/** The `hw:` keys: guest hardware and CPU/memory placement, all read by the libvirt driver. */
export const HW_SPECS: readonly ExtraSpecDefinition[] = [
  libvirtSpec({
    name: 'hw:cpu_realtime',
    description:
      'Runs the guest vCPUs with a real-time scheduling policy on the host. Needs pinned CPUs ' +
      '(``hw:cpu_policy=dedicated``) and hosts set up for real-time work.',
    value: { type: 'bool', description: 'Whether vCPUs get real-time priority.' },
    status: { added: 'ussuri' },
    dependencies: [PINNED],
  }),
  libvirtSpec({
    name: 'hw:cpu_realtime_mask',
    description:
      'Which vCPUs are *left out* of real-time scheduling, as a CPU list such as ``^0-1`` ' +
      '(ranges, commas, and ``^`` to exclude). At least one vCPU should stay non-real-time to ' +
      'run housekeeping work.',
    value: { type: 'str', pattern: `(\\^)?\\d+((-\\d+)?(,\\^?\\d+(-\\d+)?)?)*`, description: 'A CPU list.' },
    status: { added: 'ussuri' },
    history: [
      {
        until: 'ussuri',
        value: { type: 'str', pattern: `\\^\\d+((-\\d+)?(,\\^?\\d+(-\\d+)?)?)*` },
        change: 'Victoria made the leading ``^`` optional.',
      },
    ],
    dependencies: [{ key: 'hw:cpu_realtime', value: 'true' }],
    imageProperty: 'hw_cpu_realtime_mask',
  }),
  libvirtSpec({
    name: 'hw:hide_hypervisor_id',
    description:
      'Hides the hypervisor signature from the guest, which some GPU drivers need before they ' +
      'agree to run inside a virtual machine.',
    value: { type: 'bool', description: 'Whether to hide the hypervisor signature.' },
    status: { added: 'victoria', backported: ['21.1.2'] },
    imageProperty: 'img_hide_hypervisor_id',
  }),
  libvirtSpec({
    name: 'hw:cpu_policy',
    description:
      'How guest vCPUs map to host CPUs. ``shared`` (the default) lets vCPUs float over the ' +
      "host's shared CPUs and be overcommitted; ``dedicated`` pins each vCPU to its own host " +
      'CPU with no overcommit; ``mixed`` pins only the vCPUs listed in ``hw:cpu_dedicated_mask`` ' +
      '(or made real-time by ``hw:cpu_realtime_mask``) and lets the rest float.',
    value: { type: 'str', enum: ['dedicated', 'shared', 'mixed'], description: 'The CPU policy.' },
    status: { added: 'ussuri' },
    history: [
      {
        until: 'ussuri',
        value: { type: 'str', enum: ['dedicated', 'shared'] },
        change: 'Victoria added ``mixed``.',
      },
    ],
    imageProperty: 'hw_cpu_policy',
  }),
  libvirtSpec({
    name: 'hw:cpu_thread_policy',
    description:
      'How pinned vCPUs treat host hyper-threads (SMT siblings). ``prefer`` (the default) ' +
      'places vCPUs on siblings when the host has them; ``isolate`` keeps each vCPU on a core ' +
      'whose siblings stay unused; ``require`` only accepts hosts with SMT and places vCPUs on ' +
      'siblings.',
    value: { type: 'str', enum: ['prefer', 'isolate', 'require'], description: 'The thread policy.' },
    status: { added: 'ussuri' },
    dependencies: [PINNED],
    imageProperty: 'hw_cpu_thread_policy',
  }),
  libvirtSpec({
    name: 'hw:emulator_threads_policy',
    description:
      "Where the hypervisor's own emulator threads of a pinned guest run: ``share`` puts them " +
      "on the host's shared CPU set, ``isolate`` reserves one extra dedicated host CPU for them.",
    value: { type: 'str', enum: ['isolate', 'share'], description: 'The emulator thread policy.' },
    status: { added: 'ussuri' },
    dependencies: [PINNED],
  }),
  libvirtSpec({
    name: 'hw:cpu_dedicated_mask',
    description:
      'For ``hw:cpu_policy=mixed``: the vCPUs to pin, as a CPU list such as ``0-3,^2``. The other ' +
      'vCPUs float over shared host CPUs.',
    value: { type: 'str', pattern: CPU_MAP, description: 'A CPU list of guest vCPUs.' },
    status: { added: 'victoria' },
    dependencies: [{ key: 'hw:cpu_policy', value: 'mixed' }],
  }),
  libvirtSpec({
    name: 'hw:mem_page_size',
    description:
      'Size of the host memory pages backing guest RAM: ``small`` (the normal page size), ' +
      '``large`` (any huge page size), ``any`` (let the driver choose), or an explicit size such ' +
      'as ``2MB``, ``1GiB`` or ``2048`` (KiB).',
    value: {
      type: 'str',
      pattern: '(large|small|any|\\d+([kKMGT]i?)?(b|bit|B)?)',
      description: 'A page size or one of the aliases.',
    },
    status: { added: 'ussuri' },
    imageProperty: 'hw_mem_page_size',
  }),
  libvirtSpec({
    name: 'hw:locked_memory',
    description:
      'Locks guest memory in host RAM so it can never be swapped out, which some devices ' +
      'doing DMA need. Only allowed together with an explicit ``hw:mem_page_size``.',
    value: { type: 'bool', description: 'Whether guest memory is locked.' },
    status: { added: 'zed' },
    dependencies: [{ key: 'hw:mem_page_size' }],
    imageProperty: 'hw_locked_memory',
  }),
  libvirtSpec({
    name: 'hw:numa_nodes',
    description:
      'Number of virtual NUMA nodes the guest sees. Each one is backed by a different host ' +
      'NUMA node; guest CPUs and memory are spread evenly unless ``hw:numa_cpus.N`` and ' +
      '``hw:numa_mem.N`` say otherwise.',
    value: { type: 'int', min: 1, description: 'Number of guest NUMA nodes.' },
    status: { added: 'ussuri' },
    imageProperty: 'hw_numa_nodes',
  }),
  numaNodeSpec(
    'cpus',
    'The guest vCPUs that belong to guest NUMA node ``{num}``, as a CPU list such as ``0-3``. ' +
      'Set it for every node when CPUs cannot be split evenly.',
    { type: 'str', pattern: CPU_MAP, description: 'A CPU list of guest vCPUs.' },
  ),
  numaNodeSpec(
    'mem',
    'Guest memory in MiB given to guest NUMA node ``{num}``. Set it for every node when ' +
      'memory cannot be split evenly; the values must add up to the flavor RAM.',
    { type: 'int', min: 1, description: 'Memory in MiB.' },
  ),
  libvirtSpec({
    name: 'hw:pci_numa_affinity_policy',
    description:
      'How closely PCI and SR-IOV devices must sit to the guest NUMA nodes. ``required``: only ' +
      "devices on the guest's host NUMA nodes; ``preferred``: any device, nearby ones first; " +
      '``legacy`` (the default): like ``required`` unless the device reports no NUMA node; ' +
      "``socket``: devices on the same host socket as one of the guest's NUMA nodes.",
    value: {
      type: 'str',
      enum: ['required', 'preferred', 'legacy', 'socket'],
      description: 'The affinity policy.',
    },
    status: { added: 'ussuri' },
    history: [
      {
        until: 'victoria',
        value: { type: 'str', enum: ['required', 'preferred', 'legacy'] },
        change: 'Wallaby added ``socket``.',
      },
    ],
    imageProperty: 'hw_pci_numa_affinity_policy',
  }),
  ...TOPOLOGY.map(topologyCount),
  ...TOPOLOGY.flatMap(topologyMax),
  libvirtSpec({
    name: 'hw:boot_menu',
    description: 'Shows the firmware boot menu when the guest starts, so a console user can pick a device.',
    value: { type: 'bool', description: 'Whether to show the boot menu.' },
    status: { added: 'ussuri' },
    imageProperty: 'hw_boot_menu',
  }),
  libvirtSpec({
    name: 'hw:vif_multiqueue_enabled',
    description:
      'Gives virtio network interfaces one queue per vCPU so network throughput scales with ' +
      'the CPU count. The guest kernel must support multi-queue virtio-net.',
    value: { type: 'bool', description: 'Whether to enable multi-queue.' },
    status: { added: 'yoga' },
    imageProperty: 'hw_vif_multiqueue_enabled',
  }),
  libvirtSpec({
    name: 'hw:mem_encryption',
    description:
      'Encrypts guest memory with the host CPU (AMD SEV family), so the host cannot read it. ' +
      'Needs hosts with the feature and consumes a ``MEM_ENCRYPTION_CONTEXT`` resource.',
    value: { type: 'bool', description: 'Whether guest memory is encrypted.' },
    status: { added: 'ussuri' },
    imageProperty: 'hw_mem_encryption',
  }),
  libvirtSpec({
    name: 'hw:mem_encryption_model',
    description:
      'Which memory encryption technology to use when ``hw:mem_encryption`` is on: plain SEV, ' +
      'SEV-ES (also encrypts CPU register state), or SEV-SNP (adds integrity protection).',
    value: {
      type: 'str',
      enum: ['amd-sev', 'amd-sev-es', 'amd-sev-snp'],
      description: 'The encryption model.',
    },
    status: { added: 'flamingo' },
    history: [
      {
        until: 'gazpacho',
        value: { type: 'str', enum: ['amd-sev', 'amd-sev-es'] },
        change: 'Hibiscus added ``amd-sev-snp``.',
      },
    ],
    dependencies: [{ key: 'hw:mem_encryption', value: 'true' }],
    imageProperty: 'hw_mem_encryption_model',
  }),
  libvirtSpec({
    name: 'hw:pmem',
    description:
      'Persistent memory (vPMEM) namespaces to attach, as a comma-separated list of labels ' +
      "from the compute host's configuration, e.g. ``SMALL,LARGE``.",
    value: { type: 'str', pattern: '([a-zA-Z0-9_]+(,)?)+', description: 'Comma-separated labels.' },
    status: { added: 'ussuri' },
  }),
  libvirtSpec({
    name: 'hw:pmu',
    description:
      'Exposes a virtual performance monitoring unit so profilers such as ``perf`` work in the ' +
      'guest. Turning it off lowers latency for real-time guests; unset leaves the choice to ' +
      'the hypervisor.',
    value: { type: 'bool', description: 'Whether the guest gets a vPMU.' },
    status: { added: 'ussuri' },
    imageProperty: 'hw_pmu',
  }),
  libvirtSpec({
    name: 'hw:serial_port_count',
    description: 'Number of serial ports the guest gets.',
    value: { type: 'int', min: 0, description: 'Number of serial ports.' },
    status: { added: 'ussuri' },
    imageProperty: 'hw_serial_port_count',
  }),
  libvirtSpec({
    name: 'hw:tpm_model',
    description: 'Device model of the emulated TPM: ``tpm-tis`` or ``tpm-crb`` (TPM 2.0 only).',
    value: { type: 'str', enum: ['tpm-tis', 'tpm-crb'], description: 'The TPM model.' },
    status: { added: 'victoria' },
    dependencies: [{ key: 'hw:tpm_version' }],
    imageProperty: 'hw_tpm_model',
  }),
  libvirtSpec({
    name: 'hw:tpm_version',
    description:
      'Version of the emulated TPM given to the guest. Setting it is what requests a vTPM; ' +
      'the guest then lands on hosts advertising the matching ``COMPUTE_SECURITY_TPM_*`` trait.',
    value: { type: 'str', enum: ['1.2', '2.0'], description: 'The TPM version.' },
    status: { added: 'victoria' },
    imageProperty: 'hw_tpm_version',
  }),
  libvirtSpec({
    name: 'hw:tpm_secret_security',
    description:
      "Who holds the secret that protects the vTPM's state: ``user`` (the instance owner), " +
      '``host`` (the compute host) or ``deployment`` (a deployment-wide key). The choice decides ' +
      'which operations, such as live migration, remain possible.',
    value: { type: 'str', enum: ['user', 'host', 'deployment'], description: 'The secret policy.' },
    status: { added: 'gazpacho' },
    dependencies: [{ key: 'hw:tpm_version' }],
  }),
  libvirtSpec({
    name: 'hw:watchdog_action',
    description:
      'Adds a watchdog device (an emulated i6300esb) and says what happens when the guest stops ' +
      'servicing it: ``reset``, ``poweroff``, ``pause``, ``none`` (only report), or ``disabled`` ' +
      '(no watchdog device).',
    value: {
      type: 'str',
      enum: ['none', 'pause', 'poweroff', 'reset', 'disabled'],
      description: 'The watchdog action.',
    },
    status: { added: 'ussuri' },
    imageProperty: 'hw_watchdog_action',
  }),
  libvirtSpec({
    name: 'hw:viommu_model',
    description:
      'Adds a virtual IOMMU of this model to the guest (``auto`` lets the driver pick one for ' +
      'the machine type), needed for device assignment inside the guest.',
    value: { type: 'str', enum: ['intel', 'smmuv3', 'virtio', 'auto'], description: 'The vIOMMU model.' },
    status: { added: 'zed' },
    imageProperty: 'hw_viommu_model',
  }),
  libvirtSpec({
    name: 'hw:virtio_packed_ring',
    description:
      'Lets virtio devices negotiate the packed virtqueue layout, which is faster for some ' +
      'workloads. The guest must support it; hosts advertise ``COMPUTE_NET_VIRTIO_PACKED``.',
    value: { type: 'bool', description: 'Whether packed virtqueues are offered.' },
    status: { added: 'caracal' },
    imageProperty: 'hw_virtio_packed_ring',
  }),
  libvirtSpec({
    name: 'hw:sound_model',
    description: 'Adds an emulated sound device of this model. Unset means the guest has no sound device.',
    value: {
      type: 'str',
      enum: ['sb16', 'es1370', 'pcspk', 'ac97', 'ich6', 'ich9', 'usb', 'virtio'],
      description: 'The sound device model.',
    },
    status: { added: 'flamingo' },
    imageProperty: 'hw_sound_model',
  }),
  libvirtSpec({
    name: 'hw:usb_model',
    description:
      'Model of the USB controller given to the guest; ``none`` removes it. Unset keeps the ' +
      "hypervisor's default.",
    value: { type: 'str', enum: ['none', 'nec-xhci', 'qemu-xhci'], description: 'The USB controller model.' },
    status: { added: 'flamingo' },
    imageProperty: 'hw_usb_model',
  }),
  libvirtSpec({
    name: 'hw:redirected_usb_ports',
    description:
      'Number of USB redirection channels (for SPICE clients passing USB devices through), ' +
      'at most 15. Unset means none.',
    value: { type: 'int', min: 0, max: 15, description: 'Number of redirected USB ports.' },
    status: { added: 'flamingo' },
    imageProperty: 'hw_redirected_usb_ports',
  }),
  libvirtSpec({
    name: 'hw:ephemeral_encryption',
    description: 'Encrypts the local ephemeral disks of the instance.',
    value: { type: 'bool', description: 'Whether ephemeral storage is encrypted.' },
    status: { added: 'zed' },
    imageProperty: 'hw_ephemeral_encryption',
  }),
  libvirtSpec({
    name: 'hw:ephemeral_encryption_format',
    description: 'On-disk encryption format of encrypted ephemeral disks.',
    value: { type: 'str', enum: ['plain', 'luks', 'luksv2'], description: 'The encryption format.' },
    status: { added: 'zed' },
    dependencies: [{ key: 'hw:ephemeral_encryption', value: 'true' }],
    imageProperty: 'hw_ephemeral_encryption_format',
  }),
];
