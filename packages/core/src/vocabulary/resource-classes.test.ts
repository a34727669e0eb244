import { describe, expect, it } from 'vitest';
import {
  isResourceClassName,
  isStandardResourceClass,
  ResourceClassSchema,
  STANDARD_RESOURCE_CLASSES,
} from './resource-classes.js';

describe('resource classes', () => {
  it('lists the 21 standard classes of os-resource-classes 1.1.0 in library order', () => {
    expect(STANDARD_RESOURCE_CLASSES).toHaveLength(21);
    expect(STANDARD_RESOURCE_CLASSES.slice(0, 3)).toEqual(['VCPU', 'MEMORY_MB', 'DISK_GB']);
  });

  it('accepts standard and custom names only', () => {
    expect(isStandardResourceClass('PCPU')).toBe(true);
    expect(isStandardResourceClass('CUSTOM_X')).toBe(false);
    expect(isResourceClassName('CUSTOM_BAREMETAL_GOLD')).toBe(true);
    expect(isResourceClassName('vcpu')).toBe(false);
    expect(isResourceClassName('CUSTOM_')).toBe(false);
    expect(ResourceClassSchema.safeParse('DISK_GB').success).toBe(true);
    expect(ResourceClassSchema.safeParse('DISK').success).toBe(false);
  });
});
