// flavorToRequest against Nova itself (Debian's python3-nova): the same
// generated flavors, images and aggregates go through Nova's scheduler code
// (ResourceRequest.from_request_spec, the isolate_aggregates request filter,
// resources_from_request_spec) and through ours. Both queries must read as
// the same request at Nova's microversion, both sides must refuse the same
// flavors, and Nova must log as many warnings as we return.
import { readFileSync } from 'node:fs';
import { isStackspecError } from '@stackspec/core';
import { describe, expect, it } from 'vitest';
import { oracleAvailable, runPython } from '../../../test-support/python.js';
import {
  type AggregateInfo,
  type FlavorInput,
  type FlavorRequestOptions,
  flavorToRequest,
} from '../src/flavor.js';
import { validatePlacementQuery } from '../src/parse.js';
import type { PlacementQuery } from '../src/request.js';
import { normalizePlacementQuery, serializePlacementQuery } from '../src/serialize.js';
import { chance, int, pick, type Random, seeded } from './support/generate.js';

// Nova (Zed) asks for allocation candidates at 1.36.
const NOVA_MICROVERSION = '1.36';

interface Case {
  flavor: FlavorInput;
  image: Record<string, unknown>;
  aggregates: AggregateInfo[];
  isolate: boolean;
}

const AGGREGATES: AggregateInfo[] = [
  { uuid: '0000000a-0000-4000-8000-00000000000a', metadata: { 'trait:CUSTOM_GOLD': 'required' } },
  { uuid: '0000000b-0000-4000-8000-00000000000b', metadata: { 'trait:HW_CPU_X86_AVX': 'required' } },
  {
    uuid: '0000000c-0000-4000-8000-00000000000c',
    metadata: { 'trait:CUSTOM_GOLD': 'required', 'trait:COMPUTE_SECURITY_TPM_2_0': 'required' },
  },
  {
    uuid: '0000000d-0000-4000-8000-00000000000d',
    metadata: { 'trait:CUSTOM_GOLD': 'optional', ssd: 'true' },
  },
];

/** Flavors as an operator writes them: mostly valid, some of what Nova skips or refuses. */
function generateCase(r: Random): Case {
  const specs: Record<string, string> = {};
  const suffix = () => pick(r, ['', '', '1', '2', '_NIC', '_GPU']);
  const n = int(r, 0, 5);
  for (let i = 0; i < n; i += 1) {
    const k = r();
    if (k < 0.3) {
      const rc = pick(r, [
        'VCPU',
        'PCPU',
        'MEMORY_MB',
        'DISK_GB',
        'SRIOV_NET_VF',
        'VGPU',
        'CUSTOM_FPGA',
        'VCPUS',
      ]);
      specs[`resources${suffix()}:${rc}`] = pick(r, ['0', '1', '1', '2', '8', '-1', 'x', '01', ' 3 ']);
    } else if (k < 0.55) {
      const trait = pick(r, [
        'HW_CPU_X86_AVX',
        'CUSTOM_GOLD',
        'HW_CPU_HYPERTHREADING',
        'COMPUTE_SECURITY_TPM_2_0',
      ]);
      specs[`trait${suffix()}:${trait}`] = pick(r, ['required', 'required', 'forbidden', 'maybe']);
    } else if (k < 0.62) specs.group_policy = pick(r, ['none', 'isolate', 'bogus']);
    else if (k < 0.75) {
      specs['hw:cpu_policy'] = pick(r, ['shared', 'dedicated', 'dedicated', 'mixed', 'mixed', 'bogus']);
      if (chance(r, 0.5))
        specs['hw:cpu_dedicated_mask'] = pick(r, ['^0', '0-1', '^0-1', '7', '0-99', 'a', '1-0']);
      if (chance(r, 0.3)) specs['hw:cpu_realtime'] = pick(r, ['yes', 'no']);
      if (chance(r, 0.3)) specs['hw:cpu_realtime_mask'] = pick(r, ['^0', '0-1', '^0-3']);
      if (chance(r, 0.4)) specs['hw:emulator_threads_policy'] = pick(r, ['share', 'isolate', 'x']);
    } else if (k < 0.8) specs['hw:cpu_thread_policy'] = pick(r, ['prefer', 'isolate', 'require', 'x']);
    else if (k < 0.85) specs['hw:mem_encryption'] = pick(r, ['true', 'false', 'yes', 'no']);
    else if (k < 0.9) {
      specs['hw:tpm_version'] = pick(r, ['1.2', '2.0', '2.0', '3']);
      if (chance(r, 0.5)) specs['hw:tpm_model'] = pick(r, ['tpm-tis', 'tpm-crb', 'x']);
    } else if (k < 0.93) specs['os:secure_boot'] = pick(r, ['required', 'disabled', 'optional', 'x']);
    else if (k < 0.96)
      specs['hw:pci_numa_affinity_policy'] = pick(r, ['socket', 'required', 'preferred', 'x']);
    else specs['hw:pmem'] = pick(r, ['4GB', '4GB,4GB,SMALL', 'a-b, c.d', ',']);
  }
  const image: Record<string, unknown> = {};
  if (chance(r, 0.3))
    image.traits_required = [pick(r, ['CUSTOM_GOLD', 'HW_CPU_X86_AVX', 'HW_CPU_HYPERTHREADING'])];
  if (chance(r, 0.1)) image.hw_cpu_policy = pick(r, ['shared', 'dedicated', 'mixed']);
  if (chance(r, 0.1)) image.hw_cpu_thread_policy = pick(r, ['prefer', 'isolate', 'require']);
  if (chance(r, 0.1)) image.hw_mem_encryption = pick(r, [true, false]);
  if (chance(r, 0.3)) image.hw_firmware_type = pick(r, ['uefi', 'uefi', 'bios']);
  if (chance(r, 0.1)) image.hw_machine_type = pick(r, ['q35', 'pc-q35-7.2', 'pc-i440fx-7.2']);
  if (chance(r, 0.1)) image.hw_tpm_version = pick(r, ['1.2', '2.0']);
  if (chance(r, 0.05)) image.hw_tpm_model = pick(r, ['tpm-tis', 'tpm-crb']);
  if (chance(r, 0.1)) image.os_secure_boot = pick(r, ['required', 'disabled', 'optional']);
  if (chance(r, 0.05)) image.hw_pci_numa_affinity_policy = pick(r, ['socket', 'legacy']);
  if (chance(r, 0.05)) image.hw_cpu_realtime_mask = pick(r, ['^0', '0']);
  return {
    flavor: {
      vcpus: int(r, 1, 8),
      memory_mb: pick(r, [0, 512, 2048]),
      root_gb: pick(r, [0, 10, 20]),
      ephemeral_gb: pick(r, [0, 0, 5]),
      swap: pick(r, [0, 0, 512, 1025]),
      is_bfv: chance(r, 0.2),
      extra_specs: specs,
    },
    image,
    aggregates: AGGREGATES,
    isolate: chance(r, 0.4),
  };
}

/** A request in a form where the order of groups, of ANDed sets and of keys does not count. */
function canonical(request: PlacementQuery): string {
  const n = normalizePlacementQuery(request);
  const sets = (list: string[][]) => list.map((s) => s.join(',')).sort();
  const value =
    n.endpoint === 'allocation_candidates'
      ? {
          ...n,
          groups: [...n.groups]
            .sort((a, b) => (a.suffix < b.suffix ? -1 : 1))
            .map((g) => ({ ...g, requiredTraits: sets(g.requiredTraits), memberOf: sets(g.memberOf) })),
        }
      : n;
  return JSON.stringify(value, (_k, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).sort()) : v,
  );
}

/** Nova reads required image traits from Glance's `trait:NAME: required` properties. */
function novaImage(image: Record<string, unknown>): Record<string, unknown> {
  const { traits_required, ...rest } = image;
  for (const t of (traits_required as string[] | undefined) ?? []) rest[`trait:${t}`] = 'required';
  return rest;
}

interface NovaAnswer {
  query?: string;
  warnings?: string[];
  error?: string;
  message?: string;
}

function askNova(cases: readonly Case[]): NovaAnswer[] {
  const script = readFileSync(new URL('./support/nova-flavor.py', import.meta.url), 'utf8');
  const out = runPython(script, JSON.stringify(cases.map((c) => ({ ...c, image: novaImage(c.image) }))));
  return out
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as NovaAnswer);
}

function ours(c: Case) {
  const options: FlavorRequestOptions = {
    microversion: NOVA_MICROVERSION,
    image: c.image as FlavorRequestOptions['image'],
    aggregates: c.aggregates,
    isolateAggregates: c.isolate,
  };
  try {
    return { result: flavorToRequest(c.flavor, options) };
  } catch (error) {
    if (!isStackspecError(error)) throw error;
    return { error };
  }
}

describe.runIf(oracleAvailable('nova', ['nova.scheduler.utils']))('flavorToRequest against Nova', () => {
  it('builds the request Nova builds for 600 generated flavors and images', () => {
    const r = seeded(20261125);
    const cases = Array.from({ length: 600 }, () => generateCase(r));
    const answers = askNova(cases);
    expect(answers).toHaveLength(cases.length);
    const differences: string[] = [];
    const tally = { same: 0, refused: 0, warned: 0 };
    const refusals = new Map<string, number>();
    cases.forEach((c, i) => {
      const nova = answers[i] as NovaAnswer;
      const mine = ours(c);
      const label = `#${i} ${JSON.stringify(c.flavor.extra_specs)} image ${JSON.stringify(c.image)}`;
      if (nova.error) {
        refusals.set(nova.error, (refusals.get(nova.error) ?? 0) + 1);
        if (mine.error?.code === 'placement-query/flavor/invalid-hardware') tally.refused += 1;
        else
          differences.push(
            `${label}\n  Nova refuses (${nova.error}: ${nova.message}); ours: ${mine.error?.message ?? 'a request'}`,
          );
        return;
      }
      if (!mine.result) {
        differences.push(`${label}\n  Nova: ${nova.query}; ours refuses: ${mine.error?.message}`);
        return;
      }
      const theirs = validatePlacementQuery('allocation_candidates', nova.query as string, NOVA_MICROVERSION);
      let text: string;
      try {
        text = serializePlacementQuery(mine.result.request);
      } catch (e) {
        if (!theirs.ok && isStackspecError(e) && e.status === 400) {
          tally.same += 1; // Placement would refuse both queries.
          return;
        }
        differences.push(`${label}\n  ours cannot be written: ${(e as Error).message}; Nova: ${nova.query}`);
        return;
      }
      const back = validatePlacementQuery('allocation_candidates', text, NOVA_MICROVERSION);
      if (!theirs.ok || !back.ok) {
        differences.push(`${label}\n  Nova ${nova.query} / ours ${text}: one does not parse`);
        return;
      }
      if (canonical(back.request) !== canonical(theirs.request)) {
        differences.push(`${label}\n  Nova: ${decodeURIComponent(nova.query as string)}\n  ours: ${text}`);
        return;
      }
      const warnings = mine.result.diagnostics.filter((d) => d.severity === 'warning').length;
      if (warnings !== (nova.warnings?.length ?? 0)) {
        differences.push(
          `${label}\n  warnings: Nova ${JSON.stringify(nova.warnings)}; ours ${JSON.stringify(mine.result.diagnostics.map((d) => d.message))}`,
        );
        return;
      }
      if (warnings) tally.warned += 1;
      tally.same += 1;
    });
    console.log('flavorToRequest vs Nova:', tally, 'Nova refusals:', Object.fromEntries(refusals));
    expect(differences).toEqual([]);
    // The generator reaches refusals, warnings and plain translations alike.
    expect(tally.refused).toBeGreaterThan(30);
    expect(tally.warned).toBeGreaterThan(30);
    expect(tally.same).toBeGreaterThan(300);
  }, 120_000);

  it("writes required traits in Nova's comma form and keeps limit=1000", () => {
    const c: Case = {
      flavor: {
        vcpus: 2,
        memory_mb: 1024,
        extra_specs: {
          'trait:HW_CPU_X86_AVX': 'required',
          'trait:CUSTOM_GOLD': 'required',
          'trait:CUSTOM_SLOW': 'forbidden',
          'resources1:SRIOV_NET_VF': '1',
          'trait1:CUSTOM_PHYSNET1': 'required',
        },
      },
      image: {},
      aggregates: [],
      isolate: false,
    };
    const [nova] = askNova([c]);
    const text = serializePlacementQuery(ours(c).result?.request as never);
    const novaParams = new URLSearchParams(nova?.query);
    const ourParams = new URLSearchParams(text);
    expect(novaParams.get('required')).toBe('CUSTOM_GOLD,HW_CPU_X86_AVX,!CUSTOM_SLOW');
    expect(ourParams.get('required')).toBe('CUSTOM_GOLD,HW_CPU_X86_AVX,!CUSTOM_SLOW');
    expect(ourParams.get('limit')).toBe(novaParams.get('limit'));
    expect(ourParams.get('limit')).toBe('1000');
    // At 1.39 too: singletons stay one comma-separated parameter.
    const at39 = flavorToRequest(c.flavor, { microversion: '1.39' }).request;
    expect(new URLSearchParams(serializePlacementQuery(at39)).getAll('required')).toEqual([
      'CUSTOM_GOLD,HW_CPU_X86_AVX,!CUSTOM_SLOW',
    ]);
  }, 60_000);
});
