import { isStackspecError } from '@stackspec/core';
import { describe, expect, it } from 'vitest';
import { type AggregateInfo, flavorToRequest } from './flavor.js';
import { parseAllocationCandidatesQuery } from './parse.js';
import { serializePlacementQuery } from './serialize.js';

const FREE_POOL = '0000000f-0000-4000-8000-000000000001';
const RESV_1 = '0000000f-0000-4000-8000-000000000002';
const RESV_2 = '0000000f-0000-4000-8000-000000000003';
const GPU = '0000000f-0000-4000-8000-000000000004';
const aggregates: AggregateInfo[] = [
  { uuid: FREE_POOL, metadata: { reservation: 'freepool' } },
  { uuid: RESV_1, metadata: { reservation: 'r-1' } },
  { uuid: RESV_2, metadata: { reservation: 'r-2', other: 'x' } },
  { uuid: GPU, metadata: { 'trait:CUSTOM_GPU': 'required' } },
];
const blazar = {
  aggregates,
  requiredMemberPrefix: 'reservation:',
  defaultForbiddenMemberPrefixes: ['reservation:'],
};

describe('flavorToRequest', () => {
  it('takes VCPU, MEMORY_MB and DISK_GB from the flavor (swap rounded up, root skipped when booting from volume)', () => {
    const { request } = flavorToRequest({
      vcpus: 2,
      memory_mb: 2048,
      root_gb: 20,
      ephemeral_gb: 5,
      swap: 1025,
    });
    expect(request.groups).toEqual([
      {
        suffix: '',
        resources: { VCPU: 2, MEMORY_MB: 2048, DISK_GB: 27 },
        requiredTraits: [],
        forbiddenTraits: [],
        memberOf: [],
        forbiddenAggregates: [],
      },
    ]);
    expect(request.limit).toBe(1000);
    const bfv = flavorToRequest({ vcpus: 1, memory_mb: 512, root_gb: 20, is_bfv: true }).request;
    expect(bfv.groups[0]?.resources).toEqual({ VCPU: 1, MEMORY_MB: 512 });
  });

  it('lets resources[$S] and trait[$S] extra specs override and add groups', () => {
    const { request, diagnostics } = flavorToRequest({
      vcpus: 4,
      memory_mb: 1024,
      root_gb: 10,
      extra_specs: {
        'resources:DISK_GB': '0',
        'resources:VCPU': '8',
        'resources1:SRIOV_NET_VF': '1',
        'trait1:CUSTOM_PHYSNET1': 'required',
        'resources_GPU:VGPU': '1',
        'trait_GPU:CUSTOM_SLOW': 'forbidden',
        'trait:HW_CPU_X86_AVX': 'required',
        group_policy: 'isolate',
      },
    });
    expect(diagnostics).toEqual([]);
    expect(request.groupPolicy).toBe('isolate');
    expect(request.groups.map((g) => [g.suffix, g.resources])).toEqual([
      ['', { VCPU: 8, MEMORY_MB: 1024 }],
      ['1', { SRIOV_NET_VF: 1 }],
      ['_GPU', { VGPU: 1 }],
    ]);
    expect(request.groups[2]?.forbiddenTraits).toEqual(['CUSTOM_SLOW']);
    expect(serializePlacementQuery(request)).toBe(
      'resources=VCPU:8,MEMORY_MB:1024&required=HW_CPU_X86_AVX&resources1=SRIOV_NET_VF:1&required1=CUSTOM_PHYSNET1&resources_GPU=VGPU:1&required_GPU=!CUSTOM_SLOW&limit=1000&group_policy=isolate',
    );
  });

  it('warns about what Nova would skip and points at the key', () => {
    const { diagnostics, request } = flavorToRequest({
      vcpus: 1,
      memory_mb: 1,
      extra_specs: {
        'resources:VCPUS': '1',
        'resources:VCPU': '-1',
        'trait:X': 'maybe',
        group_policy: 'all',
      },
    });
    expect(diagnostics.map((d) => [d.code, d.path])).toEqual([
      ['placement-query/flavor/invalid-resource-class', '/extra_specs/resources:VCPUS'],
      ['placement-query/flavor/invalid-amount', '/extra_specs/resources:VCPU'],
      ['placement-query/flavor/invalid-trait-value', '/extra_specs/trait:X'],
      ['placement-query/flavor/invalid-group-policy', '/extra_specs/group_policy'],
    ]);
    expect(request.groups[0]?.resources).toEqual({ VCPU: 1, MEMORY_MB: 1 });
  });

  it('translates CPU pinning, thread policy and memory encryption', () => {
    const flavor = {
      vcpus: 4,
      memory_mb: 1,
      extra_specs: {
        'hw:cpu_policy': 'dedicated',
        'hw:emulator_threads_policy': 'isolate',
        'hw:cpu_thread_policy': 'isolate',
        'hw:mem_encryption': 'True',
      },
    };
    const { request } = flavorToRequest(flavor, { image: { hw_firmware_type: 'uefi' } });
    expect(request.groups[0]?.resources).toEqual({ PCPU: 5, MEMORY_MB: 1, MEM_ENCRYPTION_CONTEXT: 1 });
    expect(request.groups[0]?.forbiddenTraits).toEqual(['HW_CPU_HYPERTHREADING']);
    // Nova's API refuses memory encryption without a UEFI image.
    expect(() => flavorToRequest(flavor)).toThrow(
      expect.objectContaining({
        code: 'placement-query/flavor/invalid-hardware',
        diagnostics: [expect.objectContaining({ path: '/extra_specs/hw:mem_encryption' })],
      }),
    );
  });

  it('splits a mixed instance by its dedicated mask, emulator threads on a PCPU of their own', () => {
    const { request } = flavorToRequest({
      vcpus: 4,
      memory_mb: 1,
      extra_specs: {
        'hw:cpu_policy': 'mixed',
        'hw:cpu_dedicated_mask': '^0',
        'hw:emulator_threads_policy': 'isolate',
      },
    });
    expect(request.groups[0]?.resources).toEqual({ VCPU: 1, PCPU: 4, MEMORY_MB: 1 });
    const realtime = flavorToRequest({
      vcpus: 4,
      memory_mb: 1,
      extra_specs: { 'hw:cpu_policy': 'mixed', 'hw:cpu_realtime': 'yes', 'hw:cpu_realtime_mask': '^0-1' },
    }).request;
    expect(realtime.groups[0]?.resources).toEqual({ VCPU: 2, PCPU: 2, MEMORY_MB: 1 });
    for (const mask of ['0-3', '7', '1-0', 'a']) {
      expect(() =>
        flavorToRequest({
          vcpus: 4,
          extra_specs: { 'hw:cpu_policy': 'mixed', 'hw:cpu_dedicated_mask': mask },
        }),
      ).toThrow(expect.objectContaining({ code: 'placement-query/flavor/invalid-hardware' }));
    }
  });

  it('requires the traits of vTPM, secure boot and socket PCI NUMA affinity, and counts pmem namespaces', () => {
    const { request } = flavorToRequest(
      {
        vcpus: 1,
        memory_mb: 1,
        extra_specs: {
          'hw:tpm_version': '1.2',
          'hw:pci_numa_affinity_policy': 'socket',
          'hw:pmem': '4GB, 4GB,small-1',
        },
      },
      { image: { os_secure_boot: 'required' } },
    );
    expect(request.groups[0]?.requiredTraits).toEqual([
      ['COMPUTE_SECURITY_TPM_1_2'],
      ['COMPUTE_SECURITY_UEFI_SECURE_BOOT'],
      ['COMPUTE_SOCKET_PCI_NUMA_AFFINITY'],
    ]);
    expect(request.groups[0]?.resources).toMatchObject({
      CUSTOM_PMEM_NAMESPACE_4GB: 2,
      CUSTOM_PMEM_NAMESPACE_SMALL_1: 1,
    });
    expect(() =>
      flavorToRequest({ vcpus: 1, extra_specs: { 'hw:tpm_version': '1.2', 'hw:tpm_model': 'tpm-crb' } }),
    ).toThrow(expect.objectContaining({ code: 'placement-query/flavor/invalid-hardware' }));
    expect(() =>
      flavorToRequest(
        { vcpus: 1, extra_specs: { 'os:secure_boot': 'required' } },
        { image: { os_secure_boot: 'disabled' } },
      ),
    ).toThrow(/conflicts with the image/);
  });

  it('rejects image properties Nova would not accept, pointing at them', () => {
    expect(() => flavorToRequest({ vcpus: 1 }, { image: { hw_cpu_policy: 'pinned' } as never })).toThrow(
      expect.objectContaining({
        code: 'placement-query/invalid-image',
        diagnostics: [expect.objectContaining({ path: '/image/hw_cpu_policy' })],
      }),
    );
  });

  it("reads member_of[$S] extra specs in Placement's syntax", () => {
    const { request, diagnostics } = flavorToRequest({
      vcpus: 1,
      memory_mb: 1,
      extra_specs: {
        member_of: `in:${RESV_1},${RESV_2}`,
        member_of1: `!${GPU}`,
        'resources1:VGPU': '1',
        member_of2: `in:${GPU},!${RESV_1}`,
      },
    });
    expect(request.groups[0]?.memberOf).toEqual([[RESV_1, RESV_2]]);
    expect(request.groups[1]?.forbiddenAggregates).toEqual([GPU]);
    expect(diagnostics[0]?.message).toMatch(/valid UUID\(s\)\. Got: !/);
  });

  it("keeps non-reserved instances out of every reservation aggregate (the spec's Blazar flow)", () => {
    const { request } = flavorToRequest({ vcpus: 1, memory_mb: 512 }, blazar);
    expect(request.groups[0]?.forbiddenAggregates).toEqual([FREE_POOL, RESV_1, RESV_2].sort());
    expect(request.groups[0]?.memberOf).toEqual([]);
    const text = serializePlacementQuery(request);
    expect(text).toContain(`member_of=!in:${[FREE_POOL, RESV_1, RESV_2].sort().join(',')}`);
    expect(parseAllocationCandidatesQuery(text, '1.39').groups[0]?.forbiddenAggregates).toHaveLength(3);
  });

  it('sends reserved instances to their reservation aggregate and forbids nothing', () => {
    const { request } = flavorToRequest(
      { vcpus: 1, memory_mb: 512, extra_specs: { reservation: 'r-2' } },
      blazar,
    );
    expect(request.groups[0]?.memberOf).toEqual([[RESV_2]]);
    expect(request.groups[0]?.forbiddenAggregates).toEqual([]);
    expect(serializePlacementQuery(request)).toContain(`member_of=${RESV_2}`);
  });

  it('refuses a reservation that no aggregate carries', () => {
    try {
      flavorToRequest({ vcpus: 1, extra_specs: { reservation: 'gone' } }, blazar);
      expect.unreachable();
    } catch (e) {
      expect(isStackspecError(e) && e.code).toBe('placement-query/unknown-reservation');
    }
  });

  it("isolates aggregates that require a trait the request lacks (Nova's isolated aggregate filtering)", () => {
    const plain = flavorToRequest({ vcpus: 1 }, { aggregates, isolateAggregates: true }).request;
    expect(plain.groups[0]?.forbiddenAggregates).toEqual([GPU]);
    const gpu = flavorToRequest(
      { vcpus: 1, extra_specs: { 'trait:CUSTOM_GPU': 'required' } },
      { aggregates, isolateAggregates: true },
    ).request;
    expect(gpu.groups[0]?.forbiddenAggregates).toEqual([]);
  });

  it('defaults group_policy to none only when at most one numbered group came from the flavor', () => {
    const two = flavorToRequest({
      vcpus: 1,
      extra_specs: { 'resources1:VGPU': '1', 'resources2:VGPU': '1' },
    });
    expect(two.request.groupPolicy).toBeUndefined();
    expect(two.diagnostics[0]?.code).toBe('placement-query/flavor/missing-group-policy');
  });

  it('rejects a malformed flavor with a located error', () => {
    try {
      flavorToRequest({ vcpus: -1 } as never);
      expect.unreachable();
    } catch (e) {
      expect(isStackspecError(e) && e.diagnostics[0]?.path).toBe('/vcpus');
    }
  });
});
