import { describe, expect, it } from 'vitest';
import {
  CustomTraitSchema,
  isCustomTrait,
  isTraitName,
  LATEST_OS_TRAITS,
  standardTraits,
  TraitNameSchema,
  traitNameSchema,
  traitRelease,
} from './traits.js';

describe('standard traits', () => {
  it('knows the newest release (377 names) and Debian 12 (2.9.0, 345 names)', () => {
    expect(LATEST_OS_TRAITS).toBe('3.9.0');
    expect(standardTraits().size).toBe(377);
    expect(standardTraits('2.9.0').size).toBe(345);
    expect(standardTraits('1.0.0').size).toBe(272);
  });

  it('treats a release between two known ones as the older one', () => {
    expect(standardTraits('2.9.5').size).toBe(345);
    expect(standardTraits('0.9.0').size).toBe(272);
  });

  it('knows when a trait was added', () => {
    expect(traitRelease('HW_NVME_BES')).not.toBe('2.9.0');
    expect(standardTraits('2.9.0').has('HW_NVME_BES')).toBe(false);
    expect(standardTraits().has('HW_NVME_BES')).toBe(true);
    expect(traitRelease('HW_CPU_X86_AVX2')).toBe('1.0.0');
    expect(traitRelease('CUSTOM_X')).toBeUndefined();
  });
});

describe('trait names', () => {
  it('accepts standard and custom names, case-sensitively', () => {
    expect(isTraitName('HW_CPU_X86_VMX')).toBe(true);
    expect(isTraitName('hw_cpu_x86_vmx')).toBe(false);
    expect(isTraitName('CUSTOM_RAID1')).toBe(true);
    expect(isTraitName('CUSTOM_')).toBe(false);
    expect(isTraitName('CUSTOM_lower')).toBe(false);
    expect(isTraitName('HW_NVME_BES', '2.9.0')).toBe(false);
  });

  it('limits custom names to 255 characters', () => {
    expect(isCustomTrait(`CUSTOM_${'A'.repeat(248)}`)).toBe(true);
    expect(isCustomTrait(`CUSTOM_${'A'.repeat(249)}`)).toBe(false);
  });

  it('validates with zod schemas', () => {
    expect(TraitNameSchema.safeParse('COMPUTE_NODE').success).toBe(true);
    expect(TraitNameSchema.safeParse('my-trait').success).toBe(false);
    expect(TraitNameSchema.safeParse('').success).toBe(false);
    expect(traitNameSchema('2.9.0').safeParse('HW_NVME_BES').success).toBe(false);
    expect(CustomTraitSchema.safeParse('CUSTOM_A').success).toBe(true);
    expect(CustomTraitSchema.safeParse('HW_CPU_X86_VMX').success).toBe(false);
  });
});
