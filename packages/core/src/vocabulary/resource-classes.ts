import { z } from 'zod';

/**
 * Standard resource classes of os-resource-classes 1.1.0 (the newest
 * release), in the library's order, which is also the order Placement
 * assigns their internal ids.
 */
export const STANDARD_RESOURCE_CLASSES = [
  'VCPU',
  'MEMORY_MB',
  'DISK_GB',
  'PCI_DEVICE',
  'SRIOV_NET_VF',
  'NUMA_SOCKET',
  'NUMA_CORE',
  'NUMA_THREAD',
  'NUMA_MEMORY_MB',
  'IPV4_ADDRESS',
  'VGPU',
  'VGPU_DISPLAY_HEAD',
  'NET_BW_EGR_KILOBIT_PER_SEC',
  'NET_BW_IGR_KILOBIT_PER_SEC',
  'PCPU',
  'MEM_ENCRYPTION_CONTEXT',
  'FPGA',
  'PGPU',
  'NET_PACKET_RATE_KILOPACKET_PER_SEC',
  'NET_PACKET_RATE_EGR_KILOPACKET_PER_SEC',
  'NET_PACKET_RATE_IGR_KILOPACKET_PER_SEC',
] as const;

/** One of the standard resource classes. */
export type StandardResourceClass = (typeof STANDARD_RESOURCE_CLASSES)[number];

/** Custom resource class names: `CUSTOM_` then upper-case letters, digits and underscores. */
export const CUSTOM_RESOURCE_CLASS_PATTERN = /^CUSTOM_[A-Z0-9_]+$/;

/** Placement's column size for resource class names. */
export const MAX_RESOURCE_CLASS_LENGTH = 255;

const STANDARD = new Set<string>(STANDARD_RESOURCE_CLASSES);

/** True for a standard resource class name. */
export function isStandardResourceClass(name: string): name is StandardResourceClass {
  return STANDARD.has(name);
}

/** True for a standard or syntactically valid custom resource class name. */
export function isResourceClassName(name: string): boolean {
  return (
    STANDARD.has(name) ||
    (name.length <= MAX_RESOURCE_CLASS_LENGTH && CUSTOM_RESOURCE_CLASS_PATTERN.test(name))
  );
}

/** A standard or custom resource class name. */
export const ResourceClassSchema = z
  .string()
  .min(1)
  .max(MAX_RESOURCE_CLASS_LENGTH)
  .refine(isResourceClassName, {
    message: `must be a standard resource class or match ${CUSTOM_RESOURCE_CLASS_PATTERN.source}`,
  });
