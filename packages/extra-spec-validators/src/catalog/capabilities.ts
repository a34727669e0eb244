import { defineExtraSpec, type ExtraSpecDefinition } from '../define.js';

const OPERATORS =
  'The value is a filter expression (a plain value, or ``=``, ``==``, ``!=``, ``>=``, ``<=``, ' +
  '``s==``, ``s!=``, ``s>=``, ``s>``, ``s<=``, ``s<``, ``<in>``, ``<all-in>`` or ``<or>`` ' +
  'followed by a value); Nova does not check its syntax.';

/** Host state fields compared as a whole. */
export const PLAIN_CAPABILITIES = [
  'id',
  'uuid',
  'service_id',
  'host',
  'vcpus',
  'memory_mb',
  'local_gb',
  'vcpus_used',
  'memory_mb_used',
  'local_gb_used',
  'hypervisor_type',
  'hypervisor_version',
  'hypervisor_hostname',
  'free_ram_mb',
  'free_disk_gb',
  'current_workload',
  'running_vms',
  'disk_available_least',
  'host_ip',
  'mapped',
  'cpu_allocation_ratio',
  'ram_allocation_ratio',
  'disk_allocation_ratio',
  'total_usable_ram_mb',
  'total_usable_disk_gb',
  'disk_mb_used',
  'free_disk_mb',
  'vcpus_total',
  'num_instances',
  'num_io_ops',
  'failed_builds',
  'aggregates',
  'cell_uuid',
  'updated',
] as const;

/** Host state fields that are structures; a `:`-separated path may pick a member. */
export const NESTED_CAPABILITIES = [
  'cpu_info',
  'metrics',
  'stats',
  'numa_topology',
  'supported_hv_specs',
  'pci_device_pools',
  'nodename',
  'pci_stats',
  'supported_instances',
  'limits',
  'instances',
] as const;

/** `capabilities:` — the ComputeCapabilitiesFilter, which compares host state with the value. */
export const CAPABILITIES_SPECS: readonly ExtraSpecDefinition[] = [
  ...PLAIN_CAPABILITIES.map((field) =>
    defineExtraSpec({
      name: `capabilities:${field}`,
      description: `Only hosts whose \`\`${field}\`\` satisfies the value are eligible (ComputeCapabilitiesFilter). ${OPERATORS}`,
      value: { type: 'str', description: 'A filter expression.' },
      status: { added: 'ussuri' },
    }),
  ),
  ...NESTED_CAPABILITIES.map((field) =>
    defineExtraSpec({
      name: `capabilities:${field}{filter}`,
      description:
        `Only hosts whose \`\`${field}\`\` (or the member picked by a path such as ` +
        `\`\`capabilities:${field}:member\`\`) satisfies the value are eligible ` +
        `(ComputeCapabilitiesFilter). ${OPERATORS}`,
      parameters: [
        {
          name: 'filter',
          pattern: '(:\\w+)*',
          description: 'Optional path into the structure, each step written as ``:name``.',
        },
      ],
      value: { type: 'str', description: 'A filter expression.' },
      status: { added: 'ussuri' },
    }),
  ),
];
