import { builtinRegistry, checkNovaExtraSpec, validateExtraSpecs } from './src/index.ts';

const z = builtinRegistry('zed');
for (const [k, v] of [
  ['hw:cpu_policy', 'dedicatd'],
  ['hw:numa_cpus.{num}', '0'],
  ['hw:numa_cpusX0', '0-1'],
  ['traits:HW_CPU_X86_AVX2', 'required'],
  ['trait1:CUSTOM_FOO', 'forbidden'],
  ['resources:VCPU', '-4'],
  ['os:monitors', ' +09'],
  ['hw:cpu_policy:x', 'a'],
  ['foo:bar', 'x'],
  ['aggregate_instance_extra_specs:{key}', 'x'],
  ['capabilities:cpu_info:ü', 'x'],
  ['hw:numa_cpus.٣', '0'],
  ['hw:pmem', 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!'],
  ['hw:max_cpu_sockets', '2'],
  ['hw:cpu_max_sockets', '2'],
])
  console.log(JSON.stringify(k), JSON.stringify(v), '=>', checkNovaExtraSpec(k, v, z));
console.log(
  JSON.stringify(
    validateExtraSpecs(
      {
        'hw:cpu_polcy': 'dedicated',
        'hw:cpu_policy': 'Dedicated',
        'hw:max_cpu_sockets': '2',
        hide_hypervisor_id: 'true',
        'hw:numa_nodes': '2.0',
        'hw:sound_model': 'x',
        'hw:numa_cpus.{num}': '0',
      },
      { release: 'zed' },
    ),
    null,
    1,
  ),
);
