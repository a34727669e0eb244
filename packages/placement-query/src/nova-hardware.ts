// How Nova reads the hardware extra specs and image properties that change
// its Placement request (CPU policies, masks, vTPM, secure boot, memory
// encryption, PCI NUMA affinity, persistent memory), with the refusals Nova's
// API would give. Internal to flavorToRequest.
import { createDiagnostic, pyInt, pyStrip, ValidationError } from '@stackspec/core';
import { z } from 'zod';

/**
 * The image properties that change Nova's Placement request, with the
 * values Nova's image metadata accepts. Other properties are allowed and
 * ignored; Glance's `trait:NAME: required` properties are required traits
 * (as is the list `traits_required`).
 */
export const ImagePropertiesSchema = z.looseObject({
  traits_required: z.array(z.string()).optional(),
  hw_cpu_policy: z.enum(['shared', 'dedicated', 'mixed']).optional(),
  hw_cpu_thread_policy: z.enum(['prefer', 'isolate', 'require']).optional(),
  hw_cpu_realtime_mask: z.string().optional(),
  hw_mem_encryption: z.union([z.boolean(), z.string()]).optional(),
  hw_firmware_type: z.enum(['bios', 'uefi']).optional(),
  hw_machine_type: z.string().optional(),
  hw_tpm_version: z.enum(['1.2', '2.0']).optional(),
  hw_tpm_model: z.enum(['tpm-tis', 'tpm-crb']).optional(),
  os_secure_boot: z.enum(['required', 'disabled', 'optional']).optional(),
  hw_pci_numa_affinity_policy: z.enum(['required', 'legacy', 'preferred', 'socket']).optional(),
});
/** Image properties read by {@link ImagePropertiesSchema}. */
export type ImageProperties = z.infer<typeof ImagePropertiesSchema>;

/** The image's required traits: `trait:NAME: required` properties, then `traits_required`. */
export function imageTraits(image: ImageProperties): string[] {
  const out: string[] = [];
  for (const [k, v] of Object.entries(image)) {
    if (k.startsWith('trait:') && String(v) === 'required') out.push(k.slice(6));
  }
  return [...out, ...(image.traits_required ?? [])];
}

type Specs = Readonly<Record<string, string>>;

function pointer(key: string): string {
  return `/extra_specs/${key.replaceAll('~', '~0').replaceAll('/', '~1')}`;
}

/** A flavor (and image) Nova's API would refuse: `placement-query/flavor/invalid-hardware` at the extra spec. */
export function hardwareError(key: string, message: string, hint?: string): ValidationError {
  return new ValidationError(message, {
    code: 'placement-query/flavor/invalid-hardware',
    diagnostics: [
      createDiagnostic({
        code: 'placement-query/flavor/invalid-hardware',
        message,
        path: pointer(key),
        ...(hint ? { hint } : {}),
      }),
    ],
  });
}

/** Refuses a value outside `allowed`, naming them. */
function oneOf(key: string, value: string | undefined, allowed: readonly string[]): void {
  if (!value || allowed.includes(value)) return;
  const list = `${allowed.slice(0, -1).join(', ')} or ${allowed[allowed.length - 1]}`;
  throw hardwareError(key, `${key} must be ${list}, not '${value}'.`);
}

const TRUE_WORDS = new Set(['1', 't', 'true', 'on', 'y', 'yes']);

/** oslo's `bool_from_string` (not strict): only the usual true words are true. */
export function boolFromString(value: string | boolean): boolean {
  if (typeof value === 'boolean') return value;
  return TRUE_WORDS.has(pyStrip(value).toLowerCase());
}

/**
 * Nova's CPU set syntax (`0-3,^2,5`): ranges, single CPUs and `^` exclusions,
 * empty items skipped; numbers are read like Python's `int()`.
 */
export function parseCpuSpec(spec: string, key: string): Set<number> {
  const include = new Set<number>();
  const exclude = new Set<number>();
  const bad = (what: string, rule: string) =>
    hardwareError(key, `Invalid ${what} expression '${rule}' in ${key}.`, 'write CPUs like 0-3,^2,5');
  const int = (text: string, what: string, rule: string) => {
    const n = pyInt(text);
    if (!n.ok || n.value > 1_000_000n || n.value < -1_000_000n) throw bad(what, rule);
    return Number(n.value);
  };
  for (const raw of spec.split(',')) {
    const rule = pyStrip(raw);
    if (!rule) continue;
    const dash = rule.indexOf('-');
    if (dash >= 0) {
      let first = rule.slice(0, dash);
      const reject = first.startsWith('^');
      if (reject) first = first.slice(1);
      const start = int(first, 'range', rule);
      const end = int(rule.slice(dash + 1), 'range', rule);
      if (start > end) throw bad('range', rule);
      for (let c = start; c <= end; c += 1) (reject ? exclude : include).add(c);
    } else if (rule.startsWith('^')) {
      exclude.add(int(rule.slice(1), 'exclusion', rule));
    } else {
      include.add(int(rule, 'inclusion', rule));
    }
  }
  for (const c of exclude) include.delete(c);
  return include;
}

function cpuRange(vcpus: number): Set<number> {
  return new Set(Array.from({ length: vcpus }, (_, i) => i));
}

function mask(spec: string, vcpus: number, key: string): Set<number> {
  return pyStrip(spec).startsWith('^')
    ? parseCpuSpec(`0-${vcpus - 1},${spec}`, key)
    : parseCpuSpec(spec, key);
}

function isSubset(a: ReadonlySet<number>, b: ReadonlySet<number>): boolean {
  for (const x of a) if (!b.has(x)) return false;
  return true;
}

/** The flavor's CPU policy, or the image's when the flavor sets none (conflicts refused). */
export function cpuPolicy(specs: Specs, image: ImageProperties): string | undefined {
  const flavor = specs['hw:cpu_policy'];
  const fromImage = image.hw_cpu_policy;
  oneOf('hw:cpu_policy', flavor, ['shared', 'dedicated', 'mixed']);
  if (flavor === 'dedicated') return flavor;
  if (flavor === 'mixed' || flavor === 'shared') {
    if (fromImage === 'dedicated' || (flavor === 'shared' && fromImage === 'mixed')) {
      throw hardwareError(
        'hw:cpu_policy',
        `The image asks for hw_cpu_policy=${fromImage}, which the flavor's hw:cpu_policy=${flavor} forbids.`,
      );
    }
    return flavor;
  }
  return fromImage;
}

/** The CPU thread policy; the image's counts unless the flavor sets one other than `prefer`. */
export function cpuThreadPolicy(specs: Specs, image: ImageProperties): string | undefined {
  const flavor = specs['hw:cpu_thread_policy'];
  const fromImage = image.hw_cpu_thread_policy;
  oneOf('hw:cpu_thread_policy', flavor, ['prefer', 'isolate', 'require']);
  if (flavor === undefined || flavor === '' || flavor === 'prefer') return flavor || fromImage;
  if (fromImage && fromImage !== flavor) {
    throw hardwareError(
      'hw:cpu_thread_policy',
      `The image asks for hw_cpu_thread_policy=${fromImage}, which conflicts with the flavor's ${flavor}.`,
    );
  }
  return flavor;
}

/** `hw:emulator_threads_policy`, checked. */
export function emulatorThreadsPolicy(specs: Specs): string | undefined {
  const policy = specs['hw:emulator_threads_policy'];
  if (!policy) return undefined;
  oneOf('hw:emulator_threads_policy', policy, ['share', 'isolate']);
  return policy;
}

/** The dedicated CPUs of a mixed instance (`hw:cpu_dedicated_mask`), if given. */
export function dedicatedCpus(specs: Specs, vcpus: number): Set<number> | undefined {
  const text = specs['hw:cpu_dedicated_mask'];
  if (!text) return undefined;
  const key = 'hw:cpu_dedicated_mask';
  const pcpus = mask(text, vcpus, key);
  const all = cpuRange(vcpus);
  const shared = [...all].filter((c) => !pcpus.has(c));
  if (!pcpus.size || !shared.length) {
    throw hardwareError(
      key,
      `hw:cpu_dedicated_mask must leave some of the flavor's ${vcpus} vCPUs dedicated and some shared.`,
    );
  }
  if (!isSubset(pcpus, all)) {
    throw hardwareError(key, `hw:cpu_dedicated_mask names vCPUs beyond the flavor's ${vcpus}.`);
  }
  return pcpus;
}

/** The realtime CPUs (`hw:cpu_realtime` with the image's or the flavor's mask), if realtime is on. */
export function realtimeCpus(specs: Specs, image: ImageProperties, vcpus: number): Set<number> | undefined {
  const on = specs['hw:cpu_realtime'];
  if (on === undefined || !boolFromString(on)) return undefined;
  const key = 'hw:cpu_realtime_mask';
  const text = image.hw_cpu_realtime_mask || specs[key];
  const all = cpuRange(vcpus);
  const rt = text ? mask(text, vcpus, key) : all;
  if (!rt.size) throw hardwareError(key, 'hw:cpu_realtime_mask leaves no realtime vCPU.');
  const every = rt.size === all.size && isSubset(all, rt);
  if (every && !emulatorThreadsPolicy(specs)) {
    throw hardwareError(
      key,
      'With every vCPU realtime, an emulator threads policy is needed.',
      'set hw:cpu_realtime_mask (such as ^0) or hw:emulator_threads_policy',
    );
  }
  if (!isSubset(rt, all)) {
    throw hardwareError(key, `hw:cpu_realtime_mask names vCPUs beyond the flavor's ${vcpus}.`);
  }
  return rt;
}

/** Whether guest memory encryption is asked for, refusing what Nova's API refuses. */
export function memoryEncryption(specs: Specs, image: ImageProperties): boolean {
  const key = 'hw:mem_encryption';
  const flavorText = specs[key];
  const flavor = flavorText === undefined ? undefined : boolFromString(flavorText);
  const fromImage =
    image.hw_mem_encryption === undefined ? undefined : boolFromString(image.hw_mem_encryption);
  if (!flavor && !fromImage) return false;
  if (flavor !== undefined && fromImage !== undefined && flavor !== fromImage) {
    throw hardwareError(key, `hw:mem_encryption=${flavorText} conflicts with the image's hw_mem_encryption.`);
  }
  if (image.hw_firmware_type !== 'uefi') {
    throw hardwareError(
      key,
      'Memory encryption needs an image with hw_firmware_type=uefi.',
      'boot from a UEFI image or drop hw:mem_encryption',
    );
  }
  if (image.hw_machine_type !== undefined && !image.hw_machine_type.includes('q35')) {
    throw hardwareError(key, `Memory encryption needs a q35 machine type, not ${image.hw_machine_type}.`);
  }
  return true;
}

/** A value the flavor and the image may both give; when both do they must agree. */
function unique(specs: Specs, image: ImageProperties, key: string, imageKey: keyof ImageProperties) {
  const flavor = specs[key];
  const fromImage = image[imageKey] as string | undefined;
  if (flavor && fromImage && flavor !== fromImage) {
    throw hardwareError(key, `${key}=${flavor} conflicts with the image's ${imageKey}=${fromImage}.`);
  }
  return flavor || fromImage || undefined;
}

/** The trait an emulated TPM needs (`hw:tpm_version`, `hw:tpm_model`), if one is asked for. */
export function tpmTrait(specs: Specs, image: ImageProperties): string | undefined {
  const version = unique(specs, image, 'hw:tpm_version', 'hw_tpm_version');
  if (version === undefined) return undefined;
  oneOf('hw:tpm_version', version, ['1.2', '2.0']);
  const model = unique(specs, image, 'hw:tpm_model', 'hw_tpm_model');
  oneOf('hw:tpm_model', model, ['tpm-tis', 'tpm-crb']);
  if (model === 'tpm-crb' && version !== '2.0') {
    throw hardwareError('hw:tpm_model', 'hw:tpm_model=tpm-crb needs hw:tpm_version=2.0.');
  }
  return version === '1.2' ? 'COMPUTE_SECURITY_TPM_1_2' : 'COMPUTE_SECURITY_TPM_2_0';
}

/** Whether UEFI secure boot is required (`os:secure_boot`). */
export function secureBootRequired(specs: Specs, image: ImageProperties): boolean {
  const policy = unique(specs, image, 'os:secure_boot', 'os_secure_boot');
  if (policy === undefined) return false;
  oneOf('os:secure_boot', policy, ['required', 'disabled', 'optional']);
  return policy === 'required';
}

/** The PCI NUMA affinity policy (`hw:pci_numa_affinity_policy`). */
export function pciNumaPolicy(specs: Specs, image: ImageProperties): string | undefined {
  const key = 'hw:pci_numa_affinity_policy';
  const flavor = specs[key];
  const fromImage = image.hw_pci_numa_affinity_policy;
  if (flavor && fromImage && flavor !== fromImage) {
    throw hardwareError(key, `${key}=${flavor} conflicts with the image's hw_pci_numa_affinity_policy.`);
  }
  const policy = flavor || fromImage;
  oneOf(key, policy, ['required', 'legacy', 'preferred', 'socket']);
  return policy || undefined;
}

/** The persistent-memory resource classes and counts of `hw:pmem` (`4GB,4GB` is two CUSTOM_PMEM_NAMESPACE_4GB). */
export function pmemResources(specs: Specs): Map<string, number> {
  const out = new Map<string, number>();
  for (const label of (specs['hw:pmem'] ?? '').split(',')) {
    const name = pyStrip(label);
    if (!name) continue;
    const rc = `CUSTOM_${`PMEM_NAMESPACE_${name}`.replace(/[^0-9A-Za-z]+/g, '_').toUpperCase()}`;
    out.set(rc, (out.get(rc) ?? 0) + 1);
  }
  return out;
}
